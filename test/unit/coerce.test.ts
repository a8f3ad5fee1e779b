import assert from 'node:assert/strict';
import { it } from 'node:test';
import { coerceValue, parseDate, parseTimestamp } from '../../src/models/coerce.ts';
import { f } from '../../src/models/fields.ts';

it('coerces input values by field type (table)', () => {
  const cases: Array<[ReturnType<typeof f.integer>, unknown, 'json' | 'form', unknown]> = [
    [f.integer(), '42', 'form', 42],
    [f.integer(), ' -7 ', 'json', -7],
    [f.integer(), '4.2', 'json', 'invalid-integer'],
    [f.integer(), 3000000000, 'json', 'out-of-range'],
    [f.integer(), '', 'form', null],
    [f.integer({ notNull: true }), '', 'form', 'required'],
    [f.double(), '10.50', 'form', 10.5],
    [f.double(), '1e3', 'json', 1000],
    [f.double(), 'NaN', 'json', 'invalid-number'],
    [f.double(), Infinity, 'json', 'invalid-number'],
    [f.boolean(), 'on', 'form', true],
    [f.boolean(), 'NO', 'form', false],
    [f.boolean(), '', 'form', false],
    [f.boolean(), 1, 'json', true],
    [f.boolean(), 'maybe', 'json', 'invalid-boolean'],
    [f.string(3), 'abcd', 'json', 'too-long'],
    [f.string(3), 'ñáé', 'json', 'ñáé'],
    [f.string(5), 12, 'json', '12'],
    [f.string(5), { a: 1 }, 'json', 'invalid-string'],
    [f.string(5), 'null', 'form', null],
    [f.string(5), 'null', 'json', 'null'],
    [f.string(12, { values: ['off', 'verifactu'] }), 'verifactu', 'json', 'verifactu'],
    [f.string(12, { values: ['off', 'verifactu'] }), 'VERIFACTU', 'json', 'invalid-value'],
    [f.string(12, { values: ['off', 'verifactu'] }), '', 'form', 'invalid-value'],
    [f.string(3, { values: ['off'] }), 'verifactu', 'json', 'invalid-value'],
    [f.string(6, { values: ['001.08'], aliases: { 'pain.008.001.08': '001.08' } }), 'pain.008.001.08', 'json', '001.08'],
    [f.string(6, { values: ['001.08'], aliases: { 'pain.008.001.08': '001.08' } }), 'pain.008.001.99', 'json', 'invalid-value'],
    [f.string(6, { values: ['001.08'], aliases: { 'pain.008.001.08': '001.08' } }), 'constructor', 'json', 'invalid-value'],
    [f.date(), '31-12-2026', 'form', '2026-12-31'],
    [f.date(), '2026-02-29', 'json', 'invalid-date'],
    [f.date(), '2028-02-29', 'json', '2028-02-29'],
    [f.time(), '9:05', 'json', 'invalid-time'],
    [f.time(), '09:05', 'json', '09:05:00'],
    [f.time(), '24:00:00', 'json', 'invalid-time'],
    [f.timestamp(), '2026-03-01T10:20:30Z', 'json', '2026-03-01 10:20:30'],
    [f.timestamp(), '2026-03-01T10:20:30+02:00', 'json', '2026-03-01 08:20:30'],
    [f.timestamp(), '01-03-2026 10:20:30', 'form', '2026-03-01 10:20:30'],
    [f.timestamp(), '2026-03-01', 'json', '2026-03-01 00:00:00'],
    [f.json(), '{"a":1}', 'form', { a: 1 }],
    [f.json(), '[1', 'form', 'invalid-json'],
    [f.json(), 5, 'json', 'invalid-json'],
  ];
  for (const [field, raw, source, expected] of cases) {
    const result = coerceValue(field, raw, source);
    const actual = result.ok ? result.value : result.reason;
    assert.deepEqual(actual, expected, `${field.type} ${JSON.stringify(raw)} (${source})`);
  }
});

it('reads a field\'s aliases as the value they name, in filters too', () => {
  const field = f.string(6, { values: ['001.08'], aliases: { 'pain.008.001.08': '001.08' } });
  assert.deepEqual(coerceValue({ ...field, length: undefined }, 'pain.008.001.08', 'json', { range: false }), { ok: true, value: '001.08' });
  assert.deepEqual(coerceValue({ ...field, length: undefined }, 'pain.008.001.99', 'json', { range: false }), { ok: true, value: 'pain.008.001.99' });
});

it('parses both date formats and rejects impossible dates', () => {
  assert.equal(parseDate('2026-11-21'), '2026-11-21');
  assert.equal(parseDate('21-11-2026'), '2026-11-21');
  assert.equal(parseDate('2026-13-01'), undefined);
  assert.equal(parseDate('2026/11/21'), undefined);
  assert.equal(parseTimestamp('nonsense'), undefined);
});
