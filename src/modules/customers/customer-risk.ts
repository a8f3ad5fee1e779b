import { shapedStatement } from '../../db/statement-shapes.ts';
import { sql, type Expression, type RawBuilder } from 'kysely';
import type { DbExecutor } from '../../db/database.ts';
import type { SqlDialect } from '../../db/dialect.ts';

/**
 * A customer's risk (facturascripts-model.md 3.13): `riesgoalcanzado`, what it owes and has
 * ordered, kept by the documents module (which owns what it is computed from) through these, and
 * `riesgomax`, its limit (none when null or 0).
 */
export interface CustomerRisk {
  riesgoalcanzado: number;
  riesgomax: number;
}

/** The risk of a customer row (`clientes`). */
export const riskOf = (customer: Record<string, unknown>): CustomerRisk => ({
  riesgoalcanzado: Number(customer.riesgoalcanzado ?? 0),
  riesgomax: Number(customer.riesgomax ?? 0),
});

/**
 * Locks the customer's row until the transaction ends and reads its risk: risk updates of one
 * customer take turns, each computed from what the others committed. Undefined for no customer.
 */
export async function lockCustomerRisk(db: DbExecutor, dialect: SqlDialect, codcliente: string): Promise<CustomerRisk | undefined> {
  const row = await dialect.locking(db.selectFrom('clientes').select(['riesgoalcanzado', 'riesgomax']).where('codcliente', '=', codcliente)).executeTakeFirst();
  return row && riskOf(row);
}

/** Stores the customer's reached risk, given as an SQL expression (computed by the database). */
export async function storeCustomerRisk(db: DbExecutor, codcliente: string, risk: Expression<number>): Promise<void> {
  await db.updateTable('clientes').set({ riesgoalcanzado: risk }).where('codcliente', '=', codcliente).execute();
}

/**
 * Every customer's reached risk stored as `counted` gives it (an expression of the customer's code),
 * in the caller's transaction: a recount of the whole list (an import). Answers how many changed.
 */
export async function storeEveryRisk(db: DbExecutor, counted: (codcliente: RawBuilder<unknown>) => RawBuilder<number>): Promise<number> {
  const risk = counted(sql.ref('clientes.codcliente'));
  const { rows } = await sql<{ n: unknown }>`SELECT COUNT(*) AS n FROM clientes WHERE ABS(COALESCE(riesgoalcanzado, 0) - ${risk}) > 0.0001`.execute(db);
  await db.updateTable('clientes').set({ riesgoalcanzado: risk }).execute();
  return Number(rows[0]?.n ?? 0);
}

/** The customer's reached risk as stored. */
export async function reachedRiskOf(db: DbExecutor, codcliente: string): Promise<number> {
  const row = await db.selectFrom('clientes').select('riesgoalcanzado').where('codcliente', '=', codcliente).executeTakeFirst();
  return Number(row?.riesgoalcanzado ?? 0);
}

/**
 * A page of customers by code (after `after`, at most `limit`), each with its stored risk and
 * `counted(codcliente)`, an SQL expression of the customer's code column, read in one statement
 * (one snapshot: the two are comparable).
 */
export async function storedAndCountedRisks(db: DbExecutor, after: string, limit: number, counted: (codcliente: RawBuilder<unknown>) => RawBuilder<number>) {
  const rows = await db.selectFrom('clientes').select(['codcliente', 'riesgoalcanzado', counted(sql.ref('clientes.codcliente')).as('counted')])
    .where('codcliente', '>', after).orderBy('codcliente').limit(limit).execute();
  return rows.map((row) => ({ codcliente: String(row.codcliente), stored: Number(row.riesgoalcanzado ?? 0), counted: Number(row.counted ?? 0) }));
}

/**
 * The statement adding `delta` to the customer's reached risk (rounded to `decimals`), for a writer
 * that sends statements together: the customer's row lock is taken by it.
 */
export function addToRiskStatement(db: DbExecutor, codcliente: string, delta: number, decimals: number) {
  const places = Math.trunc(decimals);
  return shapedStatement(db, `risk:add:${places}`, [delta, codcliente], (value) => db.updateTable('clientes')
    .set({ riesgoalcanzado: sql`ROUND(CAST(COALESCE(riesgoalcanzado, 0) + ${value(0)} AS DECIMAL(20, 6)), ${sql.raw(String(places))})` })
    .where('codcliente', '=', value(1)));
}

/** The customer's reached risk as stored, as an expression to read in a batch's last read. */
export function reachedRiskRead(codcliente: string): RawBuilder<number> {
  return sql<number>`(SELECT riesgoalcanzado FROM clientes WHERE codcliente = ${codcliente})`;
}
