import { randomBytes } from 'node:crypto';
import type { AppContext } from '../../app-context.ts';
import { downloadLinks, type DownloadLinks } from './download-links.ts';
import { spoolDirOf, type UploadLimits } from './receive-upload.ts';
import { databaseFileStore } from './storage/database-file-store.ts';
import type { FileStore } from './storage/file-store.ts';
import { localFileStore } from './storage/local-file-store.ts';

/** What the files module builds once per app: the byte store, the link signer, the upload limits. */
export interface FilesRuntime {
  store: FileStore;
  links: DownloadLinks;
  limits: UploadLimits;
  spoolDir: string;
}

const runtimes = new WeakMap<AppContext, FilesRuntime>();

const SECRET_NAME = 'download-links';

/** The signing secret of download links: read, or created at the first start (racing starts agree). */
async function linkSecret(ctx: AppContext): Promise<string> {
  const db = ctx.database.kysely;
  const read = async () => (await db.selectFrom('service_secrets').select('value').where('name', '=', SECRET_NAME).executeTakeFirst())?.value;
  const found = await read();
  if (found) return String(found);
  await ctx.database.dialect.insertIgnore(db.insertInto('service_secrets').values({ name: SECRET_NAME, value: randomBytes(32).toString('base64url') }), ['name']).execute();
  return String(await read());
}

export async function startFiles(ctx: AppContext): Promise<FilesRuntime> {
  const { config } = ctx;
  const runtime: FilesRuntime = {
    store: config.filesStorage === 'database' ? databaseFileStore(ctx.database) : localFileStore(config.dataDir),
    links: downloadLinks(await linkSecret(ctx)),
    limits: { maxFileBytes: config.uploadMaxFileBytes, maxFiles: config.uploadMaxFiles, maxRequestBytes: config.uploadMaxRequestBytes },
    spoolDir: spoolDirOf(config.dataDir),
  };
  runtimes.set(ctx, runtime);
  return runtime;
}

/** The files runtime of an app (set up by the files module). */
export function filesOf(ctx: AppContext): FilesRuntime {
  const runtime = runtimes.get(ctx);
  if (!runtime) throw new Error('the files module is not set up in this app');
  return runtime;
}
