import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, it } from 'node:test';
import { verifySignature } from '../plugins/webhooks/signature.ts';
import { eventually } from './helpers/eventually.ts';
import { forEachEngine, startTestApp, type TestApp } from './helpers/test-app.ts';

interface Received {
  body: string;
  headers: http.IncomingHttpHeaders;
}

/** A receiver on 127.0.0.1 that records every POST and fails the first `failures` of them. */
function receiver() {
  const received: Received[] = [];
  let failures = 0;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ body: Buffer.concat(chunks).toString(), headers: request.headers });
      if (failures > 0) {
        failures -= 1;
        response.writeHead(500).end('not now');
      } else response.writeHead(204).end();
    });
  });
  return {
    received,
    failNext(count: number) {
      failures = count;
    },
    async start(): Promise<string> {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const withEnv = async <T>(values: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> => {
  const saved = Object.fromEntries(Object.keys(values).map((key) => [key, process.env[key]]));
  Object.assign(process.env, values);
  for (const [key, value] of Object.entries(values)) if (value === undefined) delete process.env[key];
  try {
    return await fn();
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
};

/** The plugin reads its options when an app starts: receivers on 127.0.0.1, retries at once. */
const LOCAL = { WEBHOOKS_ALLOW_PRIVATE: '1', WEBHOOKS_RETRY_BASE_SECONDS: '0' };
Object.assign(process.env, LOCAL);

forEachEngine('webhooks plugin', (t) => {
  const hook = receiver();
  let url = '';
  let secret = '';
  let other: TestApp | undefined;
  const invoice = async (app: TestApp = t()) => {
    const answer = await app.call('POST', '/api/3/crearFacturaCliente', { codcliente: 'HOOK1', lineas: [{ descripcion: 'consulting', pvpunitario: 100 }] });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body.doc;
  };
  const pump = async (app: TestApp = t()) => {
    await app.app.runJob('webhooks:fan-out');
    await app.app.runJob('webhooks:deliver');
  };
  const deliveries = async () => (await t().call('GET', '/api/3/webhookdelivery?sort[id]=ASC&limit=1000')).body as Array<Record<string, any>>;

  before(async () => {
    url = await hook.start();
    assert.equal((await t().call('POST', '/api/3/cliente', { codcliente: 'HOOK1', nombre: 'Hooked customer' })).status, 201);
  });
  // Runs after the suite's own app has closed and its database gone (hooks run in the order
  // registered): the second instance is closed by the last test that uses it.
  after(() => hook.close());

  it('exists only once enabled, and keeps a webhook\'s secret to its creation answer', async () => {
    assert.equal((await t().call('GET', '/api/3/webhook')).status, 404);
    assert.equal((await t().call('POST', '/api/3/plugins/webhooks/enable')).status, 200);
    for (const [bad, reason] of [['ftp://example.com/x', 'http-or-https-only'], ['not a url', 'invalid-url'], ['https://user:pw@example.com/', 'no-credentials-in-url']]) {
      const refused = await t().call('POST', '/api/3/webhook', { url: bad });
      assert.deepEqual([refused.status, refused.body.fields?.url], [422, reason], bad);
    }
    const created = await t().call('POST', '/api/3/webhook', { url, events: 'document.created, receipt.*', description: 'accounting' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    secret = created.body.secret;
    assert.match(secret, /^[A-Za-z0-9_-]{43}$/);
    const read = await t().call('GET', `/api/3/webhook/${created.body.id}`);
    assert.equal(read.body.secret, undefined, 'never shown again');
    assert.equal((await t().call('PATCH', `/api/3/webhook/${created.body.id}`, { secret: 'mine' })).status, 422);
  });

  it('delivers an invoice-created event as a signed POST', async () => {
    const doc = await invoice();
    await pump();
    const posts = hook.received.filter((post) => JSON.parse(post.body).type === 'document.created');
    assert.equal(posts.length, 1);
    const [post] = posts;
    const body = JSON.parse(post!.body);
    assert.equal(body.data.doc.idfactura, doc.idfactura);
    assert.equal(post!.headers['x-webhook-event'], 'document.created');
    assert.ok(verifySignature(secret, post!.body, String(post!.headers['x-webhook-signature']), Math.floor(Date.now() / 1000)), 'a valid signature');
    assert.ok(!verifySignature(secret, post!.body.replace('consulting', 'consultinG'), String(post!.headers['x-webhook-signature']), Math.floor(Date.now() / 1000)), 'a changed body fails');
    assert.ok(!verifySignature(secret, post!.body, String(post!.headers['x-webhook-signature']), Math.floor(Date.now() / 1000) + 3600), 'an old signature is a replay');
    const [delivery] = (await deliveries()).filter((row) => row.eventtype === 'document.created');
    assert.deepEqual([delivery!.status, delivery!.attempts, delivery!.responsecode], ['delivered', 1, 204]);
    await pump();
    assert.equal(hook.received.filter((post) => JSON.parse(post.body).type === 'document.created').length, 1, 'sent once');
  });

  it('retries a failing receiver, across a restart, until it answers', async () => {
    hook.received.length = 0;
    // The receiver fails until the restart: this instance's background runs (every second, retries
    // due at once here) may try again meanwhile, and must meet the failure too.
    hook.failNext(1_000_000);
    const doc = await invoice();
    await pump();
    const posts = () => hook.received.filter((post) => JSON.parse(post.body).data.doc?.idfactura === doc.idfactura);
    let [pending] = (await deliveries()).filter((row) => row.eventtype === 'document.created' && row.status !== 'delivered');
    assert.deepEqual([pending!.status, pending!.responsecode, pending!.lasterror], ['pending', 500, 'http-500']);
    assert.ok(pending!.attempts >= 1);
    // A restart: this instance goes, another starts on the same database and takes over, and the receiver answers again.
    other = await startTestApp(t().engine, { url: t().databaseUrl });
    hook.failNext(0);
    await pump(other);
    // The new instance's own first delivery run (at its start) may be the one sending it: wait for the delivery.
    await eventually(async () => assert.equal((await deliveries()).find((row) => row.id === pending!.id)!.status, 'delivered'), 5000);
    [pending] = (await deliveries()).filter((row) => row.id === pending!.id);
    // Every try reached the receiver: the failed ones, then the good one.
    assert.ok(pending!.attempts >= 2);
    assert.equal(posts().length, pending!.attempts);
  });

  it('shares deliveries between instances without sending one twice', async () => {
    hook.received.length = 0;
    const docs = [];
    for (let i = 0; i < 6; i++) docs.push(await invoice(i % 2 ? t() : other!));
    await Promise.all([t().app.runJob('webhooks:fan-out'), other!.app.runJob('webhooks:fan-out')]);
    await Promise.all([t().app.runJob('webhooks:deliver'), other!.app.runJob('webhooks:deliver'), t().app.runJob('webhooks:deliver')]);
    // Background runs may deliver some of them a moment later; none may deliver one twice.
    const ours = new Set(docs.map((doc) => doc.idfactura));
    const ids = () => hook.received.map((post) => JSON.parse(post.body).data.doc?.idfactura).filter((id: number) => ours.has(id)).sort((a: number, b: number) => a - b);
    await eventually(async () => assert.ok(ids().length >= docs.length), 5000);
    assert.deepEqual(ids(), [...ours].sort((a, b) => a - b));
  });

  it('re-sends a delivery on request, and sends nothing once disabled', async () => {
    try {
      await resendAndDisable();
    } finally {
      // The suite's database is dropped after it, and may have no other session then.
      await other?.app.close();
    }
  });

  const resendAndDisable = async () => {
    const [last] = (await deliveries()).slice(-1);
    hook.received.length = 0;
    const resent = await t().call('POST', `/api/3/webhookdelivery/${last!.id}/resend`);
    assert.deepEqual([resent.status, resent.body.status], [200, 'pending']);
    await pump();
    assert.equal(hook.received.length, 1);
    assert.equal((await t().call('POST', '/api/3/webhookdelivery/999999/resend')).status, 404);

    // An instance not configured for private targets refuses to post to 127.0.0.1. Its refusals are
    // due again only in an hour, so that the other instances (which may post there) leave them be.
    // Those instances' background runs (every second) may still take a new delivery's first try
    // before the strict one does: then another invoice is made, until the strict instance tried one.
    const strict = await withEnv({ WEBHOOKS_ALLOW_PRIVATE: undefined, WEBHOOKS_RETRY_BASE_SECONDS: '3600' }, () => startTestApp(t().engine, { url: t().databaseUrl }));
    try {
      let refused: Record<string, any> | undefined;
      for (let attempt = 0; !refused && attempt < 10; attempt++) {
        const doc = await invoice(strict);
        const before = (await deliveries()).length;
        // The invoice's `document.created` may be fanned out by any instance's background job, in
        // more than one run: pump until its delivery exists and has been tried.
        await eventually(async () => {
          await pump(strict);
          const all = await deliveries();
          const newest = all[all.length - 1]!;
          assert.ok(all.length > before && newest.attempts > 0);
          if (newest.status === 'pending') refused = newest;
        }, 5000);
        if (refused) assert.equal(hook.received.filter((post) => JSON.parse(post.body).data.doc?.idfactura === doc.idfactura).length, 0, 'the refused post never left');
      }
      assert.deepEqual([refused?.status, refused?.lasterror], ['pending', 'private-address-refused']);
    } finally {
      await strict.app.close();
    }

    assert.equal((await t().call('POST', '/api/3/plugins/webhooks/disable')).status, 200);
    await other!.app.runJob('shared-state');
    // A background delivery run that began before the switch (the refused delivery above is due
    // again at once) may still land: wait until the receiver has been quiet, then count.
    for (let seen = -1; seen !== hook.received.length; ) {
      seen = hook.received.length;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    hook.received.length = 0;
    await invoice();
    await pump();
    await pump(other);
    assert.equal(hook.received.length, 0);
    assert.equal((await t().call('GET', '/api/3/webhook')).status, 404);
  };
});
