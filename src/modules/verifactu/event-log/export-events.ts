import type { AppContext } from '../../../app-context.ts';
import { rowReader } from '../../../db/row-codec.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { companyOf } from '../../company/index.ts';
import { generatedIn } from '../period.ts';
import { storedSwitchOf } from '../company-switch.ts';
import { territoryOf, zonedStamp } from '../registration-time.ts';
import { eventXml, withoutDeclaration } from '../xml-document.ts';
import type { XmlTree } from '../xml-tree.ts';
import { appendEvent } from './append-event.ts';
import { EVENT_TYPES } from './event-content.ts';
import { eventoVerifactuModel } from './event-models.ts';
import { recordReference, type RecordTotals } from './record-totals.ts';

type Row = Record<string, unknown>;

const PAGE = 1000;
const readEvent = rowReader(eventoVerifactuModel);

/** A period's bounds as the events write them: its first and last second, in the issuing territory's time. */
async function bounds(ctx: AppContext, idempresa: number, desde: string, hasta: string): Promise<[string, string]> {
  const zone = territoryOf((await companyOf(ctx.database.kysely, idempresa)) ?? {});
  return [zonedStamp(`${desde}T00:00:00`, zone), zonedStamp(`${hasta}T23:59:59`, zone)];
}

const noVerifactu = async (ctx: AppContext, idempresa: number) => (await storedSwitchOf(ctx.database.kysely, idempresa))?.modo === 'noverifactu';

/** NO VERI*FACTU: an export of a period's records is an event (08): the period, its first and last records, counts and sums. */
export async function logRecordExport(ctx: AppContext, idempresa: number, desde: string, hasta: string, totals: RecordTotals): Promise<void> {
  if (!totals.first || !(await noVerifactu(ctx, idempresa))) return;
  const [start, end] = await bounds(ctx, idempresa, desde, hasta);
  await inTransaction(ctx.database, (db) => appendEvent(ctx, db, idempresa, EVENT_TYPES.recordExport, {
    ExportacionRegFacturacionPeriodo: {
      FechaHoraHusoInicioPeriodoExport: start, FechaHoraHusoFinPeriodoExport: end,
      RegistroFacturacionInicialPeriodo: recordReference(totals.first!), RegistroFacturacionFinalPeriodo: recordReference(totals.last!),
      NumeroDeRegistrosFacturacionAltaExportados: String(totals.altas), SumaCuotaTotalAlta: totals.cuota, SumaImporteTotalAlta: totals.importe,
      NumeroDeRegistrosFacturacionAnulacionExportados: String(totals.anulaciones), RegistrosFacturacionExportadosDejanDeConservarse: 'N',
    },
  }));
}

/**
 * The event log of a company in a period, written a page at a time: each `RegistroEvento` as kept
 * (signed), inside an `ExportacionEventos` element. `seen` is told of each event as it goes.
 */
export async function* exportEvents(ctx: AppContext, idempresa: number, desde: string, hasta: string, period: { count: number; last: number }, seen: (event: Row) => void): AsyncGenerator<string> {
  const db = ctx.database.kysely;
  yield `<?xml version="1.0" encoding="UTF-8"?>\n<ExportacionEventos xmlns="urn:invoicing-api:verifactu:exportacion" idempresa="${idempresa}" desde="${desde}" hasta="${hasta}" eventos="${period.count}">\n`;
  for (let after = 0; ;) {
    const page = (await generatedIn(db, 'verifactu_eventos', idempresa, desde, hasta).selectAll().where('id', '>', after).where('id', '<=', period.last).orderBy('id').limit(PAGE).execute()).map(readEvent);
    for (const event of page) {
      seen(event);
      yield `${withoutDeclaration(event.firmado ? String(event.firmado) : eventXml(event.registro as XmlTree))}\n`;
    }
    if (page.length < PAGE) break;
    after = Number(page[page.length - 1]!.id);
  }
  yield '</ExportacionEventos>\n';
}

/** NO VERI*FACTU: an export of a period's events is an event (09): the period, its first and last events, how many. */
export async function logEventExport(ctx: AppContext, idempresa: number, desde: string, hasta: string, first: Row | undefined, last: Row | undefined, count: number): Promise<void> {
  if (!first || !last || !(await noVerifactu(ctx, idempresa))) return;
  const [start, end] = await bounds(ctx, idempresa, desde, hasta);
  const reference = (event: Row) => ({ TipoEvento: String(event.tipo), FechaHoraHusoEvento: String(event.fechahorahuso), HuellaEvento: String(event.huella) });
  await inTransaction(ctx.database, (db) => appendEvent(ctx, db, idempresa, EVENT_TYPES.eventExport, {
    ExportacionRegEventoPeriodo: {
      FechaHoraHusoInicioPeriodoExport: start, FechaHoraHusoFinPeriodoExport: end,
      RegistroEventoInicialPeriodo: reference(first), RegistroEventoFinalPeriodo: reference(last),
      NumeroDeRegEventoExportados: String(Math.min(count, 9_999_999)), RegEventoExportadosDejanDeConservarse: 'N',
    },
  }));
}
