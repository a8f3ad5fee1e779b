import { sql } from 'kysely';
import type { AppContext, RecordWriter } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { AppError, validationError } from '../../errors.ts';
import { readInput } from '../../models/read-input.ts';
import { insideLockedSettlement, lockedSettlementRead, regularizacionImpuestoModel } from '../accounting/index.ts';
import { documentChanged, documentCreated, documentSeal, type DocumentSeal, type DocumentType, type Row } from '../documents/index.ts';
import { vatSettlementModel } from './settlement-model.ts';
import { vatDate, vatDateSql } from './vat-date.ts';

/** An invoice in a settled period keeps its VAT: its amounts and identity do not change, and it stays. */
const SETTLED: DocumentSeal = { change: 'period-locked', remove: 'period-locked' };

/**
 * Invoices whose VAT falls in a settled, locked period of their company (`regularizacionimpuestos`
 * with `bloquear`) are not created there, not moved into it or out of it, and those in it neither
 * change in what the return took from them nor go: 422 `period-locked`. Through the documents'
 * hook points: a seal on the stored invoice (its fiscal fields and lines, its deletion), the
 * creation's tax rows written only while the period is open (open-period-rows.ts, keep-taxes.ts)
 * or, for invoices generated or refunded, a read after their insert; a change of its VAT day. The
 * settlement's own lock row changes only through `liquidarIVA`.
 *
 * Every such check meets the settlement on the company's row (settle-vat.ts locks it): a new
 * invoice's insert shares it through its foreign key, a change or deletion shares it before the
 * seal is read. A settlement waits for the invoices being written, and counts them; an invoice
 * written while a settlement runs waits for it, and then reads the period locked.
 */
export function lockSettledPeriods(ctx: AppContext): void {
  const { dialect } = ctx.database;
  const refuse = async (db: DbExecutor, type: DocumentType, header: Row) => {
    const day = vatDate(type.side, header);
    if (day && (await insideLockedSettlement(db, dialect, day, Number(header.idempresa)))) throw new AppError('period-locked', { fecha: day });
  };
  // The stored invoice's VAT day and its lock in one read (every change of an invoice asks), once
  // its company's row is shared: a read that waited for that lock in the same statement would read
  // the settlements of before the wait.
  ctx.hooks.on(documentSeal, async ({ db, type, id }) => {
    if (!type.invoice) return undefined;
    const company = db.selectFrom(`${type.header.table} as f`).select('f.idempresa').where(`f.${type.key}` as never, '=', id as never);
    await dialect.referencing(db.selectFrom('empresas').select('idempresa').where('idempresa', '=', company)).execute();
    const row = await db.selectFrom(`${type.header.table} as f`).select(lockedSettlementRead(dialect, vatDateSql(type.side), sql.ref('f.idempresa')).as('locked'))
      .where(`f.${type.key}` as never, '=', id as never).executeTakeFirst();
    return Number(row?.locked) === 1 ? SETTLED : undefined;
  });
  ctx.hooks.on(documentCreated, async ({ db, type, header }) => {
    if (type.invoice) await refuse(db, type, header);
  });
  ctx.hooks.on(documentChanged, async ({ db, type, before, after }) => {
    if (!type.invoice || vatDate(type.side, before) === vatDate(type.side, after)) return;
    await refuse(db, type, before);
    await refuse(db, type, after);
  });
  ctx.writers.set(regularizacionImpuestoModel, settlementRowWriter(ctx));
}

/** The reference's settlement rows: those a `liquidarIVA` made change and go only through it (422 `idregiva: use-liquidarIVA`). */
function settlementRowWriter(ctx: AppContext): RecordWriter {
  const model = regularizacionImpuestoModel;
  const refuseOwned = async (id: unknown) => {
    const owner = await ctx.database.kysely.selectFrom(vatSettlementModel.table).select('idliquidacion').where('idregiva', '=', Number(id)).executeTakeFirst();
    if (owner) throw validationError({ idregiva: 'use-liquidarIVA' });
  };
  return {
    async create(body, source, options) {
      const { record, reveal } = await ctx.store.create(model, readInput(model, body, source, 'create', undefined, options));
      return { ...record, ...reveal };
    },
    async update(id, body, source, options) {
      const values = readInput(model, body, source, 'update', id, options);
      await refuseOwned(id);
      return ctx.store.update(model, id, values);
    },
    async remove(id) {
      await refuseOwned(id);
      return ctx.store.remove(model, id);
    },
  };
}
