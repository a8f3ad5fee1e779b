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
