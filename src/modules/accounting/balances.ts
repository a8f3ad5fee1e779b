import { sql, type RawBuilder } from 'kysely';
import type { DbExecutor, Engine } from '../../db/database.ts';
import { compileStatement, type Statement } from '../../db/statement-batch.ts';
import { shapedStatement } from '../../db/statement-shapes.ts';
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
  const moved = (sum: Decimal, amount: number) => (amount === 0 ? sum : sign === 1 ? sum.plus(dec(amount)) : sum.minus(dec(amount)));
  deltas.set(id, { debe: moved(current.debe, debe), haber: moved(current.haber, haber) });
}

const rounded = (expression: RawBuilder<unknown>) => sql`ROUND(CAST(${expression} AS DECIMAL(24, 8)), 6)`;

/** The rows that move (ids in order) with their differences as decimal text; undefined when none does. */
interface Moves {
  ids: number[];
  debe: string[];
  haber: string[];
}

function movesOf(deltas: Deltas): Moves | undefined {
  const ids = [...deltas.keys()].filter((id) => !deltas.get(id)!.debe.isZero() || !deltas.get(id)!.haber.isZero()).sort((a, b) => a - b);
  if (!ids.length) return undefined;
  return { ids, debe: ids.map((id) => deltas.get(id)!.debe.toString()), haber: ids.map((id) => deltas.get(id)!.haber.toString()) };
}

/** A shaped statement's values for `moves`: the ids, then the `debe` differences, then the `haber` ones (see `assignments`). */
const valuesOf = (moves: Moves) => [...moves.ids, ...moves.debe, ...moves.haber];

/**
 * The assignments adding each of `n` rows its own difference (`CASE id WHEN ...`), whose values a
 * shaped statement holds from `at`: the ids, then the `debe` differences, then the `haber` ones.
 */
function assignments(key: 'idsubcuenta' | 'idcuenta', n: number, value: (index: number) => unknown, at = 0) {
  const caseOf = (side: 0 | 1) =>
    sql`CASE ${sql.ref(key)} ${sql.join(Array.from({ length: n }, (_, i) => sql`WHEN ${value(at + i)} THEN CAST(${value(at + (1 + side) * n + i)} AS DECIMAL(24, 8))`), sql` `)} ELSE 0 END`;
  // `saldo` first: MariaDB evaluates assignments left to right, each seeing the ones before it.
  return {
    saldo: rounded(sql`(debe + ${caseOf(0)}) - (haber + ${caseOf(1)})`),
    debe: rounded(sql`debe + ${caseOf(0)}`),
    haber: rounded(sql`haber + ${caseOf(1)}`),
  };
}

const idsAt = (n: number, value: (index: number) => unknown, at = 0) => Array.from({ length: n }, (_, i) => value(at + i));

/** One UPDATE adding each row's own difference, rows in id order; undefined when nothing moves. */
function deltasStatement(db: DbExecutor, table: 'subcuentas' | 'cuentas', key: 'idsubcuenta' | 'idcuenta', deltas: Deltas) {
  const moves = movesOf(deltas);
  if (!moves) return undefined;
  const n = moves.ids.length;
  return shapedStatement(db, `balances:${table}:${n}`, valuesOf(moves), (value) => db.updateTable(table).set(assignments(key, n, value)).where(key, 'in', idsAt(n, value)));
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
  const [sub, accounts] = [movesOf(subDeltas), movesOf(accountDeltas)];
  if (!sub || !accounts || engine === undefined || engine === 'sqlite') {
    return [deltasStatement(db, 'subcuentas', 'idsubcuenta', subDeltas), deltasStatement(db, 'cuentas', 'idcuenta', accountDeltas)].filter((statement) => statement !== undefined);
  }
  const [n, m] = [sub.ids.length, accounts.ids.length];
  if (engine === 'postgres') {
    return [shapedStatement(db, `balances:both:${n}:${m}`, [...valuesOf(sub), ...valuesOf(accounts)], (value) => db
      .with('moved', (cte) => cte.updateTable('subcuentas').set(assignments('idsubcuenta', n, value)).where('idsubcuenta', 'in', idsAt(n, value)))
      .updateTable('cuentas').set(assignments('idcuenta', m, value, 3 * n)).where('idcuenta', 'in', idsAt(m, value, 3 * n)))];
  }
  return [bothTables(db, subDeltas, accountDeltas)];
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
function bothTables(db: DbExecutor, subDeltas: Deltas, accountDeltas: Deltas) {
  // Every row of each map moves (the sub-accounts' rows and their accounts', zero differences too).
  const all = (deltas: Deltas) => {
    const ids = [...deltas.keys()].sort((a, b) => a - b);
    const side = (pick: (delta: { debe: Decimal; haber: Decimal }) => Decimal) => ids.map((id) => pick(deltas.get(id)!).toString());
    return { ids, sides: [side((d) => d.debe), side((d) => d.haber), side((d) => d.debe.minus(d.haber))] };
  };
  const [sub, accounts] = [all(subDeltas), all(accountDeltas)];
  const [n, m] = [sub.ids.length, accounts.ids.length];
  // Values: the sub-accounts' ids, their debe, haber and saldo differences; then the accounts' the same way.
  const values = [...sub.ids, ...sub.sides.flat(), ...accounts.ids, ...accounts.sides.flat()];
  return shapedStatement(db, `balances:mysql:${n}:${m}`, values, (value) => {
    const moved = (alias: string, key: string, count: number, at: number, side: 'debe' | 'haber' | 'saldo') => {
      const offset = at + (1 + ['debe', 'haber', 'saldo'].indexOf(side)) * count;
      return sql`${sql.ref(`${alias}.${side}`)} = ${rounded(sql`${sql.ref(`${alias}.${side}`)} + CASE ${sql.ref(`${alias}.${key}`)} ${sql.join(Array.from({ length: count }, (_, i) => sql`WHEN ${value(at + i)} THEN CAST(${value(offset + i)} AS DECIMAL(24, 8))`), sql` `)} ELSE 0 END`)}`;
    };
    const sets = (['debe', 'haber', 'saldo'] as const).flatMap((side) => [moved('s', 'idsubcuenta', n, 0, side), moved('c', 'idcuenta', m, 4 * n, side)]);
    return sql`UPDATE subcuentas s, cuentas c SET ${sql.join(sets)}
    WHERE s.idsubcuenta IN (${sql.join(idsAt(n, value))}) AND c.idcuenta IN (${sql.join(idsAt(m, value, 4 * n))})`;
  });
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
