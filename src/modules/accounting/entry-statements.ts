import { sql, type QueryResult, type RawBuilder } from 'kysely';
import type { DbExecutor, Engine } from '../../db/database.ts';
import type { Statement } from '../../db/statement-batch.ts';
import type { SqlDialect } from '../../db/dialect.ts';
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
export function numberedEntryStatement(db: DbExecutor, dialect: SqlDialect, entry: NewEntry, guarded = false): Statement<Record<string, unknown>> {
  const values: Array<[string, unknown]> = [
    ['codejercicio', entry.codejercicio], ['idempresa', entry.idempresa], ['fecha', entry.fecha], ['concepto', entry.concepto], ['documento', entry.documento],
    ['importe', entry.importe], ['canal', entry.canal], ['iddiario', entry.iddiario], ['editable', dialect.boolean(true)],
  ];
  const next = db.selectFrom('asientos').select(sql<number>`COALESCE(MAX(numero), 0) + 1`.as('numero')).where('codejercicio', '=', entry.codejercicio).as('n');
  let select = db.selectFrom(next).select([...values.map(([name, value]) => sql`${value}`.as(name)), 'n.numero']);
  // Guarded: inserted only while the year takes it (`entryRefusalRead` is null); else nothing is.
  if (guarded) select = select.where(sql<boolean>`${entryRefusalRead(dialect, entry.codejercicio, entry.fecha)} IS NULL`);
  const insert = db.insertInto('asientos').columns([...values.map(([name]) => name), 'numero']).expression(select);
  return dialect.engine === 'mysql' ? insert : insert.returning('idasiento');
}

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
export function newestEntryReference(codejercicio: string): RawBuilder<number> {
  return sql<number>`(SELECT a.idasiento FROM asientos a WHERE a.codejercicio = ${codejercicio} ORDER BY a.numero DESC LIMIT 1)`;
}

/** The lines of entry `idasiento` (one statement) and the balances they move (two), given the tree above their sub-accounts. */
export function entryLinesStatements(db: DbExecutor, dialect: SqlDialect, idasiento: number | RawBuilder<number>, lines: readonly NewEntryLine[], tree: AccountTree): Statement<unknown>[] {
  const rows = lines.map((line, orden) => ({
    idasiento, orden, punteada: dialect.boolean(false), saldo: 0, tasaconv: 1, baseimponible: 0, iva: 0, recargo: 0, ...line,
  }));
  return [db.insertInto('partidas').values(rows), ...balanceStatements(db, tree, lines, [], dialect.engine)];
}

/** Removes an entry header written by `numberedEntryStatement` that its year then refused (it has no lines yet). */
export async function removeEntryHeader(db: DbExecutor, idasiento: number): Promise<void> {
  await db.deleteFrom('asientos').where('idasiento', '=', idasiento).execute();
}
