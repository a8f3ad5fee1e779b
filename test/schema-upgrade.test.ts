import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { defineModel } from '../src/models/define-model.ts';
import { f } from '../src/models/fields.ts';
import { settingsModel } from '../src/modules/settings/settings-model.ts';
import { enabledEngines, scratchDatabase } from './helpers/engines.ts';
import { startTestApp } from './helpers/test-app.ts';

const parent = defineModel({ name: 'Parent', table: 't_parent', fields: { id: f.serial(), name: f.string(20, { notNull: true }) } });

const childV1 = defineModel({
  name: 'Child',
  table: 't_child',
  fields: { id: f.serial(), idparent: f.integer(), label: f.string(20) },
});

/** Version 2: two new columns (one NOT NULL without default), a foreign key on an old column, a new table. */
const childV2 = defineModel({
  name: 'Child',
  table: 't_child',
  fields: {
    id: f.serial(),
    idparent: f.integer({ references: f.ref('t_parent', 'id', 'RESTRICT') }),
    label: f.string(20),
    note: f.string(20, { default: 'n/a' }),
    qty: f.integer({ notNull: true }),
  },
});
const extra = defineModel({ name: 'Extra', table: 't_extra', fields: { code: f.string(5, { primary: true }), flag: f.boolean({ default: true }) } });

for (const engine of enabledEngines()) {
  describe(`schema upgrade keeps rows [${engine}]`, () => {
    let drop: (() => Promise<void>) | undefined;
    after(async () => drop?.());

    it('adds new fields, foreign keys and tables to a database made by an older version', async () => {
      const scratch = await scratchDatabase(engine);
      drop = scratch.drop;
      const v1 = await startTestApp(engine, { url: scratch.url, models: [settingsModel, parent, childV1] });
      try {
        assert.deepEqual(v1.app.schema.createdTables.sort(), ['api_idempotency_keys', 'api_state', 'code_counters', 'event_log', 'settings', 't_child', 't_parent']);
        assert.equal((await v1.call('POST', '/api/3/parent', { name: 'p1' })).status, 201);
        assert.equal((await v1.call('POST', '/api/3/parent', { name: 'p2' })).status, 201);
        assert.equal((await v1.call('POST', '/api/3/child', { idparent: 1, label: 'first' })).status, 201);
        assert.equal((await v1.call('POST', '/api/3/child', { idparent: 1, label: 'second' })).status, 201);
      } finally {
        // An instance left open would keep the scratch database from being dropped.
        await v1.close();
      }

      const v2 = await startTestApp(engine, { url: scratch.url, models: [settingsModel, parent, childV2, extra] });
      try {
        assert.deepEqual(v2.app.schema.createdTables, ['t_extra']);
        assert.deepEqual(v2.app.schema.addedColumns.sort(), ['t_child.note', 't_child.qty']);
        assert.equal(v2.app.firstRun, false);
        const children = await v2.call('GET', '/api/3/child?sort[id]=ASC');
        assert.deepEqual(children.body, [
          { id: 1, idparent: 1, label: 'first', note: 'n/a', qty: 0 },
          { id: 2, idparent: 1, label: 'second', note: 'n/a', qty: 0 },
        ]);
        const created = await v2.call('POST', '/api/3/child', { idparent: 2, label: 'third', qty: 3 });
        assert.equal(created.status, 201);
        assert.equal(created.body.note, 'n/a');
        // The foreign key added by the upgrade is enforced.
        assert.deepEqual((await v2.call('DELETE', '/api/3/parent/1')).body, { status: 'error', message: 'record-in-use' });
        assert.equal((await v2.call('POST', '/api/3/child', { idparent: 99, qty: 1 })).status, 422);
        assert.equal((await v2.call('POST', '/api/3/extra', { code: 'E1' })).body.flag, true);
        assert.equal((await v2.call('GET', '/api/3/parent')).body.length, 2);
      } finally {
        await v2.close();
      }

      // A third start with the same version changes nothing.
      const again = await startTestApp(engine, { url: scratch.url, models: [settingsModel, parent, childV2, extra] });
      try {
        assert.deepEqual([again.app.schema.createdTables, again.app.schema.addedColumns, again.app.schema.rebuiltTables], [[], [], []]);
        assert.equal((await again.call('GET', '/api/3/child')).body.length, 3);
      } finally {
        await again.close();
      }
    });

    it('runs versioned migrations once, in order', async () => {
      const scratch = await scratchDatabase(engine);
      const ran: string[] = [];
      const migrations = [
        { id: '0002-second', up: async () => void ran.push('0002') },
        { id: '0001-first', up: async () => void ran.push('0001') },
      ];
      try {
        const first = await startTestApp(engine, { url: scratch.url, models: [settingsModel], migrations });
        assert.deepEqual(first.app.schema.appliedMigrations, ['0001-first', '0002-second']);
        await first.close();
        const second = await startTestApp(engine, { url: scratch.url, models: [settingsModel], migrations });
        assert.deepEqual(second.app.schema.appliedMigrations, []);
        await second.close();
        assert.deepEqual(ran, ['0001', '0002']);
      } finally {
        await scratch.drop();
      }
    });
  });
}
