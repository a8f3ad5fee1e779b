import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import path from 'node:path';
import type { TestApp } from './test-app.ts';

/**
 * What the VERI*FACTU suites share: the hash recomputed from the reference's rule (written here
 * again, apart from the service's code), the company switched on, and xmllint over the AEAT's
 * schemas (test/vendor/verifactu).
 */
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex').toUpperCase();

/** A record's Huella by verifactu.md section 5, from its columns and the previous record's Huella. */
export function expectedHuella(record: Record<string, any>, previous: string): string {
  if (record.tipo === 'anulacion') {
    return sha256(`IDEmisorFacturaAnulada=${record.nifemisor}&NumSerieFacturaAnulada=${record.numserie}&FechaExpedicionFacturaAnulada=${record.fechaexpedicion}` +
      `&Huella=${previous}&FechaHoraHusoGenRegistro=${record.fechahorahuso}`);
  }
  return sha256(`IDEmisorFactura=${record.nifemisor}&NumSerieFactura=${record.numserie}&FechaExpedicionFactura=${record.fechaexpedicion}` +
    `&TipoFactura=${record.tipofactura}&CuotaTotal=${record.cuotatotal}&ImporteTotal=${record.importetotal}&Huella=${previous}&FechaHoraHusoGenRegistro=${record.fechahorahuso}`);
}

/** The text of the first element `name` (prefix `sum1:`) of an XML document, or undefined. */
export function xmlValue(xml: string, name: string): string | undefined {
  return new RegExp(`<sum1:${name}>([^<]*)</sum1:${name}>`).exec(xml)?.[1];
}

/** The company's records in generation order. */
export async function recordsOf(t: TestApp, idempresa = 1): Promise<Array<Record<string, any>>> {
  const answer = await t.call('GET', `/api/3/registroverifactu?filter[idempresa]=${idempresa}&sort[id]=ASC&limit=1000`);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body;
}

/** Walks the records as the reference says a chain is built, failing on the first that does not hold. */
export function assertChained(records: Array<Record<string, any>>): void {
  let previous: Record<string, any> | undefined;
  for (const record of records) {
    assert.equal(record.idanterior, previous ? previous.id : null, `record ${record.id} links to the record before it`);
    assert.equal(record.huellaanterior, previous ? previous.huella : null, `record ${record.id} carries the previous Huella`);
    assert.equal(record.huella, expectedHuella(record, previous?.huella ?? ''), `record ${record.id}'s Huella`);
    assert.match(record.huella, /^[0-9A-F]{64}$/);
    previous = record;
  }
}

/** Turns VERI*FACTU on for a company (a valid NIF first). */
export async function switchOn(t: TestApp, idempresa = 1, modo: 'verifactu' | 'noverifactu' = 'verifactu', cifnif = 'B12345674'): Promise<Record<string, any>> {
  const company = await t.call('PATCH', `/api/3/empresa/${idempresa}`, { cifnif, nombre: 'Ejemplo Soluciones SL' });
  assert.equal(company.status, 200, JSON.stringify(company.body));
  const answer = await t.call('POST', '/api/3/verifactuempresa', { idempresa, modo });
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
  return answer.body;
}

const SCHEMAS = path.resolve(import.meta.dirname, '../vendor/verifactu');
const xmllint = spawnSync('xmllint', ['--version']).status === 0;
if (!xmllint && process.env.CI) throw new Error('xmllint is needed for the VERI*FACTU schema tests (apt-get install -y libxml2-utils)');

/** True where xmllint runs (Debian `libxml2-utils`; .ci/run installs it, CI fails without it). */
export const canValidateXml = xmllint;

/** Validates an XML document against the AEAT's SuministroLR.xsd with xmllint, offline; fails with its message. */
export function assertValidSuministro(xml: string, label: string): void {
  const run = spawnSync('xmllint', ['--nonet', '--noout', '--schema', path.join(SCHEMAS, 'SuministroLR.xsd'), '-'], {
    input: xml, encoding: 'utf8', env: { ...process.env, XML_CATALOG_FILES: path.join(SCHEMAS, 'catalog.xml') },
  });
  assert.equal(run.status, 0, `${label}: ${run.stderr}\n${xml}`);
  assert.match(run.stderr, /- validates/);
}

/** Validates a `RegistroEvento` document against the AEAT's EventosSIF.xsd with xmllint, offline. */
export function assertValidEvent(xml: string, label: string): void {
  const run = spawnSync('xmllint', ['--nonet', '--noout', '--schema', path.join(SCHEMAS, 'EventosSIF.xsd'), '-'], {
    input: xml, encoding: 'utf8', env: { ...process.env, XML_CATALOG_FILES: path.join(SCHEMAS, 'catalog.xml') },
  });
  assert.equal(run.status, 0, `${label}: ${run.stderr}\n${xml}`);
}

/**
 * Runs `fn` with the append-only triggers of `table` dropped, and restores them: what only a
 * database administrator could do behind the service's back.
 */
export async function withoutGuards(t: TestApp, table: string, fn: () => Promise<void>): Promise<void> {
  const { database, registry } = t.app.ctx;
  const { syncSchema } = await import('../../src/db/schema-sync.ts');
  const { ModelRegistry } = await import('../../src/models/registry.ts');
  // A sync without the append-only model drops its triggers (db/append-only.ts); the full sync restores them.
  await syncSchema(database, new ModelRegistry(registry.models.map((model) => (model.table === table ? { ...model, appendOnly: undefined } : model))));
  try {
    await fn();
  } finally {
    await syncSchema(database, new ModelRegistry(registry.models));
  }
}
