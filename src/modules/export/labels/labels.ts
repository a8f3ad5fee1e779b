import type { Labels } from './label-set.ts';
import { ca } from './ca.ts';
import { de } from './de.ts';
import { en } from './en.ts';
import { es } from './es.ts';
import { fr } from './fr.ts';
import { it } from './it.ts';
import { pt } from './pt.ts';

export type { Labels } from './label-set.ts';

const TABLES: Record<string, Labels> = { ca, de, en, es, fr, it, pt };

/** The languages with a label table, by their two-letter code. */
export const LANGUAGES = Object.keys(TABLES);

/**
 * The label table for a language code as clients send it (`es_ES`, `en-GB`, `EN`, `pt_BR`): its
 * first two letters, lower case. Anything unknown or empty is `undefined`; callers fall back.
 */
export function languageOf(code: string | null | undefined): string | undefined {
  if (typeof code !== 'string') return undefined;
  const key = code.trim().slice(0, 2).toLowerCase();
  return Object.hasOwn(TABLES, key) ? key : undefined;
}

/** The first of `candidates` that names a known language, else Spanish (the reference's default). */
export function chooseLanguage(...candidates: Array<string | null | undefined>): string {
  for (const candidate of candidates) {
    const lang = languageOf(candidate);
    if (lang) return lang;
  }
  return 'es';
}

export function labelsFor(lang: string): Labels {
  return TABLES[languageOf(lang) ?? 'es']!;
}
