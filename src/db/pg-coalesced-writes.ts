import type { Client } from 'pg';

/**
 * Makes a pg client send what it is given in one event-loop tick in one write. In pipeline mode
 * each statement is written as it is given, its Parse, Bind, Describe, Execute and Sync each a
 * write of the socket's own, so a document's batch (statement-batch.ts) cost about a hundred
 * system calls; the socket is now corked at the first statement of a tick and uncorked once the
 * tick's synchronous work is done (`process.nextTick`), which hands the kernel all of it at once.
 * Nothing waits longer than the tick that gave it.
 */
export function coalesceWrites(client: Client): void {
  const stream = (client as unknown as { connection?: { stream?: NodeJS.WritableStream & { cork(): void; uncork(): void; writable: boolean } } }).connection?.stream;
  if (!stream) return;
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  let corked = false;
  const uncork = () => {
    corked = false;
    stream.uncork();
  };
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    if (!corked && stream.writable) {
      corked = true;
      stream.cork();
      process.nextTick(uncork);
    }
    return query(...args);
  };
}
