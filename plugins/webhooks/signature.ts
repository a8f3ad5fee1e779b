import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The signature header of a delivery: `X-Webhook-Signature: t=<unix seconds>,v1=<hex>` where the
 * hex is HMAC-SHA256 of `<t>.<body>` under the webhook's secret (the scheme of docs/events.md).
 * A receiver recomputes it over the raw body, compares in constant time, and rejects a `t` more
 * than five minutes from its clock (a replay).
 */
export function signatureHeader(secret: string, body: string, timestamp: number): string {
  return `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** The receiver's side, as docs/events.md shows it (the tests verify deliveries with it). */
export function verifySignature(secret: string, body: string, header: string, nowSeconds: number, toleranceSeconds = 300): boolean {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  if (!match) return false;
  const timestamp = Number(match[1]);
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) return false;
  const expected = Buffer.from(signatureHeader(secret, body, timestamp).split('v1=')[1]!, 'hex');
  return timingSafeEqual(expected, Buffer.from(match[2]!, 'hex'));
}
