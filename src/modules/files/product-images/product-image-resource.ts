import type { AppContext, RecordPresenter } from '../../../app-context.ts';
import type { DbExecutor } from '../../../db/database.ts';
import { productModel } from '../../catalogue/index.ts';
import { filesOf } from '../files-runtime.ts';
import { IMAGE_TYPES, productImageModel } from './product-image-model.ts';
import { makeThumbnail, productThumbnailPathOf, requestedBox, type Box } from './thumbnails.ts';

interface ThumbnailRow {
  id: number;
  idimage: number;
  boxwidth: number;
  boxheight: number;
  width: number;
  height: number;
  path: string;
  source: string;
}

interface ImageFile {
  filename: string;
  path: string;
  mimetype: string;
}

const THUMBNAILS = 'product_image_thumbnails';

const linkProperties = { download: { type: 'string' }, 'download-permanent': { type: 'string' } };

async function thumbnailsOf(db: DbExecutor, ids: number[]): Promise<ThumbnailRow[]> {
  if (!ids.length) return [];
  const rows = await db.selectFrom(THUMBNAILS).selectAll().where('idimage', 'in', ids).execute();
  return rows.map((row) => ({
    id: Number(row.id), idimage: Number(row.idimage), boxwidth: Number(row.boxwidth), boxheight: Number(row.boxheight),
    width: Number(row.width), height: Number(row.height), path: String(row.path), source: String(row.source),
  }));
}

/**
 * Makes (or keeps) the thumbnail of one image for `box`, outside any transaction: the bytes are
 * written first, then the row that lists them. Whatever a concurrent request did meanwhile (the
 * image or its file deleted, the same thumbnail made, the file's bytes replaced), bytes that no
 * row ends up listing are removed again. True when something changed.
 */
async function ensureThumbnail(ctx: AppContext, image: { id: number; idfile: number }, file: ImageFile, box: Box, existing: ThumbnailRow | undefined): Promise<boolean> {
  const { store } = filesOf(ctx);
  const db = ctx.database.kysely;
  if (existing && existing.source === file.path && (await store.size(existing.path)) !== undefined) return false;
  const made = await makeThumbnail(store, file.path, file.mimetype, box);
  if (!made) return false;
  const path = productThumbnailPathOf(image.idfile, image.id, file.filename, file.path, box, made.ext);
  await store.write(path, made.data);
  const row = { idimage: image.id, boxwidth: box.width, boxheight: box.height, width: made.width, height: made.height, path, source: file.path };
  let failure: unknown;
  try {
    if (existing) await db.updateTable(THUMBNAILS).set(row).where('id', '=', existing.id).where('path', '=', existing.path).execute();
    else await ctx.database.dialect.insertIgnore(db.insertInto(THUMBNAILS).values(row), ['idimage', 'boxwidth', 'boxheight']).execute();
  } catch (error) {
    // The image went meanwhile (a foreign key failure)? The check below tells.
    failure = error;
  }
  const listed = await db.selectFrom(THUMBNAILS).select('path').where('idimage', '=', image.id).where('boxwidth', '=', box.width).where('boxheight', '=', box.height).executeTakeFirst();
  if (listed?.path !== path) {
    await store.remove(db, path);
    if (failure && !listed && (await db.selectFrom('productos_imagenes').select('id').where('id', '=', image.id).executeTakeFirst())) throw failure;
  }
  if (existing && existing.path !== path && listed?.path !== existing.path) await store.remove(db, existing.path);
  return true;
}

/**
 * What `productoimagen` records show (reference section 10): the image's `download` and
 * `download-permanent` links and its `thumbnails` (`width`, `height` as made, and their links).
 * Query `width` and/or `height` first make the thumbnail of that box for each record (see
 * thumbnails.ts), once: later requests reuse it.
 */
export function productImagePresenter(ctx: AppContext): RecordPresenter {
  return {
    properties: {
      ...linkProperties,
      thumbnails: {
        type: 'array',
        items: { type: 'object', properties: { width: { type: 'integer' }, height: { type: 'integer' }, ...linkProperties } },
      },
    },
    async present(records, query) {
      const box = requestedBox(query);
      if (!records.length) return records;
      const { links } = filesOf(ctx);
      const db = ctx.database.kysely;
      const idfiles = [...new Set(records.map((record) => Number(record.idfile)))];
      const fileRows = await db.selectFrom('attached_files').select(['idfile', 'filename', 'path', 'mimetype']).where('idfile', 'in', idfiles).execute();
      const files = new Map<number, ImageFile>(fileRows.map((row) => [Number(row.idfile), { filename: String(row.filename), path: String(row.path), mimetype: String(row.mimetype) }]));
      const ids = records.map((record) => Number(record.id));
      let thumbnails = await thumbnailsOf(db, ids);
      if (box) {
        let changed = false;
        for (const record of records) {
          const image = { id: Number(record.id), idfile: Number(record.idfile) };
          const file = files.get(image.idfile);
          if (!file || !IMAGE_TYPES.has(file.mimetype)) continue;
          const existing = thumbnails.find((row) => row.idimage === image.id && row.boxwidth === box.width && row.boxheight === box.height);
          if (await ensureThumbnail(ctx, image, file, box, existing)) changed = true;
        }
        if (changed) thumbnails = await thumbnailsOf(db, ids);
      }
      return records.map((record) => {
        const file = files.get(Number(record.idfile));
        if (!file) return { ...record, thumbnails: [] };
        const sizes = new Set<string>();
        const shown = IMAGE_TYPES.has(file.mimetype)
          ? thumbnails
            // A thumbnail of bytes since replaced is stale (and its bytes are gone).
            .filter((row) => row.idimage === Number(record.id) && row.source === file.path)
            .sort((a, b) => a.width - b.width || a.height - b.height || a.id - b.id)
            .filter((row) => !sizes.has(`${row.width}x${row.height}`) && sizes.add(`${row.width}x${row.height}`))
          : [];
        return {
          ...record,
          ...links.linksOf(file.path),
          thumbnails: shown.map((row) => ({ width: row.width, height: row.height, ...links.linksOf(row.path) })),
        };
      });
    },
  };
}

/** Removes the bytes of the thumbnails of the images `which` selects, in the deleting transaction. */
async function removeThumbnailBytes(ctx: AppContext, db: DbExecutor, which: { id: number } | { idproducto: number }): Promise<void> {
  const { store } = filesOf(ctx);
  const query = 'id' in which
    ? db.selectFrom(THUMBNAILS).select('path').where('idimage', '=', which.id)
    : db.selectFrom(THUMBNAILS).select('path').where('idimage', 'in', db.selectFrom('productos_imagenes').select('id').where('idproducto', '=', which.idproducto));
  for (const row of await query.execute()) await store.remove(db, String(row.path));
}

/**
 * Product images: their presenter, and the bytes of their thumbnails removed with the image or its
 * product (whose rows go by foreign key, in the same transaction). The attached file's deletion
 * removes every thumbnail under its prefix itself.
 */
export function setupProductImages(ctx: AppContext): void {
  ctx.presenters.set(productImageModel, productImagePresenter(ctx));
  ctx.store.guardDelete([productImageModel.resource], ({ db, existing }) => removeThumbnailBytes(ctx, db, { id: Number(existing.id) }));
  ctx.store.guardDelete([productModel.resource], ({ db, existing }) => removeThumbnailBytes(ctx, db, { idproducto: Number(existing.idproducto) }));
}
