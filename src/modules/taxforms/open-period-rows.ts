import { sql, type CompiledQuery, type RawBuilder } from 'kysely';
import { columnType } from '../../db/column-sql.ts';
import { failUnless } from '../../db/guard-sql.ts';
import type { DbExecutor } from '../../db/database.ts';
import type { SqlDialect } from '../../db/dialect.ts';
import { shapedStatement } from '../../db/statement-shapes.ts';
import { lockedSettlementRead } from '../accounting/index.ts';
import type { DocumentType, Row } from '../documents/index.ts';
import { invoiceTaxModel } from './tax-line-model.ts';
import { vatDateSql } from './vat-date.ts';

/** The columns of a tax row a new invoice's write gives, in the order of its values. */
const COLUMNS = ['codimpuesto', 'iva', 'recargo', 'base', 'cuota', 'cuotarecargo', 'autoliquidada'] as const;

/**
 * A new invoice's tax rows, inserted only while its VAT period is open: one `INSERT ... SELECT`
 * over the invoice's header as just stored (by its unique `codigo` and company, which a late number
 * may still hold as placeholders), adding no row when a locked settlement of its company covers its
 * VAT day. Every invoice has at least one row, so none inserted means a settled period.
 *
 * Why here and not in the read after the locks: that read comes before the header's insert, and a
 * settlement could lock the company and commit in between. The header's insert takes a shared
 * lock on the company's row (its foreign key) that a settlement's exclusive lock waits for, and is
 * waited for by it; this statement runs after that insert, on a snapshot of its own (READ
 * COMMITTED), so it sees any settlement committed before the insert could go on, and a settlement
 * that comes later waits for this invoice and counts it.
 *
 * `failWhenLocked`, for an invoice whose COMMIT goes with this batch (write-document.ts): the
 * statement fails instead of inserting nothing, so that the batch never reaches its COMMIT, and
 * the write runs again in rounds, where no row inserted is the refusal (`period-locked`).
 */
export function openPeriodTaxRows(db: DbExecutor, dialect: SqlDialect, type: DocumentType, header: Row, rows: readonly Row[], failWhenLocked = false): CompiledQuery {
  const target = type.side === 'sales' ? 'idfacturacli' : 'idfacturaprov';
  const values: unknown[] = [String(header.codigo), Number(header.idempresa)];
  for (const row of rows) for (const name of COLUMNS) values.push(row[name] ?? null);
  return shapedStatement(db, `taxrows:open:${type.header.table}:${rows.length}:${failWhenLocked ? 'guard' : 'skip'}`, values, (value) => {
    const selects = rows.map((_, index) => sql`SELECT ${sql.join(COLUMNS.map((name, column) => sql`${typed(dialect, name, value(2 + index * COLUMNS.length + column))} AS ${sql.ref(name)}`))}`);
    const locked = lockedSettlementRead(dialect, vatDateSql(type.side), sql.ref('f.idempresa'));
    return sql`INSERT INTO ${sql.table(invoiceTaxModel.table)} (${sql.join([...COLUMNS, target].map((name) => sql.ref(name)))})
      SELECT ${sql.join(COLUMNS.map((name) => sql.ref(`v.${name}`)))}, ${sql.ref(`f.${type.key}`)}
      FROM ${sql.table(type.header.table)} f CROSS JOIN (${sql.join(selects, sql` UNION ALL `)}) v
      WHERE f.codigo = ${value(0)} AND f.idempresa = ${value(1)} AND ${failWhenLocked ? sql`${failUnless(sql`${locked} = 0`)} IS NULL` : sql`${locked} = 0`}`;
  });
}

/**
 * A value typed as its column: PostgreSQL gives an untyped parameter in a UNION the type text,
 * which a numeric column refuses; the other two convert on insert.
 */
function typed(dialect: SqlDialect, name: (typeof COLUMNS)[number], value: unknown): RawBuilder<unknown> {
  return dialect.engine === 'postgres' ? sql`CAST(${value} AS ${sql.raw(columnType('postgres', invoiceTaxModel.fields[name]!))})` : sql`${value}`;
}
