import type { create } from 'xmlbuilder2';
import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { AppError, validationError } from '../../errors.ts';
import { lazyLibrary } from '../../lazy-library.ts';
import { certificateOf, childElements, childText, postOverTls, TransportError, trustedAuthority, type Element } from '../verifactu/index.ts';
import { signedEnvelope } from './ws-security.ts';

const xmlbuilder2 = lazyLibrary<{ create: typeof create }>('xmlbuilder2');
const xmldom = lazyLibrary<typeof import('@xmldom/xmldom')>('@xmldom/xmldom');
/** An operation's parts as a tree: text, a child tree, or a repeated child. */
export type Parts = { [name: string]: string | Parts | Array<Parts | string> };

const FACE = 'https://webservice.face.gob.es';

/** FACe's answer: its `resultado` and the rest of `return`. */
export interface FaceAnswer {
  codigo: string;
  descripcion: string;
  codigoSeguimiento: string | null;
  result: Element;
}

function body(operation: string, parts: Parts): string {
  const doc = xmlbuilder2().create();
  const append = (parent: ReturnType<typeof doc.ele>, tree: Parts) => {
    for (const [name, value] of Object.entries(tree)) {
      if (typeof value === 'string') parent.ele(name).txt(value);
      else if (Array.isArray(value)) for (const item of value) typeof item === 'string' ? parent.ele(name).txt(item) : append(parent.ele(name), item);
      else append(parent.ele(name), value);
    }
  };
  const root = doc.ele(FACE, `web:${operation}`);
  append(root, parts);
  return root.toString();
}

/**
 * One call of FACe's supplier service (`facturasspp2`, SOAP 1.1 RPC/literal), signed with
 * WS-Security with the company's certificate (the one registered in FACe's portal). Answers FACe's
 * `resultado` and `return`. No answer, an HTTP error or a fault is 502 `face-unavailable`; the
 * caller judges `codigo`. Never called inside a transaction (it waits on the network).
 */
export async function callFace(ctx: AppContext, db: DbExecutor, idempresa: number, operation: string, parts: Parts): Promise<FaceAnswer> {
  const certificate = await certificateOf(ctx, db, idempresa);
  if (!certificate) throw validationError({ certificado: 'required' });
  // The request's timestamp is the machine's time (FACe checks it against its own), not the business clock.
  const envelope = signedEnvelope(body(operation, parts), certificate, Date.now());
  let reply;
  try {
    reply = await postOverTls({
      url: ctx.config.face.endpoint, body: Buffer.from(envelope, 'utf8'), certificate, extraCa: await trustedAuthority(ctx, ctx.config.face.caFile), timeoutMs: ctx.config.face.timeoutMs,
      headers: { 'content-type': 'text/xml;charset=UTF-8', soapaction: `"${FACE}#${operation}"` },
    });
  } catch (error) {
    // `sent`: the request may have arrived (the connection was made): its outcome is unknown.
    throw new AppError('face-unavailable', { reason: (error as Error).message, sent: !(error instanceof TransportError) || error.sent });
  }
  const text = reply.body.toString('utf8');
  const root = new (xmldom().DOMParser)({ onError: () => undefined }).parseFromString(text, 'text/xml').documentElement as unknown as Element | null;
  const soapBody = root ? childElements(root, 'Body')[0] : undefined;
  const fault = soapBody && childElements(soapBody, 'Fault')[0];
  if (fault) throw new AppError('face-unavailable', { reason: `${childText(fault, 'faultcode') ?? ''}: ${childText(fault, 'faultstring') ?? ''}`.slice(0, 1000) });
  const response = soapBody && childElements(soapBody, `${operation}Response`)[0];
  const result = response && childElements(response, 'return')[0];
  if (!result || reply.status !== 200) throw new AppError('face-unavailable', { reason: `HTTP ${reply.status}: no ${operation}Response` });
  return { codigo: childText(result, 'resultado', 'codigo') ?? '', descripcion: childText(result, 'resultado', 'descripcion') ?? '', codigoSeguimiento: childText(result, 'resultado', 'codigoSeguimiento') ?? null, result };
}

/** FACe's codes about FACe itself or the request's transport (its validation or storage failing, retry later): nothing of the invoice is judged. */
const FACE_SIDE = new Set(['001', '101', '102', '103', '104', '200', '201', '317', '401', '402', '403']);
/** FACe holds the invoice already (the number, or series + number + date, sent before). */
const DUPLICATE = new Set(['414', '415']);

/**
 * FACe's refusal as our error, with its code, text and trace id: FACe's own failures and a request
 * it could not read or verify (1xx, 2xx, 317, 401-403) are 502 `face-unavailable`; a duplicate
 * (414, 415) is 409 `face-already-sent`; the rest (the invoice, its centres, its signature, its
 * state, the certificate not registered in FACe: 300, 106) 422 `face-refused`.
 */
export function faceRefusal(answer: FaceAnswer): AppError {
  const details = { codigo: answer.codigo, descripcion: answer.descripcion, codigoSeguimiento: answer.codigoSeguimiento };
  const code = answer.codigo.padStart(3, '0');
  if (DUPLICATE.has(code)) return new AppError('face-already-sent', details);
  if (!/^\d+$/.test(code) || FACE_SIDE.has(code) || (code.startsWith('1') && code !== '106')) return new AppError('face-unavailable', details);
  return new AppError('face-refused', details);
}
