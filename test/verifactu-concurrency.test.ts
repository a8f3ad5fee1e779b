import assert from 'node:assert/strict';
import { it } from 'node:test';
import { forEachEngine, withOtherInstance, type TestApp } from './helpers/test-app.ts';
import { assertChained, recordsOf, switchOn } from './helpers/verifactu.ts';

/**
 * One chain per company whatever the number of instances (issue 25): two services on one
 * PostgreSQL or MariaDB database create 50 invoices at once in five series for ten customers, and cancel one twice
 * meanwhile; every record links to the one generated just before it, none twice, and the invoices'
 * numbers stay gap-free.
 */
forEachEngine('VERI*FACTU chain under concurrency', (t) => {
  it('keeps one unbroken chain while two instances create 50 invoices and cancel some concurrently', async () => {
    await withOtherInstance(t(), (other) => chainUnderConcurrency(t(), other));
  });
}, { engines: ['postgres', 'mysql'] });

/** Two instances (`t`, `other`) create and cancel at once; the chain holds. */
async function chainUnderConcurrency(t: TestApp, other: TestApp): Promise<void> {
  await switchOn(t);
  assert.equal((await t.call('POST', '/api/3/cliente', { codcliente: 'ANA', nombre: 'Ana López', cifnif: '12345678Z' })).status, 201);
  const first = await t.call('POST', '/api/3/crearFacturaCliente', { codcliente: 'ANA', lineas: [{ descripcion: 'first', pvpunitario: 1 }] });
  assert.equal(first.status, 200, JSON.stringify(first.body));
  // Five series and ten customers: creations that share neither wait for each other's numbering or
  // customer risk, only for the chain.
  const series = ['V1', 'V2', 'V3', 'V4', 'V5'];
  for (const codserie of series) assert.equal((await t.call('POST', '/api/3/serie', { codserie, descripcion: codserie })).status, 201);
  const customers = Array.from({ length: 10 }, (_, i) => `C${i}`);
  for (const codcliente of customers) assert.equal((await t.call('POST', '/api/3/cliente', { codcliente, nombre: codcliente, cifnif: '12345678Z' })).status, 201);
  const created = Promise.all(Array.from({ length: 50 }, (_, i) => (i % 2 ? other : t).call('POST', '/api/3/crearFacturaCliente', {
    codcliente: customers[i % customers.length], codserie: series[i % series.length], lineas: [{ descripcion: `concurrent ${i}`, cantidad: 1 + (i % 3), pvpunitario: 10 + i }],
  })));
  const cancelled = (i: number) => (i % 2 ? t : other).call('POST', `/api/3/anularFacturaCliente/${first.body.doc.idfactura}`);
  const [answers, ...cancels] = await Promise.all([created, cancelled(0), cancelled(1)]);
  assert.deepEqual([...new Set(answers.map((a) => a.status))], [200], JSON.stringify(answers.find((a) => a.status !== 200)?.body));
  // Exactly one of two racing cancellations of one invoice wins.
  assert.deepEqual(cancels.map((c) => c.status).sort(), [200, 409], JSON.stringify(cancels.map((c) => c.body)));

  const records = await recordsOf(t);
  assert.equal(records.length, 52);
  assertChained(records);
  assert.equal(new Set(records.map((r) => r.idanterior)).size, records.length, 'no record is the successor of two');
  assert.deepEqual((await other.call('GET', '/api/3/verifactuCadena?idempresa=1')).body, { valid: true, records: 52, firstBroken: null, signatures: { signed: 0, unsigned: 0, firstInvalid: null }, eventos: { valid: true, events: 0, firstBroken: null, signatures: { signed: 0, unsigned: 0 } } });
  for (const codserie of series) {
    const numbers = answers.filter((a) => a.body.doc.codserie === codserie).map((a) => Number(a.body.doc.numero)).sort((a, b) => a - b);
    assert.deepEqual(numbers, Array.from({ length: 10 }, (_, i) => i + 1), `serie ${codserie} gap-free`);
  }
  // Every invoice has exactly its alta.
  const altas = records.filter((r) => r.tipo === 'alta').map((r) => r.idfactura);
  assert.equal(new Set(altas).size, 51);
}
