import assert from 'node:assert/strict';
import { it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CountCache } from '../../src/db/count-cache.ts';
import { WriteTracker } from '../../src/db/write-tracker.ts';
import { defineModel } from '../../src/models/define-model.ts';
import { f } from '../../src/models/fields.ts';

const model = defineModel({ name: 'Counted', table: 't_counted', fields: { id: f.serial() } });

/**
 * The clock that times counts: each count moves it by what it is said to take, so that how slow a
 * count is does not depend on how loaded the machine is.
 */
const elapsed = { ms: 0 };

/** A count that takes `ms` and answers the rows at the time it started, and says how often it ran. */
function table(ms: number) {
  const state = { rows: 10, runs: 0 };
  const count = async () => {
    state.runs++;
    const rows = state.rows;
    await sleep(ms);
    elapsed.ms += ms;
    return rows;
  };
  return { state, count };
}

function cache(now: { ms: number }, writes = new WriteTracker()) {
  return new CountCache({ writes, byTable: () => undefined, now: () => now.ms, elapsed: () => elapsed.ms, maxAgeMs: 1000, staleLimit: 5 });
}

it('counts once for a burst of requests that need the same total', async () => {
  const now = { ms: 0 };
  const counts = cache(now);
  const { state, count } = table(30);
  const totals = await Promise.all(Array.from({ length: 50 }, () => counts.total(model, 'k', count)));
  assert.deepEqual(new Set(totals), new Set([10]));
  assert.equal(state.runs, 1);
  // Within the age limit: no count at all.
  assert.equal(await counts.total(model, 'k', count), 10);
  assert.equal(state.runs, 1);
});

it('answers a slow count past its age while one recount runs, then the new total', async () => {
  const now = { ms: 0 };
  const counts = cache(now);
  const { state, count } = table(30);
  assert.equal(await counts.total(model, 'k', count), 10);
  state.rows = 11;
  now.ms = 1500;
  // Stale but answered at once; a single recount starts.
  assert.deepEqual(await Promise.all([counts.total(model, 'k', count), counts.total(model, 'k', count)]), [10, 10]);
  assert.equal(state.runs, 2);
  await sleep(50);
  assert.equal(await counts.total(model, 'k', count), 11);
  // Past staleLimit x maxAgeMs the caller waits for the recount.
  state.rows = 12;
  now.ms = 1500 + 7000;
  assert.equal(await counts.total(model, 'k', count), 12);
  // Inside a transaction (no background work): waits as well.
  state.rows = 13;
  now.ms += 1500;
  assert.equal(await counts.total(model, 'k', count, false), 13);
});

it('recounts a quick count before answering once it is old, and any count after its own write', async () => {
  const now = { ms: 0 };
  const writes = new WriteTracker();
  const counts = cache(now, writes);
  const quick = table(0);
  assert.equal(await counts.total(model, 'q', quick.count), 10);
  quick.state.rows = 11;
  now.ms = 1500;
  assert.equal(await counts.total(model, 'q', quick.count), 11);
  const slow = table(30);
  assert.equal(await counts.total(model, 's', slow.count), 10);
  slow.state.rows = 11;
  // This instance writes the table: the slow count is not answered stale, even within its age.
  const connection = {} as never;
  writes.statement(connection, { kind: 'InsertQueryNode', into: { kind: 'TableNode', table: { kind: 'SchemableIdentifierNode', identifier: { kind: 'IdentifierNode', name: 't_counted' } } } } as never)?.();
  assert.equal(await counts.total(model, 's', slow.count), 11);
});

it('keeps a count that took long for twenty times as long as it took', async () => {
  const now = { ms: 0 };
  const counts = cache(now);
  const { state, count } = table(80);
  assert.equal(await counts.total(model, 'k', count), 10);
  state.rows = 11;
  // Past maxAgeMs (1000) but within 20 x ~80 ms: no recount at all.
  now.ms = 1400;
  assert.equal(await counts.total(model, 'k', count), 10);
  assert.equal(state.runs, 1);
});
