import { sql } from 'kysely';
import type { SqlDialect } from '../../db/dialect.ts';
import { AppError } from '../../errors.ts';
import { stockChanges, stockStatements, type LineProduct } from '../catalogue/index.ts';
import type { PartMaker } from './document-parts.ts';
import type { Row } from './document-repository.ts';
import { effectOf } from './insert-document.ts';

/**
 * A new document's stock moves (catalogue's stock service), under the stock rows' locks (taken in
 * warehouse and reference order, after the customer's): one upsert per warehouse and the variants'
 * and products' totals; selling below zero a product that may not be sold without stock is
 * refused naming the line, from the read after the locks.
 */
export function stockPart(dialect: SqlDialect, codalmacen: string, lines: readonly Row[], products: ReadonlyMap<string, LineProduct>): PartMaker | undefined {
  const changes = stockChanges(lines.map((line, index) => ({
    codalmacen, referencia: (line.referencia as string | null) ?? null, before: undefined, after: effectOf(line), line: `lineas[${index}]`,
  })));
  const flags = new Map([...products.values()].map((product) => [product.referencia, product]));
  if (!changes.some((change) => flags.has(change.referencia))) return undefined;
  return () => ({
    lock: 'stock',
    guarded: true,
    lockAndWrite(doc) {
      const planned = stockStatements(doc.db, dialect, changes, flags);
      for (const statement of planned.statements) doc.batch.add(statement);
      if (planned.short) doc.readAfterLocks('stock.short', planned.short, (value) => sql`${value} IS NULL`);
      this.afterLocks = () => {
        const short = doc.readValue('stock.short');
        if (short) throw new AppError('not-enough-stock', { line: planned.lineOf(String(short)), referencia: String(short), codalmacen });
      };
    },
  });
}
