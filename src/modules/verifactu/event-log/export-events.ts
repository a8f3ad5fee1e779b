import type { AppContext } from '../../../app-context.ts';
import { rowReader } from '../../../db/row-codec.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { companyOf } from '../../company/index.ts';
import { territoryOf, utcOffset } from '../registration-time.ts';
import { appendEvent } from './append-event.ts';
import { eventXml } from '../xml-document.ts';
import type { XmlTree } from '../xml-tree.ts';
import { EVENT_TYPES } from './event-content.ts';
import { eventoVerifactuModel } from './event-models.ts';
import { recordReference, recordTotals } from './operation-events.ts';

type Row = Record<string, unknown>;

/** A period's bounds as the events write them: its first and last second, in the issuing territory's time. */
async function bounds(ctx: AppContext, idempresa: number, desde: string, hasta: string): Promise<[string, string]> {
  const zone = territoryOf((await companyOf(ctx.database.kysely, idempresa)) ?? {});
  return [`${desde}T00:00:00${utcOffset(Date.parse(`${desde}T12:00:00Z`), zone)}`, `${hasta}T23:59:59${utcOffset(Date.parse(`${hasta}T12:00:00Z`), zone)}`];
}

const noVerifactu = async (ctx: AppContext, idempresa: number) =>
  (await ctx.database.kysely.selectFrom('verifactu_empresas').select('modo').where('idempresa', '=', idempresa).executeTakeFirst())?.modo === 'noverifactu';

/** NO VERI*FACTU: an export of a period's records is an event (08): the period, its first and last records, counts and sums. */
export async function logRecordExport(ctx: AppContext, idempresa: number, desde: string, hasta: string, records: Row[]): Promise<void> {
  if (!records.length || !(await noVerifactu(ctx, idempresa))) return;
  const [start, end] = await bounds(ctx, idempresa, desde, hasta);
  const totals = recordTotals(records);
  await inTransaction(ctx.database, (db) => appendEvent(ctx, db, idempresa, EVENT_TYPES.recordExport, {
    ExportacionRegFacturacionPeriodo: {
      FechaHoraHusoInicioPeriodoExport: start, FechaHoraHusoFinPeriodoExport: end,
      RegistroFacturacionInicialPeriodo: recordReference(records[0]!), RegistroFacturacionFinalPeriodo: recordReference(records[records.length - 1]!),
      NumeroDeRegistrosFacturacionAltaExportados: String(totals.altas), SumaCuotaTotalAlta: totals.cuota, SumaImporteTotalAlta: totals.importe,
      NumeroDeRegistrosFacturacionAnulacionExportados: String(totals.anulaciones), RegistrosFacturacionExportadosDejanDeConservarse: 'N',
    },
  }));
}

/** NO VERI*FACTU: an export of a period's events is an event (09): the period, its first and last events, how many. */
export async function logEventExport(ctx: AppContext, idempresa: number, desde: string, hasta: string, events: Row[]): Promise<void> {
  if (!events.length || !(await noVerifactu(ctx, idempresa))) return;
  const [start, end] = await bounds(ctx, idempresa, desde, hasta);
  const reference = (event: Row) => ({ TipoEvento: String(event.tipo), FechaHoraHusoEvento: String(event.fechahorahuso), HuellaEvento: String(event.huella) });
  await inTransaction(ctx.database, (db) => appendEvent(ctx, db, idempresa, EVENT_TYPES.eventExport, {
    ExportacionRegEventoPeriodo: {
      FechaHoraHusoInicioPeriodoExport: start, FechaHoraHusoFinPeriodoExport: end,
      RegistroEventoInicialPeriodo: reference(events[0]!), RegistroEventoFinalPeriodo: reference(events[events.length - 1]!),
      NumeroDeRegEventoExportados: String(Math.min(events.length, 9_999_999)), RegEventoExportadosDejanDeConservarse: 'N',
    },
  }));
}

const readEvent = rowReader(eventoVerifactuModel);

/**
 * The event log of a company between two days (by the date of `FechaHoraHusoGenEvento`), each
 * `RegistroEvento` as kept (signed), inside an `ExportacionEventos` element.
 */
export async function exportEvents(ctx: AppContext, idempresa: number, desde: string, hasta: string): Promise<{ xml: string; events: Row[] }> {
  const rows = (await ctx.database.kysely.selectFrom(eventoVerifactuModel.table).selectAll().where('idempresa', '=', idempresa).orderBy('id').execute()).map(readEvent);
  const events = rows.filter((row) => {
    const day = String(row.fechahorahuso).slice(0, 10);
    return day >= desde && day <= hasta;
  });
  const body = events.map((event) => (event.firmado ? String(event.firmado) : eventXml(event.registro as XmlTree)).replace(/^<\?xml[^>]*\?>\s*/, ''));
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<ExportacionEventos xmlns="urn:invoicing-api:verifactu:exportacion" idempresa="${idempresa}" desde="${desde}" hasta="${hasta}" eventos="${events.length}">\n${body.join('\n')}\n</ExportacionEventos>\n`;
  return { xml, events };
}
