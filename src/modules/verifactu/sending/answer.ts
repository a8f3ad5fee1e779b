import type { DOMParser as DomParser, Element } from '@xmldom/xmldom';
import { childElements, childText } from '../xml-read.ts';
import { lazyLibrary } from '../../../lazy-library.ts';
import { TransportError } from './soap-client.ts';

const xmldom = lazyLibrary<{ DOMParser: typeof DomParser }>('@xmldom/xmldom');

/** What the AEAT says of one record (RespuestaExpedidaType). */
export interface AnswerLine {
  IDEmisorFactura: string;
  NumSerieFactura: string;
  FechaExpedicionFactura: string;
  TipoOperacion: 'Alta' | 'Anulacion';
  EstadoRegistro: 'Correcto' | 'AceptadoConErrores' | 'Incorrecto';
  CodigoErrorRegistro?: number;
  DescripcionErrorRegistro?: string;
  /** Code 3000: what the AEAT already holds for this invoice (the record sent before, or another one). */
  RegistroDuplicado?: { IdPeticionRegistroDuplicado: string; EstadoRegistroDuplicado: string; CodigoErrorRegistro?: number; DescripcionErrorRegistro?: string };
}

/** A message the AEAT took (RespuestaRegFactuSistemaFacturacion): the CSV, the submission, the wait, each record's fate. */
export interface Answer {
  kind: 'answer';
  CSV?: string;
  DatosPresentacion?: { NIFPresentador: string; TimestampPresentacion: string; IdPeticion?: string };
  TiempoEsperaEnvio: number;
  EstadoEnvio: 'Correcto' | 'ParcialmenteCorrecto' | 'Incorrecto';
  lines: AnswerLine[];
}

/** The whole message refused (`soapenv:Fault`): header or schema errors (`soapenv:Client`), or the AEAT's trouble (`soapenv:Server`). */
export interface Fault {
  kind: 'fault';
  faultcode: string;
  faultstring: string;
}

const child = (parent: Element, name: string): Element | undefined => childElements(parent, name)[0];
const text = (parent: Element | undefined, name: string): string | undefined => childText(parent, name);
const code = (value: string | undefined): number | undefined => (value === undefined || !/^\d+$/.test(value) ? undefined : Number(value));

/**
 * Reads the AEAT's HTTP answer to a `RegFactuSistemaFacturacion`: an answer, a fault, or (anything
 * else: an HTML error page, a proxy's refusal, a body cut short) a TransportError, after which the
 * records stay queued.
 */
export function parseAnswer(status: number, body: string): Answer | Fault {
  let root: Element | null;
  try {
    root = new (xmldom().DOMParser)({ onError: (level, message) => { if (level !== 'warning') throw new Error(message); } })
      .parseFromString(body, 'text/xml').documentElement;
  } catch (error) {
    throw new TransportError(`HTTP ${status}, not XML: ${(error as Error).message}`.slice(0, 1500));
  }
  const soapBody = root && root.localName === 'Envelope' ? child(root, 'Body') : undefined;
  const fault = soapBody && child(soapBody, 'Fault');
  if (fault) return { kind: 'fault', faultcode: text(fault, 'faultcode') ?? '', faultstring: (text(fault, 'faultstring') ?? '').slice(0, 1400) };
  const answer = soapBody && child(soapBody, 'RespuestaRegFactuSistemaFacturacion');
  const wait = code(text(answer, 'TiempoEsperaEnvio'));
  const estado = text(answer, 'EstadoEnvio');
  if (!answer || wait === undefined || !estado || status !== 200) throw new TransportError(`HTTP ${status} without the AEAT's answer`);
  const datos = child(answer, 'DatosPresentacion');
  const lines: AnswerLine[] = [];
  for (let node = answer.firstChild; node; node = node.nextSibling) {
    if (node.nodeType !== 1 || (node as Element).localName !== 'RespuestaLinea') continue;
    const line = node as Element;
    const id = child(line, 'IDFactura');
    const duplicate = child(line, 'RegistroDuplicado');
    lines.push({
      IDEmisorFactura: text(id, 'IDEmisorFactura') ?? '',
      NumSerieFactura: text(id, 'NumSerieFactura') ?? '',
      FechaExpedicionFactura: text(id, 'FechaExpedicionFactura') ?? '',
      TipoOperacion: text(child(line, 'Operacion'), 'TipoOperacion') === 'Anulacion' ? 'Anulacion' : 'Alta',
      EstadoRegistro: (text(line, 'EstadoRegistro') ?? 'Incorrecto') as AnswerLine['EstadoRegistro'],
      CodigoErrorRegistro: code(text(line, 'CodigoErrorRegistro')),
      DescripcionErrorRegistro: text(line, 'DescripcionErrorRegistro'),
      RegistroDuplicado: duplicate && {
        IdPeticionRegistroDuplicado: text(duplicate, 'IdPeticionRegistroDuplicado') ?? '',
        EstadoRegistroDuplicado: text(duplicate, 'EstadoRegistroDuplicado') ?? '',
        CodigoErrorRegistro: code(text(duplicate, 'CodigoErrorRegistro')),
        DescripcionErrorRegistro: text(duplicate, 'DescripcionErrorRegistro'),
      },
    });
  }
  return {
    kind: 'answer',
    CSV: text(answer, 'CSV'),
    DatosPresentacion: datos && { NIFPresentador: text(datos, 'NIFPresentador') ?? '', TimestampPresentacion: text(datos, 'TimestampPresentacion') ?? '', IdPeticion: text(datos, 'IdPeticion') },
    TiempoEsperaEnvio: wait,
    EstadoEnvio: estado as Answer['EstadoEnvio'],
    lines,
  };
}
