import { request } from 'node:https';
import { rootCertificates } from 'node:tls';
import type { Certificate } from '../certificate.ts';

/** An answer larger than this is not the AEAT's (1,000 response lines are well under a megabyte). */
const MAX_ANSWER_BYTES = 16 * 1_048_576;

/** The message never got an answer: no connection, TLS refused, timeout, connection dropped. */
export class TransportError extends Error {
  override name = 'TransportError';
}

interface SoapCall {
  url: string;
  body: string;
  certificate: Certificate;
  /** PEM authorities trusted besides the system's. */
  extraCa?: string;
  timeoutMs: number;
}

/**
 * POSTs one SOAP 1.1 message over HTTPS presenting the taxpayer's certificate (mutual TLS, as the
 * AEAT requires) and answers the HTTP status and body. The whole exchange, connection included, is
 * bounded by `timeoutMs`, so that a sender never outlives its claim.
 */
export function postSoap(call: SoapCall): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const payload = Buffer.from(call.body, 'utf8');
    const outgoing = request(call.url, {
      method: 'POST',
      // The key and chain as read by node-forge, not the PKCS#12 itself: OpenSSL 3 refuses the legacy
      // (RC2, 3DES) files that authorities still issue, which node-forge opens.
      key: call.certificate.keyPem,
      cert: [call.certificate.certPem, ...call.certificate.chainPem].join('\n'),
      ca: call.extraCa ? [...rootCertificates, call.extraCa] : undefined,
      headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: '""', 'content-length': payload.length },
      agent: false,
    }, (incoming) => {
      const chunks: Buffer[] = [];
      let size = 0;
      incoming.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_ANSWER_BYTES) outgoing.destroy(new TransportError(`answer larger than ${MAX_ANSWER_BYTES} bytes`));
        else chunks.push(chunk);
      });
      incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      incoming.on('error', (error) => reject(new TransportError(error.message)));
      incoming.on('aborted', () => reject(new TransportError('connection closed before the whole answer came')));
    });
    const timer = setTimeout(() => outgoing.destroy(new TransportError(`no answer within ${call.timeoutMs} ms`)), call.timeoutMs);
    outgoing.on('close', () => clearTimeout(timer));
    outgoing.on('error', (error) => reject(error instanceof TransportError ? error : new TransportError(error.message)));
    outgoing.end(payload);
  });
}
