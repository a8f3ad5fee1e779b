import type { DbExecutor } from '../../db/database.ts';
import { subjectWithAddress } from '../contacts/index.ts';
import { dbBoolean } from '../../db/row-codec.ts';

/** A customer by code, or undefined. */
export async function customerOf(db: DbExecutor, codcliente: string): Promise<Record<string, unknown> | undefined> {
  return db.selectFrom('clientes').selectAll().where('codcliente', '=', codcliente).executeTakeFirst();
}

/** A customer's payment days (`diaspago`, e.g. "1,15"), or null. */
export async function paymentDaysOf(db: DbExecutor, codcliente: string): Promise<string | null> {
  const customer = await db.selectFrom('clientes').select('diaspago').where('codcliente', '=', codcliente).executeTakeFirst();
  return (customer?.diaspago as string | null | undefined) ?? null;
}

/** A customer's bank account to debit: its main one (`principal`), else the first; or undefined. */
export async function debitAccountOf(db: DbExecutor, codcliente: string): Promise<{ iban: string | null; swift: string | null; mandato: string | null } | undefined> {
  const rows = await db.selectFrom('cuentasbcocli').select(['iban', 'swift', 'mandato', 'principal']).where('codcliente', '=', codcliente).orderBy('codcuenta', 'asc').execute();
  const main = rows.find((row) => dbBoolean(row.principal)) ?? rows[0];
  return main ? { iban: (main.iban as string | null) ?? null, swift: (main.swift as string | null) ?? null, mandato: (main.mandato as string | null) ?? null } : undefined;
}

/** A customer with its invoicing contact's address (`idcontactofact`), in one read. */
export function customerWithAddress(db: DbExecutor, codcliente: string) {
  return subjectWithAddress(db, 'clientes', 'codcliente', codcliente, 'idcontactofact');
}
