import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { it } from 'node:test';
import { pain001, type Pain001Version, type TransferPayment } from '../../src/modules/banking/pain001.ts';

/**
 * SEPA credit-transfer files (pain.001) of both versions: valid against the vendored ISO 20022
 * schemas (xmllint), counts and control sums exact to the cent where float sums are not, the bank
 * named `BIC` in 001.03 and `BICFI` in 001.09 and left out when unknown, the execution date plain
 * in 001.03 and under `Dt` in 001.09, every text in the SEPA character set.
 */
const SCHEMAS = path.resolve(import.meta.dirname, '../vendor/sepa');
const VERSIONS: Pain001Version[] = ['001.03', '001.09'];
const CREATED = '2026-11-27T10:00:00';

function assertValidPain001(xml: string, version: Pain001Version): void {
  const run = spawnSync('xmllint', ['--nonet', '--noout', '--schema', path.join(SCHEMAS, `pain.001.${version}.xsd`), '-'], { input: xml, encoding: 'utf8' });
  assert.equal(run.status, 0, `pain.001.${version}: ${run.stderr}\n${xml.slice(0, 3000)}`);
  assert.match(run.stderr, /- validates/);
}

const tag = (xml: string, name: string) => [...xml.matchAll(new RegExp(`<${name}(?: [^>]*)?>([^<]*)</${name}>`, 'g'))].map((match) => match[1]);

const debtor = { name: 'Acme Ñandú & Cía, S.L.', iban: 'es91 2100 0418 4502 0005 1332', bic: 'CAIXESBBXXX' };
const payments: TransferPayment[] = [
  { importe: 0.1, iban: 'ES7921000813610123456789', bic: 'BSCHESMMXXX', nombre: 'Suministros Pérez & Hijos, S.A.', endtoend: 'FP 2026/1', concepto: 'Factura nº 2026/1 – «urgente»' },
  { importe: 0.2, iban: 'es79 2100 0813 6101 2345 6789', bic: null, nombre: 'Ana Núñez', endtoend: '//FP2026-2//', concepto: null },
  { importe: 1234567.89, iban: 'DE89370400440532013000', bic: 'cobadeffxxx', nombre: 'Müller_Bau GmbH', endtoend: 'FP2026-3', concepto: 'Pedido 3 @ obra' },
];

it('writes a pain.001 of each version that validates, with its counts, sums and version-specific elements', () => {
  for (const version of VERSIONS) {
    const xml = pain001({ id: 42, fechaejecucion: '2026-12-02', version }, payments, debtor, CREATED);
    assertValidPain001(xml, version);
    assert.match(xml, new RegExp(`<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain\\.001\\.${version.replace('.', '\\.')}">\\s*<CstmrCdtTrfInitn>`));
    assert.deepEqual(tag(xml, 'MsgId'), ['TRF-42-20261127100000']);
    assert.deepEqual(tag(xml, 'CreDtTm'), [CREATED]);
    assert.deepEqual(tag(xml, 'NbOfTxs'), ['3', '3'], 'the file and its one payment block');
    assert.deepEqual(tag(xml, 'CtrlSum'), ['1234568.19', '1234568.19']);
    assert.deepEqual(tag(xml, 'InstdAmt'), ['0.10', '0.20', '1234567.89']);
    assert.equal(xml.split('<PmtInf>').length - 1, 1, 'one payment block');
    assert.deepEqual(tag(xml, 'PmtMtd'), ['TRF']);
    assert.deepEqual(tag(xml, 'BtchBookg'), ['true']);
    assert.deepEqual(tag(xml, 'Cd'), ['SEPA']);
    assert.deepEqual(tag(xml, 'ChrgBr'), ['SLEV']);
    assert.equal((xml.match(/Ccy="EUR"/g) ?? []).length, 3);
    assert.deepEqual(tag(xml, 'IBAN'), ['ES9121000418450200051332', 'ES7921000813610123456789', 'ES7921000813610123456789', 'DE89370400440532013000'], 'debtor first, compact and upper-case');

    // The bank: `BIC` in the 2009 message, `BICFI` in the 2019 one; the creditor's left out when unknown.
    const [bicTag, otherTag] = version === '001.03' ? ['BIC', 'BICFI'] : ['BICFI', 'BIC'];
    assert.deepEqual(tag(xml, bicTag), ['CAIXESBBXXX', 'BSCHESMMXXX', 'COBADEFFXXX']);
    assert.deepEqual(tag(xml, otherTag), []);
    assert.equal(xml.split('<CdtrAgt>').length - 1, 2, 'no creditor agent for the payment without BIC');
    assert.doesNotMatch(xml, /NOTPROVIDED/);
    assert.match(xml, /<EndToEndId>FP2026-2<\/EndToEndId>\s*<\/PmtId>\s*<Amt>\s*<InstdAmt Ccy="EUR">0\.20<\/InstdAmt>\s*<\/Amt>\s*<Cdtr>/);

    // The execution date: a plain date in 001.03, a choice of `Dt` or `DtTm` in 001.09.
    if (version === '001.03') assert.match(xml, /<ReqdExctnDt>2026-12-02<\/ReqdExctnDt>/);
    else assert.match(xml, /<ReqdExctnDt>\s*<Dt>2026-12-02<\/Dt>\s*<\/ReqdExctnDt>/);
  }
});

it('puts every text in the SEPA character set and cuts names to 70 characters, remittance text to 140', () => {
  const long = [...payments, { importe: 5, iban: 'ES7921000813610123456789', bic: null, nombre: `Distribuciones ${'Á'.repeat(80)}`, endtoend: 'x'.repeat(50), concepto: `Línea ${'é'.repeat(200)}` }];
  for (const version of VERSIONS) {
    const xml = pain001({ id: 'L/1', fechaejecucion: '2026-12-02', version }, long, debtor, CREATED);
    assertValidPain001(xml, version);
    assert.match(xml, /^[\x09\x0a\x0d\x20-\x7e]*$/, 'nothing outside ASCII');
    assert.deepEqual(tag(xml, 'Nm'), ['Acme Nandu + Cia, S.L.', 'Acme Nandu + Cia, S.L.', 'Suministros Perez + Hijos, S.A.', 'Ana Nunez', 'Muller-Bau GmbH', `Distribuciones ${'A'.repeat(55)}`]);
    assert.deepEqual(tag(xml, 'Ustrd'), ['Factura n 2026/1 urgente', 'Pedido 3 (at) obra', `Linea ${'e'.repeat(134)}`], 'none for the payment without text');
    assert.deepEqual(tag(xml, 'EndToEndId'), ['FP2026/1', 'FP2026-2', 'FP2026-3', 'x'.repeat(35)], 'no spaces, no leading, trailing or double slashes, 35 at most');
    assert.deepEqual(tag(xml, 'MsgId'), ['TRF-L/1-20261127100000']);
  }
});

it('adds counts and control sums in cents, exact where a float sum is not', () => {
  const many = [0.1, 0.2, ...Array.from({ length: 7 }, () => 1234567.89), ...Array.from({ length: 1000 }, () => 0.01)];
  assert.equal(String(many.reduce((sum, amount) => sum + amount, 0)), '8641985.529999776', 'the float sum, off by a fraction of a cent');
  const rows = many.map((importe, i) => ({ ...payments[i % 3]!, importe, endtoend: `FP-${i}` }));
  for (const version of VERSIONS) {
    const xml = pain001({ id: 7, fechaejecucion: '2026-12-02', version }, rows, debtor, CREATED);
    assertValidPain001(xml, version);
    assert.deepEqual(tag(xml, 'NbOfTxs'), ['1009', '1009']);
    assert.deepEqual(tag(xml, 'CtrlSum'), ['8641985.53', '8641985.53']);
    assert.equal(tag(xml, 'InstdAmt').filter((amount) => amount === '1234567.89').length, 7);
  }
  const top = pain001({ id: 8, fechaejecucion: '2026-12-02', version: '001.09' }, [{ ...payments[0]!, importe: 999_999_999.99 }, { ...payments[1]!, importe: 999_999_999.99 }], debtor, CREATED);
  assertValidPain001(top, '001.09');
  assert.deepEqual(tag(top, 'CtrlSum'), ['1999999999.98', '1999999999.98']);
});

it('names an unknown debtor bank NOTPROVIDED, the agent being mandatory there', () => {
  for (const version of VERSIONS) {
    const xml = pain001({ id: 9, fechaejecucion: '2026-12-02', version }, payments.map((payment) => ({ ...payment, bic: null })), { ...debtor, bic: null }, CREATED);
    assertValidPain001(xml, version);
    assert.match(xml, /<DbtrAgt>\s*<FinInstnId>\s*<Othr>\s*<Id>NOTPROVIDED<\/Id>\s*<\/Othr>\s*<\/FinInstnId>\s*<\/DbtrAgt>/);
    assert.doesNotMatch(xml, /<CdtrAgt>|<BIC>|<BICFI>/);
  }
});

it('refuses a batch without payments or with an amount outside the EPC range', () => {
  const batch = { id: 1, fechaejecucion: '2026-12-02', version: '001.09' as const };
  assert.throws(() => pain001(batch, [], debtor, CREATED), RangeError);
  for (const importe of [0, 0.004, -5, 1_000_000_000, Number.NaN]) {
    assert.throws(() => pain001(batch, [{ ...payments[0]!, importe }], debtor, CREATED), RangeError, String(importe));
  }
});
