import type { CompiledQuery } from 'kysely';
import { BoundedMap } from './bounded-map.ts';
import type { Engine } from './engine.ts';

/** Quoted literals and identifiers (their quote doubled inside), comments, and placeholders. */
const TOKENS = /'(?:[^']|'')*'|"(?:[^"]|"")*"|`(?:[^`]|``)*`|--[^\n]*|\/\*[\s\S]*?\*\/|\?/g;
const PG_TOKENS = /'(?:[^']|'')*'|"(?:[^"]|"")*"|--[^\n]*|\/\*[\s\S]*?\*\/|\$(\d+)/g;
const isPlaceholder = (token: string) => token === '?' || token[0] === '$';

/**
 * A compiled statement with some of its parameters wrapped in SQL: `wrap` is asked for each
 * parameter, with its placeholder as the statement spells it (`$3` on PostgreSQL, `?` elsewhere)
 * and its value, and answers the SQL to put in the placeholder's place (which must keep the
 * placeholder once, and add none), or undefined to leave it. The parameters themselves stay as
 * they are, bound as before. Quoted literals and identifiers are skipped when placeholders are
 * counted, and so are comments, so a `?` inside one is not taken for a parameter.
 */
export function wrapParameters(query: CompiledQuery, engine: Engine, wrap: (placeholder: string, value: unknown) => string | undefined): CompiledQuery {
  const postgres = engine === 'postgres';
  let wrapped: Array<string | undefined> | undefined;
  query.parameters.forEach((value, index) => {
    const text = wrap(postgres ? `$${index + 1}` : '?', value);
    if (text !== undefined) (wrapped ??= [])[index] = text;
  });
  if (!wrapped) return query;
  // The placeholders' places in the text, found once per text (a document's statements repeat).
  let spans = spansByText.get(query.sql);
  if (!spans) spansByText.set(query.sql, (spans = placeholderSpans(query.sql, postgres)));
  let sql = '';
  let from = 0;
  for (const [start, end, index] of spans) {
    const text = wrapped[index];
    if (text === undefined) continue;
    sql += query.sql.slice(from, start) + text;
    from = end;
  }
  sql += query.sql.slice(from);
  // The statement's node stays: what it writes is still told by it (write-tracker.ts).
  return { ...query, sql };
}

/** Each placeholder of a text: where it starts and ends, and the index of its parameter. */
type Spans = Array<[start: number, end: number, index: number]>;

const spansByText = new BoundedMap<string, Spans>(500);

function placeholderSpans(text: string, postgres: boolean): Spans {
  const spans: Spans = [];
  let ordinal = 0;
  for (const match of text.matchAll(postgres ? PG_TOKENS : TOKENS)) {
    const token = match[0];
    if (!isPlaceholder(token)) continue;
    spans.push([match.index, match.index + token.length, postgres ? Number(match[1]) - 1 : ordinal++]);
  }
  return spans;
}

/**
 * A statement's SQLite text with each placeholder `?` written `+?` (the same value: unary plus is
 * SQLite's no-op operator), outside literals, identifiers and comments.
 *
 * Why: SQLite marks a statement to be compiled again when a parameter its planner looked at is bound
 * anew (a `col = ?` term it weighed as a filter, `LIMIT ?`, `LIKE ?`, a value it probed the STAT4
 * samples with), and `sqlite3_clear_bindings`, which better-sqlite3 calls after every run, expires
 * every statement so marked. Most of a document write's statements were therefore compiled on every
 * run, which cost more than running them (docs/performance.md, "Statements compiled on every run").
 * The planner does not look through `+?`: the plan is chosen once, for any value, as PostgreSQL's
 * and MariaDB's prepared statements are; index use is the same (`col = +?` is still an equality).
 */
export function opaquePlaceholders(sql: string): string {
  return sql.includes('?') ? sql.replace(TOKENS, (token) => (token === '?' ? '+?' : token)) : sql;
}
