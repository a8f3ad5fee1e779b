import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, it } from 'node:test';
import { killService, startService } from './helpers/service-process.ts';

/**
 * The service writes Node's compile cache once it listens (src/serve.ts), not only at exit: a
 * second instance started while the first runs starts warm (about 20 MiB less at rest,
 * docs/performance.md). Killed at once, a process writes nothing at exit, so what the cache holds
 * then was written while it ran.
 */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'invoicing-compile-cache-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

const cached = (folder: string): string[] => (fs.existsSync(folder) ? fs.readdirSync(folder, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => entry.name) : []);

it('writes the compile cache of the sources it started with while it runs', async () => {
  const cache = path.join(dir, 'cache');
  const data = path.join(dir, 'data');
  const service = await startService(`sqlite:${path.join(data, 'invoicing.sqlite')}`, data, 'compile-cache-test-key-0123456789', { NODE_COMPILE_CACHE: cache });
  try {
    assert.equal((await service.call('GET', '/api/3/cliente')).status, 200);
  } finally {
    await killService(service.child);
  }
  // Its own sources among them, not only Node's: the app's modules number in the hundreds.
  assert.ok(cached(cache).length > 100, `${cached(cache).length} entries in the compile cache after a start`);
});
