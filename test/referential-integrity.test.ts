import assert from 'node:assert/strict';
import { it } from 'node:test';
import { defineModel } from '../src/models/define-model.ts';
import { f } from '../src/models/fields.ts';
import { settingsModel } from '../src/modules/settings/settings-model.ts';
import { forEachEngine } from './helpers/test-app.ts';

const owner = defineModel({ name: 'Owner', table: 'r_owner', fields: { code: f.string(10, { primary: true }), name: f.string(20) } });
const child = (name: string, onDelete: 'RESTRICT' | 'CASCADE' | 'SET NULL') =>
  defineModel({
    name,
    table: `r_${name.toLowerCase()}`,
    fields: { id: f.serial(), owner: f.string(10, { references: f.ref('r_owner', 'code', onDelete) }) },
  });
const models = [settingsModel, owner, child('Blocker', 'RESTRICT'), child('Follower', 'CASCADE'), child('Orphan', 'SET NULL')];

forEachEngine(
  'referential integrity',
  (t) => {
    it('RESTRICT refuses the delete with 409 and deletes nothing', async () => {
      await t().call('POST', '/api/3/owner', { code: 'A', name: 'a' });
      await t().call('POST', '/api/3/follower', { owner: 'A' });
      await t().call('POST', '/api/3/blocker', { owner: 'A' });
      const refused = await t().call('DELETE', '/api/3/owner/A');
      assert.deepEqual([refused.status, refused.body], [409, { status: 'error', message: 'record-in-use' }]);
      assert.equal((await t().call('GET', '/api/3/owner/A')).status, 200);
      assert.equal((await t().call('GET', '/api/3/follower?filter[owner]=A')).body.length, 1, 'no cascade happened');
    });

    it('CASCADE deletes the dependants and SET NULL clears the link', async () => {
      await t().call('POST', '/api/3/owner', { code: 'B', name: 'b' });
      await t().call('POST', '/api/3/follower', { owner: 'B' });
      await t().call('POST', '/api/3/follower', { owner: 'B' });
      const orphan = await t().call('POST', '/api/3/orphan', { owner: 'B' });
      assert.equal((await t().call('DELETE', '/api/3/owner/B')).status, 200);
      assert.equal((await t().call('GET', '/api/3/follower?filter[owner]=B')).body.length, 0);
      assert.equal((await t().call('GET', `/api/3/orphan/${orphan.body.id}`)).body.owner, null);
    });

    it('refuses a reference to a missing record with 422 and a key change cascades', async () => {
      const missing = await t().call('POST', '/api/3/follower', { owner: 'ZZZ' });
      assert.deepEqual([missing.status, missing.body.message], [422, 'invalid-reference']);
    });
  },
  { models },
);
