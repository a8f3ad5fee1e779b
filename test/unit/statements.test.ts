import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { it } from 'node:test';
import { isIban } from '../../src/models/record-rules.ts';
import { parseCamt053 } from '../../src/modules/banking/camt053.ts';
import { parseNorma43, spanishIban } from '../../src/modules/banking/norma43.ts';
import { parseStatement } from '../../src/modules/banking/parse-statement.ts';
import { StatementError, type StatementAccount, type StatementMovement } from '../../src/modules/banking/statement-file.ts';
import { camt053File, norma43File, type CamtStatement, type Norma43Account } from '../helpers/statement-files.ts';

/**
 * The bank statement parsers (../shared/reference/sepa.md, "AEB Cuaderno 43"): Norma 43 records
 * read to the cent whatever the line ends, trimming and encoding, each refusal named with its line
 * and account; camt.053 001.02 and 001.08 files (valid against test/vendor/sepa/) read into the
 * same movements, a batch entry as one movement, pending entries left out.
 */
const SCHEMAS = path.resolve(import.meta.dirname, '../vendor/sepa');
const IBAN_A = 'ES9121000418450200051332';
const IBAN_B = 'ES5400810054180001234567';
const OUR_CREDITOR_ID = 'ES77000B85626240';
const SUPPLIER_CREDITOR_ID = 'ES04000A28000032';
const REMITTANCE = 'FACTURA F2026A12 RECIBO 1 SUMINISTRO ELECTRICO OCTUBRE 2026 CONTRATO 0001234 CUPS ES0021000000000001AB';

const movement = (fields: Partial<StatementMovement> & Pick<StatementMovement, 'fecha' | 'importe' | 'concepto' | 'linea'>): StatementMovement => ({
  fechavalor: fields.fecha, conceptopropio: '000', documento: '0000000000', referencia1: '', referencia2: '', texto: '',
  endtoend: [], mandato: null, acreedor: null, contraparte: null, ibancontraparte: null, referenciabanco: null, ...fields,
});

const ACCOUNTS: Norma43Account[] = [
  {
    banco: '2100', oficina: '0418', cuenta: '0200051332', desde: '2026-11-01', hasta: '2026-11-30', saldoinicial: 1000, titular: 'PEÑA Y CÍA SL',
    movimientos: [
      { fecha: '2026-11-02', fechavalor: '2026-11-03', importe: 1234567.89, concepto: '04', textos: [`${'PEÑA Y CÍA, S.L.'.padEnd(66)}B12345674`] },
      { fecha: '2026-11-05', importe: -0.07, concepto: '17', conceptopropio: '123', equivalencia: { divisa: '840', importe: 0.08 } },
      {
        fecha: '2026-11-06', importe: -35.6, concepto: '03',
        sepaDebit: { scheme: 'CORE', creditorName: 'ELÉCTRICA DEL NORTE SA', creditorId: SUPPLIER_CREDITOR_ID, mandate: 'MANDATE-0001', remittance: REMITTANCE, endToEnd: 'E2E-0001', debtorName: 'ACME SL' },
      },
      {
        fecha: '2026-11-09', importe: -2000, concepto: '14',
        sepaDebit: { scheme: 'CORE', creditorName: 'ACME SL', creditorId: OUR_CREDITOR_ID, mandate: 'MAND-DD1', remittance: 'DEVOLUCION F2026A7 RECIBO 1', endToEnd: 'F2026A7-1', debtorName: 'JUAN ÑÚÑEZ' },
      },
      { fecha: '2026-11-10', importe: 0.07, concepto: '02', documento: '1234', referencia1: 'TRANSFERENCI', referencia2: 'REF-2' },
    ],
  },
  {
    banco: '0081', oficina: '0054', cuenta: '0001234567', desde: '2026-11-01', hasta: '2026-11-30', saldoinicial: -150.25, divisa: '840', modo: '2',
    movimientos: [
      { fecha: '2026-11-03', importe: 150.25, concepto: '02' },
      { fecha: '2026-11-04', importe: -10, concepto: '12', textos: ['OPERAC.TARGET   HIGHWAY   EXPENSE'] },
      { fecha: '2026-11-05', importe: 50, concepto: '04', textos: ['TRANSF. SEPA  CUSTOMER NAME HERE', 'ES12 FREE TEXT THAT IS NOT A CREDITOR ID'] },
    ],
  },
];

/** What ACCOUNTS read back: record 11 of A on line 1, its 33 on line 19, B from line 20, the 88 on line 28. */
const EXPECTED: StatementAccount[] = [
  {
    iban: IBAN_A, divisa: 'EUR', desde: '2026-11-01', hasta: '2026-11-30', saldoinicial: 1000, saldofinal: 1233532.29, linea: 1,
    movimientos: [
      movement({ fecha: '2026-11-02', fechavalor: '2026-11-03', importe: 1234567.89, concepto: '04', texto: 'PEÑA Y CÍA, S.L. B12345674', contraparte: 'PEÑA Y CÍA, S.L.', linea: 2 }),
      movement({ fecha: '2026-11-05', importe: -0.07, concepto: '17', conceptopropio: '123', linea: 4 }),
      movement({
        fecha: '2026-11-06', importe: -35.6, concepto: '03', linea: 6,
        texto: `COREELÉCTRICA DEL NORTE SA ${SUPPLIER_CREDITOR_ID} MANDATE-0001 ${REMITTANCE.slice(0, 68)} ${REMITTANCE.slice(69)} E2E-0001 ACME SL`,
        endtoend: ['E2E-0001'], mandato: 'MANDATE-0001', acreedor: SUPPLIER_CREDITOR_ID, contraparte: 'ELÉCTRICA DEL NORTE SA',
      }),
      movement({
        fecha: '2026-11-09', importe: -2000, concepto: '14', linea: 12,
        texto: `COREACME SL ${OUR_CREDITOR_ID} MAND-DD1 DEVOLUCION F2026A7 RECIBO 1 F2026A7-1 JUAN ÑÚÑEZ`,
        endtoend: ['F2026A7-1'], mandato: 'MAND-DD1', acreedor: OUR_CREDITOR_ID, contraparte: 'JUAN ÑÚÑEZ',
      }),
      movement({ fecha: '2026-11-10', importe: 0.07, concepto: '02', documento: '0000001234', referencia1: 'TRANSFERENCI', referencia2: 'REF-2', linea: 18 }),
    ],
  },
  {
    iban: IBAN_B, divisa: 'USD', desde: '2026-11-01', hasta: '2026-11-30', saldoinicial: -150.25, saldofinal: 40, linea: 20,
    movimientos: [
      movement({ fecha: '2026-11-03', importe: 150.25, concepto: '02', linea: 21 }),
      movement({ fecha: '2026-11-04', importe: -10, concepto: '12', texto: 'OPERAC.TARGET HIGHWAY EXPENSE', linea: 22 }),
      movement({ fecha: '2026-11-05', importe: 50, concepto: '04', texto: 'TRANSF. SEPA CUSTOMER NAME HERE ES12 FREE TEXT THAT IS NOT A CREDITOR ID', linea: 24 }),
    ],
  },
];

/** Code page 850 bytes of the few letters ACCOUNTS holds (latin-1 Ñ É Í Ú). */
const CP850: Record<number, number | undefined> = { 0xd1: 0xa5, 0xc9: 0x90, 0xcd: 0xd6, 0xda: 0xe9 };
const cp850 = (latin1: Buffer): Buffer => Buffer.from(Array.from(latin1, (byte) => CP850[byte] ?? byte));

/** Record `index` (0-based; its line is index + 1) with `value` written over it from position `start` (0-based). */
const withField = (index: number, start: number, value: string) => (records: string[]) =>
  records.map((record, at) => (at === index ? record.slice(0, start) + value + record.slice(start + value.length) : record));

function refusal(parse: () => unknown): Pick<StatementError, 'motivo' | 'linea' | 'cuenta'> {
  try {
    parse();
  } catch (error) {
    assert.ok(error instanceof StatementError, String(error));
    return { motivo: error.motivo, linea: error.linea, cuenta: error.cuenta };
  }
  assert.fail('accepted');
}

it('rebuilds the IBAN from bank, branch and account: the CCC check digits (10 -> 1, 11 -> 0), then MOD 97-10', () => {
  const cases: Array<[string, string, string, string]> = [
    ['0081', '0054', '0001234567', 'ES5400810054180001234567'],
    ['2100', '0418', '0200051332', 'ES9121000418450200051332'],
    ['2059', '0060', '8000314221', 'ES4820590060248000314221'],
    ['2100', '0418', '0000000000', 'ES5021000418400000000000'],
    ['0049', '1500', '0512345678', 'ES7000491500010512345678'],
  ];
  for (const [bank, branch, account, iban] of cases) {
    assert.equal(spanishIban(bank, branch, account), iban);
    assert.ok(isIban(iban), iban);
  }
});

it('reads a two-account Norma 43 file to the cent: signs, 23 free text, a SEPA direct-debit set, a 24 ignored', () => {
  const file = norma43File(ACCOUNTS);
  assert.equal(file.toString('latin1').split('\r\n').filter(Boolean).length, 28);
  assert.deepEqual(parseNorma43(file), EXPECTED);
  assert.deepEqual(parseStatement(file), { formato: 'norma43', cuentas: EXPECTED });
});

it('reads the same Norma 43 accounts whatever the line ends, trailing spaces and encoding (latin-1, code page 850, UTF-8)', () => {
  const latin1 = norma43File(ACCOUNTS);
  assert.ok(cp850(latin1).includes(0xa5), 'the code page 850 file holds its Ñ as byte 165');
  const variants: Array<[string, Buffer | string]> = [
    ['LF', norma43File(ACCOUNTS, { lineEnd: '\n' })],
    ['trimmed lines', norma43File(ACCOUNTS, { trimTrailing: true })],
    ['trimmed lines, LF', norma43File(ACCOUNTS, { trimTrailing: true, lineEnd: '\n' })],
    ['UTF-8', norma43File(ACCOUNTS, { encoding: 'utf8' })],
    ['UTF-8 with a byte-order mark', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), norma43File(ACCOUNTS, { encoding: 'utf8' })])],
    ['code page 850', cp850(latin1)],
    ['a string', norma43File(ACCOUNTS, { encoding: 'utf8', lineEnd: '\n' }).toString('utf8')],
    ['no final line end', latin1.subarray(0, -2)],
  ];
  for (const [name, content] of variants) assert.deepEqual(parseNorma43(content), EXPECTED, name);
});

it('takes the 88 count with or without itself, and refuses any other', () => {
  assert.deepEqual(parseNorma43(norma43File(ACCOUNTS, { countIncludesTrailer: true })), EXPECTED);
  for (const count of ['000029', '000026', '000000', '0000X7']) {
    assert.deepEqual(refusal(() => parseNorma43(norma43File(ACCOUNTS, { tamper: withField(27, 20, count) }))), { motivo: 'record-count', linea: 28, cuenta: null }, count);
  }
});

it('refuses a broken Norma 43 file, naming the reason, the line and the account', () => {
  const full = norma43File(ACCOUNTS);
  const cases: Array<[string, Buffer | string, StatementError['motivo'], number, string | null]> = [
    ['nothing at all', Buffer.alloc(0), 'empty', 1, null],
    ['blank lines only', '\r\n   \r\n', 'empty', 1, null],
    ['an unknown record code', norma43File(ACCOUNTS, { tamper: withField(4, 0, '25') }), 'unknown-record', 5, IBAN_A],
    ['a 22 before any 11', norma43File(ACCOUNTS, { tamper: (records) => records.slice(1) }), 'out-of-sequence', 1, null],
    ['a 23 with no 22 before it', norma43File(ACCOUNTS, { tamper: (records) => [records[0], records[2], ...records.slice(1)] }), 'out-of-sequence', 2, IBAN_A],
    ['an 11 before the open account\'s 33', norma43File(ACCOUNTS, { tamper: (records) => records.filter((_, index) => index !== 18) }), 'out-of-sequence', 19, IBAN_A],
    ['the 88 before the open account\'s 33', norma43File(ACCOUNTS, { tamper: (records) => records.filter((_, index) => index !== 26) }), 'out-of-sequence', 27, IBAN_B],
    ['a record after the 88', norma43File(ACCOUNTS, { tamper: (records) => [...records, records[1]] }), 'out-of-sequence', 29, null],
    ['an impossible period date in an 11', norma43File(ACCOUNTS, { tamper: withField(0, 20, '261332') }), 'invalid-date', 1, IBAN_A],
    ['30 February as a value date', norma43File(ACCOUNTS, { tamper: withField(3, 16, '260230') }), 'invalid-date', 4, IBAN_A],
    ['a letter in a 22 amount', norma43File(ACCOUNTS, { tamper: withField(1, 30, 'O') }), 'invalid-amount', 2, IBAN_A],
    ['sign key 3 on the opening balance', norma43File(ACCOUNTS, { tamper: withField(0, 32, '3') }), 'invalid-amount', 1, IBAN_A],
    ['a space in a 33 total', norma43File(ACCOUNTS, { tamper: withField(26, 45, ' ') }), 'invalid-amount', 27, IBAN_B],
    ['a letter in the account number', norma43File(ACCOUNTS, { tamper: withField(0, 10, '02000X1332') }), 'invalid-account', 1, null],
    ['a file cut inside a 23 line', full.subarray(0, 24 * 82 + 20), 'truncated', 26, IBAN_B],
    ['no 33 nor 88', norma43File(ACCOUNTS, { tamper: (records) => records.slice(0, 26) }), 'truncated', 27, IBAN_B],
    ['no 88', norma43File(ACCOUNTS, { tamper: (records) => records.slice(0, -1) }), 'truncated', 28, null],
    ['a 33 of another account', norma43File(ACCOUNTS, { tamper: withField(18, 10, '0200051333') }), 'account-mismatch', 19, IBAN_A],
    ['one debit more in the 33', norma43File(ACCOUNTS, { tamper: withField(18, 20, '00004') }), 'totals-mismatch', 19, IBAN_A],
    ['a cent more in the 33 credits', norma43File(ACCOUNTS, { tamper: withField(18, 44, '00000123456797') }), 'totals-mismatch', 19, IBAN_A],
    ['a cent more in the closing balance', norma43File(ACCOUNTS, { tamper: withField(18, 59, '00000123353230') }), 'balance-mismatch', 19, IBAN_A],
    ['the closing balance\'s sign turned', norma43File(ACCOUNTS, { tamper: withField(26, 58, '1') }), 'balance-mismatch', 27, IBAN_B],
  ];
  for (const [name, content, motivo, linea, cuenta] of cases) {
    assert.deepEqual(refusal(() => parseNorma43(content)), { motivo, linea, cuenta }, name);
  }
});

it('takes what real Norma 43 files do: zero balances on both sides, free positions and Reference 1 with text, unknown currencies', () => {
  const card: Norma43Account = {
    banco: '0081', oficina: '0054', cuenta: '0001234567', desde: '2026-11-01', hasta: '2026-11-30', saldoinicial: 0, divisa: '999',
    movimientos: [{ fecha: '2026-11-02', importe: 10, concepto: '12' }, { fecha: '2026-11-03', importe: -3, concepto: '12' }],
  };
  const zeroClosing = withField(3, 59, '00000000000000');
  const debitZeros = (records: string[]) => zeroClosing(withField(0, 32, '1')(withField(3, 58, '1')(records)));
  const [read] = parseNorma43(norma43File([card], { tamper: debitZeros }));
  assert.deepEqual([read.divisa, read.saldoinicial, read.saldofinal, read.movimientos.map((entry) => entry.importe)], ['999', 0, 0, [10, -3]]);
  assert.deepEqual(refusal(() => parseNorma43(norma43File([{ ...card, saldoinicial: 5 }], { tamper: zeroClosing }))), { motivo: 'balance-mismatch', linea: 4, cuenta: IBAN_B });

  const free = (records: string[]) => records.map((record) => {
    switch (record.slice(0, 2)) {
      case '11': return `${record.slice(0, 77)}ABC`;
      case '22': return `22XY12${record.slice(6, 52)}PAGO TARJETA${record.slice(64)}`;
      case '33': return `${record.slice(0, 76)}WXYZ`;
      default: return `${record.slice(0, 26)}${'FIN DE FICHERO'.padEnd(54)}`;
    }
  });
  const [tolerated] = parseNorma43(norma43File([{ ...card, divisa: '978' }], { tamper: free }));
  assert.deepEqual(tolerated.movimientos.map((entry) => entry.referencia1), ['PAGO TARJETA', 'PAGO TARJETA']);
  assert.equal(tolerated.saldofinal, 7);
});

const STATEMENT: CamtStatement = {
  iban: IBAN_A, desde: '2026-11-01', hasta: '2026-11-30', saldoinicial: 500,
  entries: [
    {
      importe: 1234567.89, fecha: '2026-11-02', ntryRef: 'N1', acctSvcrRef: 'BANKREF-1', code: ['PMNT', 'RCDT', 'ESCT'], info: 'TRANSFERENCIA RECIBIDA',
      transactions: [{ endToEnd: 'E2E-CT-1', debtor: { name: 'Peña y Cía, S.L.', iban: 'ES7921000813610123456789' }, creditor: { name: 'Acme SL', iban: IBAN_A }, remittance: ['Factura F2026A12', 'TRANSFERENCIA RECIBIDA'] }],
    },
    {
      importe: 300.07, fecha: '2026-11-03', fechavalor: '2026-11-04', ntryRef: 'N2', code: ['PMNT', 'IDDT', 'ESDD'], proprietaryCode: '006', info: 'REMESA 12',
      transactions: ['1', '2', '3'].map((n) => ({
        endToEnd: `F2026A${n}-1`, mandate: `MAND-DD${n}`, debtor: { name: `Cliente ${n}`, iban: 'ES7921000813610123456789' }, creditor: { name: 'Acme SL', schemeId: OUR_CREDITOR_ID },
      })),
    },
    {
      importe: -35.6, fecha: '2026-11-06', fechavalor: '2026-11-05', ntryRef: 'N3', code: ['PMNT', 'RDDT', 'ESDD'],
      transactions: [{
        endToEnd: 'NOTPROVIDED', mandate: 'MANDATE-0001', debtor: { name: 'Acme SL', iban: IBAN_A },
        creditor: { name: 'Eléctrica del Norte', iban: 'ES6000491500051234567892', schemeId: SUPPLIER_CREDITOR_ID }, remittance: ['Suministro octubre'],
      }],
    },
    {
      importe: -2000, fecha: '2026-11-09', ntryRef: 'N4', code: ['PMNT', 'IDDT', 'UPDD'],
      transactions: [{ endToEnd: 'F2026A7-1', mandate: 'MAND-DD7', debtor: { name: 'Juan Núñez', iban: 'ES1000491500012345678901' }, creditor: { name: 'Acme SL', schemeId: OUR_CREDITOR_ID }, info: 'MD06' }],
    },
    { importe: -0.07, fecha: '2026-11-10', ntryRef: 'N5', code: ['ACMT', 'MDOP', 'CHRG'], proprietaryCode: '017', info: 'COMISION' },
    { importe: 99.99, fecha: '2026-11-30', ntryRef: 'N6', status: 'PDNG', code: ['PMNT', 'RCDT', 'ESCT'] },
  ],
};

/** The movements STATEMENT reads to, its lines aside. */
const CAMT_MOVEMENTS: Array<Omit<StatementMovement, 'linea'>> = [
  {
    fecha: '2026-11-02', fechavalor: '2026-11-02', importe: 1234567.89, concepto: '04', conceptopropio: '', documento: '', referencia1: '', referencia2: '',
    texto: 'Factura F2026A12 TRANSFERENCIA RECIBIDA', endtoend: ['E2E-CT-1'], mandato: null, acreedor: null,
    contraparte: 'Peña y Cía, S.L.', ibancontraparte: 'ES7921000813610123456789', referenciabanco: 'BANKREF-1',
  },
  {
    fecha: '2026-11-03', fechavalor: '2026-11-04', importe: 300.07, concepto: '06', conceptopropio: '006', documento: '', referencia1: '', referencia2: '',
    texto: 'REMESA 12', endtoend: ['F2026A1-1', 'F2026A2-1', 'F2026A3-1'], mandato: null, acreedor: OUR_CREDITOR_ID,
    contraparte: null, ibancontraparte: 'ES7921000813610123456789', referenciabanco: null,
  },
  {
    fecha: '2026-11-06', fechavalor: '2026-11-05', importe: -35.6, concepto: '03', conceptopropio: '', documento: '', referencia1: '', referencia2: '',
    texto: 'Suministro octubre', endtoend: [], mandato: 'MANDATE-0001', acreedor: SUPPLIER_CREDITOR_ID,
    contraparte: 'Eléctrica del Norte', ibancontraparte: 'ES6000491500051234567892', referenciabanco: null,
  },
  {
    fecha: '2026-11-09', fechavalor: '2026-11-09', importe: -2000, concepto: '14', conceptopropio: '', documento: '', referencia1: '', referencia2: '',
    texto: 'MD06', endtoend: ['F2026A7-1'], mandato: 'MAND-DD7', acreedor: OUR_CREDITOR_ID,
    contraparte: 'Juan Núñez', ibancontraparte: 'ES1000491500012345678901', referenciabanco: null,
  },
  {
    fecha: '2026-11-10', fechavalor: '2026-11-10', importe: -0.07, concepto: '17', conceptopropio: '017', documento: '', referencia1: '', referencia2: '',
    texto: 'COMISION', endtoend: [], mandato: null, acreedor: null, contraparte: null, ibancontraparte: null, referenciabanco: null,
  },
];

function assertValidCamt(xml: string, version: string): void {
  const run = spawnSync('xmllint', ['--nonet', '--noout', '--schema', path.join(SCHEMAS, `camt.053.${version}.xsd`), '-'], { input: xml, encoding: 'utf8' });
  assert.equal(run.status, 0, `camt.053.${version}: ${run.stderr}\n${xml.slice(0, 3000)}`);
}

/** 1-based line of the first line of `text` holding `needle`. */
function lineOf(text: string, needle: string): number {
  const index = text.split('\n').findIndex((line) => line.includes(needle));
  assert.ok(index >= 0, needle);
  return index + 1;
}

it('reads camt.053 001.02 and 001.08 into the same movements: a batch entry as one, the pending one left out', () => {
  for (const version of ['001.02', '001.08'] as const) {
    const xml = camt053File(version, [STATEMENT, { ...STATEMENT, iban: IBAN_B, saldoinicial: -150.25, entries: STATEMENT.entries.slice(4) }]);
    assertValidCamt(xml, version);
    const [first, second] = parseCamt053(xml);
    const { movimientos, ...account } = first;
    assert.deepEqual(account, { iban: IBAN_A, divisa: 'EUR', desde: '2026-11-01', hasta: '2026-11-30', saldoinicial: 500, saldofinal: 1233332.29, linea: lineOf(xml, '<Id>STMT-1</Id>') - 1 }, version);
    assert.deepEqual(movimientos.map(({ linea, ...rest }) => rest), CAMT_MOVEMENTS, version);
    assert.deepEqual(movimientos.map((entry) => entry.linea), ['N1', 'N2', 'N3', 'N4', 'N5'].map((ref) => lineOf(xml, `<NtryRef>${ref}</NtryRef>`) - 1), version);
    assert.deepEqual([second.iban, second.saldoinicial, second.saldofinal, second.movimientos.length], [IBAN_B, -150.25, -150.32, 1], version);
    assert.deepEqual(parseStatement(`\uFEFF${xml}`), { formato: 'camt053', cuentas: [first, second] }, version);
    assert.deepEqual(parseStatement(xml.replace(/^<\?xml[^>]*>/, '  ')), { formato: 'camt053', cuentas: [first, second] }, `${version} without declaration`);
  }
});

it('reads a camt.053 file in the encoding its declaration names', () => {
  const xml = camt053File('001.02', [STATEMENT]).replace('encoding="UTF-8"', 'encoding="ISO-8859-1"');
  const { formato, cuentas: [account] } = parseStatement(Buffer.from(xml, 'latin1'));
  assert.equal(formato, 'camt053');
  assert.deepEqual([account.movimientos[0].contraparte, account.movimientos[3].contraparte], ['Peña y Cía, S.L.', 'Juan Núñez']);
});

it('refuses a broken camt.053 file, naming the reason, the line and the account', () => {
  const base = camt053File('001.08', [STATEMENT]);
  const cases: Array<[string, string, StatementError['motivo'], number, string | null]> = [
    ['a misnamed end tag', base.replace('</NtryRef>', '</NtryRf>'), 'invalid-xml', lineOf(base, '<NtryRef>N1</NtryRef>'), null],
    ['a bare ampersand', base.replace('>N3<', '>N&3<'), 'invalid-xml', lineOf(base, '<NtryRef>N3</NtryRef>'), null],
    ['an unquoted attribute', base.replace('Ccy="EUR"', 'Ccy=EUR'), 'invalid-xml', lineOf(base, 'Ccy="EUR"'), null],
    ['no XML at all', '<', 'invalid-xml', 1, null],
    ['another message', base.replace('camt.053.001.08', 'camt.052.001.08'), 'unsupported-format', 2, null],
    ['another camt.053 version', base.replace('camt.053.001.08', 'camt.053.001.04'), 'unsupported-format', 2, null],
    ['an account without IBAN', base.replace(`<IBAN>${IBAN_A}</IBAN>`, '<Othr>\n<Id>0200051332</Id>\n</Othr>'), 'no-iban', lineOf(base, '<Acct>'), null],
    ['one entry more in the summary', base.replace('<NbOfNtries>6</NbOfNtries>', '<NbOfNtries>7</NbOfNtries>'), 'totals-mismatch', lineOf(base, '<TtlNtries>'), IBAN_A],
    ['a cent more in the credits\' sum', base.replace('<Sum>1234967.95</Sum>', '<Sum>1234967.96</Sum>'), 'totals-mismatch', lineOf(base, '<TtlCdtNtries>'), IBAN_A],
    ['one debit less in the summary', base.replace(/(<TtlDbtNtries>\n<NbOfNtries>)3/, '$12'), 'totals-mismatch', lineOf(base, '<TtlDbtNtries>'), IBAN_A],
    ['a cent more in the closing balance', base.replace('>1233332.29<', '>1233332.30<'), 'balance-mismatch', lineOf(base, '<Cd>CLBD</Cd>') - 3, IBAN_A],
    ['three decimals', base.replace('>35.60<', '>35.605<'), 'invalid-amount', lineOf(base, '>35.60<'), IBAN_A],
    ['30 February', base.replace('<Dt>2026-11-06</Dt>', '<Dt>2026-02-30</Dt>'), 'invalid-date', lineOf(base, '<Dt>2026-11-06</Dt>'), IBAN_A],
  ];
  for (const [name, xml, motivo, linea, cuenta] of cases) {
    assert.deepEqual(refusal(() => parseCamt053(xml)), { motivo, linea, cuenta }, name);
  }
  assert.equal(parseCamt053(base.replace('>35.60<', '>35.600<'))[0].movimientos[2].importe, -35.6, 'trailing zeros are no decimals');
});
