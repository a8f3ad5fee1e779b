/**
 * Bank statement files as banks write them, for the statement parsers' tests: AEB Norma 43 records
 * of exactly 80 characters with their 33 totals and 88 count (../shared/reference/sepa.md, "AEB
 * Cuaderno 43" section 4), and camt.053 001.02 / 001.08 documents valid against
 * test/vendor/sepa/. Amounts are signed euros, turned into cents here.
 */

export interface SepaDebitRecords {
  scheme: 'CORE' | 'B2B';
  creditorName: string;
  creditorId: string;
  mandate: string;
  remittance: string;
  endToEnd: string;
  debtorName: string;
}

export interface Norma43Movement {
  fecha: string;
  fechavalor?: string;
  /** Signed euros, money in positive. */
  importe: number;
  concepto?: string;
  conceptopropio?: string;
  documento?: string;
  referencia1?: string;
  referencia2?: string;
  /** One 23 record each, 76 characters at most. */
  textos?: string[];
  /** The five mode-3 SEPA direct-debit 23 records (section 8), written before any `textos`. */
  sepaDebit?: SepaDebitRecords;
  /** A 24 record: the amount in another currency (numeric ISO code). */
  equivalencia?: { divisa: string; importe: number };
}

export interface Norma43Account {
  banco: string;
  oficina: string;
  cuenta: string;
  desde: string;
  hasta: string;
  saldoinicial: number;
  movimientos: Norma43Movement[];
  /** Numeric ISO 4217, `978` by default. */
  divisa?: string;
  /** Information mode, `3` by default. */
  modo?: '1' | '2' | '3';
  titular?: string;
}

export interface Norma43Options {
  lineEnd?: '\r\n' | '\n';
  /** Trailing spaces cut from every record, as some banks do. */
  trimTrailing?: boolean;
  /** The 88 counting itself too, as some banks do. */
  countIncludesTrailer?: boolean;
  encoding?: 'latin1' | 'utf8';
  /** Changes to the finished records (the 88 included) before they are written. */
  tamper?: (records: string[]) => string[];
}

const cents = (euros: number): number => Math.round(euros * 100);
const digits = (value: number, width: number): string => String(Math.abs(value)).padStart(width, '0');
const yymmdd = (date: string): string => date.slice(2).replaceAll('-', '');
const text = (value: string, width: number): string => {
  if (value.length > width) throw new Error(`"${value}" is longer than ${width} characters`);
  return value.padEnd(width);
};
/** Sign key then 14 digits (section 5): 1 a debit (negative), 2 a credit. */
const signed = (amount: number): string => `${amount < 0 ? '1' : '2'}${digits(amount, 14)}`;

function complements(movement: Norma43Movement): string[] {
  const debit = movement.sepaDebit;
  const sepa = debit ? [
    `${text(debit.scheme, 4)}${text(debit.creditorName, 70)}  `,
    `${text(debit.creditorId, 35)}${text(debit.mandate, 35)}${' '.repeat(6)}`,
    `${' '.repeat(8)}${text(debit.remittance.slice(0, 68), 68)}`,
    `${text(debit.remittance.slice(68), 72)}    `,
    `${text(debit.endToEnd, 35)}${text(debit.debtorName, 41)}`,
  ] : [];
  return [...sepa, ...(movement.textos ?? []).map((line) => text(line, 76))]
    .map((line, index) => `23${String(index + 1).padStart(2, '0')}${line}`);
}

function accountRecords(account: Norma43Account): string[] {
  const id = `${account.banco}${account.oficina}${account.cuenta}`;
  const currency = account.divisa ?? '978';
  const opening = cents(account.saldoinicial);
  const records = [`11${id}${yymmdd(account.desde)}${yymmdd(account.hasta)}${signed(opening)}${currency}${account.modo ?? '3'}${text(account.titular ?? 'ACME SL', 26)}   `];
  const totals = { debits: 0, debitCents: 0, credits: 0, creditCents: 0 };
  for (const movement of account.movimientos) {
    const amount = cents(movement.importe);
    if (amount < 0) Object.assign(totals, { debits: totals.debits + 1, debitCents: totals.debitCents - amount });
    else Object.assign(totals, { credits: totals.credits + 1, creditCents: totals.creditCents + amount });
    records.push(`22    ${account.oficina}${yymmdd(movement.fecha)}${yymmdd(movement.fechavalor ?? movement.fecha)}${movement.concepto ?? '99'}`
      + `${movement.conceptopropio ?? '000'}${signed(amount)}${(movement.documento ?? '').padStart(10, '0')}`
      + `${text(movement.referencia1 ?? '', 12)}${text(movement.referencia2 ?? '', 16)}`);
    records.push(...complements(movement));
    if (movement.equivalencia) records.push(`2401${movement.equivalencia.divisa}${digits(cents(movement.equivalencia.importe), 14)}${' '.repeat(59)}`);
  }
  const closing = opening + totals.creditCents - totals.debitCents;
  records.push(`33${id}${digits(totals.debits, 5)}${digits(totals.debitCents, 14)}${digits(totals.credits, 5)}${digits(totals.creditCents, 14)}${signed(closing)}${currency}    `);
  return records;
}

/** A Norma 43 file: each account's 11, its 22s with their 23/24s, its 33; then the 88. */
export function norma43File(accounts: Norma43Account[], options: Norma43Options = {}): Buffer {
  const records = accounts.flatMap(accountRecords);
  records.push(`88${'9'.repeat(18)}${digits(records.length + (options.countIncludesTrailer ? 1 : 0), 6)}${' '.repeat(54)}`);
  for (const record of records) if (record.length !== 80) throw new Error(`record of ${record.length} characters: ${record}`);
  const lines = (options.tamper ?? ((same) => same))(records).map((record) => (options.trimTrailing ? record.trimEnd() : record));
  const lineEnd = options.lineEnd ?? '\r\n';
  return Buffer.from(lines.map((line) => line + lineEnd).join(''), options.encoding ?? 'latin1');
}

export interface CamtParty {
  name?: string;
  iban?: string;
  /** A SEPA creditor identifier (`Id/PrvtId/Othr` with scheme `SEPA`). */
  schemeId?: string;
}

export interface CamtTransaction {
  endToEnd?: string;
  mandate?: string;
  debtor?: CamtParty;
  creditor?: CamtParty;
  remittance?: string[];
  info?: string;
}

export interface CamtEntry {
  /** Signed euros, money in positive. */
  importe: number;
  fecha: string;
  fechavalor?: string;
  status?: 'BOOK' | 'PDNG' | 'INFO';
  ntryRef?: string;
  acctSvcrRef?: string;
  /** ISO bank transaction code: domain, family, sub-family. */
  code?: [string, string, string];
  proprietaryCode?: string;
  transactions?: CamtTransaction[];
  info?: string;
}

export interface CamtStatement {
  iban: string;
  currency?: string;
  desde: string;
  hasta: string;
  saldoinicial: number;
  entries: CamtEntry[];
  /** A `TxsSummry` over all the entries (default true). */
  summary?: boolean;
}

const escape = (value: string): string => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const decimal = (centsValue: number): string => (Math.abs(centsValue) / 100).toFixed(2);
const sumOf = (values: number[]): string => decimal(values.reduce((sum, value) => sum + Math.abs(cents(value)), 0));

/** A camt.053 document of one version: one `Stmt` per statement, one element per line. */
export function camt053File(version: '001.02' | '001.08', statements: CamtStatement[]): string {
  const v8 = version === '001.08';
  const lines: string[] = [];
  const open = (tag: string, body: () => void) => {
    lines.push(`<${tag}>`);
    body();
    lines.push(`</${tag.split(' ')[0]}>`);
  };
  const leaf = (tag: string, value: string) => lines.push(`<${tag}>${escape(value)}</${tag.split(' ')[0]}>`);
  const amountLines = (centsValue: number, currency: string) => {
    leaf(`Amt Ccy="${currency}"`, decimal(centsValue));
    leaf('CdtDbtInd', centsValue < 0 ? 'DBIT' : 'CRDT');
  };
  const party = (tag: 'Dbtr' | 'Cdtr', given: CamtParty | undefined) => {
    if (!given) return;
    if (given.name || given.schemeId) {
      open(tag, () => {
        const details = () => {
          if (given.name) leaf('Nm', given.name);
          if (given.schemeId) open('Id', () => open('PrvtId', () => open('Othr', () => { leaf('Id', given.schemeId!); open('SchmeNm', () => leaf('Prtry', 'SEPA')); })));
        };
        if (v8) open('Pty', details);
        else details();
      });
    }
    if (given.iban) open(`${tag}Acct`, () => open('Id', () => leaf('IBAN', given.iban!)));
  };
  const transaction = (tx: CamtTransaction) => open('TxDtls', () => {
    if (tx.endToEnd || tx.mandate) {
      open('Refs', () => {
        if (tx.endToEnd) leaf('EndToEndId', tx.endToEnd);
        if (tx.mandate) leaf('MndtId', tx.mandate);
      });
    }
    if (tx.debtor || tx.creditor) {
      open('RltdPties', () => {
        party('Dbtr', tx.debtor);
        party('Cdtr', tx.creditor);
      });
    }
    if (tx.remittance?.length) open('RmtInf', () => tx.remittance!.forEach((line) => leaf('Ustrd', line)));
    if (tx.info) leaf('AddtlTxInf', tx.info);
  });
  const entry = (given: CamtEntry, currency: string) => open('Ntry', () => {
    if (given.ntryRef) leaf('NtryRef', given.ntryRef);
    amountLines(cents(given.importe), currency);
    if (v8) open('Sts', () => leaf('Cd', given.status ?? 'BOOK'));
    else leaf('Sts', given.status ?? 'BOOK');
    open('BookgDt', () => leaf('Dt', given.fecha));
    open('ValDt', () => leaf('Dt', given.fechavalor ?? given.fecha));
    if (given.acctSvcrRef) leaf('AcctSvcrRef', given.acctSvcrRef);
    open('BkTxCd', () => {
      if (given.code) open('Domn', () => { leaf('Cd', given.code![0]); open('Fmly', () => { leaf('Cd', given.code![1]); leaf('SubFmlyCd', given.code![2]); }); });
      if (given.proprietaryCode) open('Prtry', () => leaf('Cd', given.proprietaryCode!));
    });
    if (given.transactions?.length) open('NtryDtls', () => given.transactions!.forEach(transaction));
    if (given.info) leaf('AddtlNtryInf', given.info);
  });
  const balance = (code: string, centsValue: number, date: string, currency: string) => open('Bal', () => {
    open('Tp', () => open('CdOrPrtry', () => leaf('Cd', code)));
    amountLines(centsValue, currency);
    open('Dt', () => leaf('Dt', date));
  });

  lines.push('<?xml version="1.0" encoding="UTF-8"?>');
  open(`Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.${version}"`, () => open('BkToCstmrStmt', () => {
    open('GrpHdr', () => {
      leaf('MsgId', 'STMT-TEST-1');
      leaf('CreDtTm', '2026-11-27T08:00:00');
    });
    statements.forEach((statement, index) => open('Stmt', () => {
      const currency = statement.currency ?? 'EUR';
      const booked = statement.entries.filter((given) => (given.status ?? 'BOOK') === 'BOOK');
      const opening = cents(statement.saldoinicial);
      const closing = opening + booked.reduce((sum, given) => sum + cents(given.importe), 0);
      leaf('Id', `STMT-${index + 1}`);
      leaf('CreDtTm', `${statement.hasta}T23:00:00`);
      open('FrToDt', () => {
        leaf('FrDtTm', `${statement.desde}T00:00:00`);
        leaf('ToDtTm', `${statement.hasta}T23:59:59`);
      });
      open('Acct', () => {
        open('Id', () => leaf('IBAN', statement.iban));
        leaf('Ccy', currency);
      });
      balance('OPBD', opening, statement.desde, currency);
      balance('CLBD', closing, statement.hasta, currency);
      if (statement.summary ?? true) {
        const credits = statement.entries.filter((given) => given.importe >= 0).map((given) => given.importe);
        const debits = statement.entries.filter((given) => given.importe < 0).map((given) => given.importe);
        open('TxsSummry', () => {
          open('TtlNtries', () => leaf('NbOfNtries', String(statement.entries.length)));
          open('TtlCdtNtries', () => { leaf('NbOfNtries', String(credits.length)); leaf('Sum', sumOf(credits)); });
          open('TtlDbtNtries', () => { leaf('NbOfNtries', String(debits.length)); leaf('Sum', sumOf(debits)); });
        });
      }
      for (const given of statement.entries) entry(given, currency);
    }));
  }));
  return `${lines.join('\n')}\n`;
}
