import assert from 'node:assert/strict';
import { it } from 'node:test';
import { CompiledQuery } from 'kysely';
import { LateNumber } from '../../src/modules/documents/late-number.ts';
import type { Sequence } from '../../src/modules/documents/numbering.ts';

/** A late number's placeholders (src/modules/documents/late-number.ts) and the statements they go in. */
const sequence: Sequence = { idsecuencia: 7, codejercicio: '2026', inicio: 1, numero: 41, longnumero: 6, patron: 'F{EJE}{SERIE}{0NUM}-{NUM}', usarhuecos: false, mantenerfecha: false };
const input = { codserie: 'A', idempresa: 1, codejercicio: '2026', fecha: '2026-12-07', hora: '10:00:00' };
const latin1 = (text: string) => [...text].every((char) => char.charCodeAt(0) <= 0xff);

it('keeps a code and the statements holding it in Latin-1 (one-byte strings: MariaDB formats the batch as text)', () => {
  for (const engine of ['postgres', 'mysql'] as const) {
    const late = new LateNumber(engine, sequence, input);
    assert.ok(latin1(late.codigo) && latin1(late.numero), `${engine}: the placeholders are Latin-1`);
    const [a, b, c] = [1, 2, 3].map((n) => (engine === 'postgres' ? `$${n}` : '?'));
    const query = CompiledQuery.raw(`insert into t (codigo, concepto, otro) values (${a}, ${b}, ${c})`, [late.codigo, `Factura ${late.codigo}`, 'plain']);
    const bound = late.bind(query);
    assert.notEqual(bound.sql, query.sql, `${engine}: the texts holding the number are wrapped`);
    assert.equal(bound.sql.split('REPLACE(').length - 1, 4, `${engine}: {NUM} and {0NUM} replaced in each of the two texts`);
    assert.ok(latin1(bound.sql), `${engine}: the wrapped statement stays Latin-1`);
    assert.deepEqual(bound.parameters, query.parameters, 'the values stay bound');
  }
});

it('resolves both placeholders once the claim is answered as they assumed', () => {
  const late = new LateNumber('mysql', sequence, input);
  const claimed = { sequence, numero: 42, codigo: 'F2026A000042-42' };
  assert.equal(late.settle(claimed), claimed);
  assert.equal(late.resolve(`Factura ${late.codigo}`), 'Factura F2026A000042-42');
  assert.equal(late.resolved(late.numero), '42');
  // A claim whose code differs from the one the placeholders give is refused (the write goes in rounds).
  assert.throws(() => new LateNumber('mysql', sequence, input).settle({ ...claimed, codigo: 'F2026A42' }));
});
