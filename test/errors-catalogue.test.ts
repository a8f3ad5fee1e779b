import assert from 'node:assert/strict';
import fs from 'node:fs';
import { it } from 'node:test';
import { ERROR_CATALOGUE } from '../src/errors.ts';

it('docs/errors.md lists exactly the codes of the catalogue, with their status and shape', () => {
  const text = fs.readFileSync(new URL('../docs/errors.md', import.meta.url), 'utf8');
  const documented = new Map<string, { status: number; shape: string }>();
  for (const match of text.matchAll(/^\| `([a-z-]+)` \| (\d{3}) \| `(\{"error"|\{"status")/gm)) {
    documented.set(match[1]!, { status: Number(match[2]), shape: match[3] === '{"error"' ? 'error' : 'message' });
  }
  const inCode = new Map(Object.entries(ERROR_CATALOGUE).map(([code, entry]) => [code, { status: entry.status, shape: entry.shape }]));
  assert.deepEqual(documented, inCode);
});

it('every error code used in the source is in the catalogue', () => {
  const used = new Set<string>();
  const walk = (dir: URL) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const url = new URL(entry.name + (entry.isDirectory() ? '/' : ''), dir);
      if (entry.isDirectory()) walk(url);
      else if (entry.name.endsWith('.ts')) {
        for (const m of fs.readFileSync(url, 'utf8').matchAll(/new AppError\('([a-z-]+)'/g)) used.add(m[1]!);
      }
    }
  };
  walk(new URL('../src/', import.meta.url));
  assert.ok(used.size > 10);
  for (const code of used) assert.ok(code in ERROR_CATALOGUE, code);
});
