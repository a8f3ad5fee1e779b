import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readLiveConstraints, readLivePlainIndexes } from '../src/db/live-schema.ts';
import { tableIndexes } from '../src/db/table-sql.ts';
import { defineModel } from '../src/models/define-model.ts';
import { f } from '../src/models/fields.ts';
import { settingsModel } from '../src/modules/settings/settings-model.ts';
import { enabledEngines, scratchDatabase } from './helpers/engines.ts';
import { startTestApp } from './helpers/test-app.ts';

/**
 * Indexes come from the registry: uniques, declared indexes and one per foreign key, less any
 * plain index another one begins with (an index is one more write per insert). An upgrade drops
 * the plain indexes a model no longer derives and leaves foreign keys working.
 */
const owner = defineModel({ name: 'Owner', table: 't_owner', fields: { id: f.serial(), name: f.string(20) } });

const itemV1 = defineModel({
  name: 'Item',
  table: 't_item',
  fields: { id: f.serial(), idowner: f.integer({ references: f.ref('t_owner', 'id', 'RESTRICT') }), label: f.string(20), code: f.string(10) },
  indexes: [['label']],
});
/** Version 2: the owner's lists by label get a composite index, which covers the foreign key's and the label's. */
const itemV2 = defineModel({ ...itemV1, indexes: [['idowner', 'label'], ['label', 'code'], ['code']], unique: [['code', 'label']] });

describe('indexes derived from the models', () => {
  it('leaves out a plain index that another index or a unique constraint begins with', () => {
    assert.deepEqual(tableIndexes(itemV1).map((index) => index.name), ['ix_t_item_label', 'ix_t_item_idowner']);
    assert.deepEqual(tableIndexes(itemV2).map((index) => [index.name, index.unique]), [
      ['uq_t_item_code_label', true],
      ['ix_t_item_idowner_label', false],
      ['ix_t_item_label_code', false],
    ]);
    // Two equal declarations make one index.
    assert.deepEqual(tableIndexes(defineModel({ ...itemV1, indexes: [['label'], ['label']] })).map((index) => index.name), ['ix_t_item_label', 'ix_t_item_idowner']);
  });

  for (const engine of enabledEngines()) {
    it(`drops the indexes an upgrade no longer derives, and foreign keys still hold [${engine}]`, async () => {
      const scratch = await scratchDatabase(engine);
      try {
        const v1 = await startTestApp(engine, { url: scratch.url, models: [settingsModel, owner, itemV1] });
        try {
          assert.equal((await v1.call('POST', '/api/3/owner', { name: 'o1' })).status, 201);
          assert.equal((await v1.call('POST', '/api/3/item', { idowner: 1, label: 'a', code: 'A' })).status, 201);
        } finally {
          await v1.close();
        }
        const v2 = await startTestApp(engine, { url: scratch.url, models: [settingsModel, owner, itemV2] });
        try {
          assert.deepEqual(v2.app.schema.droppedIndexes?.sort(), ['ix_t_item_idowner', 'ix_t_item_label']);
          const db = v2.app.ctx.database.kysely;
          const live = (await readLivePlainIndexes(db, engine)).filter((index) => index.table === 't_item').map((index) => index.name).sort();
          assert.deepEqual(live, ['ix_t_item_idowner_label', 'ix_t_item_label_code']);
          assert.ok((await readLiveConstraints(db, engine)).has('uq_t_item_code_label'));
          // The foreign key, now served by the composite index, still refuses and protects.
          assert.equal((await v2.call('POST', '/api/3/item', { idowner: 99, label: 'b', code: 'B' })).status, 422);
          assert.deepEqual((await v2.call('DELETE', '/api/3/owner/1')).body, { status: 'error', message: 'record-in-use' });
          assert.equal((await v2.call('GET', '/api/3/item?filter[label]=a')).body.length, 1);
        } finally {
          await v2.close();
        }
        const again = await startTestApp(engine, { url: scratch.url, models: [settingsModel, owner, itemV2] });
        try {
          assert.deepEqual(again.app.schema.droppedIndexes, []);
        } finally {
          await again.close();
        }
      } finally {
        await scratch.drop();
      }
    });
  }

  it('gives every foreign key of the installation an index that begins with its column, and the invoice table no covered index', async () => {
    const t = await startTestApp('sqlite');
    try {
      for (const model of t.app.ctx.registry.models) {
        const indexes = tableIndexes(model);
        for (const [name, field] of Object.entries(model.fields)) {
          if (!field.references || field.primary) continue;
          assert.ok(indexes.some((index) => index.columns[0] === name), `${model.table}.${name} has no index`);
        }
      }
      const invoices = tableIndexes(t.app.ctx.registry.byTable('facturascli')!);
      assert.deepEqual(invoices.filter((index) => index.columns.length === 1 && ['codcliente', 'codserie', 'idempresa', 'codejercicio'].includes(index.columns[0]!)), []);
      // Date lists end with the key, the tiebreak of every sort: a page reads its rows only, not a whole day's.
      assert.deepEqual(invoices.filter((index) => index.columns.includes('fecha') && !index.columns.includes('codserie')).map((index) => index.columns.join()), ['fecha,idfactura', 'codcliente,fecha,idfactura']);
    } finally {
      await t.close();
    }
  });
});
