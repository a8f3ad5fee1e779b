import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { CONSOLE_ROOT, VIEW_LIBRARY } from '../src/http/admin-console.ts';

/** The most JavaScript the admin console may load, gzip-compressed (issue 17): 150 KB. */
export const CONSOLE_JS_LIMIT_BYTES = 150_000;

export interface ConsoleWeight {
  files: number;
  bytes: number;
  gzipBytes: number;
}

/**
 * Every script the console can load (its own modules and the view library it is served), each
 * compressed on its own as a server or proxy would send it: the sum is what a first visit costs.
 */
export function consoleWeight(): ConsoleWeight {
  const own = fs.readdirSync(CONSOLE_ROOT, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.js'));
  const files = [...own.map((name) => path.join(CONSOLE_ROOT, name)), VIEW_LIBRARY].map((file) => fs.readFileSync(file));
  return {
    files: files.length,
    bytes: files.reduce((sum, file) => sum + file.length, 0),
    gzipBytes: files.reduce((sum, file) => sum + zlib.gzipSync(file, { level: 9 }).length, 0),
  };
}
