import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { filesOf } from '../files/index.ts';
import { ImportRefused } from './copy-tables.ts';
import type { ImportFindings, ImportReport } from './import-report.ts';

/** A stored path as this service writes them (files/stored-name.ts): kept as the source has it. */
const OWN_PATH = /^MyFiles\/\d{4}\/\d{2}\/\d+_[A-Za-z0-9._-]+$/;

/**
 * The bytes of the files an import copied the records of (`attached_files`: documents' attachments,
 * product images), from the source's `MyFiles/` folder into this service's store, in the import's
 * transaction (the store's `put` takes part in it: a rollback leaves no bytes behind), at the path
 * the record names, which the system builds as this service does (`MyFiles/YYYY/MM/<id>_<name>`).
 * A record whose path is not of that shape (leaving the folder, odd characters) is never followed:
 * a warning, and listed as missing with the files the folder lacks.
 */
export async function copyFiles(ctx: AppContext, trx: DbExecutor, folder: string, findings: ImportFindings): Promise<NonNullable<ImportReport['files']>> {
  const root = path.resolve(folder);
  const realRoot = await fs.realpath(root).catch(() => root);
  const { store, spoolDir } = filesOf(ctx);
  await fs.mkdir(spoolDir, { recursive: true });
  const result: NonNullable<ImportReport['files']> = { copied: 0, missing: [] };
  for (const file of await trx.selectFrom('attached_files').select(['idfile', 'path', 'size']).orderBy('idfile').execute()) {
    const stored = String(file.path ?? '');
    const safe = OWN_PATH.test(stored);
    // The folder given is the source's MyFiles/ (or the folder holding it).
    const relative = stored.replace(/^MyFiles\//, '');
    const candidates = safe ? [path.join(root, relative), path.join(root, stored)] : [];
    let found: string | undefined;
    for (const candidate of candidates) {
      // The file itself, links resolved, must be inside the folder: a link out of it is not followed.
      const real = await fs.realpath(candidate).catch(() => undefined);
      if (!real || !real.startsWith(realRoot + path.sep)) continue;
      if (await fs.stat(real).then((stat) => stat.isFile(), () => false)) {
        found = real;
        break;
      }
    }
    if (!safe) findings.warn('unsafe-file-path', 'attached_files', Number(file.idfile), 'path', stored);
    if (!found) {
      result.missing.push({ idfile: Number(file.idfile), path: stored });
      continue;
    }
    const spooled = path.join(spoolDir, `import-${randomBytes(8).toString('hex')}`);
    try {
      await fs.copyFile(found, spooled);
      const size = (await fs.stat(spooled)).size;
      if (size !== Number(file.size)) findings.warn('file-size-differs', 'attached_files', Number(file.idfile), 'size', { recorded: Number(file.size), found: size });
      // Bytes already at the path (the installation is new: no record held them) are an earlier
      // import's, interrupted before its rollback could remove them: kept when they are the same.
      const there = await store.size(stored);
      if (there === undefined) await store.put(trx, stored, spooled);
      else if (there !== size || (await digest(await store.read(stored))) !== (await digest(createReadStream(spooled)))) {
        throw new ImportRefused(`the file store already holds other bytes at ${stored} (left by an interrupted import?): remove that file and run the import again`);
      }
      result.copied++;
    } finally {
      await fs.rm(spooled, { force: true });
    }
  }
  return result;
}

/** The SHA-256 of a stream's bytes. */
async function digest(stream: Readable): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of stream) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
