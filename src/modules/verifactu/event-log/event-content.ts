import { createHash } from 'node:crypto';
import type { XmlTree } from '../xml-tree.ts';

/** TipoEvento (EventosSIF.xsd, list L2E). */
export const EVENT_TYPES = {
  start: '01', end: '02', recordScan: '03', recordAnomaly: '04', eventScan: '05', eventAnomaly: '06', recordExport: '08', eventExport: '09', summary: '10',
} as const;
export type EventType = (typeof EVENT_TYPES)[keyof typeof EVENT_TYPES];

/** TipoAnomalia (list L4E) of each check: integrity of the hash or chain, of the signature, a date after now. */
export const ANOMALY_TYPES = { chain: '01', signature: '02', time: '13' } as const;

/** Whether a chain head's last event leaves no NO VERI*FACTU operation open (none yet, or an end, 02): the next record or event opens one (01). */
export const operationClosed = (head: { tipoevento?: unknown }) => head.tipoevento === null || head.tipoevento === undefined || head.tipoevento === EVENT_TYPES.end;

/** OtrosDatosEvento of a start (01) or a summary (10): the last record before it, where the next summary starts. */
export const upToText = (id: number) => `registros hasta ${id}`;

/** The event before, as the next one's `EventoAnterior` names it. */
export interface EventLink {
  TipoEvento: string;
  FechaHoraHusoGenEvento: string;
  HuellaEvento: string;
}

interface EventFacts {
  tipo: EventType;
  obligado: { NombreRazon: string; NIF: string };
  /** DatosPropiosEvento: the one block its type carries (a scan's counts, an anomaly, an export, a summary). */
  datos?: XmlTree;
  otros?: string;
}

/**
 * `HuellaEvento` (AEAT hash specification v0.1.2, events): SHA-256 of `name=value&...` over the
 * producer's NIF and foreign id, the system's id and version, the installation number, the
 * taxpayer's NIF, the event's type, the previous event's hash and the event's timestamp, as 64
 * upper-case hexadecimal characters.
 */
function eventHash(system: XmlTree, obligadoNif: string, tipo: string, previous: string, timestamp: string): string {
  const pairs: Array<[string, string]> = [
    ['NIF', String(system.NIF ?? '')], ['ID', String((system.IDOtro as XmlTree | undefined)?.ID ?? '')],
    ['IdSistemaInformatico', String(system.IdSistemaInformatico)], ['Version', String(system.Version)], ['NumeroInstalacion', String(system.NumeroInstalacion)],
    ['NIF', obligadoNif], ['TipoEvento', tipo], ['HuellaEvento', previous], ['FechaHoraHusoGenEvento', timestamp],
  ];
  const text = pairs.map(([name, value]) => `${name}=${value.trim()}`).join('&');
  return createHash('sha256').update(text, 'utf8').digest('hex').toUpperCase();
}

/** A `RegistroEvento` in schema order, chained to the event before and hashed. */
export function eventRecord(facts: EventFacts, previous: EventLink | undefined, system: XmlTree, timestamp: string): { content: XmlTree; huella: string } {
  const hash = eventHash(system, facts.obligado.NIF, facts.tipo, previous?.HuellaEvento ?? '', timestamp);
  const evento: XmlTree = {
    SistemaInformatico: system,
    ObligadoEmision: { ...facts.obligado },
    FechaHoraHusoGenEvento: timestamp,
    TipoEvento: facts.tipo,
  };
  if (facts.datos) evento.DatosPropiosEvento = facts.datos;
  if (facts.otros) evento.OtrosDatosEvento = facts.otros;
  Object.assign(evento, {
    Encadenamiento: previous ? { EventoAnterior: { ...previous } } : { PrimerEvento: 'S' },
    TipoHuella: '01',
    HuellaEvento: hash,
  });
  return { content: { IDVersion: '1.0', Evento: evento }, huella: hash };
}

/** What an event's hash was computed from, read back from its content (event chain checks). */
export function eventHashOf(content: XmlTree): string {
  const evento = content.Evento as XmlTree;
  const chain = evento.Encadenamiento as { EventoAnterior?: EventLink };
  return eventHash(evento.SistemaInformatico as XmlTree, String((evento.ObligadoEmision as XmlTree).NIF), String(evento.TipoEvento),
    chain.EventoAnterior?.HuellaEvento ?? '', String(evento.FechaHoraHusoGenEvento));
}
