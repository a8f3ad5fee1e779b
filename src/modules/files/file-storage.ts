import fs from 'node:fs/promises';
import path from 'node:path';
import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';

/**
 * Where attached files live: `MyFiles/` under the data folder, as in the reference, each file at
 * its record's `path`. A path that would leave that folder (`..`, absolute) names no file.
 */
export function storedFilePath(dataDir: string, relative: string): string | undefined {
  const root = path.resolve(dataDir, 'MyFiles');
  const full = path.resolve(root, relative);
  return full.startsWith(root + path.sep) ? full : undefined;
}

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg']);

/** A logo larger than this is not read (a document is printed without it): 5 MiB. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/**
 * The bytes of an attached PNG or JPEG image (a company's or a print format's logo), or null when
 * the file record, the file itself or an image type is missing, or the file is larger than
 * `MAX_IMAGE_BYTES`: a document still prints without it.
 */
export async function attachedImage(ctx: Pick<AppContext, 'config'>, db: DbExecutor, idfile: number): Promise<Uint8Array | null> {
  const row = await db.selectFrom('attached_files').select(['path', 'mimetype']).where('idfile', '=', idfile).executeTakeFirst();
  if (!row || !IMAGE_TYPES.has(String(row.mimetype))) return null;
  const file = storedFilePath(ctx.config.dataDir, String(row.path));
  if (!file) return null;
  try {
    const handle = await fs.open(file, 'r');
    try {
      if ((await handle.stat()).size > MAX_IMAGE_BYTES) return null;
      return await handle.readFile();
    } finally {
      await handle.close();
    }
  } catch {
    return null;
  }
}
