import assert from 'node:assert/strict';
import { it } from 'node:test';
import { aeat303File, FileRefusal, taxId, uses2026Design } from '../../src/modules/taxforms/aeat303-file.ts';
import { BOXES_303, type Modelo303 } from '../../src/modules/taxforms/modelo303.ts';

/** The agency's 303 file: envelope, page lengths and the positions of the record design (1-based, as the design gives them). */
function form(periodo: string, casillas: Record<string, number>, tipodeclaracion: Modelo303['tipodeclaracion'] = 'I'): Modelo303 {
  const all = Object.fromEntries(BOXES_303.map((name) => [name, 0]));
  return { modelo: '303', codejercicio: '2026', periodo, idempresa: 1, desde: '', hasta: '', casillas: { ...all, '02': 4, '05': 10, '08': 21, '65': 100, ...casillas }, tipodeclaracion, avisos: [] };
}
const at = (text: string, position: number, length: number) => text.slice(position - 1, position - 1 + length);
const who = { nif: 'B85626240', nombre: 'Acme Ñandú, S.L.' };
const software = { version: '0100', nif: 'B85626240' };

function pages(file: string, year: number, periodo: string) {
  const head = `<T3030${year}${periodo}0000>`;
  assert.ok(file.startsWith(`${head}<AUX>`) && file.endsWith(`</T3030${year}${periodo}0000>`), file.slice(0, 40));
  const body = file.slice(328, -head.length - 1);
  assert.equal(at(file, 18, 5), '<AUX>');
  assert.equal(at(file, 93, 4), '0100', 'the software version');
  assert.equal(at(file, 101, 9), 'B85626240', 'the developer\'s tax id');
  assert.equal(at(file, 323, 6), '</AUX>', 'the pages start at 329');
  const page1 = body.slice(0, 1581);
  const page3 = body.slice(1581);
  assert.equal(page3.length, 1017);
  assert.ok(page1.startsWith('<T30301000>') && page1.endsWith('</T30301000>'));
  assert.ok(page3.startsWith('<T30303000>') && page3.endsWith('</T30303000>'));
  return { page1, page3 };
}

it('writes the 2026 design from 2T 2026 and February 2026, the 2024/2025 design before', () => {
  const cases: Array<[number, string, boolean]> = [[2026, '1T', false], [2026, '2T', true], [2026, '01', false], [2026, '02', true], [2025, '4T', false], [2027, '1T', true]];
  for (const [year, periodo, expected] of cases) assert.equal(uses2026Design(year, periodo), expected, `${periodo} ${year}`);
});

it('places every field where the record design says, amounts in cents, negatives with N', () => {
  const values = { '01': 50, '03': 2, '07': 2300, '09': 483, 14: -1000, 15: -210, 27: 940.6, 28: 3000, 29: 619, 45: 818.5, 46: 122.1, 59: 500, 64: 122.1, 66: 122.1, 69: 122.1, 71: 122.1 };
  // [page, position, length, expected, what] as the record design places them (2026 design for 4T, 2024/2025 for 1T).
  const placed: Record<'4T' | '1T', Array<[1 | 3, number, number, string, string]>> = {
    '4T': [
      [1, 13, 1, 'I', 'declaration type'], [1, 14, 9, 'B85626240', 'NIF'], [1, 103, 6, '20264T', 'year and period'],
      [1, 209, 17, '00000000000005000', '[01] at 209 (2026)'], [1, 226, 5, '00400', '[02]'],
      [1, 231, 17, '00000000000000200', '[03] at 231, as the reference implementation checks'], [1, 433, 17, 'N0000000000100000', '[14] negative'],
      [1, 696, 17, '00000000000094060', '[27]'], [1, 1019, 17, '00000000000012210', '[46]'],
      [3, 12, 17, '00000000000050000', '[59]'], [3, 216, 5, '10000', '[65]'], [3, 408, 17, '00000000000012210', '[71] (2026)'],
    ],
    '1T': [
      [1, 169, 17, '00000000000005000', '[01] at 169 (2024/2025)'], [1, 191, 17, '00000000000000200', '[03] at 191'],
      [1, 393, 17, 'N0000000000100000', '[14]'], [1, 617, 17, '00000000000094060', '[27]'], [1, 940, 17, '00000000000012210', '[46]'],
      [3, 374, 17, '00000000000012210', '[71] (2024/2025)'], [3, 391, 1, ' ', 'not "without activity"'],
    ],
  };
  for (const [periodo, fields] of Object.entries(placed) as Array<['4T' | '1T', (typeof placed)['4T']]>) {
    const file = pages(aeat303File(form(periodo, values), who, 2026, software), 2026, periodo);
    for (const [page, position, length, expected, what] of fields) assert.equal(at(page === 1 ? file.page1 : file.page3, position, length), expected, `${periodo} ${what}`);
    assert.equal(at(file.page1, 23, 80).trimEnd(), 'ACME ÑANDU S L', `${periodo} name`);
  }
  assert.equal(at(pages(aeat303File(form('2T', {}, 'N'), who, 2026, software), 2026, '2T').page3, 425, 1), 'X', 'a period without activity');
});

it('refuses a negative amount in an unsigned box', () => {
  assert.throws(() => aeat303File(form('4T', { 28: -1 }), who, 2026, software), (error: unknown) => error instanceof FileRefusal && error.reason === 'negative-box');
});

it('writes the tax id as 9 characters, separators and the ES prefix dropped, anything else refused', () => {
  for (const [given, expected] of [['B85626240', 'B85626240'], ['B-85626240', 'B85626240'], ['es b.85626240', 'B85626240'], ['ESB85626240', 'B85626240'], ['12345678z', '12345678Z']]) assert.equal(taxId(given), expected, given);
  // A NIF whose control character is wrong is refused too (the agency would refuse the file).
  for (const bad of ['', 'B8562624', 'B856262401', 'FR40303265045', 'B85626241']) assert.throws(() => taxId(bad), (error: unknown) => error instanceof FileRefusal && error.reason === 'invalid-tax-id', bad);
});
