import { createHash } from 'node:crypto';
import type sharpLibrary from 'sharp';
import { lazyLibrary } from '../../../lazy-library.ts';
import { AppError, validationError } from '../../../errors.ts';
import type { FileStore } from '../storage/file-store.ts';
import { slugOf, thumbnailPrefixOf } from '../stored-name.ts';

const sharp = lazyLibrary<typeof sharpLibrary>('sharp');

/** A thumbnail's box: the largest size it may have, in pixels. */
export interface Box {
  width: number;
  height: number;
}

/** The reference's bounds of a thumbnail's sides, and the side a request leaves out. */
export const MIN_SIDE = 32;
export const MAX_SIDE = 1024;
export const DEFAULT_SIDE = 100;

/** An image with more pixels than this is not decoded (a decompression bomb): 40 megapixels. */
export const MAX_INPUT_PIXELS = 40_000_000;

/** An image file larger than this is not read to make a thumbnail: 64 MiB. */
export const MAX_SOURCE_BYTES = 64 * 1_048_576;

/**
 * The box a request asks for with `width` and/or `height` (whole numbers; one left out is 100;
 * each clamped to 32..1024), or undefined when it names neither. Anything but a whole number
 * answers 400 `invalid-thumbnail-size` naming the parameter.
 */
export function requestedBox(query: Record<string, unknown>): Box | undefined {
  if (query.width === undefined && query.height === undefined) return undefined;
  const side = (parameter: 'width' | 'height') => {
    const raw = query[parameter];
    if (raw === undefined) return DEFAULT_SIDE;
    if (typeof raw !== 'string' || !/^-?[0-9]{1,20}$/.test(raw)) throw new AppError('invalid-thumbnail-size', { parameter });
    return Math.min(MAX_SIDE, Math.max(MIN_SIDE, Number(raw)));
  };
  return { width: side('width'), height: side('height') };
}

/** What a thumbnail is written as: the image's own format, but GIF (made a PNG). */
const OUTPUT: Record<string, { format: 'png' | 'jpeg' | 'webp'; ext: string }> = {
  'image/png': { format: 'png', ext: 'png' },
  'image/gif': { format: 'png', ext: 'png' },
  'image/jpeg': { format: 'jpeg', ext: 'jpg' },
  'image/webp': { format: 'webp', ext: 'webp' },
};

export interface MadeThumbnail {
  data: Buffer;
  width: number;
  height: number;
  ext: string;
}

/**
 * A thumbnail of the image stored at `source` that fits inside `box`, its aspect kept and never
 * enlarged (turned upright first, as its EXIF orientation says); undefined when the bytes are gone.
 * An image sharp cannot decode answers 422 with `idfile: not-an-image`, one too large to read
 * (over 64 MiB or 40 megapixels) `idfile: image-too-large`.
 */
export async function makeThumbnail(store: FileStore, source: string, mimetype: string, box: Box): Promise<MadeThumbnail | undefined> {
  const output = OUTPUT[mimetype];
  if (!output) throw validationError({ idfile: 'not-an-image' });
  const size = await store.size(source);
  if (size === undefined) return undefined;
  if (size > MAX_SOURCE_BYTES) throw validationError({ idfile: 'image-too-large' });
  const bytes = await store.readAll(source, MAX_SOURCE_BYTES);
  if (!bytes) return undefined;
  try {
    const { data, info } = await sharp()(bytes, { limitInputPixels: MAX_INPUT_PIXELS })
      .rotate()
      .resize({ width: box.width, height: box.height, fit: 'inside', withoutEnlargement: true })
      .toFormat(output.format)
      .toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height, ext: output.ext };
  } catch (error) {
    throw validationError({ idfile: /pixel limit/i.test(String((error as Error)?.message)) ? 'image-too-large' : 'not-an-image' });
  }
}

/**
 * Where a product image's thumbnail lives: `MyFiles/Tmp/Thumbnails/<idfile>_<name>-i<id>-<hash>_<W>x<H>.<ext>`,
 * the box's size in the name as the reference's, under the file's prefix so that the file's
 * deletion takes it, with the image's id (several images may show one file) and a hash of the
 * stored file it is made of (new bytes, new thumbnail paths: old links and ETags stop matching).
 */
export function productThumbnailPathOf(idfile: number, idimage: number, filename: string, source: string, box: Box, ext: string): string {
  const hash = createHash('sha256').update(source).digest('hex').slice(0, 10);
  return `${thumbnailPrefixOf(idfile)}${slugOf(filename).slice(0, 40).replace(/-+$/, '')}-i${idimage}-${hash}_${box.width}x${box.height}.${ext}`;
}
