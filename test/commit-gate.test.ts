import assert from 'node:assert/strict';
import { it } from 'node:test';
import { CommitGate } from '../src/db/commit-gate.ts';

/**
 * The commit gate (src/db/commit-gate.ts) when a request answers before its first transaction is
 * held (the transaction runs beside the handler): the answer ends that transaction once it is held
 * instead of leaving it waiting for an answer already given.
 */
const markWritten = async () => {};
const settledLater = () => {
  let settle!: () => void;
  const settled = new Promise<void>((resolve) => (settle = resolve));
  return { settled, settle };
};

it('ends a transaction held after its request answered with that answer: kept, or rolled back', async () => {
  for (const answer of [{ write: async () => {} }, { rollback: true }]) {
    const gate = new CommitGate(markWritten);
    assert.equal(gate.takes(), true);
    const ended = gate.end(answer);
    const { settled, settle } = settledLater();
    const finish = await gate.hold(settled);
    assert.equal(finish.rollback === true, answer.rollback === true, 'the transaction gets the answer given while it ran');
    assert.equal(finish.write, (answer as { write?: unknown }).write);
    settle();
    await ended;
    assert.equal(gate.state, answer.rollback ? 'rolled-back' : 'committed');
  }
});

it('lets an answer go when the transaction it waited for gave the gate up (failed before it was held)', async () => {
  const gate = new CommitGate(markWritten);
  gate.takes();
  const ended = gate.end({ rollback: true });
  gate.untake();
  await ended;
  assert.equal(gate.state, 'open');
});
