import { sql, type RawBuilder } from 'kysely';
import type { DbExecutor, Engine } from '../../db/database.ts';
import { compileStatement, type Statement } from '../../db/statement-batch.ts';
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

/** One UPDATE adding each row's own difference (`CASE id WHEN ...`), rows in id order; undefined when nothing moves. */
function deltasStatement(db: DbExecutor, table: 'subcuentas' | 'cuentas', key: 'idsubcuenta' | 'idcuenta', deltas: Deltas) {
  const moves = deltaSets(key, deltas);
  return moves && db.updateTable(table).set(moves.set).where(key, 'in', moves.ids);
}

/** The rows that move (ids in order) and the assignments that move them, or undefined when none does. */
function deltaSets(key: 'idsubcuenta' | 'idcuenta', deltas: Deltas) {
  const ids = [...deltas.keys()].filter((id) => !deltas.get(id)!.debe.isZero() || !deltas.get(id)!.haber.isZero()).sort((a, b) => a - b);
  if (!ids.length) return undefined;
  const caseOf = (side: 'debe' | 'haber') =>
    sql`CASE ${sql.ref(key)} ${sql.join(ids.map((id) => sql`WHEN ${id} THEN CAST(${deltas.get(id)![side].toString()} AS DECIMAL(24, 8))`), sql` `)} ELSE 0 END`;
  // `saldo` first: MariaDB evaluates assignments left to right, each seeing the ones before it.
  return {
    ids,
    set: {
      saldo: rounded(sql`(debe + ${caseOf('debe')}) - (haber + ${caseOf('haber')})`),
      debe: rounded(sql`debe + ${caseOf('debe')}`),
      haber: rounded(sql`haber + ${caseOf('haber')}`),
    },
  };
}

/** Each sub-account's account and every account above it, by sub-account id (the tree of `parent_idcuenta`). */
export type AccountTree = ReadonlyMap<number, readonly number[]>;

/** The accounts above each of the sub-accounts `ids`, in one read. */
export async function accountTree(db: DbExecutor, ids: readonly number[]): Promise<Map<number, number[]>> {
  const tree = new Map<number, number[]>(ids.map((id) => [id, []]));
  if (!ids.length) return tree;
  const rows = await sql<{ sub: number; id: number }>`
    WITH RECURSIVE up(sub, id, depth) AS (
      SELECT idsubcuenta, idcuenta, 0 FROM subcuentas WHERE idsubcuenta IN (${sql.join([...ids])})
      UNION ALL
      SELECT up.sub, c.parent_idcuenta, up.depth + 1 FROM cuentas c JOIN up ON c.idcuenta = up.id
      WHERE c.parent_idcuenta IS NOT NULL AND up.depth < ${MAX_DEPTH}
    )
    SELECT sub, id FROM up`.execute(db);
  for (const { sub, id } of rows.rows) tree.get(Number(sub))?.push(Number(id));
  return tree;
}

/** The difference lines added and removed make to each sub-account. */
function subaccountDeltas(added: readonly LineAmounts[], removed: readonly LineAmounts[]): Deltas {
  const subDeltas: Deltas = new Map();
  for (const line of added) if (line.idsubcuenta !== null && line.idsubcuenta !== undefined) add(subDeltas, Number(line.idsubcuenta), Number(line.debe ?? 0), Number(line.haber ?? 0), 1);
  for (const line of removed) if (line.idsubcuenta !== null && line.idsubcuenta !== undefined) add(subDeltas, Number(line.idsubcuenta), Number(line.debe ?? 0), Number(line.haber ?? 0), -1);
  return subDeltas;
}

/**
 * The statements moving the balances by the lines `added` (and back by `removed`), given the tree
 * above their sub-accounts, for a writer that sends statements together (a document's commit):
 * one statement where the engine updates two tables in one (PostgreSQL: the sub-accounts' update
 * in a WITH; MariaDB: a multi-table update, each column moved by its own difference, since it
 * orders such assignments as it likes), two on SQLite, whose statements cost no round trip.
 */
export function balanceStatements(db: DbExecutor, tree: AccountTree, added: readonly LineAmounts[], removed: readonly LineAmounts[] = [], engine?: Engine): Statement<unknown>[] {
  const subDeltas = subaccountDeltas(added, removed);
  const accountDeltas = accountDeltasOf(tree, subDeltas);
  const [sub, accounts] = [deltaSets('idsubcuenta', subDeltas), deltaSets('idcuenta', accountDeltas)];
  if (!sub || !accounts || engine === undefined || engine === 'sqlite') {
    return [deltasStatement(db, 'subcuentas', 'idsubcuenta', subDeltas), deltasStatement(db, 'cuentas', 'idcuenta', accountDeltas)].filter((statement) => statement !== undefined);
  }
  if (engine === 'postgres') {
    return [db.with('moved', (cte) => cte.updateTable('subcuentas').set(sub.set).where('idsubcuenta', 'in', sub.ids)).updateTable('cuentas').set(accounts.set).where('idcuenta', 'in', accounts.ids)];
  }
  return [bothTables(subDeltas, accountDeltas)];
}

/** The difference of each account: its sub-accounts' below it, summed. */
function accountDeltasOf(tree: AccountTree, subDeltas: Deltas): Deltas {
  const accountDeltas: Deltas = new Map();
  for (const [sub, delta] of subDeltas) {
    for (const id of tree.get(sub) ?? []) add(accountDeltas, id, delta.debe.toNumber(), delta.haber.toNumber(), 1);
  }
  return accountDeltas;
}

/** MariaDB: both tables' moves in one multi-table update, each column by its own difference (no column reads another). */
function bothTables(subDeltas: Deltas, accountDeltas: Deltas) {
  const moved = (alias: string, key: string, deltas: Deltas, side: 'debe' | 'haber' | 'saldo') => {
    const ids = [...deltas.keys()].sort((a, b) => a - b);
    const amount = (id: number) => side === 'saldo' ? deltas.get(id)!.debe.minus(deltas.get(id)!.haber) : deltas.get(id)![side];
    return sql`${sql.ref(`${alias}.${side}`)} = ${rounded(sql`${sql.ref(`${alias}.${side}`)} + CASE ${sql.ref(`${alias}.${key}`)} ${sql.join(ids.map((id) => sql`WHEN ${id} THEN CAST(${amount(id).toString()} AS DECIMAL(24, 8))`), sql` `)} ELSE 0 END`)}`;
  };
  const sets = (['debe', 'haber', 'saldo'] as const).flatMap((side) => [moved('s', 'idsubcuenta', subDeltas, side), moved('c', 'idcuenta', accountDeltas, side)]);
  return sql`UPDATE subcuentas s, cuentas c SET ${sql.join(sets)}
    WHERE s.idsubcuenta IN (${sql.join([...subDeltas.keys()])}) AND c.idcuenta IN (${sql.join([...accountDeltas.keys()])})`;
}

/**
 * Moves the balances by the lines `added` and back by the lines `removed` (both as stored): the
 * sub-accounts in one statement, their accounts and every account above in one more (after one
 * read of the tree above the sub-accounts).
 */
export async function moveBalances(db: DbExecutor, added: readonly LineAmounts[], removed: readonly LineAmounts[] = []): Promise<void> {
  const subDeltas = subaccountDeltas(added, removed);
  if (![...subDeltas.values()].some((delta) => !delta.debe.isZero() || !delta.haber.isZero())) return;
  const tree = await accountTree(db, [...subDeltas.keys()]);
  for (const statement of balanceStatements(db, tree, added, removed)) await db.executeQuery(compileStatement(db, statement));
}
