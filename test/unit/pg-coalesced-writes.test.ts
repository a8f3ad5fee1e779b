import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { it } from 'node:test';
import { coalesceWrites } from '../../src/db/pg-coalesced-writes.ts';

/**
 * A pg client's statements of one tick leave in one write (src/db/pg-coalesced-writes.ts): a
 * client as pg's pipeline mode is, writing each message of a statement to its socket as it is
 * given, here a stream that records each write it is handed.
 */
function client() {
  const writes: string[][] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      writes.push([String(chunk)]);
      done();
    },
    writev(chunks, done) {
      writes.push(chunks.map(({ chunk }) => String(chunk)));
      done();
    },
  });
  const fake = {
    connection: { stream },
    query(text: string) {
      for (const message of ['P', 'B', 'D', 'E', 'S']) stream.write(`${message}:${text}`);
      return Promise.resolve();
    },
  };
  return { fake, writes };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

it('sends the statements given in one tick in one write, in order, and those of the next tick in the next', async () => {
  const { fake, writes } = client();
  coalesceWrites(fake as never);
  fake.query('a');
  fake.query('b');
  fake.query('c');
  await tick();
  assert.equal(writes.length, 1, 'one write for the tick\'s three statements');
  assert.deepEqual(writes[0], ['a', 'b', 'c'].flatMap((text) => ['P', 'B', 'D', 'E', 'S'].map((message) => `${message}:${text}`)));
  fake.query('d');
  await tick();
  assert.equal(writes.length, 2, 'a later tick\'s statement is not held back');
  assert.deepEqual(writes[1], ['P', 'B', 'D', 'E', 'S'].map((message) => `${message}:d`));
});

it('leaves a client without a socket as it is', () => {
  const bare = { query: () => 'answered' };
  coalesceWrites(bare as never);
  assert.equal(bare.query(), 'answered');
});
