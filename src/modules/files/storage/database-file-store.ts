import fs from 'node:fs/promises';
import { Readable } from 'node:stream';
import { sql } from 'kysely';
import type { Database, DbExecutor } from '../../../db/database.ts';
import { inTransaction } from '../../../db/transaction.ts';
import { isUniqueViolation } from '../../../db/translate-error.ts';
import type { ByteRange, FileStore } from './file-store.ts';

/** Bytes per stored part: small enough for any engine's packet limit, large enough to be few rows. */
export const FILE_PART_BYTES = 512 * 1024;

/**
 * Files in the database (`FILES_STORAGE=database`, table `file_contents`): every instance using
 * the database sees the same files, with no shared disk. A file is a run of parts of at most
 * `FILE_PART_BYTES`, written in the caller's transaction, and read part by part, so neither an
 * upload nor a download ever holds a whole file in memory or in one statement.
 */
export function databaseFileStore(database: Database): FileStore {
  const db = database.kysely;
  const lengthOf = database.engine === 'postgres' ? sql<number>`octet_length(data)` : sql<number>`length(data)`;

  async function insertParts(trx: DbExecutor, path: string, source: AsyncIterable<Buffer> | Iterable<Buffer>): Promise<void> {
    let part = 0;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const flush = async () => {
      if (!pendingBytes) return;
      await trx.insertInto('file_contents').values({ path, part: part++, data: Buffer.concat(pending) }).execute();
      pending = [];
      pendingBytes = 0;
    };
    for await (const chunk of source) {
      let rest = chunk;
      while (rest.length) {
        const take = rest.subarray(0, FILE_PART_BYTES - pendingBytes);
        pending.push(take);
        pendingBytes += take.length;
        rest = rest.subarray(take.length);
        if (pendingBytes === FILE_PART_BYTES) await flush();
      }
    }
    await flush();
  }

  return {
    kind: 'database',

    async put(trx: DbExecutor, path: string, spooled: string) {
      if (await trx.selectFrom('file_contents').select('id').where('path', '=', path).limit(1).executeTakeFirst()) {
        throw Object.assign(new Error(`bytes already stored at ${path}`), { code: 'EEXIST' });
      }
      // Read part by part into buffers of the part's size: one allocation per part, no copies.
      const handle = await fs.open(spooled, 'r');
      try {
        for (let part = 0; ; part++) {
          const buffer = Buffer.allocUnsafe(FILE_PART_BYTES);
          const { bytesRead } = await handle.read(buffer, 0, FILE_PART_BYTES, null);
          if (bytesRead === 0) break;
          await trx.insertInto('file_contents').values({ path, part, data: buffer.subarray(0, bytesRead) }).execute();
          if (bytesRead < FILE_PART_BYTES) break;
        }
      } finally {
        await handle.close();
      }
    },

    async remove(trx: DbExecutor, path: string) {
      await trx.deleteFrom('file_contents').where('path', '=', path).execute();
    },

    async removePrefix(trx: DbExecutor, prefix: string) {
      // `!` escapes: a backslash would itself need escaping in MySQL's string literals.
      const pattern = `${prefix.replace(/[!%_]/g, (c) => `!${c}`)}%`;
      await trx.deleteFrom('file_contents').where(sql<boolean>`path LIKE ${pattern} ESCAPE '!'`).execute();
    },

    async write(path: string, bytes: Buffer) {
      try {
        await inTransaction(database, async (trx) => {
          await trx.deleteFrom('file_contents').where('path', '=', path).execute();
          await insertParts(trx, path, [bytes]);
        });
      } catch (error) {
        // The same derived file written by a concurrent request: theirs is as good as ours.
        if (!isUniqueViolation(error)) throw error;
      }
    },

    async size(path: string) {
      const row = await db.selectFrom('file_contents').select([sql<number>`count(*)`.as('parts'), sql<number>`sum(${lengthOf})`.as('bytes')]).where('path', '=', path).executeTakeFirst();
      return row && Number(row.parts) > 0 ? Number(row.bytes) : undefined;
    },

    async read(path: string, range?: ByteRange): Promise<Readable> {
      const first = range ? Math.floor(range.start / FILE_PART_BYTES) : 0;
      const last = range ? Math.floor(range.end / FILE_PART_BYTES) : Number.MAX_SAFE_INTEGER;
      async function* parts(): AsyncGenerator<Buffer> {
        // One part per statement: the connection is free between parts, whatever the client's pace.
        for (let part = first; part <= last; part++) {
          const row = await db.selectFrom('file_contents').select('data').where('path', '=', path).where('part', '=', part).executeTakeFirst();
          if (!row) return;
          let data = Buffer.from(row.data as Uint8Array);
          if (range) {
            const offset = part * FILE_PART_BYTES;
            data = data.subarray(Math.max(0, range.start - offset), Math.min(data.length, range.end - offset + 1));
          }
          yield data;
        }
      }
      return Readable.from(parts());
    },

    async readAll(path: string, limit: number) {
      const bytes = await this.size(path);
      if (bytes === undefined || bytes > limit) return undefined;
      const rows = await db.selectFrom('file_contents').select('data').where('path', '=', path).orderBy('part').execute();
      return Buffer.concat(rows.map((row) => Buffer.from(row.data as Uint8Array)));
    },

    async recover() {
      // Parts are written in the record's transaction: a crash rolls both back.
    },
  };
}
