import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { pathToFileURL } from 'node:url';

/** The admin console's two languages (docs/admin.md): the same keys, the same placeholders, and every key the pages name. */
const root = path.resolve(import.meta.dirname, '../../admin/js');
const sources = () => fs.readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.js')).map((name) => path.join(root, name));
type Messages = Record<string, string>;
// Browser modules outside the TypeScript project: imported by their path, typed here.
const messages = async (language: string) => ((await import(pathToFileURL(path.join(root, `messages-${language}.js`)).href)) as Record<string, Messages>)[language]!;
const en = await messages('en');
const es = await messages('es');
const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((match) => match[1]).sort();

it('has every message in both languages, with the same placeholders', () => {
  assert.deepEqual(Object.keys(es).sort(), Object.keys(en).sort());
  for (const [key, text] of Object.entries(en)) assert.deepEqual(placeholders(es[key] ?? ''), placeholders(text), key);
});

it('has a message for every key the pages name literally', () => {
  const named = new Set(sources().flatMap((file) => [...fs.readFileSync(file, 'utf8').matchAll(/\bt\('([\w.:-]+)'/g)].map((match) => match[1]!)));
  assert.ok(named.size > 100, `found ${named.size} keys`);
  assert.deepEqual([...named].filter((key) => !(key in en)), []);
});
