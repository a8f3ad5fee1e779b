import type { DOMParser as DomParser, Element, Node } from '@xmldom/xmldom';
import { lazyLibrary } from '../../lazy-library.ts';
import { compactIban } from '../../models/record-rules.ts';
import { counterpartyIsCreditor, euros, givenId, isoDate, joinText, StatementError, type StatementAccount, type StatementMovement } from './statement-file.ts';

/**
 * ISO 20022 camt.053 (bank to customer statement) files, versions 001.02 (ISO 2009, what most
 * Spanish banks send) and 001.08 (2019), read into the accounts and movements Norma 43 gives:
 * one account per `Stmt`, one movement per booked `Ntry` (a batch entry with many transactions
 * is one movement carrying all their end-to-end ids). The schemas are test/vendor/sepa/.
 */
const NAMESPACES = ['urn:iso:std:iso:20022:tech:xsd:camt.053.001.02', 'urn:iso:std:iso:20022:tech:xsd:camt.053.001.08'];

type Select = (expression: string, node: Node) => unknown;
const xmldom = lazyLibrary<{ DOMParser: typeof DomParser }>('@xmldom/xmldom');
const xpath = lazyLibrary<{ useNamespaces(namespaces: Record<string, string>): Select }>('xpath');

/** ISO bank transaction sub-families of returns and reversals (Norma 43 concept 14). */
const RETURNS = new Set(['RRTN', 'UPDD', 'PRDD', 'RCDD', 'RPCR', 'ARET']);
/** Sub-families of charges, fees, commissions and interest (concept 17). */
const CHARGES = new Set(['CHRG', 'FEES', 'COMM', 'INTR']);
/** Payment families (domain PMNT): transfers 04, direct debits charged to us 03, our collections credited 06. */
const PAYMENT_FAMILIES: Record<string, string | undefined> = { RCDT: '04', ICDT: '04', RDDT: '03', IDDT: '06' };

/** XPath over one file, its namespace bound to the prefix `c`. */
interface Reader {
  all(path: string, from: Node): Element[];
  /** The first match's text, white space collapsed; '' when none. */
  text(path: string, from: Node): string;
}

/** An entry's amount and status, read for every entry (the summary counts them all). */
interface Entry {
  element: Element;
  cents: number;
  debit: boolean;
  booked: boolean;
}

/** The accounts of a camt.053 document (001.02 or 001.08; any other message or version is `unsupported-format`). */
export function parseCamt053(xml: string): StatementAccount[] {
  const root = parseXml(xml);
  if (root.localName !== 'Document' || !NAMESPACES.includes(root.namespaceURI ?? '')) throw new StatementError(lineOf(root), 'unsupported-format');
  const select = xpath().useNamespaces({ c: root.namespaceURI! });
  const x: Reader = {
    all: (path, from) => select(path, from) as Element[],
    text: (path, from) => select(`normalize-space(${path})`, from) as string,
  };
  return x.all('c:BkToCstmrStmt/c:Stmt', root).map((statement) => account(x, statement));
}

/** The document's root; any malformation, even one xmldom only warns of (an unquoted attribute), refused at its line. */
function parseXml(xml: string): Element {
  let line = 1;
  try {
    const parser = new (xmldom().DOMParser)({
      onError: (_level, message, context) => {
        line = Math.max(1, context?.locator?.lineNumber ?? 1);
        throw new Error(message);
      },
    });
    const root = parser.parseFromString(withoutLateDeclaration(xml.replace(/^\uFEFF/, '')), 'text/xml').documentElement;
    if (root) return root;
  } catch {
    // Reported below with the line the parser stopped at.
  }
  throw new StatementError(line, 'invalid-xml');
}

function account(x: Reader, statement: Element): StatementAccount {
  const iban = compactIban(x.text('c:Acct/c:Id/c:IBAN', statement));
  if (!iban) throw new StatementError(lineOf(x.all('c:Acct', statement)[0] ?? statement), 'no-iban');
  const entries = x.all('c:Ntry', statement).map((element): Entry => {
    const { cents, debit } = amountOf(x, element, iban);
    // 001.02 writes the status as the text of Sts, 001.08 in Sts/Cd: the same string value.
    return { element, cents, debit, booked: x.text('c:Sts', element) === 'BOOK' };
  });
  checkSummary(x, statement, entries, iban);
  const booked = entries.filter((entry) => entry.booked);
  const net = booked.reduce((sum, entry) => sum + entry.cents, 0);
  const balance = (...codes: string[]) => codes.map((code) => x.all(`c:Bal[c:Tp/c:CdOrPrtry/c:Cd='${code}']`, statement)[0]).find(Boolean);
  const [openingBalance, closingBalance] = [balance('OPBD', 'PRCD'), balance('CLBD')];
  const opening = openingBalance && amountOf(x, openingBalance, iban).cents;
  const closing = closingBalance && amountOf(x, closingBalance, iban).cents;
  if (opening !== undefined && closing !== undefined && opening + net !== closing) throw new StatementError(lineOf(closingBalance!), 'balance-mismatch', iban);
  // A missing balance follows from the other one and the booked entries (0 when both are missing).
  const saldoinicial = opening ?? (closing !== undefined ? closing - net : 0);
  return {
    iban,
    divisa: x.text('c:Acct/c:Ccy | c:Bal/c:Amt/@Ccy | c:Ntry/c:Amt/@Ccy', statement),
    desde: dayOf(x.all('c:FrToDt/c:FrDtTm', statement)[0], iban),
    hasta: dayOf(x.all('c:FrToDt/c:ToDtTm', statement)[0], iban),
    saldoinicial: euros(saldoinicial), saldofinal: euros(closing ?? saldoinicial + net), linea: lineOf(statement),
    movimientos: booked.map((entry) => movement(x, entry, iban)),
  };
}

/** The statement's `TxsSummry`, when present, against all its entries: counts, and the credit and debit sums. */
function checkSummary(x: Reader, statement: Element, entries: Entry[], iban: string): void {
  const [summary] = x.all('c:TxsSummry', statement);
  if (!summary) return;
  const groups: Array<[string, Entry[]]> = [
    ['c:TtlNtries', entries], ['c:TtlCdtNtries', entries.filter((entry) => !entry.debit)], ['c:TtlDbtNtries', entries.filter((entry) => entry.debit)],
  ];
  for (const [path, group] of groups) {
    const [totals] = x.all(path, summary);
    if (!totals) continue;
    const count = x.text('c:NbOfNtries', totals);
    const [sum] = path === 'c:TtlNtries' ? [] : x.all('c:Sum', totals);
    const agrees = (!count || Number(count) === group.length)
      && (!sum || centsOf(sum, iban) === group.reduce((total, entry) => total + Math.abs(entry.cents), 0));
    if (!agrees) throw new StatementError(lineOf(totals), 'totals-mismatch', iban);
  }
}

function movement(x: Reader, { element: entry, cents, debit }: Entry, iban: string): StatementMovement {
  const transactions = x.all('c:NtryDtls/c:TxDtls', entry);
  const each = (path: string) => transactions.map((transaction) => x.text(path, transaction));
  const booking = dayOf(x.all('c:BookgDt/*', entry)[0], iban);
  const value = dayOf(x.all('c:ValDt/*', entry)[0], iban);
  const fecha = booking ?? value;
  if (!fecha) throw new StatementError(lineOf(entry), 'invalid-date', iban);
  const code = (path: string) => x.text(`c:BkTxCd/c:Domn/${path}`, entry);
  const concepto = conceptOf(code('c:Cd'), code('c:Fmly/c:Cd'), code('c:Fmly/c:SubFmlyCd'));
  const side = counterpartyIsCreditor(debit, concepto) ? 'Cdtr' : 'Dbtr';
  const texts = [...transactions.flatMap((transaction) => x.all('c:RmtInf/c:Ustrd | c:AddtlTxInf', transaction).map(textOf)), x.text('c:AddtlNtryInf', entry)];
  return {
    fecha, fechavalor: value ?? fecha, importe: euros(cents), concepto, conceptopropio: x.text('c:BkTxCd/c:Prtry/c:Cd', entry),
    documento: '', referencia1: '', referencia2: '',
    texto: joinText([...new Set(texts)]),
    endtoend: each('c:Refs/c:EndToEndId').map(givenId).filter((id) => id !== null),
    mandato: single(each('c:Refs/c:MndtId')),
    acreedor: single(each("c:RltdPties/c:Cdtr//c:Othr[c:SchmeNm/c:Prtry='SEPA']/c:Id")),
    contraparte: single(each(`c:RltdPties/c:${side}/c:Nm | c:RltdPties/c:${side}/c:Pty/c:Nm`)),
    ibancontraparte: single(each(`c:RltdPties/c:${side}Acct/c:Id/c:IBAN`).map(compactIban)),
    // The bank's own reference only: `NtryRef` is unique within one statement, not across them.
    referenciabanco: x.text('c:AcctSvcrRef', entry) || null,
    linea: lineOf(entry),
  };
}

/**
 * The Norma 43 common concept (sepa.md, Cuaderno 43 section 7) of an ISO bank transaction code:
 * returns and reversals 14, charges, fees, commissions and interest 17 (whatever the domain),
 * payments by family (transfers 04, direct debits charged to us 03, our collections credited 06),
 * anything else 99 (varios).
 */
function conceptOf(domain: string, family: string, subFamily: string): string {
  if (RETURNS.has(subFamily)) return '14';
  if (CHARGES.has(subFamily)) return '17';
  return (domain === 'PMNT' && PAYMENT_FAMILIES[family]) || '99';
}

/** The value an entry's transactions agree on; null when none gives one or they differ (a batch of many debtors has no one counterparty). */
function single(values: string[]): string | null {
  const distinct = new Set(values.filter(Boolean));
  return distinct.size === 1 ? [...distinct][0] : null;
}

/** An `Amt` and its `CdtDbtInd` (in a `Bal` or an `Ntry`) as signed cents. */
function amountOf(x: Reader, parent: Element, iban: string): { cents: number; debit: boolean } {
  const indicator = x.text('c:CdtDbtInd', parent);
  const [amount] = x.all('c:Amt', parent);
  if (!amount || (indicator !== 'CRDT' && indicator !== 'DBIT')) throw new StatementError(lineOf(parent), 'invalid-amount', iban);
  const cents = centsOf(amount, iban);
  return { cents: indicator === 'DBIT' ? -cents : cents, debit: indicator === 'DBIT' };
}

/** A decimal of at most 2 decimals (trailing zeros aside) as integer cents. */
function centsOf(element: Element, iban: string): number {
  const match = /^\+?(\d*)(?:\.(\d*))?$/.exec(textOf(element));
  const [units, decimals] = [match?.[1] ?? '', match?.[2] ?? ''];
  const cents = Number(units || '0') * 100 + Number(decimals.slice(0, 2).padEnd(2, '0'));
  if (!match || !(units || decimals) || /[1-9]/.test(decimals.slice(2)) || !Number.isSafeInteger(cents)) throw new StatementError(lineOf(element), 'invalid-amount', iban);
  return cents;
}

/** The day of an ISO date or date-time (as written, before any time zone), or null without the element. */
function dayOf(element: Element | undefined, iban: string): string | null {
  if (!element) return null;
  const match = /^(\d{4})-(\d{2})-(\d{2})(?:T|$)/.exec(textOf(element));
  const day = match && isoDate(Number(match[1]), Number(match[2]), Number(match[3]));
  if (!day) throw new StatementError(lineOf(element), 'invalid-date', iban);
  return day;
}

const textOf = (node: Node): string => (node.textContent ?? '').trim();
const lineOf = (node: Node): number => node.lineNumber ?? 1;

/**
 * White space before the XML declaration (a file pasted into JSON with a leading new line) is not
 * XML; the declaration then goes instead (the text is already decoded), keeping the lines' numbers.
 */
function withoutLateDeclaration(xml: string): string {
  return xml.replace(/^(\s+)<\?xml[^>]*\?>/, '$1');
}
