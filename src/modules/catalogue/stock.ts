import { sql, type RawBuilder } from 'kysely';
import type { DbExecutor } from '../../db/database.ts';
import type { SqlDialect } from '../../db/dialect.ts';
import type { Statement } from '../../db/statement-batch.ts';
import { shapedStatement } from '../../db/statement-shapes.ts';
import { dbBoolean } from '../../db/row-codec.ts';
import { AppError } from '../../errors.ts';
import { roundNumber } from '../../models/round.ts';

/**
 * The one place stock changes (facturascripts-model.md 3.10): document lines move it, and writes
 * to the Stock model itself end here too, so a product's and a variant's `stockfis` and a row's
 * `disponible` are right after any stock write. The rules are expressed once, in SQL, so that
 * concurrent writers never lose each other's moves.
 */

/** The stock effect of a line: mode (`actualizastock`), quantity and already-served quantity. */
export interface StockEffect {
  mode: number;
  cantidad: number;
  servido: number;
}

export interface StockMove {
  codalmacen: string;
  referencia: string | null;
  before: StockEffect | undefined;
  after: StockEffect | undefined;
  /** Names the line in a `not-enough-stock` error. */
  line: string;
}

const NONE: StockEffect = { mode: 0, cantidad: 0, servido: 0 };

/** Quantities keep 3 decimals; PostgreSQL rounds only decimals, hence the cast (MySQL needs the scale). */
const round3 = (expression: ReturnType<typeof sql>) => sql`ROUND(CAST(${expression} AS DECIMAL(20, 6)), 3)`;

function deltas(effect: StockEffect): { cantidad: number; reservada: number; pterecibir: number } {
  // A negative line never counts more than it holds as served (reference applyStockChanges).
  const servido = effect.cantidad < 0 && effect.servido < effect.cantidad ? effect.cantidad : effect.servido;
  const pending = effect.cantidad - servido;
  return {
    cantidad: effect.mode === 1 || effect.mode === -1 ? effect.mode * pending : 0,
    reservada: effect.mode === -2 ? pending : 0,
    pterecibir: effect.mode === 2 ? pending : 0,
  };
}

/**
 * Moves stock from lines' old effects to their new ones in one warehouse: reverts the old (mode,
 * quantity, served), applies the new, as relative updates, a few statements for all the lines
 * together. Lines without a known reference, and products without stock control, do nothing;
 * selling below zero a product that may not be sold without stock is refused naming the line.
 */
export async function moveStock(db: DbExecutor, dialect: SqlDialect, ...moves: StockMove[]): Promise<void> {
  const pending = stockChanges(moves);
  if (!pending.length) return;
  const products = new Map((await db.selectFrom('variantes as v').innerJoin('productos as p', 'p.idproducto', 'v.idproducto')
    .select(['v.referencia', 'v.idproducto', 'p.nostock', 'p.ventasinstock'])
    .where('v.referencia', 'in', [...new Set(pending.map((c) => c.referencia))]).execute()).map((row) => [String(row.referencia), row]));
  const moved = pending.filter((c) => products.has(c.referencia) && !dbBoolean(products.get(c.referencia)!.nostock));
  for (const codalmacen of new Set(moved.map((c) => c.codalmacen))) {
    const here = moved.filter((c) => c.codalmacen === codalmacen);
    await applyChanges(db, dialect, codalmacen, here, products);
  }
  const references = [...new Set(moved.map((c) => c.referencia))];
  await settleTotals(db, references, [...new Set(references.map((referencia) => Number(products.get(referencia)!.idproducto)))]);
}

/** What lines' moves add up to, per warehouse and reference (several lines may move one reference). */
export interface StockChange {
  codalmacen: string;
  referencia: string;
  cantidad: number;
  reservada: number;
  pterecibir: number;
  /** The lines that sell it (named by a `not-enough-stock` refusal). */
  sells: string[];
}

/** The changes that lines' moves make, those that change nothing left out, in reference order. */
export function stockChanges(moves: readonly StockMove[]): StockChange[] {
  const changes = new Map<string, StockChange>();
  for (const move of moves) {
    const from = move.before ?? NONE;
    const to = move.after ?? NONE;
    if (!move.referencia || (from.mode === 0 && to.mode === 0)) continue;
    const [old, next] = [deltas(from), deltas(to)];
    const key = `${move.codalmacen}\u0000${move.referencia}`;
    const change = changes.get(key) ?? { codalmacen: move.codalmacen, referencia: move.referencia, cantidad: 0, reservada: 0, pterecibir: 0, sells: [] };
    change.cantidad += next.cantidad - old.cantidad;
    change.reservada += next.reservada - old.reservada;
    change.pterecibir += next.pterecibir - old.pterecibir;
    if (to.mode === -1 && next.cantidad - old.cantidad < 0) change.sells.push(move.line);
    changes.set(key, change);
  }
  return [...changes.values()].filter((c) => c.cantidad || c.reservada || c.pterecibir).sort((a, b) => compareText(a.codalmacen, b.codalmacen) || compareText(a.referencia, b.referencia));
}

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** What the stock service needs to know of a product a change moves. */
export interface StockProduct {
  idproducto: number;
  nostock: boolean;
  ventasinstock: boolean;
}

/** Statements that apply stock changes known in advance, and the check to read after them. */
export interface StockStatements {
  statements: Statement<unknown>[];
  /**
   * The first reference (of those that may not go below zero and that a line sold) left below zero,
   * as an SQL expression to read after the statements, or undefined when nothing needs checking.
   */
  short?: RawBuilder<string | null>;
  /** The line that took a reference below zero: the last of those selling it. */
  lineOf(referencia: string): string;
}

/**
 * The statements of `changes` for a writer that sends statements together (a document's commit,
 * docs/performance.md): per warehouse one upsert that creates missing rows and adds the changes to
 * existing ones (rows in reference order: the lock order of stock), then the variants' and the
 * products' `stockfis`. `products` are the flags the caller read with its lines; changes of
 * unknown references and of products without stock control are left out, as `moveStock` does.
 */
export function stockStatements(db: DbExecutor, dialect: SqlDialect, changes: readonly StockChange[], products: ReadonlyMap<string, StockProduct>): StockStatements {
  const moved = changes.filter((c) => products.has(c.referencia) && !products.get(c.referencia)!.nostock);
  const statements: Statement<unknown>[] = [];
  for (const codalmacen of new Set(moved.map((c) => c.codalmacen))) {
    statements.push(upsertStock(db, dialect, moved.filter((c) => c.codalmacen === codalmacen), products));
  }
  const references = [...new Set(moved.map((c) => c.referencia))];
  if (references.length) statements.push(...totalsStatements(db, references, [...new Set(references.map((referencia) => products.get(referencia)!.idproducto))].sort((a, b) => a - b)));
  const checked = moved.filter((c) => c.sells.length && !products.get(c.referencia)!.ventasinstock);
  const lines = new Map(checked.map((c) => [c.referencia, c.sells[c.sells.length - 1]!]));
  const short = checked.length
    ? sql<string | null>`(SELECT MIN(s.referencia) FROM stocks s WHERE s.cantidad < 0 AND (${sql.join(checked.map((c) => sql`(s.codalmacen = ${c.codalmacen} AND s.referencia = ${c.referencia})`), sql` OR `)}))`
    : undefined;
  return { statements, ...(short ? { short } : {}), lineOf: (referencia) => lines.get(referencia) ?? referencia };
}

/** The columns of an upserted stock row, in the order of its values. */
const STOCK_COLUMNS = ['codalmacen', 'referencia', 'idproducto', 'cantidad', 'reservada', 'pterecibir', 'disponible'] as const;

/** One warehouse's changes as one upsert: a missing row is inserted holding the change, an existing one adds it. */
function upsertStock(db: DbExecutor, dialect: SqlDialect, changes: readonly StockChange[], products: ReadonlyMap<string, StockProduct>): Statement<unknown> {
  const r3 = (value: number) => roundNumber(value, 3);
  const values = changes.flatMap((c) => [
    c.codalmacen, c.referencia, products.get(c.referencia)!.idproducto,
    r3(c.cantidad), r3(c.reservada), r3(c.pterecibir), Math.max(0, r3(r3(c.cantidad) - r3(c.reservada))),
  ]);
  return shapedStatement(db, `stock:upsert:${changes.length}`, values, (value) => upsertBuilder(db, dialect, changes.length, value));
}

function upsertBuilder(db: DbExecutor, dialect: SqlDialect, n: number, value: (index: number) => unknown) {
  const rows = Array.from({ length: n }, (_, row) => Object.fromEntries(STOCK_COLUMNS.map((column, i) => [column, value(row * STOCK_COLUMNS.length + i)])));
  const insert = db.insertInto('stocks').values(rows);
  if (dialect.engine === 'mysql') {
    const added = (column: string) => round3(sql`${sql.ref(column)} + VALUES(${sql.ref(column)})`);
    // MariaDB assigns left to right, each assignment seeing the ones before it: `disponible` first.
    return insert.onDuplicateKeyUpdate({
      disponible: round3(dialect.greatest(sql`0`, sql`${added('cantidad')} - ${added('reservada')}`)),
      cantidad: added('cantidad'),
      reservada: added('reservada'),
      pterecibir: added('pterecibir'),
    });
  }
  const added = (column: string) => round3(sql`${sql.ref(`stocks.${column}`)} + ${sql.ref(`excluded.${column}`)}`);
  return insert.onConflict((oc) => oc.columns(['codalmacen', 'referencia']).doUpdateSet({
    disponible: round3(dialect.greatest(sql`0`, sql`${added('cantidad')} - ${added('reservada')}`)),
    cantidad: added('cantidad'),
    reservada: added('reservada'),
    pterecibir: added('pterecibir'),
  }));
}

type ProductFlags = Record<string, unknown>;

/** One warehouse's changes: the rows created when missing, then one relative update for them all. */
async function applyChanges(db: DbExecutor, dialect: SqlDialect, codalmacen: string, changes: Array<{ referencia: string; cantidad: number; reservada: number; pterecibir: number; sells: string[] }>, products: Map<string, ProductFlags>): Promise<void> {
  const references = changes.map((c) => c.referencia);
  const rows = changes.map((c) => ({ codalmacen, referencia: c.referencia, idproducto: products.get(c.referencia)!.idproducto, cantidad: 0, reservada: 0, pterecibir: 0, disponible: 0 }));
  await dialect.insertIgnore(db.insertInto('stocks').values(rows), ['codalmacen', 'referencia']).execute();
  const delta = (pick: (c: (typeof changes)[number]) => number) =>
    sql`CASE referencia ${sql.join(changes.map((c) => sql`WHEN ${c.referencia} THEN CAST(${pick(c)} AS DECIMAL(20, 6))`), sql` `)} ELSE 0 END`;
  const [dc, dr, dp] = [delta((c) => c.cantidad), delta((c) => c.reservada), delta((c) => c.pterecibir)];
  await db.updateTable('stocks')
    .set({
      // First, from the values before this update: MariaDB reads columns already assigned in the same SET.
      disponible: round3(dialect.greatest(sql`0`, sql`${round3(sql`cantidad + ${dc}`)} - ${round3(sql`reservada + ${dr}`)}`)),
      cantidad: round3(sql`cantidad + ${dc}`),
      reservada: round3(sql`reservada + ${dr}`),
      pterecibir: round3(sql`pterecibir + ${dp}`),
    })
    .where('codalmacen', '=', codalmacen).where('referencia', 'in', references)
    .execute();
  const checked = changes.filter((c) => c.sells.length && !dbBoolean(products.get(c.referencia)!.ventasinstock));
  if (!checked.length) return;
  // The rows are now locked by this transaction: the values read are the ones this move produced.
  const stock = await db.selectFrom('stocks').select(['referencia', 'cantidad']).where('codalmacen', '=', codalmacen)
    .where('referencia', 'in', checked.map((c) => c.referencia)).execute();
  const short = checked.find((c) => Number(stock.find((row) => row.referencia === c.referencia)?.cantidad ?? 0) < 0);
  // The line that took the stock below zero: the last of those selling the reference.
  if (short) throw new AppError('not-enough-stock', { line: short.sells[short.sells.length - 1], referencia: short.referencia, codalmacen });
}

/** Variant and product `stockfis`: the sum of their stock rows over every warehouse. */
async function settleTotals(db: DbExecutor, references: string[], productIds: number[]): Promise<void> {
  if (!references.length) return;
  for (const statement of totalsStatements(db, references, productIds)) await db.executeQuery(statement);
}

/** The statements of `settleTotals`: variants by reference, then products by id (the lock order). */
function totalsStatements(db: DbExecutor, references: string[], productIds: number[]) {
  const list = (n: number, value: (index: number) => unknown) => Array.from({ length: n }, (_, i) => value(i));
  return [
    shapedStatement(db, `stock:variants:${references.length}`, references, (value) => db.updateTable('variantes')
      .set({ stockfis: sql`(SELECT ${round3(sql`COALESCE(SUM(s.cantidad), 0)`)} FROM stocks s WHERE s.referencia = variantes.referencia)` })
      .where('referencia', 'in', list(references.length, value))),
    shapedStatement(db, `stock:products:${productIds.length}`, productIds, (value) => db.updateTable('productos')
      .set({ stockfis: sql`(SELECT ${round3(sql`COALESCE(SUM(s.cantidad), 0)`)} FROM stocks s WHERE s.idproducto = productos.idproducto)` })
      .where('idproducto', 'in', list(productIds.length, value))),
  ];
}

/**
 * What follows a change of a stock row: its `disponible` (what is on hand and not reserved, never
 * below zero), and the `stockfis` of its variant and product (the sum over warehouses).
 */
export async function settleStock(db: DbExecutor, dialect: SqlDialect, codalmacen: string, referencia: string, idproducto: number): Promise<void> {
  await db.updateTable('stocks')
    .set({ disponible: round3(dialect.greatest(sql`0`, sql`cantidad - reservada`)) })
    .where('codalmacen', '=', codalmacen).where('referencia', '=', referencia).execute();
  await settleTotals(db, [referencia], [idproducto]);
}

/**
 * Every variant's and product's stock total (`stockfis`) set again from their warehouses' stock,
 * in the caller's transaction (stock written around the stock writers: an import). Answers how
 * many rows had another total.
 */
export async function rebuildStockTotals(trx: DbExecutor): Promise<number> {
  const byVariant = sql`(SELECT COALESCE(SUM(s.cantidad), 0) FROM stocks s WHERE s.referencia = v.referencia)`;
  const byProduct = sql`(SELECT COALESCE(SUM(s.cantidad), 0) FROM stocks s WHERE s.idproducto = p.idproducto)`;
  const { rows } = await sql<{ n: unknown }>`SELECT (SELECT COUNT(*) FROM variantes v WHERE ABS(COALESCE(v.stockfis, 0) - ${byVariant}) > 0.0001)
    + (SELECT COUNT(*) FROM productos p WHERE ABS(COALESCE(p.stockfis, 0) - ${byProduct}) > 0.0001) AS n`.execute(trx);
  await sql`UPDATE variantes SET stockfis = ${round3(sql`(SELECT COALESCE(SUM(s.cantidad), 0) FROM stocks s WHERE s.referencia = variantes.referencia)`)}`.execute(trx);
  await sql`UPDATE productos SET stockfis = ${round3(sql`(SELECT COALESCE(SUM(s.cantidad), 0) FROM stocks s WHERE s.idproducto = productos.idproducto)`)}`.execute(trx);
  return Number(rows[0]?.n ?? 0);
}
