import { gunzipSync } from 'node:zlib';
import { lazyLibrary } from '../../../lazy-library.ts';
import { childElements, childText, type Element } from '../../verifactu/index.ts';
import type { FileState } from '../record-models.ts';

const xmldom = lazyLibrary<typeof import('@xmldom/xmldom')>('@xmldom/xmldom');


/** What the treasury said of one file: its state here, its codes and texts, its CSV. */
export interface FileOutcome {
  estado: FileState;
  codigo: string | null;
  descripcion: string | null;
  csv: string | null;
}

/** A whole answer: one outcome per file, or the service unavailable (the files go again later). */
export type Answer = { unavailable: string } | { outcomes: FileOutcome[] };

const children = childElements;
const child = (parent: Element | undefined, name: string) => childElements(parent, name)[0];
const textOf = childText;

function parse(xml: string): Element {
  const root = new (xmldom().DOMParser)({ onError: () => undefined }).parseFromString(xml, 'text/xml').documentElement;
  if (!root) throw new Error('the answer is not XML');
  return root as unknown as Element;
}

const joined = (values: Array<string | undefined>, max: number) => values.filter(Boolean).join(', ').slice(0, max) || null;
/** A treasury's code and text as the file's columns hold them (`codigo` 100, `descripcion` 1,500 characters). */
const code = (value: string | null | undefined) => (value ? value.slice(0, 100) : null);
const text = (value: string | null | undefined) => (value ? value.slice(0, 1500) : null);

/**
 * Araba's and Gipuzkoa's `TicketBaiResponse` (read by local names: the namespace has varied):
 * `00` received (warnings, codes 007-014, come with it), `01` refused. Refusals that mean the file
 * is there already (005 for an invoice, 019 for a cancellation) are taken as received; 006 is the
 * service unavailable. Anything else (another status, no such document) is no answer.
 */
export function parseRestAnswer(status: number, body: string, operation: 'alta' | 'anulacion' | 'zuzendu-alta' | 'zuzendu-baja'): Answer {
  if (status !== 200) return { unavailable: `HTTP ${status}` };
  let root: Element;
  try {
    root = parse(body);
  } catch {
    return { unavailable: 'the answer is not XML' };
  }
  const salida = child(root, 'Salida');
  if (root.localName !== 'TicketBaiResponse' || !salida) return { unavailable: `unexpected answer <${root.localName}>` };
  const results = children(salida, 'ResultadosValidacion').map((result) => ({ codigo: textOf(result, 'Codigo') ?? '', descripcion: textOf(result, 'Descripcion') }));
  const codes = results.map((result) => result.codigo);
  const estado = textOf(salida, 'Estado');
  const outcome = (state: FileState): Answer => ({
    outcomes: [{ estado: state, codigo: joined(codes, 100), descripcion: joined(results.map((result) => result.descripcion), 1500) ?? text(textOf(salida, 'Descripcion')), csv: textOf(salida, 'CSV')?.slice(0, 64) ?? null }],
  });
  if (estado === '00') return outcome('aceptado');
  if (codes.includes('006')) return { unavailable: `006 ${results.find((result) => result.codigo === '006')?.descripcion ?? ''}`.trim() };
  const duplicate = operation === 'anulacion' || operation === 'zuzendu-baja' ? '019' : '005';
  if (codes.includes(duplicate)) return outcome('aceptado');
  return outcome('rechazado');
}

/** One record of an LROE answer, by the invoice it names. */
interface LroeRecord {
  key: string;
  estado: string;
  codigo?: string;
  descripcion?: string;
}

/** `serie|numero|fecha`, how an LROE answer's records are matched to the files sent. */
export const lroeKey = (serie: string | null | undefined, numero: string, fecha: string) => `${serie ?? ''}|${numero}|${fecha}`;

/**
 * Batuz's answer (LROE, `eus-bizkaia-n3-*` headers and a gzip XML body): a technical error
 * (B4_1000004), the entry platform's refusal of the taxpayer (N3_*) or an HTTP error leaves the
 * files waiting; an `Incorrecto` without records refuses
 * every file with its code; otherwise each record's `EstadoRegistro`: `Correcto` and `AceptadoConErrores` are registered,
 * `Incorrecto` is not, but for a duplicate (B4_2000003) or a cancellation of one cancelled already
 * (B4_2000006), which mean the treasury holds it.
 */
export function parseLroeAnswer(status: number, headers: Record<string, string>, body: Buffer, keys: string[], operation: 'alta' | 'anulacion'): Answer {
  const kind = headers['eus-bizkaia-n3-tipo-respuesta'];
  if (status !== 200 || !kind) return { unavailable: `HTTP ${status}${kind ? '' : ', no eus-bizkaia-n3-tipo-respuesta'}` };
  const refusal = headers['eus-bizkaia-n3-codigo-respuesta'];
  const message = headers['eus-bizkaia-n3-mensaje-respuesta'];
  // A technical error, or the entry platform refusing the taxpayer (N3_*: certificate, power of
  // attorney, device census ...): nothing of the files was judged, they wait until it is put right.
  if (kind === 'Incorrecto' && (!refusal || refusal === 'B4_1000004' || refusal.startsWith('N3_'))) return { unavailable: `${refusal ?? ''} ${message ?? ''}`.trim() || 'Incorrecto' };
  let root: Element | undefined;
  try {
    const bytes = body.length >= 2 && body[0] === 0x1f && body[1] === 0x8b ? gunzipSync(body) : body;
    if (bytes.length) root = parse(bytes.toString('utf8'));
  } catch (error) {
    if (kind !== 'Incorrecto') return { unavailable: `unreadable answer: ${(error as Error).message}` };
  }
  const records: LroeRecord[] = children(child(root, 'Registros'), 'Registro').map((record) => {
    const id = child(child(record, 'Identificador'), 'IDFactura');
    const situation = child(record, 'SituacionRegistro');
    return {
      key: lroeKey(textOf(id, 'SerieFactura'), textOf(id, 'NumFactura') ?? '', textOf(id, 'FechaExpedicionFactura') ?? ''),
      estado: textOf(situation, 'EstadoRegistro') ?? '',
      codigo: textOf(situation, 'CodigoErrorRegistro'),
      descripcion: textOf(situation, 'DescripcionErrorRegistroES'),
    };
  });
  // The whole request refused, each record unnamed (a schema error, say): every file is refused with its code.
  if (kind === 'Incorrecto' && !records.length) return { outcomes: keys.map(() => ({ estado: 'rechazado' as const, codigo: code(refusal), descripcion: text(message), csv: null })) };
  const registro = headers['eus-bizkaia-n3-numero-registro'] ?? headers['eus-bizkaia-n3-identificativo'] ?? null;
  const held = operation === 'alta' ? 'B4_2000003' : 'B4_2000006';
  return {
    outcomes: keys.map((key) => {
      const record = records.find((candidate) => candidate.key === key);
      // A record the answer does not name was not taken: it goes again.
      if (!record) return { estado: 'pendiente' as const, codigo: null, descripcion: 'not in the answer', csv: null };
      const taken = record.estado === 'Correcto' || record.estado === 'AceptadoConErrores' || record.codigo === held;
      return { estado: taken ? 'aceptado' as const : 'rechazado' as const, codigo: code(record.codigo), descripcion: text(record.descripcion), csv: registro?.slice(0, 64) ?? null };
    }),
  };
}
