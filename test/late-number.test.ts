import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { loadConfig } from '../src/config.ts';
import { observe, type Observed } from './helpers/observe-statements.ts';
import { forEachEngine, type TestApp } from './helpers/test-app.ts';

/**
 * A new document's number placed by the database in the batch that claims it (late-number.ts,
 * docs/performance.md): on PostgreSQL and MariaDB the claim goes with the header's insert; the
 * header, its entry and its receipt carry the number and code the pattern gives, exactly as when
 * the number is claimed first, and whatever the placeholders could not assume (a pattern changed,
 * a document whose own text holds a placeholder's character) falls back to claiming first with the
 * same result.
 */

/** Whether the claim went in the same round trip as the header's insert. */
function claimedWithHeader(seen: Observed): boolean {
  const trip = (pattern: RegExp) => seen.trips[seen.statements.findLastIndex((text) => pattern.test(text))];
  const claim = trip(/^update .secuencias_documentos./);
  return claim !== undefined && claim === trip(/^insert into .facturascli. /);
}

async function assertWritten(t: TestApp, answer: { status: number; body: any }, numero: number, codigo: string): Promise<void> {
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  const { doc } = answer.body;
  assert.deepEqual([doc.numero, doc.codigo], [String(numero), codigo]);
  assert.deepEqual((await t.call('GET', `/api/3/facturacliente/${doc.idfactura}`)).body, doc, 'answered as stored');
  const receipts = (await t.call('GET', `/api/3/recibocliente?filter[idfactura]=${doc.idfactura}`)).body;
  assert.deepEqual(receipts.map((receipt: any) => receipt.codigofactura), [codigo]);
  const entry = (await t.call('GET', `/api/3/asiento/${doc.idasiento}`)).body;
  assert.equal(entry.documento, codigo);
  assert.ok(String(entry.concepto).includes(` ${codigo} `), entry.concepto);
  const lines = (await t.call('GET', `/api/3/partida?filter[idasiento]=${doc.idasiento}`)).body;
  assert.ok(lines.length >= 2);
  for (const line of lines) assert.equal(line.documento, codigo);
  // The tax lines name the invoice by its number.
  const numbered = lines.filter((line: any) => line.factura !== null);
  assert.ok(numbered.length >= 1);
  for (const line of numbered) assert.equal(line.factura, String(numero));
}

forEachEngine('a document number placed by the database', (t) => {
  const late = () => t().engine !== 'sqlite';
  const invoice = (extra: Record<string, unknown> = {}) => t().call('POST', '/api/3/crearFacturaCliente', {
    codcliente: 'LATE', codserie: 'L', lineas: [{ descripcion: 'Work', cantidad: 1, pvpunitario: 100 }], ...extra,
  });
  let idsecuencia = 0;
  let eje = '';

  before(async () => {
    assert.equal((await t().call('POST', '/api/3/cliente', { codcliente: 'LATE', nombre: 'Late numbers', cifnif: '12345678Z' })).status, 201);
    assert.equal((await t().call('POST', '/api/3/serie', { codserie: 'L', descripcion: 'Late' })).status, 201);
    // The first invoice of the serie in the year creates its sequence (numbered a statement at a time).
    const first = await invoice();
    assert.equal(first.status, 200, JSON.stringify(first.body));
    eje = first.body.doc.codejercicio;
    const sequence = (await t().call('GET', `/api/3/secuenciadocumento?filter[codserie]=L&filter[codejercicio]=${eje}`)).body[0];
    idsecuencia = sequence.idsecuencia;
    const changed = await t().call('PATCH', `/api/3/secuenciadocumento/${idsecuencia}`, { patron: 'L{0NUM}-{EJE}', longnumero: 2, usarhuecos: false, numero: 97 });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
  });

  it('numbers as the pattern gives them, across a power of ten, in the header, the entry and the receipt', async () => {
    // 97 is claimed first (no claim of the sequence yet in this process); the next ones go with the header.
    for (const numero of [97, 98, 99, 100, 101]) {
      const seen = await observe(t(), () => invoice());
      await assertWritten(t(), seen.value, numero, `L${String(numero).padStart(2, '0')}-${eje}`);
      assert.equal(claimedWithHeader(seen), late() && numero > 97, `number ${numero}`);
    }
  });

  it('numbers on from a sequence moved elsewhere, and claims first once its pattern changed, with the same numbers', async () => {
    // Moved on elsewhere (another instance, an edit): the number is the row's, whatever its length.
    assert.equal((await t().call('PATCH', `/api/3/secuenciadocumento/${idsecuencia}`, { numero: 1000 })).status, 200);
    const moved = await observe(t(), () => invoice());
    await assertWritten(t(), moved.value, 1000, `L1000-${eje}`);
    assert.equal(claimedWithHeader(moved), late());
    // The pattern changed since: the placeholders' code is not the one it gives.
    assert.equal((await t().call('PATCH', `/api/3/secuenciadocumento/${idsecuencia}`, { patron: 'X{NUM}/{SERIE}' })).status, 200);
    const changed = await observe(t(), () => invoice());
    await assertWritten(t(), changed.value, 1001, 'X1001/L');
    assert.equal(claimedWithHeader(changed), false);
    const seen = await observe(t(), () => invoice());
    await assertWritten(t(), seen.value, 1002, 'X1002/L');
    assert.equal(claimedWithHeader(seen), late());
  });

  it('claims first for a document whose own text holds a placeholder\'s character, and keeps that text', async () => {
    const text = 'private \u0091 and \u0092 use';
    const seen = await observe(t(), () => invoice({ observaciones: text, lineas: [{ descripcion: text, cantidad: 1, pvpunitario: 5 }] }));
    assert.equal(claimedWithHeader(seen), false);
    await assertWritten(t(), seen.value, 1003, 'X1003/L');
    assert.equal(seen.value.body.doc.observaciones, text);
    assert.equal(seen.value.body.lines[0].descripcion, text);
    assert.equal((await t().call('GET', `/api/3/facturacliente/${seen.value.body.doc.idfactura}`)).body.observaciones, text);
  });

  it('gives a number a late claim refused back to the next invoice (nothing half written)', async () => {
    // A customer over its credit limit is refused after the locks, with the number's claim rolled back.
    assert.equal((await t().call('PATCH', '/api/3/cliente/LATE', { riesgomax: 1 })).status, 200);
    const refused = await invoice();
    assert.equal(refused.status, 422, JSON.stringify(refused.body));
    assert.equal((await t().call('PATCH', '/api/3/cliente/LATE', { riesgomax: null })).status, 200);
    await assertWritten(t(), await invoice(), 1004, 'X1004/L');
  });
}, {
  // The observer counts every connection: background jobs stay quiet meanwhile.
  config: { stateRefreshMs: 60_000, verifactu: { ...loadConfig({}).verifactu, pollMs: 3_600_000 } },
});
