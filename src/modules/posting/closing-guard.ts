import type { AppContext } from '../../app-context.ts';
import { AppError } from '../../errors.ts';
import { chartLock } from '../accounting/index.ts';
import { DOCUMENT_TYPES } from '../documents/index.ts';
import { chartOfYear } from './chart.ts';

/**
 * A fiscal year with a chart closes only once every invoice of it with a total has its entry (the
 * reference's rule): closing it otherwise is refused (422 `validation-failed`, `estado:
 * invoices-without-entry`, with how many), so that its books are whole before they freeze.
 */
export function guardYearClosing(ctx: AppContext): void {
  const invoices = DOCUMENT_TYPES.filter((type) => type.invoice);
  ctx.store.watch(['ejercicio'], async (db, _model, change) => {
    if (change?.action !== 'update' || change.before?.estado === change.record.estado || change.record.estado === 'ABIERTO') return;
    const codejercicio = String(change.record.codejercicio);
    if (!(await chartOfYear(db, codejercicio))) return;
    // Postings check the year's state under this lock: none is half-way while the year closes.
    await chartLock(db, ctx.database.dialect, codejercicio);
    let missing = 0;
    for (const type of invoices) {
      const row = await db.selectFrom(type.header.table).select((eb) => eb.fn.countAll().as('n'))
        .where('codejercicio', '=', codejercicio).where('total', '<>', 0).where('idasiento', 'is', null).executeTakeFirst();
      missing += Number(row?.n ?? 0);
    }
    if (missing) throw new AppError('validation-failed', { fields: { estado: 'invoices-without-entry' }, invoices: missing });
  });
}
