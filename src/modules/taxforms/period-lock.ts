import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { AppError } from '../../errors.ts';
import { insideLockedSettlement, lockedSettlementRead } from '../accounting/index.ts';
import { documentChanged, documentCreated, documentPreparing, documentSeal, headerOf, type DocumentSeal, type Row } from '../documents/index.ts';

/** An invoice in a settled period keeps its VAT: its amounts and identity do not change, and it stays. */
const SETTLED: DocumentSeal = { change: 'period-locked', remove: 'period-locked' };

/**
 * Invoices dated in a settled, locked VAT period (`regularizacionimpuestos.bloquear`, the check the
 * accounting entries read) are not created there, not moved there, and those in it neither change
 * in what the return took from them nor go: 422 `period-locked`. Through the documents' hook
 * points: a seal on the stored invoice (its fiscal fields and lines, its deletion), the creation
 * when prepared and when written, a change of its date.
 */
export function lockSettledPeriods(ctx: AppContext): void {
  const { dialect } = ctx.database;
  const locked = (db: DbExecutor, header: Row | undefined) => typeof header?.fecha === 'string' && insideLockedSettlement(db, dialect, header.fecha);
  const refuse = async (db: DbExecutor, header: Row) => {
    if (await locked(db, header)) throw new AppError('period-locked', { fecha: header.fecha });
  };
  ctx.hooks.on(documentSeal, async ({ db, type, id }) => (type.invoice && (await locked(db, await headerOf(db, type, id))) ? SETTLED : undefined));
  // A new invoice: read with the commit's read after its locks (no statement of its own), refused then.
  ctx.hooks.on(documentPreparing, async ({ type, header }) => {
    if (!type.invoice || typeof header.fecha !== 'string') return undefined;
    const fecha = header.fecha;
    return () => ({
      lockAndWrite(doc) {
        doc.readAfterLocks('taxforms.locked', lockedSettlementRead(dialect, fecha));
        this.afterLocks = () => {
          if (Number(doc.readValue('taxforms.locked')) === 1) throw new AppError('period-locked', { fecha });
        };
      },
    });
  });
  ctx.hooks.on(documentCreated, async ({ db, type, header }) => {
    if (type.invoice) await refuse(db, header);
  });
  ctx.hooks.on(documentChanged, async ({ db, type, before, after }) => {
    if (type.invoice && before.fecha !== after.fecha) await refuse(db, after);
  });
}
