import type { Readable } from 'node:stream';
import type { DbExecutor } from '../../../db/database.ts';

/** Bytes `start`..`end` of a file, both included (an HTTP range). */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Where the bytes of files live, by their path (`MyFiles/2026/11/7_report.pdf`): under the data
 * folder or in the database (`FILES_STORAGE`). Records (`attached_files`) are the files module's;
 * a store keeps bytes only.
 *
 * Contract: `put` and `remove` take part in the caller's transaction, so that a record and its
 * bytes appear and go together: bytes put in a transaction that rolls back are gone, bytes
 * removed in one that rolls back are still there, and a crash in between is repaired by
 * `recover` at the next start. Paths are the service's own (see stored-name.ts), never a client's.
 */
export interface FileStore {
  readonly kind: 'local' | 'database';
  /**
   * Moves a spooled temporary file (`spooled`, removed by the caller afterwards) to `path`. Bytes
   * already at `path` are never overwritten: the put fails with code `EEXIST`.
   */
  put(db: DbExecutor, path: string, spooled: string): Promise<void>;
  /** Removes the bytes at `path` (nothing there: nothing to do). */
  remove(db: DbExecutor, path: string): Promise<void>;
  /** Removes every path starting with `prefix` (a file's thumbnails). */
  removePrefix(db: DbExecutor, prefix: string): Promise<void>;
  /** Writes a derived file (a thumbnail) outside any transaction; a concurrent equal write is fine. */
  write(path: string, bytes: Buffer): Promise<void>;
  /** The size of the bytes at `path`, or undefined when none are stored. */
  size(path: string): Promise<number | undefined>;
  /** Streams the bytes at `path` (a range of them); the caller checked that they exist. */
  read(path: string, range?: ByteRange): Promise<Readable>;
  /** All the bytes at `path` when at most `limit` long; undefined when missing or larger. */
  readAll(path: string, limit: number): Promise<Buffer | undefined>;
  /**
   * Repairs what a crash left half done: bytes moved into place by a transaction that never
   * committed are removed unless `isReferenced(path)` says a record holds them.
   */
  recover(isReferenced: (path: string) => Promise<boolean>): Promise<void>;
}
