import { readFile } from 'node:fs/promises';
import { request } from 'node:https';
import { rootCertificates } from 'node:tls';
import type { AppContext } from '../../../app-context.ts';
import type { Certificate } from '../certificate.ts';

/** An answer larger than this is not a tax agency's (1,000 response lines are well under a megabyte). */
const MAX_ANSWER_BYTES = 16 * 1_048_576;

const authorities = new WeakMap<AppContext, Map<string, Promise<string>>>();

/**
 * An extra authority to trust (VERIFACTU_CA_FILE, TICKETBAI_CA_FILE, FACE_CA_FILE: a stand-in's, a
 * proxy's), its PEM read once per app and file; undefined when none is configured.
 */
export function trustedAuthority(ctx: AppContext, file: string | undefined): Promise<string> | undefined {
  if (!file) return undefined;
  const read = authorities.get(ctx) ?? new Map<string, Promise<string>>();
  authorities.set(ctx, read);
  if (!read.has(file)) read.set(file, readFile(file, 'utf8'));
  return read.get(file);
}

/** The message never got an answer: no connection, TLS refused, timeout, connection dropped. */
export class TransportError extends Error {
  override name = 'TransportError';
  /** Whether the connection was made (TLS included), so that the request may have arrived. */
  sent = true;
}

/** One POST to a tax agency's service over mutual TLS. */
export interface TlsPost {
  url: string;
  body: Buffer;
  headers: Record<string, string | number>;
  certificate: Certificate;
  /** PEM authorities trusted besides the system's. */
  extraCa?: string;
  timeoutMs: number;
}

/** The HTTP status, headers (lower-case names) and body bytes of an answer. */
export interface TlsAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * POSTs over HTTPS presenting the taxpayer's certificate (mutual TLS, as the AEAT and the Basque
 * treasuries require) and answers what came back. The whole exchange, connection included, is
 * bounded by `timeoutMs`, so that a sender never outlives its claim.
 */
export function postOverTls(call: TlsPost): Promise<TlsAnswer> {
  return new Promise((resolve, reject) => {
    let connected = false;
    const failed = (error: Error) => {
      if (error instanceof TransportError) return error;
      const failure = new TransportError(error.message);
      failure.sent = connected;
      return failure;
    };
    const outgoing = request(call.url, {
      method: 'POST',
      // The key and chain as read by node-forge, not the PKCS#12 itself: OpenSSL 3 refuses the legacy
      // (RC2, 3DES) files that authorities still issue, which node-forge opens.
      key: call.certificate.keyPem,
      cert: [call.certificate.certPem, ...call.certificate.chainPem].join('\n'),
      ca: call.extraCa ? [...rootCertificates, call.extraCa] : undefined,
      headers: { ...call.headers, 'content-length': call.body.length },
      agent: false,
    }, (incoming) => {
      const chunks: Buffer[] = [];
      let size = 0;
      incoming.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) outgoing.destroy(new TransportError(`answer larger than ${MAX_ANSWER_BYTES} bytes`));
        else chunks.push(chunk);
      });
      incoming.on('end', () => {
        const headers = Object.fromEntries(Object.entries(incoming.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value ?? '')]));
        resolve({ status: incoming.statusCode ?? 0, headers, body: Buffer.concat(chunks) });
      });
      incoming.on('error', (error) => reject(new TransportError(error.message)));
      incoming.on('aborted', () => reject(new TransportError('connection closed before the whole answer came')));
    });
    outgoing.on('socket', (socket) => socket.once('secureConnect', () => {
      connected = true;
    }));
    const timer = setTimeout(() => outgoing.destroy(failed(new Error(`no answer within ${call.timeoutMs} ms`))), call.timeoutMs);
    outgoing.on('close', () => clearTimeout(timer));
    outgoing.on('error', (error) => reject(failed(error)));
    outgoing.end(call.body);
  });
}

/** One SOAP 1.1 message to the AEAT (document/literal): its status and body as text. */
export async function postSoap(call: Omit<TlsPost, 'body' | 'headers'> & { body: string }): Promise<{ status: number; body: string }> {
  const answer = await postOverTls({ ...call, body: Buffer.from(call.body, 'utf8'), headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: '""' } });
  return { status: answer.status, body: answer.body.toString('utf8') };
}
