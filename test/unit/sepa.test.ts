import assert from 'node:assert/strict';
import { it } from 'node:test';
import { creditorIdentifier, isCreditorIdentifier } from '../../src/modules/banking/creditor-id.ts';
import { sepaIdentifier, sepaText } from '../../src/modules/banking/sepa-text.ts';

it('computes SEPA creditor identifiers as the worked examples do, the business code left out of the check', () => {
  assert.equal(creditorIdentifier('ES', 'B85626240'), 'ES77000B85626240');
  assert.equal(creditorIdentifier('ES', 'b-85626240', '001'), 'ES77001B85626240');
  assert.equal(creditorIdentifier('ES', 'B85626240', 'ZZZ'), 'ES77ZZZB85626240');
  for (const valid of ['ES77000B85626240', 'DE98ZZZ09999999999', 'NL64ZZZ321096320000', 'ES77 001 B85626240']) assert.equal(isCreditorIdentifier(valid), true, valid);
  for (const invalid of ['ES78000B85626240', 'ES77000B85626241', 'E77000B85626240', '']) assert.equal(isCreditorIdentifier(invalid), false, invalid);
  for (const nif of ['A28000032', '12345678Z', 'X1234567L', 'B12345674']) assert.equal(isCreditorIdentifier(creditorIdentifier('ES', nif)), true, nif);
});

it('reduces text to the SEPA Latin subset, and identifiers to their slash rules', () => {
  const cases: Array<[string, number, string]> = [
    ['Ñandú & Cía, S.L.', 70, 'Nandu + Cia, S.L.'],
    ['José Pérez Ibáñez', 70, 'Jose Perez Ibanez'],
    ['pago@acme_es 100€', 70, 'pago(at)acme-es 100E'],
    ['Línea\ncon\tsaltos  y «comillas»', 70, 'Linea con saltos y comillas'],
    ['Çà et là: ü, ß', 70, 'Ca et la: u,'],
    ['x'.repeat(200), 140, 'x'.repeat(140)],
  ];
  for (const [input, max, expected] of cases) assert.equal(sepaText(input, max), expected.trim(), input);
  assert.equal(sepaIdentifier('/F2026A1//1/'), 'F2026A1/1');
  assert.equal(sepaIdentifier('FAC 2026 Nº 12'), 'FAC2026N12');
  assert.equal(sepaIdentifier('///'), 'NOTPROVIDED');
  assert.equal(sepaIdentifier('a'.repeat(40)).length, 35);
});
