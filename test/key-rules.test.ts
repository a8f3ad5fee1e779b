import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forEachEngine, type TestApp } from './helpers/test-app.ts';

/**
 * `PUT /api/3/apikey/{id}/rules` (docs/access-control.md): a key's rules replaced as a whole in one
 * transaction, applied to the very next request, each change an event; all or nothing on a bad
 * item; only for callers who could write the rules one by one.
 */
async function createKey(t: TestApp, body: Record<string, unknown>): Promise<{ id: number; token: string }> {
  const response = await t.call('POST', '/api/3/apikey', body);
  assert.equal(response.status, 201, JSON.stringify(response.body));
  return { id: response.body.id, token: response.body.apikey };
}

const rulesOf = async (t: TestApp, id: number) =>
  (await t.call('GET', `/api/3/apiaccess?filter[idapikey]=${id}&sort[resource]=ASC`)).body.map((rule: any) => [rule.resource, rule.allowget, rule.allowpost, rule.allowput, rule.allowdelete]);

forEachEngine('replacing a key\'s rules', (t) => {
  it('creates, updates and deletes rules to match the list, and the key follows at once', async () => {
    const key = await createKey(t(), { description: 'grid' });
    for (const resource of ['producto', 'familia']) assert.equal((await t().call('POST', '/api/3/apiaccess', { idapikey: key.id, resource })).status, 201);
    const replaced = await t().call('PUT', `/api/3/apikey/${key.id}/rules`, {
      rules: [
        { resource: 'cliente', allowget: true, allowpost: false, allowput: false, allowdelete: false },
        { resource: 'producto', allowget: true, allowpost: true, allowput: false, allowdelete: false },
        // Flags left out take the rule's defaults (true).
        { resource: 'proveedor' },
      ],
    });
    assert.equal(replaced.status, 200, JSON.stringify(replaced.body));
    assert.equal(replaced.body.ok, 'record-updated');
    assert.equal(replaced.body.data.length, 3);
    assert.deepEqual(await rulesOf(t(), key.id), [
      ['cliente', true, false, false, false],
      ['producto', true, true, false, false],
      ['proveedor', true, true, true, true],
    ]);
    assert.equal((await t().call('GET', '/api/3/cliente', undefined, key.token)).status, 200);
    assert.equal((await t().call('POST', '/api/3/cliente', { codcliente: 'KR1', nombre: 'No' }, key.token)).status, 403);
    assert.equal((await t().call('GET', '/api/3/familia', undefined, key.token)).status, 403);
    // A rule written under the plural alias is the same rule: replaced, not doubled.
    assert.equal((await t().call('POST', '/api/3/apiaccess', { idapikey: key.id, resource: 'familias', allowget: false })).status, 201);
    assert.equal((await t().call('PUT', `/api/3/apikey/${key.id}/rules`, { rules: [{ resource: 'cliente', allowpost: false, allowput: false, allowdelete: false }, { resource: 'producto', allowpost: true, allowput: false, allowdelete: false }, { resource: 'proveedor' }, { resource: 'familias', allowpost: false, allowput: false, allowdelete: false }] })).status, 200);
    assert.deepEqual((await rulesOf(t(), key.id)).find((rule: unknown[]) => rule[0] === 'familia'), ['familia', true, false, false, false]);
    assert.equal((await rulesOf(t(), key.id)).length, 4);
    assert.equal((await t().call('GET', '/api/3/familia', undefined, key.token)).status, 200);
    assert.equal((await t().call('PUT', `/api/3/apikey/${key.id}/rules`, { rules: [{ resource: 'cliente', allowpost: false, allowput: false, allowdelete: false }, { resource: 'producto', allowpost: true, allowput: false, allowdelete: false }, { resource: 'proveedor' }] })).status, 200);
    // The alias path, and an empty list: no rules left.
    const beforeEmpty = (await t().call('GET', '/api/3/events?latest=1')).body.next;
    assert.equal((await t().call('PUT', `/api/3/apikeyes/${key.id}/rules`, { rules: [] })).status, 200);
    assert.deepEqual(await rulesOf(t(), key.id), []);
    assert.equal((await t().call('GET', '/api/3/cliente', undefined, key.token)).status, 403);
    // Each rule's change announced once: the three deletions of the empty list.
    const events = await t().call('GET', `/api/3/events?after=${beforeEmpty}&type=access.changed`);
    assert.deepEqual(events.body.events.map((event: any) => [event.payload?.action, event.payload?.rule?.resource ?? event.payload?.resource]).sort(), [['deleted', 'cliente'], ['deleted', 'producto'], ['deleted', 'proveedor']]);
  });

  it('writes nothing when an item is refused, and names the item', async () => {
    const key = await createKey(t(), { description: 'grid-bad' });
    assert.equal((await t().call('PUT', `/api/3/apikey/${key.id}/rules`, { rules: [{ resource: 'cliente', allowget: true }] })).status, 200);
    const cases: Array<[unknown, string, string]> = [
      [{ rules: [{ resource: 'producto' }, { resource: 'producto' }] }, 'rules.1.resource', 'duplicate'],
      [{ rules: [{ resource: 'producto' }, { allowget: true }] }, 'rules.1.resource', 'required'],
      [{ rules: [{ resource: 'producto', allowget: 'maybe' }] }, 'rules.0.allowget', 'invalid-boolean'],
      [{ rules: [{ resource: 'x'.repeat(101) }] }, 'rules.0.resource', 'too-long'],
      [{ rules: ['cliente'] }, 'rules.0', 'invalid-value'],
      [{ rules: 'cliente' }, 'rules', 'invalid-value'],
      [{}, 'rules', 'required'],
      // The alias names the same resource.
      [{ rules: [{ resource: 'cliente' }, { resource: 'clientes' }] }, 'rules.1.resource', 'duplicate'],
      [{ rules: [{ resource: 'cliente', id: 5 }] }, 'rules.0.id', 'read-only'],
      [{ rules: [{ resource: 'cliente', colour: 'red' }] }, 'rules.0.colour', 'unknown-field'],
      [{ rules: Array.from({ length: 1001 }, (_, index) => ({ resource: `r${index}` })) }, 'rules', 'out-of-range'],
    ];
    for (const [body, field, reason] of cases) {
      const refused = await t().call('PUT', `/api/3/apikey/${key.id}/rules`, body);
      assert.equal(refused.status, 422, JSON.stringify(refused.body));
      assert.deepEqual(refused.body.fields, { [field]: reason });
    }
    // A refusal after earlier items were written in the transaction leaves the old rules whole, and announces nothing.
    const { body: { next } } = await t().call('GET', '/api/3/events?latest=1');
    const late = await t().call('PUT', `/api/3/apikey/${key.id}/rules`, { rules: [{ resource: 'producto' }, { resource: 'familia', allowput: 'x' }] });
    assert.equal(late.status, 422);
    assert.deepEqual(await rulesOf(t(), key.id), [['cliente', true, true, true, true]]);
    assert.deepEqual((await t().call('GET', `/api/3/events?after=${next}&type=access.changed`)).body.events, []);
    assert.equal((await t().call('PUT', '/api/3/apikey/999999/rules', { rules: [] })).status, 404);
    assert.equal((await t().call('PUT', '/api/3/apikey/abc/rules', { rules: [] })).status, 404);
    assert.equal((await t().call('POST', `/api/3/apikey/${key.id}/rules`, { rules: [] })).status, 405);
  });

  it('needs what writing the rules one by one would: apiaccess PUT, POST and DELETE', async () => {
    const target = await createKey(t(), { description: 'target' });
    const editor = await createKey(t(), { description: 'editor' });
    const body = { rules: [{ resource: 'cliente' }] };
    assert.equal((await t().call('PUT', `/api/3/apikey/${target.id}/rules`, body, editor.token)).status, 403);
    await t().call('PUT', `/api/3/apikey/${editor.id}/rules`, { rules: [{ resource: 'apiaccess', allowget: true, allowpost: false, allowput: true, allowdelete: true }] });
    assert.equal((await t().call('PUT', `/api/3/apikey/${target.id}/rules`, body, editor.token)).status, 403);
    await t().call('PUT', `/api/3/apikey/${editor.id}/rules`, { rules: [{ resource: 'apiaccess' }] });
    assert.equal((await t().call('PUT', `/api/3/apikey/${target.id}/rules`, body, editor.token)).status, 200);
    assert.deepEqual(await rulesOf(t(), target.id), [['cliente', true, true, true, true]]);
  });
});
