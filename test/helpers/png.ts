import zlib from 'node:zlib';

/**
 * A PNG built byte by byte (no image library): `width` x `height` pixels of one colour, 8-bit RGB
 * or RGBA. `claimed` puts another size in the header than the pixels have: the shape of a
 * decompression bomb (a small header over many pixels) or of a lie (a huge header over few).
 */
export function handmadePng(width: number, height: number, options: { alpha?: boolean; claimed?: { width: number; height: number }; colour?: number[] } = {}): Buffer {
  const channels = options.alpha ? 4 : 3;
  const colour = options.colour ?? (options.alpha ? [29, 78, 137, 200] : [29, 78, 137]);
  const raw = Buffer.alloc((width * channels + 1) * height);
  for (let row = 0; row < height; row++) {
    for (let column = 0; column < width; column++) raw.set(colour.slice(0, channels), row * (width * channels + 1) + 1 + column * channels);
  }
  const chunk = (type: string, data: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(zlib.crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(options.claimed?.width ?? width, 0);
  header.writeUInt32BE(options.claimed?.height ?? height, 4);
  header.set([8, options.alpha ? 6 : 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header), chunk('IDAT', zlib.deflateSync(raw)), chunk('IEND', Buffer.alloc(0)),
  ]);
}
