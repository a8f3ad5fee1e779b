import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { it } from 'node:test';

/** `npm start`, `npm test` and `npm run cli` first run scripts/check-node.js (see package.json). */
const check = path.join(import.meta.dirname, '..', 'scripts', 'check-node.js');
const oldNode = ['/usr/bin/node', '/usr/local/bin/node'].find((candidate) => {
  const version = spawnSync(candidate, ['--version'], { encoding: 'utf8' }).stdout?.trim();
  return version && Number(version.slice(1).split('.')[0]) < 22;
});

it('lets a supported Node through', () => {
  const run = spawnSync(process.execPath, [check], { encoding: 'utf8' });
  assert.deepEqual([run.status, run.stderr], [0, '']);
});

it('stops an older Node at once with one line saying what is needed', { skip: oldNode ? false : 'no Node older than 22 on this machine' }, () => {
  const run = spawnSync(oldNode!, [check], { encoding: 'utf8' });
  assert.equal(run.status, 1);
  const lines = run.stderr.trim().split('\n');
  assert.equal(lines.length, 1, run.stderr);
  assert.match(lines[0]!, /needs Node\.js 22\.18 or newer .* this is v\d+\..*scripts\/node24\.sh/);
});

it('runs the check before every entry point a newcomer uses', async () => {
  const { scripts } = (await import('../package.json', { with: { type: 'json' } })).default as { scripts: Record<string, string> };
  for (const name of ['start', 'test', 'cli']) assert.match(scripts[name]!, /^node scripts\/check-node\.js && /, name);
});
