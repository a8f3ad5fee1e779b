import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planTypeChanges, SchemaChangeRefusedError } from '../../src/db/column-type-change.ts';
import type { Engine } from '../../src/db/database.ts';
import type { LiveColumns } from '../../src/db/live-schema.ts';
import { defineModel } from '../../src/models/define-model.ts';
import { f, type FieldDef } from '../../src/models/fields.ts';

/** Which type changes the sync applies and which it refuses, per engine, without a database. */
function plan(engine: Engine, live: Record<string, string>, fields: Record<string, FieldDef>, converts: string[] = []) {
  const model = defineModel({ name: 'T', table: 't', fields: { id: f.serial(), ...fields } });
  const columns: LiveColumns = new Map([['t', new Map(Object.entries({ id: engine === 'mysql' ? 'INT' : 'INTEGER', ...live }))]]);
  return planTypeChanges(engine, [model], columns, new Set(converts)).map((change) => `${change.column}: ${change.from} -> ${change.to}`);
}

function refused(engine: Engine, live: Record<string, string>, fields: Record<string, FieldDef>): string[] {
  try {
    plan(engine, live, fields);
  } catch (error) {
    assert.ok(error instanceof SchemaChangeRefusedError);
    return error.columns;
  }
  return [];
}

describe('column type changes', () => {
  it('applies widenings on every engine and leaves equal types alone (PostgreSQL serial included)', () => {
    assert.deepEqual(plan('postgres', { a: 'VARCHAR(10)', b: 'INTEGER', c: 'VARCHAR(5)', d: 'INTEGER', e: 'TEXT' }, {
      a: f.string(40), b: f.double(), c: f.text(), d: f.string(11), e: f.text(),
    }), ['a: VARCHAR(10) -> VARCHAR(40)', 'b: INTEGER -> DOUBLE PRECISION', 'c: VARCHAR(5) -> TEXT', 'd: INTEGER -> VARCHAR(11)']);
    assert.deepEqual(plan('mysql', { a: 'TEXT', b: 'INT', c: 'VARCHAR(5)' }, { a: f.text(), b: f.json(), c: f.string(5) }), [
      'a: TEXT -> MEDIUMTEXT',
      'b: INT -> MEDIUMTEXT',
    ]);
    assert.deepEqual(plan('sqlite', { a: 'INTEGER', b: 'VARCHAR(3)' }, { a: f.double(), b: f.string(4) }), ['a: INTEGER -> REAL', 'b: VARCHAR(3) -> VARCHAR(4)']);
  });

  it('sees no change where SQLite stores two declared types alike', () => {
    assert.deepEqual(plan('sqlite', { a: 'INTEGER', b: 'TEXT' }, { a: f.boolean(), b: f.date() }), []);
  });

  it('refuses narrowings and lossy conversions, naming each column', () => {
    assert.deepEqual(refused('postgres', { a: 'VARCHAR(40)', b: 'DOUBLE PRECISION', c: 'TEXT', d: 'BOOLEAN', e: 'INTEGER', g: 'NUMERIC' }, {
      a: f.string(10), b: f.integer(), c: f.string(255), d: f.integer(), e: f.string(10), g: f.double(),
    }), ['t.a', 't.b', 't.c', 't.d', 't.e', 't.g']);
    assert.deepEqual(refused('mysql', { a: 'LONGTEXT', b: 'TINYINT(1)' }, { a: f.text(), b: f.integer() }), ['t.a', 't.b']);
  });

  it('lets a primary or foreign key widen within its kind only', () => {
    assert.deepEqual(refused('postgres', { a: 'INTEGER' }, { a: f.double({ references: f.ref('t', 'id', 'CASCADE') }) }), ['t.a']);
    const code = (field: FieldDef) => ({ code: field });
    const model = (field: FieldDef) => defineModel({ name: 'P', table: 'p', fields: code(field) });
    const live = (type: string): LiveColumns => new Map([['p', new Map([['code', type]])]]);
    assert.equal(planTypeChanges('postgres', [model(f.string(10, { primary: true }))], live('VARCHAR(5)'), new Set()).length, 1);
    assert.throws(() => planTypeChanges('postgres', [model(f.string(20, { primary: true }))], live('INTEGER'), new Set()), SchemaChangeRefusedError);
  });

  it('applies a refused change when a before-sync migration converts the column', () => {
    assert.deepEqual(plan('postgres', { a: 'VARCHAR(40)' }, { a: f.string(10) }, ['t.a']), ['a: VARCHAR(40) -> VARCHAR(10)']);
  });
});
