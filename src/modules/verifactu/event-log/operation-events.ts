import { Decimal } from 'decimal.js';
import type { AppContext } from '../../../app-context.ts';
import type { DbExecutor } from '../../../db/database.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { xmlAmount, type XmlTree } from '../xml-tree.ts';
import { appendEvent } from './append-event.ts';
import { EVENT_TYPES } from './event-content.ts';

/** A summary event (10) after every 6 hours of NO VERI*FACTU operation, and before the service stops. */
export const SUMMARY_EVERY_MS = 6 * 3_600_000;
/** The record boundary a summary covers up to, kept in its OtrosDatosEvento so that the next one starts after it. */
const UP_TO = /^registros hasta (\d+)$/;

/** A record as an event names it (IDFacturaExpedidaHuellaType). */
export function recordReference(record: Record<string, unknown>): XmlTree {
  return { IDEmisorFactura: String(record.nifemisor), NumSerieFactura: String(record.numserie), FechaExpedicionFactura: String(record.fechaexpedicion), Huella: String(record.huella) };
}

/** Altas and anulaciones of a set of records: counts and the altas' CuotaTotal and ImporteTotal summed. */
export function recordTotals(records: Array<Record<string, unknown>>): { altas: number; anulaciones: number; cuota: string; importe: string } {
  let cuota = new Decimal(0);
  let importe = new Decimal(0);
  let altas = 0;
  for (const record of records) {
    if (record.tipo !== 'alta') continue;
    altas++;
    cuota = cuota.plus(String(record.cuotatotal));
    importe = importe.plus(String(record.importetotal));
  }
  return { altas, anulaciones: records.length - altas, cuota: xmlAmount(cuota), importe: xmlAmount(importe) };
}

/**
 * Writes the summary event (10) of a company: the events since its last summary by type, and the
 * records generated since (first, last, how many altas with their sums, how many anulaciones).
 */
async function summarise(ctx: AppContext, db: DbExecutor, idempresa: number): Promise<void> {
  const last = await db.selectFrom('verifactu_eventos').select(['id', 'detalle']).where('idempresa', '=', idempresa).where('tipo', '=', EVENT_TYPES.summary).orderBy('id', 'desc').limit(1).executeTakeFirst();
  const afterEvent = Number(last?.id ?? 0);
  const afterRecord = Number(UP_TO.exec(String(last?.detalle ?? ''))?.[1] ?? 0);
  const events = await db.selectFrom('verifactu_eventos').select('tipo').where('idempresa', '=', idempresa).where('id', '>', afterEvent).execute();
  const records = await db.selectFrom('registros_verifactu').select(['id', 'tipo', 'nifemisor', 'numserie', 'fechaexpedicion', 'huella', 'cuotatotal', 'importetotal'])
    .where('idempresa', '=', idempresa).where('id', '>', afterRecord).orderBy('id').execute();
  const byType = new Map<string, number>();
  for (const event of events) byType.set(String(event.tipo), (byType.get(String(event.tipo)) ?? 0) + 1);
  const totals = recordTotals(records);
  const summary: XmlTree = {
    TipoEvento: byType.size
      ? [...byType].sort(([a], [b]) => a.localeCompare(b)).slice(0, 20).map(([tipo, count]) => ({ TipoEvento: tipo, NumeroDeEventos: String(Math.min(count, 9999)) }))
      : [{ TipoEvento: EVENT_TYPES.summary, NumeroDeEventos: '0' }],
  };
  if (records.length) {
    summary.RegistroFacturacionInicialPeriodo = recordReference(records[0]!);
    summary.RegistroFacturacionFinalPeriodo = recordReference(records[records.length - 1]!);
  }
  Object.assign(summary, {
    NumeroDeRegistrosFacturacionAltaGenerados: String(totals.altas), SumaCuotaTotalAlta: totals.cuota, SumaImporteTotalAlta: totals.importe,
    NumeroDeRegistrosFacturacionAnulacionGenerados: String(totals.anulaciones),
  });
  const upTo = records.length ? Number(records[records.length - 1]!.id) : afterRecord;
  await appendEvent(ctx, db, idempresa, EVENT_TYPES.summary, { ResumenEventos: summary }, `registros hasta ${upTo}`);
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
    const since = await db.selectFrom('verifactu_eventos').select(['fechahorahuso']).where('idempresa', '=', Number(idempresa))
      .where('tipo', 'in', [EVENT_TYPES.summary, EVENT_TYPES.start]).orderBy('id', 'desc').limit(1).executeTakeFirst();
    if (!all && since && ctx.clock.now() - Date.parse(String(since.fechahorahuso)) < SUMMARY_EVERY_MS) continue;
    try {
      await inTransaction(ctx.database, (trx) => summarise(ctx, trx, Number(idempresa)));
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
