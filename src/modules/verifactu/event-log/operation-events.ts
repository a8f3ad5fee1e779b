import type { AppContext } from '../../../app-context.ts';
import type { DbExecutor } from '../../../db/database.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { lockedHead } from '../chain-head.ts';
import type { XmlTree } from '../xml-tree.ts';
import { appendEvent } from './append-event.ts';
import { EVENT_TYPES, upToText } from './event-content.ts';
import { recordReference, RecordTotals } from './record-totals.ts';

/** A summary event (10) after every 6 hours of NO VERI*FACTU operation, and before the service stops. */
const SUMMARY_EVERY_MS = 6 * 3_600_000;
/** The record boundary a start or a summary covers up to (upToText), so that the next summary starts after it. */
const UP_TO = /^registros hasta (\d+)$/;

/**
 * Writes the summary event (10) of a company: the events since its last summary by type, and the
 * records generated since (first, last, how many altas with their sums, how many anulaciones).
 */
async function summarise(ctx: AppContext, db: DbExecutor, idempresa: number, all: boolean): Promise<void> {
  // Under the chain's lock: two instances finding a summary due write one between them.
  await lockedHead(db, ctx, idempresa);
  const last = await db.selectFrom('verifactu_eventos').select(['id', 'tipo', 'detalle', 'fechahorahuso']).where('idempresa', '=', idempresa)
    .where('tipo', 'in', [EVENT_TYPES.summary, EVENT_TYPES.start]).orderBy('id', 'desc').limit(1).executeTakeFirst();
  if (!last || (!all && ctx.clock.now() - Date.parse(String(last.fechahorahuso)) < SUMMARY_EVERY_MS)) return;
  const afterEvent = last.tipo === EVENT_TYPES.summary ? Number(last.id) : Number(last.id) - 1;
  const afterRecord = Number(UP_TO.exec(String(last.detalle ?? ''))?.[1] ?? 0);
  const events = await db.selectFrom('verifactu_eventos').select(['tipo', (eb) => eb.fn.countAll<number>().as('n')])
    .where('idempresa', '=', idempresa).where('id', '>', afterEvent).groupBy('tipo').orderBy('tipo').execute();
  const totals = new RecordTotals();
  for (let after = afterRecord; ;) {
    const page = await db.selectFrom('registros_verifactu').select(['id', 'tipo', 'nifemisor', 'numserie', 'fechaexpedicion', 'huella', 'cuotatotal', 'importetotal'])
      .where('idempresa', '=', idempresa).where('modo', '=', 'noverifactu').where('id', '>', after).orderBy('id').limit(1000).execute();
    page.forEach((record) => totals.add(record));
    if (page.length < 1000) break;
    after = Number(page[page.length - 1]!.id);
  }
  const summary: XmlTree = {
    TipoEvento: events.length
      ? events.slice(0, 20).map((row) => ({ TipoEvento: String(row.tipo), NumeroDeEventos: String(Math.min(Number(row.n), 9999)) }))
      : [{ TipoEvento: EVENT_TYPES.summary, NumeroDeEventos: '0' }],
  };
  if (totals.first) {
    summary.RegistroFacturacionInicialPeriodo = recordReference(totals.first);
    summary.RegistroFacturacionFinalPeriodo = recordReference(totals.last!);
  }
  Object.assign(summary, {
    NumeroDeRegistrosFacturacionAltaGenerados: String(Math.min(totals.altas, 999_999)), SumaCuotaTotalAlta: totals.cuota, SumaImporteTotalAlta: totals.importe,
    NumeroDeRegistrosFacturacionAnulacionGenerados: String(Math.min(totals.anulaciones, 999_999)),
  });
  await appendEvent(ctx, db, idempresa, EVENT_TYPES.summary, { ResumenEventos: summary }, upToText(totals.last ? Number(totals.last.id) : afterRecord));
}

/**
 * The summaries due: every company in NO VERI*FACTU operation whose last summary (or, before any, the
 * start of its operation) is 6 hours old, or every one of them when the service stops (`all`).
 */
export async function writeSummaries(ctx: AppContext, all = false): Promise<void> {
  const db = ctx.database.kysely;
  const open = await db.selectFrom('verifactu_cadenas as c').innerJoin('verifactu_empresas as e', 'e.idempresa', 'c.idempresa')
    .select(['c.idempresa']).where('e.modo', '=', 'noverifactu').where('c.eventos', '>', 0).where('c.tipoevento', '!=', EVENT_TYPES.end).execute();
  for (const { idempresa } of open) {
    try {
      await inTransaction(ctx.database, (trx) => summarise(ctx, trx, Number(idempresa), all));
    } catch (error) {
      ctx.log.error({ err: error, idempresa }, 'VERI*FACTU summary event not written');
    }
  }
}

/** Leaving NO VERI*FACTU mode ends the operation in the event log (event 02), in the switch's transaction. */
export function logLeavingNoVerifactu(ctx: AppContext): void {
  ctx.store.watch(['verifactuempresa'], async (db, _model, change) => {
    if (change?.action !== 'update' || change.before?.modo !== 'noverifactu' || change.record.modo === 'noverifactu') return;
    const head = await db.selectFrom('verifactu_cadenas').select(['eventos', 'tipoevento']).where('idempresa', '=', Number(change.record.idempresa)).executeTakeFirst();
    if (Number(head?.eventos ?? 0) > 0 && head?.tipoevento !== EVENT_TYPES.end) await appendEvent(ctx, db, Number(change.record.idempresa), EVENT_TYPES.end);
  });
}
