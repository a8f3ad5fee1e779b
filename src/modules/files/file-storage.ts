import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { filesOf } from './files-runtime.ts';

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg']);

/** A logo larger than this is not read (a document is printed without it): 5 MiB. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/**
 * The bytes of an attached PNG or JPEG image (a company's or a print format's logo), or null when
 * the file record, its bytes or an image type is missing, or the file is larger than
 * `MAX_IMAGE_BYTES`: a document still prints without it.
 */
export async function attachedImage(ctx: AppContext, db: DbExecutor, idfile: number): Promise<Uint8Array | null> {
  const row = await db.selectFrom('attached_files').select(['path', 'mimetype']).where('idfile', '=', idfile).executeTakeFirst();
  if (!row || !IMAGE_TYPES.has(String(row.mimetype))) return null;
  return (await filesOf(ctx).store.readAll(String(row.path), MAX_IMAGE_BYTES)) ?? null;
}
