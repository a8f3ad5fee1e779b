import assert from 'node:assert/strict';
import { it } from 'node:test';
import { expandPattern } from '../../src/modules/documents/code-patterns.ts';

it('expands code patterns as the reference (CodePatternsTest table)', () => {
  const base = { codejercicio: '2021', codserie: 'A', numero: 1, longnumero: 6, fecha: '2021-11-23', hora: '10:00:00' };
  const cases: Array<[string, Partial<typeof base>, string]> = [
    ['PED{EJE}{SERIE}{NUM}', {}, 'PED2021A1'],
    ['PED{EJE}{SERIE}{0NUM}', { numero: 22 }, 'PED2021A000022'],
    ['PED{EJE2}{SERIE}{0NUM}', { codejercicio: '2022', numero: 555 }, 'PED22A000555'],
    ['{EJE2}{0SERIE}{0NUM}', { codejercicio: '2022', codserie: 'C', numero: 9999 }, '220C009999'],
    ['{ANYO}-{MES}-{DIA}-{NUM}', { numero: 777 }, '2021-11-23-777'],
    ['{ANYO2}-{MES}-{DIA}-{NUM}', { numero: 777 }, '21-11-23-777'],
    ['{SERIE}{NUM}-{FECHA}-{HORA}', { fecha: '2021-03-02', hora: '11:22:33', numero: 87 }, 'A87-02-03-2021-11:22:33'],
    ['{SERIE}{NUM}-{FECHAHORA}', { codserie: 'Z', numero: 88, fecha: '2020-07-07', hora: '15:16:17' }, 'Z88-07-07-2020 15:16:17'],
    ['pEd{EJE}{SERIE}{NUM}ccc|M', { codejercicio: '2020', codserie: 'Z', numero: 63 }, 'PED2020Z63CCC'],
    ['pEd{EJE}{SERIE}{NUM}ccc|m', { codejercicio: '2020', codserie: 'Z', numero: 63 }, 'ped2020z63ccc'],
    ['pEd{EJE}{SERIE}{NUM}ccc|P', { codejercicio: '2020', codserie: 'Z', numero: 63 }, 'PEd2020Z63ccc'],
    ['F{EJE}{SERIE}{NUM}', { codejercicio: '2026' }, 'F2026A1'],
  ];
  for (const [pattern, values, expected] of cases) assert.equal(expandPattern(pattern, { ...base, ...values }), expected, pattern);
});
