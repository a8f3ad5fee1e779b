import zlib from 'node:zlib';

/**
 * The company's logo bytes when pdfkit can embed them safely, else null (the document is then
 * printed without a logo rather than failing).
 *
 * pdfkit recognises PNG and JPEG, and throws synchronously on other bytes (the caller catches
 * that). A PNG with an alpha channel, though, is decoded later in a zlib callback whose error
 * pdfkit rethrows: a corrupt logo would crash the process, not the request. So a PNG's image data
 * is inflated here first, synchronously, and a PNG that does not inflate is refused.
 */
export function usableLogo(bytes: Uint8Array | null): Buffer | null {
  if (!bytes || bytes.length < 8) return null;
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer[0] === 0xff && buffer[1] === 0xd8) return buffer;
  if (!buffer.subarray(0, 8).equals(PNG_SIGNATURE)) return null;
  const data: Buffer[] = [];
  let header: Buffer | undefined;
  let offset = 8;
  while (offset + 8 <= buffer.length) {
    const length = buffer.readUInt32BE(offset);
    const type = buffer.toString('latin1', offset + 4, offset + 8);
    const end = offset + 8 + length;
    if (end + 4 > buffer.length) return null;
    if (type === 'IHDR' && length >= 8) header = buffer.subarray(offset + 8, offset + 16);
    if (type === 'IDAT') data.push(buffer.subarray(offset + 8, end));
    if (type === 'IEND') break;
    offset = end + 4;
  }
  if (data.length === 0 || !header) return null;
  // A few compressed bytes may inflate to gigabytes: the output is bounded by what the declared
  // size can hold (16-bit RGBA, one filter byte per row), and images beyond 4,000 pixels a side
  // are refused outright.
  const width = header.readUInt32BE(0);
  const height = header.readUInt32BE(4);
  if (width === 0 || height === 0 || width > MAX_SIDE || height > MAX_SIDE) return null;
  try {
    zlib.inflateSync(Buffer.concat(data), { maxOutputLength: height * (1 + width * 8) });
  } catch {
    return null;
  }
  return buffer;
}

const MAX_SIDE = 4000;

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
