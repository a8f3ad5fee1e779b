import { shapedStatement } from '../../db/statement-shapes.ts';
import type { DbExecutor } from '../../db/database.ts';

type Row = Record<string, unknown>;

/** The rate (`codtarifa`) of a customer group, or null. */
export async function groupRateOf(db: DbExecutor, codgrupo: string): Promise<string | null> {
  const group = await db.selectFrom('gruposclientes').select('codtarifa').where('codgrupo', '=', codgrupo).executeTakeFirst();
  return (group?.codtarifa as string | null | undefined) ?? null;
}

/** An address (`contactos` row) by id, or undefined. */
export async function contactOf(db: DbExecutor, idcontacto: number): Promise<Row | undefined> {
  return db.selectFrom('contactos').selectAll().where('idcontacto', '=', idcontacto).executeTakeFirst();
}

/** A supplier by code, or undefined. */
export async function supplierOf(db: DbExecutor, codproveedor: string): Promise<Row | undefined> {
  return db.selectFrom('proveedores').selectAll().where('codproveedor', '=', codproveedor).executeTakeFirst();
}

/** The address fields a document copies from its subject's contact. */
export const ADDRESS_FIELDS = ['codpais', 'provincia', 'ciudad', 'direccion', 'codpostal', 'apartado'] as const;

/**
 * A customer or supplier row (of its owner's `table`, by `key`) with the address of its contact
 * `contactColumn` in the same read, or undefined: `{ subject, address }` (address undefined when
 * it names no contact, or one that is gone).
 */
export async function subjectWithAddress(db: DbExecutor, table: string, key: string, code: string, contactColumn: string): Promise<{ subject: Row; address?: Row } | undefined> {
  const [row] = (await db.executeQuery<Row>(shapedStatement(db, `subject-with-address:${table}:${key}:${contactColumn}`, [code], (value) => db
    .selectFrom(`${table} as s`).leftJoin('contactos as c', 'c.idcontacto', `s.${contactColumn}`)
    .selectAll('s').select([...ADDRESS_FIELDS.map((field) => `c.${field} as address_${field}`), 'c.idcontacto as address_id'])
    .where(`s.${key}`, '=', value(0))))).rows;
  if (!row) return undefined;
  const subject: Row = {};
  const address: Row = {};
  for (const [name, value] of Object.entries(row)) {
    if (name.startsWith('address_')) address[name.slice('address_'.length)] = value;
    else subject[name] = value;
  }
  return { subject, ...(address.id !== null && address.id !== undefined ? { address } : {}) };
}

/** A supplier with its contact's address (`idcontacto`), in one read. */
export function supplierWithAddress(db: DbExecutor, codproveedor: string) {
  return subjectWithAddress(db, 'proveedores', 'codproveedor', codproveedor, 'idcontacto');
}
