import assert from 'node:assert/strict';
import path from 'node:path';
import { it } from 'node:test';
import { eventually } from './helpers/eventually.ts';
import { forEachEngine, startTestApp } from './helpers/test-app.ts';

const pluginsDir = path.join(import.meta.dirname, 'fixtures', 'plugins');

forEachEngine('plugins', (t) => {
  const names = (body: Array<{ name: string }>) => body.map((plugin) => plugin.name);
  const listed = async () => (await t().call('GET', '/api/3/')).body.resources as string[];

  it('lists the installed plugins with their records, sorted by name, and the core version', async () => {
    const answer = await t().call('GET', '/api/3/plugins');
    assert.equal(answer.status, 200);
    assert.equal(answer.headers['x-core-version'], '1');
    assert.deepEqual(names(answer.body), ['customer-notes', 'future-core', 'needs-notes', 'webhooks']);
    const notes = answer.body[0];
    assert.deepEqual(Object.keys(notes), ['compatible', 'description', 'enabled', 'folder', 'min_version', 'name', 'require', 'version']);
    assert.deepEqual([notes.enabled, notes.compatible, notes.folder, notes.require], [false, true, 'customer-notes', []]);
    const future = answer.body[1];
    assert.deepEqual([future.compatible, future.min_version], [false, 99]);
    assert.ok((await listed()).includes('plugins'));
  });

  it('filters and sorts on the records\' properties, and refuses unknown ones', async () => {
    const query = async (q: string) => names((await t().call('GET', `/api/3/plugins?${q}`)).body);
    assert.deepEqual(await query('filter[compatible]=false'), ['future-core']);
    assert.deepEqual(await query('filter[version_gt]=1'), ['needs-notes']);
    assert.deepEqual(await query('filter[name_like]=NOTES'), ['customer-notes', 'needs-notes']);
    assert.deepEqual(await query('filter[require]=customer-notes'), ['needs-notes']);
    assert.deepEqual(await query('filter[min_version_gte]=2&filter[enabled]=0'), ['future-core']);
    assert.deepEqual(await query('sort[version]=DESC'), ['needs-notes', 'customer-notes', 'future-core', 'webhooks']);
    for (const [q, code] of [['filter[size]=1', 'invalid-filter-field'], ['sort[size]=ASC', 'invalid-sort-field'], ['filter[version_gt]=abc', 'invalid-filter-value'], ['sort[name]=UP', 'invalid-sort-direction']]) {
      const answer = await t().call('GET', `/api/3/plugins?${q}`);
      assert.deepEqual([answer.status, answer.body.message], [400, code], q);
    }
    const one = await t().call('GET', '/api/3/plugins/needs-notes');
    assert.deepEqual([one.status, one.body.version, one.body.require], [200, 2.5, ['customer-notes']]);
    const missing = await t().call('GET', '/api/3/plugins/nope');
    assert.deepEqual([missing.status, missing.body.message], [404, 'plugin-not-found']);
  });

  it('needs a rule for plugins and a full-access key to switch one; checks versions and requirements', async () => {
    const key = (await t().call('POST', '/api/3/apikey', { description: 'plugins', fullaccess: false })).body;
    const as = (method: string, url: string) => t().call(method, url, undefined, key.apikey);
    assert.equal((await as('GET', '/api/3/plugins')).status, 403, 'no rule for plugins');
    assert.equal((await t().call('POST', '/api/3/apiaccess', { idapikey: key.id, resource: 'plugins', allowget: true, allowpost: true, allowput: false, allowdelete: false })).status, 201);
    assert.equal((await as('GET', '/api/3/plugins')).status, 200);
    const restricted = await as('POST', '/api/3/plugins/customer-notes/enable');
    assert.deepEqual([restricted.status, restricted.body.message], [403, 'full-access-required']);

    const early = await t().call('POST', '/api/3/plugins/needs-notes/enable');
    assert.deepEqual([early.status, early.body.message, early.body.missing], [422, 'plugin-requirements-missing', ['customer-notes']]);
    const future = await t().call('POST', '/api/3/plugins/future-core/enable');
    assert.deepEqual([future.status, future.body.message, future.body.min_version], [422, 'plugin-incompatible', 99]);
    assert.deepEqual((await t().call('POST', '/api/3/plugins/nope/enable')).status, 404);
    const verb = await t().call('POST', '/api/3/plugins/customer-notes/install');
    assert.deepEqual([verb.status, verb.body.message], [400, 'invalid-action']);
    assert.equal((await t().call('GET', '/api/3/plugins/customer-notes/enable')).status, 405);

    const enabled = await t().call('POST', '/api/3/plugins/customer-notes/enable');
    assert.deepEqual([enabled.status, enabled.body.status, enabled.body.message, enabled.body.plugin.enabled], [200, 'success', 'plugin-enabled', true]);
    assert.equal((await t().call('POST', '/api/3/plugins/customer-notes/enable')).status, 200, 'enabling twice is fine');
    assert.equal((await t().call('POST', '/api/3/plugins/needs-notes/enable')).status, 200);
    const required = await t().call('POST', '/api/3/plugins/customer-notes/disable');
    assert.deepEqual([required.status, required.body.message, required.body.by], [422, 'plugin-required', ['needs-notes']]);
    assert.equal((await t().call('POST', '/api/3/plugins/needs-notes/disable')).status, 200);
    assert.equal((await t().call('POST', '/api/3/plugins/customer-notes/disable')).status, 200);
  });

  it('gives the example plugin\'s model and endpoint only while it is enabled; its data stays', async () => {
    assert.equal((await t().call('POST', '/api/3/cliente', { codcliente: 'NOTE1', nombre: 'Noted customer' })).status, 201);
    assert.equal((await t().call('GET', '/api/3/notacliente')).status, 404);
    assert.ok(!(await listed()).includes('notacliente') && !(await listed()).includes('clienteNotas'));
    assert.equal((await t().call('POST', '/api/3/plugins/customer-notes/enable')).status, 200);
    assert.ok((await listed()).includes('notacliente') && (await listed()).includes('clienteNotas'));
    const note = await t().call('POST', '/api/3/notacliente', { codcliente: 'NOTE1', texto: 'Call before delivering' });
    assert.equal(note.status, 201, JSON.stringify(note.body));
    assert.equal((await t().call('GET', '/api/3/notaclientes/schema')).status, 200, 'its plural alias too');
    const withNotes = await t().call('GET', '/api/3/clienteNotas/NOTE1');
    assert.deepEqual([withNotes.status, withNotes.body.nombre, withNotes.body.notes.map((n: { texto: string }) => n.texto)], [200, 'Noted customer', ['Call before delivering']]);
    assert.equal((await t().call('GET', '/api/3/clienteNotas/NOBODY')).status, 404);

    assert.equal((await t().call('POST', '/api/3/plugins/customer-notes/disable')).status, 200);
    assert.equal((await t().call('GET', '/api/3/notacliente')).status, 404);
    assert.equal((await t().call('GET', '/api/3/clienteNotas/NOTE1')).status, 404);
    assert.ok(!(await listed()).includes('notacliente'));
    assert.equal((await t().call('POST', '/api/3/plugins/customer-notes/enable')).status, 200);
    assert.equal((await t().call('GET', `/api/3/notacliente/${note.body.id}`)).body.texto, 'Call before delivering', 'the data stayed');
    assert.equal((await t().call('POST', '/api/3/plugins/customer-notes/disable')).status, 200);
  });

  it('runs a plugin\'s subscribers and jobs only while it is enabled', async () => {
    await t().call('POST', '/api/3/plugins/customer-notes/enable');
    const invoice = () => t().call('POST', '/api/3/crearFacturaCliente', { codcliente: 'NOTE1', lineas: [{ descripcion: 'x', pvpunitario: 1 }] });
    assert.equal((await invoice()).status, 200);
    await t().app.runJob('needs-notes:count');
    assert.equal((await t().call('POST', '/api/3/plugins/needs-notes/enable')).status, 200);
    assert.equal((await invoice()).status, 200);
    await t().app.runJob('needs-notes:count');
    // Subscribers run after the commit, off the request's path: on a busy machine a moment later.
    await eventually(async () => assert.deepEqual((await t().call('GET', '/api/3/needsNotesSeen')).body, { created: 1, runs: 1 }, 'one invoice and one run while enabled'));
    await t().call('POST', '/api/3/plugins/needs-notes/disable');
    await t().call('POST', '/api/3/plugins/customer-notes/disable');
  });

  it('switches a plugin in every instance sharing the database', async () => {
    const other = await startTestApp(t().engine, { url: t().databaseUrl, config: { pluginsDir } });
    try {
      assert.equal((await other.call('GET', '/api/3/notacliente')).status, 404);
      assert.equal((await t().call('POST', '/api/3/plugins/customer-notes/enable')).status, 200);
      await other.app.runJob('shared-state');
      assert.equal((await other.call('GET', '/api/3/notacliente')).status, 200, 'the other instance sees the switch at its next refresh');
      assert.equal((await other.call('GET', '/api/3/plugins/customer-notes')).body.enabled, true);
      assert.equal((await t().call('POST', '/api/3/plugins/customer-notes/disable')).status, 200);
      await other.app.runJob('shared-state');
      assert.equal((await other.call('GET', '/api/3/notacliente')).status, 404);
    } finally {
      await other.app.close();
    }
  });
}, { config: { pluginsDir } });
