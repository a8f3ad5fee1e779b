import type { AppContext } from '../../../app-context.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { storedSwitchOf } from '../company-switch.ts';
import { verifyChain, type ChainCheck } from '../verify-chain.ts';
import type { XmlTree } from '../xml-tree.ts';
import { appendEvent } from './append-event.ts';
import { ANOMALY_TYPES, EVENT_TYPES } from './event-content.ts';
import { verifyEvents, type EventChainCheck } from './verify-events.ts';

const cap = (count: number, digits: number) => String(Math.min(count, 10 ** digits - 1));

/**
 * What a check covered (LanzamientoProcesoDeteccionAnomalias*): hashes, signatures and the chain,
 * each with how many it processed; dates are checked as records are made, not by this scan.
 */
function launched(of: 'RegFacturacion' | 'RegEvento', hashes: number, signatures: number, digits: number): XmlTree {
  const counted = of === 'RegFacturacion' ? 'NumeroDeRegistrosFacturacionProcesados' : 'NumeroDeRegistrosEventoProcesados';
  return {
    [`RealizadoProcesoSobreIntegridadHuellas${of}`]: 'S', [`${counted}SobreIntegridadHuellas`]: cap(hashes, digits),
    [`RealizadoProcesoSobreIntegridadFirmas${of}`]: 'S', [`${counted}SobreIntegridadFirmas`]: cap(signatures, digits),
    [`RealizadoProcesoSobreTrazabilidadCadena${of}`]: 'S', [`${counted}SobreTrazabilidadCadena`]: cap(hashes, digits),
    [`RealizadoProcesoSobreTrazabilidadFechas${of}`]: 'N',
  };
}

/**
 * `verifactuCadena`: the records' chain, hashes and signatures checked, and the event log's too. A
 * company in NO VERI*FACTU mode logs the check and what it found (events 03 and 04 for the records,
 * 05 and 06 for the events: RD 1007/2023 art. 7.i, an anomaly raises a lasting alarm).
 */
export async function scanCompany(ctx: AppContext, idempresa: number): Promise<ChainCheck & { eventos: EventChainCheck }> {
  const records = await verifyChain(ctx, idempresa);
  const events = await verifyEvents(ctx, idempresa);
  if ((await storedSwitchOf(ctx.database.kysely, idempresa))?.modo === 'noverifactu') {
    await inTransaction(ctx.database, async (db) => {
      await appendEvent(ctx, db, idempresa, EVENT_TYPES.recordScan, {
        LanzamientoProcesoDeteccionAnomaliasRegFacturacion: launched('RegFacturacion', records.records, records.signatures.signed + records.signatures.unsigned, 7),
      });
      const broken = records.firstBroken?.id ?? records.signatures.firstInvalid?.id;
      if (broken !== undefined) {
        const record = await db.selectFrom('registros_verifactu').select(['nifemisor', 'numserie', 'fechaexpedicion']).where('id', '=', broken).executeTakeFirstOrThrow();
        await appendEvent(ctx, db, idempresa, EVENT_TYPES.recordAnomaly, {
          DeteccionAnomaliasRegFacturacion: {
            TipoAnomalia: ANOMALY_TYPES[records.firstBroken ? 'chain' : 'signature'],
            OtrosDatosAnomalia: `registro ${broken}${records.signatures.firstInvalid ? `: ${records.signatures.firstInvalid.reason}` : ''}`.slice(0, 100),
            RegistroFacturacionAnomalo: { IDEmisorFactura: String(record.nifemisor), NumSerieFactura: String(record.numserie), FechaExpedicionFactura: String(record.fechaexpedicion) },
          },
        });
      }
      await appendEvent(ctx, db, idempresa, EVENT_TYPES.eventScan, {
        LanzamientoProcesoDeteccionAnomaliasRegEvento: launched('RegEvento', events.events, events.signatures.signed + events.signatures.unsigned, 5),
      });
      if (events.firstBroken) {
        const event = await db.selectFrom('verifactu_eventos').select(['tipo', 'fechahorahuso', 'huella']).where('id', '=', events.firstBroken.id).executeTakeFirstOrThrow();
        await appendEvent(ctx, db, idempresa, EVENT_TYPES.eventAnomaly, {
          DeteccionAnomaliasRegEvento: {
            TipoAnomalia: ANOMALY_TYPES[events.firstBroken.check],
            OtrosDatosAnomalia: `evento ${events.firstBroken.id}: ${events.firstBroken.reason}`.slice(0, 100),
            RegEventoAnomalo: { TipoEvento: String(event.tipo), FechaHoraHusoEvento: String(event.fechahorahuso), HuellaEvento: String(event.huella) },
          },
        });
      }
    });
  }
  return { ...records, valid: records.valid && events.valid, eventos: events };
}
