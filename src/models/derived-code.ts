import type { SqlDialect } from '../db/dialect.ts';
import type { DbExecutor } from '../db/database.ts';
import { nextCode, type CodeColumn } from '../db/code-counter.ts';

/**
 * Codes the reference derives from a record's description (series, payment methods, taxes,
 * retentions; facturascripts-model.md 2.0): the model's `beforeSave` lists its candidates in order
 * of preference and takes the first one free, else the next number, as for generated codes.
 */

/** The description as code characters: upper case, accents dropped, only A-Z and 0-9 kept. */
export function codeCharacters(description: unknown): string {
  if (typeof description !== 'string') return '';
  return description.normalize('NFD').replace(/[\u0300-\u036f]/g, '').toUpperCase().replace(/[^A-Z0-9]/g, '');
}

/** The letters of the description (A-Z), for codes made of letters and a number. */
export const codeLetters = (description: unknown): string => codeCharacters(description).replace(/[0-9]/g, '');

/**
 * The first candidate (at most `max` characters) that no row of `target` holds, in one query;
 * when every candidate is taken, or there is none, the column's next free number
 * (db/code-counter.ts). Two creations deriving the same code at once: the second fails as a
 * duplicate (409), as it would in the reference.
 */
export async function firstFreeCode(db: DbExecutor, dialect: SqlDialect, target: CodeColumn, candidates: string[], max: number): Promise<string> {
  const fitting = [...new Set(candidates.filter((code) => code !== '' && code.length <= max))];
  if (fitting.length) {
    const taken = new Set((await db.selectFrom(target.table).select(target.column).where(target.column, 'in', fitting).execute())
      .map((row) => String((row as Record<string, unknown>)[target.column]).toUpperCase()));
    const free = fitting.find((code) => !taken.has(code));
    if (free) return free;
  }
  return nextCode(db, dialect.engine, target);
}
