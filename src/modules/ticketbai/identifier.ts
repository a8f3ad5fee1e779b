/**
 * The TicketBAI identifier and QR address (TicketBAI specification 1.2 §4.3.2-4.3.3; Bizkaia OF
 * 2170/2020 annex V): both end in a CRC-8 (polynomial x⁸+x²+x+1, initial value 0, no reflection,
 * no final XOR: CRC-8/SMBUS) of the text before it, printed as three decimal digits.
 */
const TABLE = Array.from({ length: 256 }, (_, byte) => {
  let crc = byte;
  for (let bit = 0; bit < 8; bit++) crc = crc & 0x80 ? ((crc << 1) ^ 0x07) & 0xff : (crc << 1) & 0xff;
  return crc;
});

/** CRC-8 of a text's UTF-8 bytes, as the three digits TicketBAI prints. */
export function crc8(text: string): string {
  let crc = 0;
  for (const byte of Buffer.from(text, 'utf8')) crc = TABLE[crc ^ byte]!;
  return String(crc).padStart(3, '0');
}

/**
 * `TBAI-<issuer NIF>-<DDMMYY of the issue date>-<first 13 characters of the file's SignatureValue>-<CRC>`,
 * 39 characters. `fecha` is the file's `dd-mm-yyyy`.
 */
export function tbaiIdentifier(nif: string, fecha: string, signatureValue: string): string {
  const [day, month, year] = fecha.split('-');
  const body = `TBAI-${nif}-${day}${month}${year!.slice(2)}-${signatureValue.slice(0, 13)}-`;
  return `${body}${crc8(body)}`;
}

/**
 * The QR's address: the territory's base with `id`, `s` (series), `nf` (number) and `i` (the
 * invoice's total exactly as its file writes it), each percent-encoded, then `cr`, the CRC of all
 * that precedes it.
 */
export function qrAddress(base: string, invoice: { id: string; serie?: string; numero: string; importe: string }): string {
  const parts = [`id=${encodeURIComponent(invoice.id)}`];
  if (invoice.serie) parts.push(`s=${encodeURIComponent(invoice.serie)}`);
  parts.push(`nf=${encodeURIComponent(invoice.numero)}`, `i=${encodeURIComponent(invoice.importe)}`);
  const address = `${base}?${parts.join('&')}`;
  return `${address}&cr=${crc8(address)}`;
}
