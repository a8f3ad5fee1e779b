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

/** An attached file's name, type and bytes when at most `limit` long; undefined when the record or its bytes are missing, or larger. */
export async function attachedFileContent(ctx: AppContext, db: DbExecutor, idfile: number, limit: number): Promise<{ filename: string; contentType: string; content: Buffer } | undefined> {
  const row = await db.selectFrom('attached_files').select(['path', 'mimetype', 'filename']).where('idfile', '=', idfile).executeTakeFirst();
  const content = row ? await filesOf(ctx).store.readAll(String(row.path), limit) : undefined;
  if (!row || !content) return undefined;
  return { filename: String(row.filename), contentType: String(row.mimetype || 'application/octet-stream'), content: Buffer.from(content) };
}

/** The files linked to a record (`attached_files_rel`: its class name and id), with their sizes. */
export async function linkedFiles(db: DbExecutor, model: string, modelid: number): Promise<Array<{ idfile: number; size: number }>> {
  const rows = await db.selectFrom('attached_files_rel').innerJoin('attached_files', 'attached_files.idfile', 'attached_files_rel.idfile')
    .select(['attached_files.idfile', 'attached_files.size']).where('attached_files_rel.model', '=', model).where('attached_files_rel.modelid', '=', modelid).execute();
  return rows.map((row) => ({ idfile: Number(row.idfile), size: Number(row.size ?? 0) }));
}
