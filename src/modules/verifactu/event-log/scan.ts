import type { AppContext } from '../../../app-context.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { verifyChain, type ChainCheck } from '../verify-chain.ts';
import { appendEvent } from './append-event.ts';
import { EVENT_TYPES } from './event-content.ts';
import { verifyEvents, type EventChainCheck } from './verify-events.ts';

const yes = (done: boolean) => (done ? 'S' : 'N');
const cap = (count: number, digits: number) => String(Math.min(count, 10 ** digits - 1));

/**
 * `verifactuCadena`: the records' chain, hashes and signatures checked, and the event log's too. A
 * company in NO VERI*FACTU mode logs the check and what it found (events 03 and 04 for the records,
 * 05 and 06 for the events: RD 1007/2023 art. 7.i, an anomaly raises a lasting alarm).
 */
export async function scanCompany(ctx: AppContext, idempresa: number): Promise<ChainCheck & { eventos: EventChainCheck }> {
  const records = await verifyChain(ctx, idempresa);
  const events = await verifyEvents(ctx, idempresa);
  const mode = await ctx.database.kysely.selectFrom('verifactu_empresas').select('modo').where('idempresa', '=', idempresa).executeTakeFirst();
  if (mode?.modo === 'noverifactu') {
    await inTransaction(ctx.database, async (db) => {
      await appendEvent(ctx, db, idempresa, EVENT_TYPES.recordScan, {
        LanzamientoProcesoDeteccionAnomaliasRegFacturacion: {
          RealizadoProcesoSobreIntegridadHuellasRegFacturacion: 'S', NumeroDeRegistrosFacturacionProcesadosSobreIntegridadHuellas: cap(records.records, 7),
          RealizadoProcesoSobreIntegridadFirmasRegFacturacion: 'S', NumeroDeRegistrosFacturacionProcesadosSobreIntegridadFirmas: cap(records.signatures.signed + records.signatures.unsigned, 7),
          RealizadoProcesoSobreTrazabilidadCadenaRegFacturacion: 'S', NumeroDeRegistrosFacturacionProcesadosSobreTrazabilidadCadena: cap(records.records, 7),
          RealizadoProcesoSobreTrazabilidadFechasRegFacturacion: yes(false),
        },
      });
      const broken = records.firstBroken?.id ?? records.signatures.firstInvalid?.id;
      if (broken !== undefined) {
        const record = await db.selectFrom('registros_verifactu').select(['nifemisor', 'numserie', 'fechaexpedicion']).where('id', '=', broken).executeTakeFirstOrThrow();
        await appendEvent(ctx, db, idempresa, EVENT_TYPES.recordAnomaly, {
          DeteccionAnomaliasRegFacturacion: {
            TipoAnomalia: records.firstBroken ? '01' : '02',
            OtrosDatosAnomalia: `registro ${broken}${records.signatures.firstInvalid ? `: ${records.signatures.firstInvalid.reason}` : ''}`.slice(0, 100),
            RegistroFacturacionAnomalo: { IDEmisorFactura: String(record.nifemisor), NumSerieFactura: String(record.numserie), FechaExpedicionFactura: String(record.fechaexpedicion) },
          },
        });
      }
      await appendEvent(ctx, db, idempresa, EVENT_TYPES.eventScan, {
        LanzamientoProcesoDeteccionAnomaliasRegEvento: {
          RealizadoProcesoSobreIntegridadHuellasRegEvento: 'S', NumeroDeRegistrosEventoProcesadosSobreIntegridadHuellas: cap(events.events, 5),
          RealizadoProcesoSobreIntegridadFirmasRegEvento: 'S', NumeroDeRegistrosEventoProcesadosSobreIntegridadFirmas: cap(events.signatures.signed + events.signatures.unsigned, 5),
          RealizadoProcesoSobreTrazabilidadCadenaRegEvento: 'S', NumeroDeRegistrosEventoProcesadosSobreTrazabilidadCadena: cap(events.events, 5),
          RealizadoProcesoSobreTrazabilidadFechasRegEvento: yes(false),
        },
      });
      if (events.firstBroken) {
        const event = await db.selectFrom('verifactu_eventos').select(['tipo', 'fechahorahuso', 'huella']).where('id', '=', events.firstBroken.id).executeTakeFirstOrThrow();
        await appendEvent(ctx, db, idempresa, EVENT_TYPES.eventAnomaly, {
          DeteccionAnomaliasRegEvento: {
            TipoAnomalia: /signature/.test(events.firstBroken.reason) ? '02' : '01',
            OtrosDatosAnomalia: `evento ${events.firstBroken.id}: ${events.firstBroken.reason}`.slice(0, 100),
            RegEventoAnomalo: { TipoEvento: String(event.tipo), FechaHoraHusoEvento: String(event.fechahorahuso), HuellaEvento: String(event.huella) },
          },
        });
      }
    });
  }
  return { ...records, valid: records.valid && events.valid, eventos: events };
}
