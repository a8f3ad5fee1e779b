import { sql, type QueryResult, type RawBuilder } from 'kysely';
import type { DbExecutor, Engine } from '../../db/database.ts';
import type { Statement } from '../../db/statement-batch.ts';
import { shapedStatement } from '../../db/statement-shapes.ts';
import type { SqlDialect } from '../../db/dialect.ts';
import { failUnless } from '../../db/guard-sql.ts';
import { balanceStatements, type AccountTree } from './balances.ts';
import { companyOfYear, lockedSettlementRead } from './ledger.ts';
import type { NewEntry, NewEntryLine } from './new-entry.ts';

/**
 * An entry written by a writer that sends statements together (a document's commit,
 * docs/performance.md), in two steps, as `writeEntry` writes one statement at a time:
 * 1. after the year's counter lock (`chartLockStatement`), its header, numbered as the year's
 *    highest + 1 by the database (the number depends on the locked row: no read comes back to us
 *    first), and `entryRefusalRead`, what the year and the locked settlements say of it now;
 * 2. its lines and the balances they move (`entryLinesStatements`), naming it by its id once
 *    known, or in the same batch by `newestEntryReference`.
 * A refused entry (closed year, locked settlement) is removed by its writer (`removeEntryHeader`).
 */
export function numberedEntryStatement(db: DbExecutor, dialect: SqlDialect, entry: NewEntry, whenRefused?: 'skip' | 'fail'): Statement<Record<string, unknown>> {
  const values = [entry.codejercicio, entry.idempresa, entry.fecha, entry.concepto, entry.documento, entry.importe, entry.canal, entry.iddiario, dialect.boolean(true)];
  return shapedStatement(db, `entry:numbered:${whenRefused ?? 'always'}`, values, (value) => {
    const [codejercicio, fecha] = [value(0), value(2)] as [string, string];
    const next = db.selectFrom('asientos').select(sql<number>`COALESCE(MAX(numero), 0) + 1`.as('numero')).where('codejercicio', '=', codejercicio).as('n');
    let select = db.selectFrom(next).select([...ENTRY_COLUMNS.map((name, index) => sql`${value(index)}`.as(name)), 'n.numero']);
    // Inserted only while the year takes it (`entryRefusalRead` is null): else nothing is (`skip`), or
    // the statement fails (`fail`: a write committed with its batch, guard-sql.ts).
    const takes = sql<boolean>`${entryRefusalRead(dialect, codejercicio, fecha)} IS NULL`;
    if (whenRefused === 'skip') select = select.where(takes);
    if (whenRefused === 'fail') select = select.where(sql<boolean>`${failUnless(takes)} IS NULL`);
    const insert = db.insertInto('asientos').columns([...ENTRY_COLUMNS, 'numero']).expression(select);
    return dialect.engine === 'mysql' ? insert : insert.returning('idasiento');
  });
}

/** The columns of a numbered entry's header, in the order of its values. */
const ENTRY_COLUMNS = ['codejercicio', 'idempresa', 'fecha', 'concepto', 'documento', 'importe', 'canal', 'iddiario', 'editable'] as const;

/** The id of the entry `numberedEntryStatement` inserted; undefined when a guarded one inserted nothing. */
export function numberedEntryId(engine: Engine, result: QueryResult<Record<string, unknown>>): number | undefined {
  const id = engine === 'mysql' ? result.insertId : result.rows[0]?.idasiento;
  return id === undefined || id === null ? undefined : Number(id);
}

/**
 * Why the year would refuse an entry dated `fecha` now (`closed-exercise`, `locked-settlement` of
 * the year's company), else null: an expression to read under the year's counter lock, where a closing takes it too.
 */
export function entryRefusalRead(dialect: SqlDialect, codejercicio: string, fecha: string): RawBuilder<string | null> {
  return sql<string | null>`CASE
    WHEN EXISTS (SELECT 1 FROM ejercicios WHERE codejercicio = ${codejercicio} AND estado <> 'ABIERTO') THEN 'closed-exercise'
    WHEN ${lockedSettlementRead(dialect, fecha, companyOfYear(codejercicio))} = 1 THEN 'locked-settlement'
    ELSE NULL END`;
}

/** `entryRefusalRead` read on its own (under the year's counter lock, which the caller holds). */
export async function entryRefusalOf(db: DbExecutor, dialect: SqlDialect, codejercicio: string, fecha: string): Promise<'closed-exercise' | 'locked-settlement' | undefined> {
  const answer = await sql<{ why: string | null }>`SELECT ${entryRefusalRead(dialect, codejercicio, fecha)} AS why`.execute(db);
  const why = answer.rows[0]?.why;
  return why === 'closed-exercise' || why === 'locked-settlement' ? why : undefined;
}

/**
 * The entry `numberedEntryStatement` inserted, as SQL, for statements sent with it: under the
 * year's counter lock the year's newest (its highest number; an index lookup).
 */
export function newestEntryReference(codejercicio: unknown): RawBuilder<number> {
  return sql<number>`(SELECT a.idasiento FROM asientos a WHERE a.codejercicio = ${codejercicio} ORDER BY a.numero DESC LIMIT 1)`;
}

/** The entry its lines name: by id, or as the newest of year `newestOf` in SQL (`newestEntryReference`). */
export type EntryOfLines = number | { newestOf: string };

/** The lines of entry `idasiento` (one statement) and the balances they move (two), given the tree above their sub-accounts. */
export function entryLinesStatements(db: DbExecutor, dialect: SqlDialect, idasiento: EntryOfLines, lines: readonly NewEntryLine[], tree: AccountTree): Statement<unknown>[] {
  return [entryLinesInsert(db, dialect, idasiento, lines), ...balanceStatements(db, tree, lines, [], dialect.engine)];
}

/**
 * One INSERT of an entry's lines, as a shape: which of the optional columns each line holds (the
 * columns a line leaves out take their defaults, as Kysely writes them) and how the entry is named.
 */
function entryLinesInsert(db: DbExecutor, dialect: SqlDialect, idasiento: EntryOfLines, lines: readonly NewEntryLine[]): Statement<unknown> {
  const newest = typeof idasiento === 'object';
  const values: unknown[] = [newest ? idasiento.newestOf : idasiento, dialect.boolean(false)];
  const layouts = lines.map((line, orden) => {
    // A column a line leaves undefined is left out of its row, as Kysely leaves it.
    const columns = Object.keys(line).filter((column) => !LINE_FIXED.has(column) && line[column as keyof NewEntryLine] !== undefined);
    values.push(orden);
    for (const column of LINE_FIXED_ORDER) values.push(line[column as keyof NewEntryLine] ?? LINE_DEFAULTS[column] ?? null);
    for (const column of columns) values.push(line[column as keyof NewEntryLine]);
    return columns;
  });
  return shapedStatement(db, `entry:lines:${newest}:${layouts.map((columns) => columns.join(',')).join('|')}`, values, (value) => {
    const entry = newest ? newestEntryReference(value(0)) : value(0);
    let at = 2;
    const rows = layouts.map((columns) => {
      const row: Record<string, unknown> = { idasiento: entry, orden: value(at++), punteada: value(1) };
      for (const column of LINE_FIXED_ORDER) row[column] = value(at++);
      for (const column of columns) row[column] = value(at++);
      return row;
    });
    return db.insertInto('partidas').values(rows);
  });
}

/** What every line holds, and what it is when a line does not say (the amounts of a plain line). */
const LINE_DEFAULTS: Record<string, unknown> = { saldo: 0, tasaconv: 1, baseimponible: 0, iva: 0, recargo: 0 };
const LINE_FIXED_ORDER = ['saldo', 'tasaconv', 'baseimponible', 'iva', 'recargo', 'concepto', 'documento', 'idsubcuenta', 'codsubcuenta', 'debe', 'haber'];
const LINE_FIXED = new Set(LINE_FIXED_ORDER);

/** Removes an entry header written by `numberedEntryStatement` that its year then refused (it has no lines yet). */
export async function removeEntryHeader(db: DbExecutor, idasiento: number): Promise<void> {
  await db.deleteFrom('asientos').where('idasiento', '=', idasiento).execute();
}
