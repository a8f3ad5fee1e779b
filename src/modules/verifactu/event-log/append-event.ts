import { sql } from 'kysely';
import type { AppContext } from '../../../app-context.ts';
import type { DbExecutor } from '../../../db/database.ts';
import { companyOf } from '../../company/index.ts';
import { lockedHead } from '../chain-head.ts';
import { storedSwitchOf } from '../company-switch.ts';
import { systemInfo } from '../producer.ts';
import { instantOf, registrationTime, territoryOf } from '../registration-time.ts';
import { trySign } from '../signing/sign-record.ts';
import { spanishTaxId } from '../../fiscal/index.ts';
import { xmlText, type XmlTree } from '../xml-tree.ts';
import { eventXml } from '../xml-document.ts';
import { EVENT_TYPES, eventRecord, operationClosed, upToText, type EventLink, type EventType } from './event-content.ts';
import { eventoVerifactuModel } from './event-models.ts';

/**
 * Appends an event to the company's event log, in the caller's transaction: the chain head is
 * locked (events and records of one company are generated one at a time), the event dated in the
 * issuing territory's time (never before the event before it), chained, hashed, signed with the
 * company's certificate (kept unsigned, and logged, when there is none), and the head moved on.
 * Returns its id.
 */
export async function appendEvent(ctx: AppContext, db: DbExecutor, idempresa: number, tipo: EventType, datos?: XmlTree, otros?: string): Promise<number> {
  let head = await lockedHead(db, ctx, idempresa);
  // Whatever is logged first (a check before the first record, say) comes after the operation's start.
  if (tipo !== EVENT_TYPES.start && tipo !== EVENT_TYPES.end && operationClosed(head)) {
    await appendEvent(ctx, db, idempresa, EVENT_TYPES.start, undefined, upToText(Number(head.idultimo ?? 0)));
    head = await lockedHead(db, ctx, idempresa);
  }
  const company = (await companyOf(db, idempresa)) ?? {};
  const switchRow = (await storedSwitchOf(db, idempresa))!;
  const companies = await db.selectFrom('empresas').select(sql<number>`count(*)`.as('n')).executeTakeFirst();
  const previous: EventLink | undefined = head.idultimoevento === null || head.idultimoevento === undefined ? undefined
    : { TipoEvento: String(head.tipoevento), FechaHoraHusoGenEvento: String(head.fechaevento), HuellaEvento: String(head.huellaevento) };
  const instant = Math.max(ctx.clock.now(), previous ? instantOf(previous.FechaHoraHusoGenEvento) : 0);
  const timestamp = registrationTime(instant, territoryOf(company));
  const system = systemInfo(switchRow.numeroinstalacion, Number(companies?.n ?? 1) > 1);
  const obligado = { NombreRazon: xmlText(company.nombre, 120), NIF: spanishTaxId(company.cifnif as string | null) ?? xmlText(company.cifnif, 9) };
  const detalle = otros ? xmlText(otros, 100) : undefined;
  const { content, huella } = eventRecord({ tipo, obligado, datos, otros: detalle }, previous, system, timestamp);
  const outcome = await trySign(ctx, db, idempresa, eventXml(content), new Date(instant), 'Evento');
  const firmado = 'signed' in outcome ? outcome.signed : null;
  if ('unsigned' in outcome) ctx.log.warn({ idempresa, tipo, reason: outcome.unsigned }, 'VERI*FACTU event kept unsigned');
  const [id] = await ctx.store.insertMany(eventoVerifactuModel, [{
    idempresa, tipo, fechahorahuso: timestamp, idanterior: previous ? Number(head.idultimoevento) : null, huellaanterior: previous?.HuellaEvento ?? null,
    huella, detalle: detalle ?? null, registro: content, firmado,
  }], db);
  await db.updateTable('verifactu_cadenas').set({
    eventos: Number(head.eventos ?? 0) + 1, idultimoevento: id!, tipoevento: tipo, fechaevento: timestamp, huellaevento: huella,
  }).where('idempresa', '=', idempresa).execute();
  return id!;
}
