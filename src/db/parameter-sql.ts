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
  let key = '';
  const { parameters } = query;
  for (let index = 0; index < parameters.length; index++) {
    const text = wrap(postgres ? `$${index + 1}` : '?', parameters[index]);
    if (text === undefined) continue;
    (wrapped ??= [])[index] = text;
    key += `${index}\u0001${text}\u0002`;
  }
  if (!wrapped) return query;
  // The same wrapping of the same text gives the same string object: a document's statements repeat,
  // and a prepared-statement cache then finds the text without reading it through again.
  let byWrapping = wrappedTexts.get(query.sql);
  if (!byWrapping) wrappedTexts.set(query.sql, (byWrapping = new BoundedMap(4)));
  let sql = byWrapping.get(key);
  if (sql === undefined) byWrapping.set(key, (sql = wrapText(query.sql, wrapped, postgres)));
  // The statement's node stays: what it writes is still told by it (write-tracker.ts).
  return { ...query, sql };
}

/** Texts as `wrapParameters` wrapped them, by the original text and the wrapping. */
const wrappedTexts = new BoundedMap<string, BoundedMap<string, string>>(100);

function wrapText(original: string, wrapped: Array<string | undefined>, postgres: boolean): string {
  // The placeholders' places in the text, found once per text.
  let spans = spansByText.get(original);
  if (!spans) spansByText.set(original, (spans = placeholderSpans(original, postgres)));
  let sql = '';
  let from = 0;
  for (const [start, end, index] of spans) {
    const text = wrapped[index];
    if (text === undefined) continue;
    sql += original.slice(from, start) + text;
    from = end;
  }
  return sql + original.slice(from);
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
