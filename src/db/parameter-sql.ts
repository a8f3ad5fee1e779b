import type { CompiledQuery } from 'kysely';
import type { Engine } from './engine.ts';

/** Quoted literals and identifiers (their quote doubled inside), and placeholders. */
const TOKENS = /'(?:[^']|'')*'|"(?:[^"]|"")*"|`(?:[^`]|``)*`|\?/g;
const PG_TOKENS = /'(?:[^']|'')*'|"(?:[^"]|"")*"|\$(\d+)/g;

/**
 * A compiled statement with some of its parameters wrapped in SQL: `wrap` is asked for each
 * parameter, with its placeholder as the statement spells it (`$3` on PostgreSQL, `?` elsewhere)
 * and its value, and answers the SQL to put in the placeholder's place (which must keep the
 * placeholder once, and add none), or undefined to leave it. The parameters themselves stay as
 * they are, bound as before. Quoted literals and identifiers are skipped when placeholders are
 * counted, so a `?` inside one is not taken for a parameter.
 */
export function wrapParameters(query: CompiledQuery, engine: Engine, wrap: (placeholder: string, value: unknown) => string | undefined): CompiledQuery {
  const wrapped = query.parameters.map((value, index) => wrap(engine === 'postgres' ? `$${index + 1}` : '?', value));
  if (wrapped.every((text) => text === undefined)) return query;
  let ordinal = 0;
  const postgres = engine === 'postgres';
  const sql = query.sql.replace(postgres ? PG_TOKENS : TOKENS, (token: string, digits: unknown) => {
    if (token[0] === "'" || token[0] === '"' || token[0] === '`') return token;
    const index = postgres ? Number(digits) - 1 : ordinal++;
    return wrapped[index] ?? token;
  });
  // The statement's node stays: what it writes is still told by it (write-tracker.ts).
  return { ...query, sql };
}
