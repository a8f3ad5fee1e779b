import type { AppContext } from '../../../app-context.ts';
import { rowReader } from '../../../db/row-codec.ts';
import { checkSigned } from '../signing/sign-record.ts';
import { eventXml } from '../xml-document.ts';
import type { XmlTree } from '../xml-tree.ts';
import { eventHashOf } from './event-content.ts';
import { eventoVerifactuModel } from './event-models.ts';

export interface EventChainCheck {
  valid: boolean;
  events: number;
  /** The first event whose hash, link, columns or signature do not hold, which check failed, and why. */
  firstBroken: null | { id: number; check: 'chain' | 'signature'; reason: string };
  signatures: { signed: number; unsigned: number };
}

const PAGE = 500;
const read = rowReader(eventoVerifactuModel);

/**
 * The company's event log walked in order: every HuellaEvento computed again from the event's own
 * content, every link to the event before checked (by id and by hash), every signature verified
 * and checked to sign the event kept. Nothing is written.
 */
export async function verifyEvents(ctx: AppContext, idempresa: number): Promise<EventChainCheck> {
  const db = ctx.database.kysely;
  let previous: Record<string, unknown> | undefined;
  const result: EventChainCheck = { valid: true, events: 0, firstBroken: null, signatures: { signed: 0, unsigned: 0 } };
  for (let after = 0; ;) {
    const page = (await db.selectFrom(eventoVerifactuModel.table).selectAll().where('idempresa', '=', idempresa).where('id', '>', after).orderBy('id').limit(PAGE).execute()).map(read);
    for (const event of page) {
      result.events++;
      const content = event.registro as XmlTree;
      const evento = content.Evento as XmlTree;
      const link = (evento.Encadenamiento as { EventoAnterior?: { HuellaEvento: string } }).EventoAnterior?.HuellaEvento;
      const broken = (reason: string, check: 'chain' | 'signature' = 'chain') => ({ ...result, valid: false, firstBroken: { id: Number(event.id), check, reason } });
      if (eventHashOf(content) !== event.huella || evento.HuellaEvento !== event.huella) return broken('the hash does not recompute');
      // Summaries count by the type column and exports select by the time column: both must be the content's.
      if (event.tipo !== evento.TipoEvento || event.fechahorahuso !== evento.FechaHoraHusoGenEvento) return broken('the columns are not the event kept');
      const linked = previous
        ? Number(event.idanterior) === Number(previous.id) && event.huellaanterior === previous.huella && link === previous.huella
        : (event.idanterior ?? null) === null && link === undefined;
      if (!linked) return broken('the link to the event before does not hold');
      if (event.firmado) {
        const reason = await checkSigned(String(event.firmado), eventXml(content));
        if (reason) return broken(reason, 'signature');
        result.signatures.signed++;
      } else {
        result.signatures.unsigned++;
      }
      previous = event;
    }
    if (page.length < PAGE) return result;
    after = Number(page[page.length - 1]!.id);
  }
}
