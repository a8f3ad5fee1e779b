import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { DbExecutor } from '../../../db/database.ts';
import { afterCommit, afterRollback } from '../../../db/transaction.ts';
import type { ByteRange, FileStore } from './file-store.ts';

/**
 * Files under the data folder (`FILES_STORAGE=local`), at their path below it.
 *
 * A `put` hard-links the spooled file into place (never over an existing file) after writing a
 * journal entry naming the target under `MyFiles/Tmp/journal/`; the entry is dropped after the
 * commit, and the link with it after a rollback. A crash between the link and the commit leaves
 * the entry, so `recover` removes the bytes no record refers to. A `remove` unlinks after the
 * commit; a crash before that leaves bytes without a record, which nothing can reach (links
 * check the record). `recover` leaves entries younger than ten minutes alone: another instance
 * sharing the disk may still be inside that transaction.
 */
/** A journal entry older than this belongs to no transaction still running. */
const STALE_JOURNAL_MS = 10 * 60_000;

export function localFileStore(dataDir: string): FileStore {
  const root = path.resolve(dataDir);
  const journalDir = path.join(root, 'MyFiles', 'Tmp', 'journal');

  /** The absolute path of a stored path; anything that would leave `MyFiles/` is refused. */
  const resolve = (relative: string): string => {
    const full = path.resolve(root, relative);
    if (!full.startsWith(path.join(root, 'MyFiles') + path.sep)) throw new Error(`not a stored file path: ${relative}`);
    return full;
  };
  const unlinkQuietly = async (file: string) => {
    await fs.rm(file, { force: true });
  };

  return {
    kind: 'local',

    async put(db: DbExecutor, relative: string, spooled: string) {
      const target = resolve(relative);
      await fs.mkdir(journalDir, { recursive: true });
      const journal = path.join(journalDir, `${randomUUID()}.json`);
      await fs.writeFile(journal, JSON.stringify({ path: relative }));
      await fs.mkdir(path.dirname(target), { recursive: true });
      try {
        await fs.link(spooled, target);
      } catch (error) {
        await unlinkQuietly(journal);
        throw error;
      }
      afterCommit(db, () => void unlinkQuietly(journal));
      afterRollback(db, async () => {
        await unlinkQuietly(target);
        await unlinkQuietly(journal);
      });
    },

    async remove(db: DbExecutor, relative: string) {
      const target = resolve(relative);
      afterCommit(db, () => void unlinkQuietly(target));
    },

    async removePrefix(db: DbExecutor, prefix: string) {
      const dir = path.dirname(resolve(prefix));
      const start = path.basename(prefix);
      afterCommit(db, () => {
        void fs.readdir(dir).then(
          (names) => Promise.all(names.filter((name) => name.startsWith(start)).map((name) => unlinkQuietly(path.join(dir, name)))),
          () => undefined,
        );
      });
    },

    async write(relative: string, bytes: Buffer) {
      const target = resolve(relative);
      await fs.mkdir(path.dirname(target), { recursive: true });
      const temporary = `${target}.${randomUUID()}.tmp`;
      await fs.writeFile(temporary, bytes);
      await fs.rename(temporary, target);
    },

    async size(relative: string) {
      try {
        const stat = await fs.stat(resolve(relative));
        return stat.isFile() ? stat.size : undefined;
      } catch {
        return undefined;
      }
    },

    async read(relative: string, range?: ByteRange): Promise<Readable> {
      return createReadStream(resolve(relative), range ? { start: range.start, end: range.end } : {});
    },

    async readAll(relative: string, limit: number) {
      try {
        const handle = await fs.open(resolve(relative), 'r');
        try {
          if ((await handle.stat()).size > limit) return undefined;
          return await handle.readFile();
        } finally {
          await handle.close();
        }
      } catch {
        return undefined;
      }
    },

    async recover(isReferenced: (path: string) => Promise<boolean>) {
      let entries: string[];
      try {
        entries = await fs.readdir(journalDir);
      } catch {
        return;
      }
      for (const entry of entries) {
        const journal = path.join(journalDir, entry);
        try {
          // Another instance on the same disk may be inside that transaction right now.
          if (Date.now() - (await fs.stat(journal)).mtimeMs < STALE_JOURNAL_MS) continue;
          const { path: relative } = JSON.parse(await fs.readFile(journal, 'utf8')) as { path: string };
          if (!(await isReferenced(relative))) await unlinkQuietly(resolve(relative));
        } catch {
          // an unreadable entry names nothing to repair
        }
        await unlinkQuietly(journal);
      }
    },
  };
}
