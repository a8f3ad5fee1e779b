import { parseCamt053 } from './camt053.ts';
import { parseNorma43 } from './norma43.ts';
import type { StatementAccount } from './statement-file.ts';

/** The accounts of a statement file, Norma 43 or camt.053 (XML: its first character after a byte-order mark and white space is `<`). */
export function parseStatement(content: Buffer | string): { formato: 'norma43' | 'camt053'; cuentas: StatementAccount[] } {
  const head = typeof content === 'string' ? content.slice(0, 1024) : new TextDecoder().decode(content.subarray(0, 1024));
  if (!/^\uFEFF?\s*</.test(head)) return { formato: 'norma43', cuentas: parseNorma43(content) };
  return { formato: 'camt053', cuentas: parseCamt053(typeof content === 'string' ? content : xmlText(content)) };
}

/** XML bytes as text, in the encoding their declaration names (UTF-8 without one, or for a label the runtime does not know). */
function xmlText(bytes: Buffer): string {
  const declared = /^\s*<\?xml[^>]*\sencoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/.exec(bytes.subarray(0, 256).toString('latin1'))?.[1];
  try {
    return new TextDecoder(declared ?? 'utf-8').decode(bytes);
  } catch {
    return new TextDecoder().decode(bytes);
  }
}
