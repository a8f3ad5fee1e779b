import assert from 'node:assert/strict';
import fs from 'node:fs';
import { it } from 'node:test';
import { declarationMarkdown, PRODUCER, SYSTEM } from '../src/modules/verifactu/index.ts';
import { PACKAGE_VERSION } from '../src/version.ts';
import { forEachEngine } from './helpers/test-app.ts';

/**
 * The producer's declaración responsable (issue 25, item 6): written from the producer's and the
 * system's data in one place, in the order the Orden HAC/1177/2024 gives, served by the API and kept
 * in docs/ for this version.
 */
it('keeps docs/verifactu-declaracion.md the declaration the code writes (run `npm run declaracion` after changing it)', () => {
  assert.equal(fs.readFileSync(new URL('../docs/verifactu-declaracion.md', import.meta.url), 'utf8'), declarationMarkdown());
});

it('names the system as every record does: a 2-character id, the package version, the producer', () => {
  assert.match(SYSTEM.id, /^[A-Z0-9]{2}$/);
  assert.ok(SYSTEM.name.length <= 30);
  assert.equal(SYSTEM.version, PACKAGE_VERSION);
  const text = declarationMarkdown();
  const order = ['DECLARACIÓN RESPONSABLE DEL SISTEMA INFORMÁTICO DE FACTURACIÓN', SYSTEM.name, `**Código identificador del sistema (IdSistemaInformatico):** ${SYSTEM.id}`,
    `**Versión:** ${SYSTEM.version}`, 'Componentes y funcionalidades', 'Uso exclusivo como VERI*FACTU', 'varios obligados tributarios', 'Tipos de firma',
    `${PRODUCER.name}, NIF ${PRODUCER.nif}`, 'artículo 29.2.j) de la Ley 58/2003', 'Real Decreto 1007/2023', 'Orden HAC/1177/2024', `En ${PRODUCER.place}, a `];
  let at = -1;
  for (const part of order) {
    const found = text.indexOf(part, at + 1);
    assert.ok(found > at, `"${part}" follows what comes before it`);
    at = found;
  }
});

forEachEngine('VERI*FACTU declaration and chain check endpoints', (t) => {
  it('serves the declaration, and checks a chain only for a company that exists', async () => {
    const answer = await t().call('GET', '/api/3/verifactuDeclaracion');
    assert.equal(answer.status, 200);
    assert.equal(answer.body.texto, declarationMarkdown());
    assert.deepEqual([answer.body.sistema.id, answer.body.soloVerifactu, answer.body.multiplesObligados], [SYSTEM.id, false, true]);
    assert.equal((await t().call('POST', '/api/3/verifactuDeclaracion', {})).status, 405);
    assert.deepEqual((await t().call('GET', '/api/3/verifactuCadena?idempresa=1')).body, { valid: true, records: 0, firstBroken: null, signatures: { signed: 0, unsigned: 0, firstInvalid: null }, eventos: { valid: true, events: 0, firstBroken: null, signatures: { signed: 0, unsigned: 0 } } });
    assert.deepEqual((await t().call('GET', '/api/3/verifactuCadena')).body.fields, { idempresa: 'required' });
    assert.deepEqual((await t().call('GET', '/api/3/verifactuCadena?idempresa=uno')).body.fields, { idempresa: 'invalid-integer' });
    assert.equal((await t().call('GET', '/api/3/verifactuCadena?idempresa=999')).status, 404);
    const root = (await t().call('GET', '/api/3/')).body.resources;
    for (const resource of ['verifactuempresa', 'registroverifactu', 'anularFacturaCliente', 'verifactuCadena', 'verifactuDeclaracion']) assert.ok(root.includes(resource), resource);
  });
});
