import { mod97 } from '../../models/record-rules.ts';
import { isCreditorIdentifier } from './creditor-id.ts';
import {
  counterpartyIsCreditor, euros, givenId, isoDate, joinText, StatementError, type StatementAccount, type StatementMovement, type StatementProblem,
} from './statement-file.ts';

/**
 * AEB Norma 43 (Cuaderno 43) statement files, read by the record layouts of
 * ../shared/reference/sepa.md ("AEB Cuaderno 43") sections 4-9, with the tolerances real files
 * need (sections 2 and 5): CRLF or LF, lines cut short, latin-1 / code page 850 / UTF-8, an 88 count
 * that includes itself, zero balances on both sides (no balance check), anything in the free
 * positions and in Reference 1. Amounts are summed as integer cents: every sum that can pass the
 * checks stays below the 14-digit fields' 10^14, well inside exact integer arithmetic.
 */

/** The numeric ISO 4217 codes the booklet lists (section 6); any other stays as written. */
const CURRENCIES: Record<string, string | undefined> = {
  '036': 'AUD', '124': 'CAD', '208': 'DKK', '392': 'JPY', '554': 'NZD', '578': 'NOK', '752': 'SEK', '756': 'CHF', '826': 'GBP', '840': 'USD', '978': 'EUR',
};

/** Bytes 0x80..0xFF of code page 850, the booklet's recommended one (0xA5 is Ñ). */
const CP850 = 'ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜø£Ø×ƒáíóúñÑªº¿®¬½¼¡«»░▒▓│┤ÁÂÀ©╣║╗╝¢¥┐└┴┬├─┼ãÃ╚╔╩╦╠═╬¤ðÐÊËÈıÍÎÏ┘┌█▄¦Ì▀ÓßÔÒõÕµþÞÚÛÙýÝ¯´\u00ad±‗¾¶§÷¸°¨·¹³²■\u00a0';
const SPANISH_LETTERS = /[ÑñÁÉÍÓÚÜáéíóúüÇçªº]/g;
const UTF8 = new TextDecoder('utf-8', { fatal: true });
const CCC_WEIGHTS = [1, 2, 4, 8, 5, 10, 9, 7, 3, 6];

/** A 22 record read, with the 23 records that complement it. */
interface Entry {
  fields: Omit<StatementMovement, keyof Complement>;
  /** Signed cents. */
  cents: number;
  debit: boolean;
  complements: string[];
}

/** What a movement's 23 records say (section 8). */
type Complement = Pick<StatementMovement, 'texto' | 'endtoend' | 'mandato' | 'acreedor' | 'contraparte' | 'ibancontraparte'>;

/** An account between its 11 and its 33 records. */
interface OpenAccount {
  /** Bank, branch and account number as the 11 gives them (positions 3-20), which its 33 repeats. */
  key: string;
  iban: string;
  /** Information mode 1-3 (position 51): only mode 3 has the SEPA layouts of the 23 records. */
  mode: string;
  divisa: string;
  desde: string;
  hasta: string;
  /** Signed cents. */
  opening: number;
  linea: number;
  entries: Entry[];
}

/** The accounts of a Norma 43 file, each checked against its 33 trailer and the file against its 88. */
export function parseNorma43(content: Buffer | string): StatementAccount[] {
  const lines = (typeof content === 'string' ? content.replace(/^\uFEFF/, '') : decode(content)).split(/\r\n|\r|\n/);
  const accounts: StatementAccount[] = [];
  let open: OpenAccount | null = null;
  let records = 0;
  let ended = false;
  let last = 0;
  for (const [index, text] of lines.entries()) {
    if (!text.trim()) continue;
    const linea = index + 1;
    const line = text.padEnd(80);
    const outOfSequence = () => new StatementError(linea, 'out-of-sequence', open?.iban ?? null);
    last = linea;
    if (ended) throw outOfSequence();
    switch (line.slice(0, 2)) {
      case '11':
        if (open) throw outOfSequence();
        open = header(line, linea);
        break;
      case '22':
        if (!open) throw outOfSequence();
        open.entries.push(movement(line, linea, open.iban));
        break;
      case '23':
      case '24': {
        const entry = open?.entries.at(-1);
        if (!entry) throw outOfSequence();
        // A 24 (the amount in another currency) has no accounting effect.
        if (line.startsWith('23')) entry.complements.push(line);
        break;
      }
      case '33':
        if (!open) throw outOfSequence();
        accounts.push(trailer(open, line, linea));
        open = null;
        break;
      case '88':
        if (open) throw outOfSequence();
        if (!/^\d{6}$/.test(line.slice(20, 26)) || ![records, records + 1].includes(Number(line.slice(20, 26)))) throw new StatementError(linea, 'record-count');
        ended = true;
        break;
      default:
        throw new StatementError(linea, 'unknown-record', open?.iban ?? null);
    }
    records++;
  }
  if (!records) throw new StatementError(1, 'empty');
  if (!ended) throw new StatementError(last + 1, 'truncated', open?.iban ?? null);
  return accounts;
}

/**
 * The IBAN of a Spanish account given as bank, branch and account number (section 9): the two
 * check digits of the old CCC (the file leaves them out), then ISO 7064 MOD 97-10 over the CCC and
 * `ES00`.
 */
export function spanishIban(bank: string, branch: string, account: string): string {
  const ccc = `${bank}${branch}${cccDigit(`00${bank}${branch}`)}${cccDigit(account)}${account}`;
  return `ES${String(98 - mod97(`${ccc}ES00`)).padStart(2, '0')}${ccc}`;
}

function cccDigit(tenDigits: string): number {
  const digit = 11 - ([...tenDigits].reduce((sum, char, index) => sum + Number(char) * CCC_WEIGHTS[index], 0) % 11);
  return digit === 11 ? 0 : digit === 10 ? 1 : digit;
}

/**
 * The file's text (section 2): UTF-8 when the bytes are valid UTF-8 holding non-ASCII; otherwise
 * single-byte, ISO-8859-1 or code page 850, whichever reads more Spanish letters (ISO-8859-1 on a
 * tie: the same bytes are letters in both for a few of them).
 */
function decode(bytes: Buffer): string {
  if (!bytes.some((byte) => byte > 0x7f)) return bytes.toString('latin1');
  const utf8 = validUtf8(bytes);
  if (utf8 !== null) return utf8;
  const latin1 = bytes.toString('latin1');
  const cp850 = Array.from(bytes, (byte) => (byte < 0x80 ? String.fromCharCode(byte) : CP850[byte - 0x80])).join('');
  return (cp850.match(SPANISH_LETTERS)?.length ?? 0) > (latin1.match(SPANISH_LETTERS)?.length ?? 0) ? cp850 : latin1;
}

function validUtf8(bytes: Buffer): string | null {
  try {
    return UTF8.decode(bytes);
  } catch {
    return null;
  }
}

/** Readers of one record's numeric fields, refusing at its line. */
function fieldsAt(linea: number, cuenta: string | null) {
  const fail = (motivo: StatementProblem) => new StatementError(linea, motivo, cuenta);
  const digits = (field: string): number => {
    if (!/^\d+$/.test(field)) throw fail('invalid-amount');
    return Number(field);
  };
  return {
    digits,
    /** YYMMDD as 20YY-MM-DD (section 6). */
    date(field: string): string {
      const date = /^\d{6}$/.test(field) ? isoDate(2000 + Number(field.slice(0, 2)), Number(field.slice(2, 4)), Number(field.slice(4))) : null;
      if (!date) throw fail('invalid-date');
      return date;
    },
    /** Cents signed by their key (section 5): 1 a debit, negative; 2 a credit. */
    signed(key: string, field: string): number {
      if (key !== '1' && key !== '2') throw fail('invalid-amount');
      return key === '1' ? -digits(field) : digits(field);
    },
  };
}

function header(line: string, linea: number): OpenAccount {
  const [bank, branch, account] = [line.slice(2, 6), line.slice(6, 10), line.slice(10, 20)];
  if (!/^\d{18}$/.test(bank + branch + account)) throw new StatementError(linea, 'invalid-account');
  const iban = spanishIban(bank, branch, account);
  const field = fieldsAt(linea, iban);
  const code = line.slice(47, 50);
  return {
    key: line.slice(2, 20), iban, mode: line.slice(50, 51), divisa: CURRENCIES[code] ?? code.trim(),
    desde: field.date(line.slice(20, 26)), hasta: field.date(line.slice(26, 32)),
    opening: field.signed(line.slice(32, 33), line.slice(33, 47)), linea, entries: [],
  };
}

function movement(line: string, linea: number, iban: string): Entry {
  const field = fieldsAt(linea, iban);
  const cents = field.signed(line.slice(27, 28), line.slice(28, 42));
  return {
    cents, debit: line[27] === '1', complements: [],
    fields: {
      fecha: field.date(line.slice(10, 16)), fechavalor: field.date(line.slice(16, 22)), importe: euros(cents),
      concepto: line.slice(22, 24).trim(), conceptopropio: line.slice(24, 27).trim(),
      documento: line.slice(42, 52).trim(), referencia1: line.slice(52, 64).trim(), referencia2: line.slice(64, 80).trim(),
      referenciabanco: null, linea,
    },
  };
}

/** The account closed by its 33: the same account, the 22s' counts and sums, the balance equation. */
function trailer(open: OpenAccount, line: string, linea: number): StatementAccount {
  if (line.slice(2, 20) !== open.key) throw new StatementError(linea, 'account-mismatch', open.iban);
  const field = fieldsAt(linea, open.iban);
  const declared = [field.digits(line.slice(20, 25)), field.digits(line.slice(25, 39)), field.digits(line.slice(39, 44)), field.digits(line.slice(44, 58))];
  const closing = field.signed(line.slice(58, 59), line.slice(59, 73));
  const debits = open.entries.filter((entry) => entry.debit);
  const credits = open.entries.filter((entry) => !entry.debit);
  const sum = (entries: Entry[]) => entries.reduce((total, entry) => total + Math.abs(entry.cents), 0);
  const counted = [debits.length, sum(debits), credits.length, sum(credits)];
  if (counted.some((value, index) => value !== declared[index])) throw new StatementError(linea, 'totals-mismatch', open.iban);
  if ((open.opening !== 0 || closing !== 0) && open.opening + sum(credits) - sum(debits) !== closing) throw new StatementError(linea, 'balance-mismatch', open.iban);
  return {
    iban: open.iban, divisa: open.divisa, desde: open.desde, hasta: open.hasta,
    saldoinicial: euros(open.opening), saldofinal: euros(closing), linea: open.linea,
    movimientos: open.entries.map((entry) => ({ ...entry.fields, ...complement(entry, open.mode) })),
  };
}

/**
 * What a movement's 23 records add (section 8): all their text (positions 5-80); a SEPA direct
 * debit set (a 2302 opening with a valid creditor identifier: free text never does) gives the
 * creditor identifier and mandate (2302), the end-to-end id (2305) and the other party, the
 * creditor (2301) or the debtor (2305); in mode 3 an incoming transfer (concept 04) names its
 * originator in its 2301.
 */
function complement(entry: Entry, mode: string): Complement {
  const texto = joinText(entry.complements.map((line) => line.slice(4, 80)));
  const record = (code: string) => entry.complements.find((line) => line.slice(2, 4) === code) ?? ''.padEnd(80);
  const nameIn = (field: string) => joinText([field]) || null;
  const creditorId = record('02').slice(4, 39).trim();
  if (isCreditorIdentifier(creditorId)) {
    const endToEnd = givenId(record('05').slice(4, 39));
    const creditorSide = counterpartyIsCreditor(entry.debit, entry.fields.concepto);
    return {
      texto, endtoend: endToEnd ? [endToEnd] : [], mandato: givenId(record('02').slice(39, 74)), acreedor: creditorId,
      contraparte: nameIn(creditorSide ? record('01').slice(8, 78) : record('05').slice(39, 80)), ibancontraparte: null,
    };
  }
  const transferIn = mode === '3' && entry.fields.concepto === '04' && !entry.debit;
  return { texto, endtoend: [], mandato: null, acreedor: null, contraparte: transferIn ? nameIn(record('01').slice(4, 70)) : null, ibancontraparte: null };
}
