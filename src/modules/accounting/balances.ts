import { sql, type RawBuilder } from 'kysely';
import type { DbExecutor } from '../../db/database.ts';
import type { Decimal } from 'decimal.js';
import { dec } from '../../models/round.ts';

/**
 * Sub-account and account balances (`debe`, `haber`, `saldo = debe - haber`), kept exact in the
 * transaction of every change of entry lines: each change adds its difference to its sub-accounts
 * and to every account above them (the tree of `parent_idcuenta`), rows in id order.
 * Postings move them under their year's chart lock; lines written by hand through the API do not
 * take it (a rare deadlock there is retried by the transaction). Amounts are summed
 * as decimals and every stored sum is rounded to 6 places, so that binary fractions never creep in
 * however many lines a sub-account collects.
 */

/** An entry line's amounts, as stored. */
export interface LineAmounts {
  idsubcuenta?: unknown;
  debe?: unknown;
  haber?: unknown;
}

/** Deeper than any chart: a tree made circular by hand stops here instead of looping. */
const MAX_DEPTH = 16;

type Deltas = Map<number, { debe: Decimal; haber: Decimal }>;

function add(deltas: Deltas, id: number, debe: number, haber: number, sign: 1 | -1): void {
  const current = deltas.get(id) ?? { debe: dec(0), haber: dec(0) };
  deltas.set(id, { debe: current.debe.plus(dec(debe).times(sign)), haber: current.haber.plus(dec(haber).times(sign)) });
}

const rounded = (expression: RawBuilder<unknown>) => sql`ROUND(CAST(${expression} AS DECIMAL(24, 8)), 6)`;

/** One UPDATE adding each row's own difference (`CASE id WHEN ...`), rows in id order. */
async function applyDeltas(db: DbExecutor, table: 'subcuentas' | 'cuentas', key: 'idsubcuenta' | 'idcuenta', deltas: Deltas): Promise<void> {
  const ids = [...deltas.keys()].filter((id) => !deltas.get(id)!.debe.isZero() || !deltas.get(id)!.haber.isZero()).sort((a, b) => a - b);
  if (!ids.length) return;
  const caseOf = (side: 'debe' | 'haber') =>
    sql`CASE ${sql.ref(key)} ${sql.join(ids.map((id) => sql`WHEN ${id} THEN CAST(${deltas.get(id)![side].toString()} AS DECIMAL(24, 8))`), sql` `)} ELSE 0 END`;
  // `saldo` first: MariaDB evaluates assignments left to right, each seeing the ones before it.
  await db.updateTable(table).set({
    saldo: rounded(sql`(debe + ${caseOf('debe')}) - (haber + ${caseOf('haber')})`),
    debe: rounded(sql`debe + ${caseOf('debe')}`),
    haber: rounded(sql`haber + ${caseOf('haber')}`),
  }).where(key, 'in', ids).execute();
}

/**
 * Moves the balances by the lines `added` and back by the lines `removed` (both as stored): the
 * sub-accounts in one statement, their accounts and every account above in one more (after one
 * read of the tree above the sub-accounts).
 */
export async function moveBalances(db: DbExecutor, added: readonly LineAmounts[], removed: readonly LineAmounts[] = []): Promise<void> {
  const subDeltas: Deltas = new Map();
  for (const line of added) if (line.idsubcuenta !== null && line.idsubcuenta !== undefined) add(subDeltas, Number(line.idsubcuenta), Number(line.debe ?? 0), Number(line.haber ?? 0), 1);
  for (const line of removed) if (line.idsubcuenta !== null && line.idsubcuenta !== undefined) add(subDeltas, Number(line.idsubcuenta), Number(line.debe ?? 0), Number(line.haber ?? 0), -1);
  if (![...subDeltas.values()].some((delta) => !delta.debe.isZero() || !delta.haber.isZero())) return;
  const ids = [...subDeltas.keys()];
  // Each sub-account's account and the accounts above it.
  const tree = await sql<{ sub: number; id: number }>`
    WITH RECURSIVE up(sub, id, depth) AS (
      SELECT idsubcuenta, idcuenta, 0 FROM subcuentas WHERE idsubcuenta IN (${sql.join(ids)})
      UNION ALL
      SELECT up.sub, c.parent_idcuenta, up.depth + 1 FROM cuentas c JOIN up ON c.idcuenta = up.id
      WHERE c.parent_idcuenta IS NOT NULL AND up.depth < ${MAX_DEPTH}
    )
    SELECT sub, id FROM up`.execute(db);
  const accountDeltas: Deltas = new Map();
  for (const { sub, id } of tree.rows) {
    const delta = subDeltas.get(Number(sub))!;
    add(accountDeltas, Number(id), delta.debe.toNumber(), delta.haber.toNumber(), 1);
  }
  await applyDeltas(db, 'subcuentas', 'idsubcuenta', subDeltas);
  await applyDeltas(db, 'cuentas', 'idcuenta', accountDeltas);
}
