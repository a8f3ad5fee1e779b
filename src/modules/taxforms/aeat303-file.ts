import { spanishTaxId } from '../fiscal/index.ts';
import type { Modelo303 } from './modelo303.ts';
import { monthsOf } from './tax-period.ts';

/**
 * The 303 as the agency's presentation file (record design DR303; ../shared/reference/
 * tax-forms.md section 2): the envelope, page 01 (identification and general regime, 1,581
 * characters) and page 03 (additional information and result, 1,017), ISO-8859-1, fixed width.
 * Two designs: 2024/2025's, and 2026's (its first period: 2T 2026 or February 2026, as the
 * agency's notice says), which adds a flag on page 01 and box 112 and re-orders the fields.
 * Pure: the caller has the return and the company.
 */

/** What the design cannot hold, by the reason the API answers (`formato`): a tax id, a negative unsigned box, a period. */
export class FileRefusal extends RangeError {
  readonly reason: 'invalid-tax-id' | 'negative-box' | 'invalid-period';
  constructor(reason: FileRefusal['reason'], message: string) {
    super(message);
    this.reason = reason;
  }
}

export interface Declarant {
  nif: string;
  nombre: string;
}

type Field = ['box', string] | ['rate', string] | ['text', string, number] | ['fixed', string];

/** Page 01 boxes in each design's order, from position 130 (2024/2025) or 131 (2026, after its new flag). */
const PAGE1_2024: string[] = ['150', '151', '152', '01', '02', '03', '153', '154', '155', '04', '05', '06', '07', '08', '09', '10', '11', '12', '13', '14', '15',
  '156', '157', '158', '16', '17', '18', '19', '20', '21', '22', '23', '24', '25', '26', '27',
  '28', '29', '30', '31', '32', '33', '34', '35', '36', '37', '38', '39', '40', '41', '42', '43', '44', '45', '46', '165', '166', '167', '168', '169', '170'];
const PAGE1_2026: string[] = ['150', '151', '152', '165', '166', '167', '01', '02', '03', '153', '154', '155', '04', '05', '06', '07', '08', '09', '10', '11', '12', '13', '14', '15',
  '156', '157', '158', '168', '169', '170', '16', '17', '18', '19', '20', '21', '22', '23', '24', '25', '26', '27',
  '28', '29', '30', '31', '32', '33', '34', '35', '36', '37', '38', '39', '40', '41', '42', '43', '44', '45', '46'];
/** The rate fields (5 characters, 3 + 2 digits); every other box is an amount of 17. */
const RATES = new Set(['151', '166', '02', '154', '05', '08', '157', '169', '17', '20', '23', '65']);
/** Amount fields that may be negative (an `N` in their first position); the others are unsigned. */
const SIGNED = new Set(['14', '15', '25', '26', '27', '40', '41', '42', '43', '44', '45', '46',
  '59', '60', '120', '122', '123', '124', '62', '63', '74', '75', '76', '64', '66', '68', '69', '71', '108', '112']);

/** Whether a period is filed in the 2026 design (from 2T 2026 and February 2026). */
export function uses2026Design(year: number, periodo: string): boolean {
  if (year !== 2026) return year > 2026;
  return periodo.endsWith('T') ? Number(periodo[0]) >= 2 : Number(periodo) >= 2;
}

/** Letters, digits and blanks, upper case, accents dropped (Ñ kept: the file is ISO-8859-1). */
function alnum(text: string, width: number): string {
  const plain = text.toUpperCase().replace(/Ñ/g, '\u0000').normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/\u0000/g, 'Ñ')
    .replace(/[^A-Z0-9Ñ ]+/g, ' ').replace(/\s+/g, ' ').trim();
  return plain.slice(0, width).padEnd(width, ' ');
}

/** A Spanish tax id as the design wants it: a valid NIF, separators and an `ES` prefix dropped (fiscal's spanishTaxId); anything else refused. */
export function taxId(nif: string): string {
  const id = spanishTaxId(nif);
  if (!id) throw new FileRefusal('invalid-tax-id', `the company's tax id "${nif}" is not a valid Spanish NIF`);
  return id;
}

/** An amount in cents as 17 characters (15 + 2 digits): negative ones `N` and 16 digits, where the field allows a sign. */
function amount(box: string, value: number): string {
  const cents = Math.round(value * 100);
  if (cents < 0 && !SIGNED.has(box)) throw new FileRefusal('negative-box', `box ${box} cannot be negative in the agency's file (${value})`);
  const digits = String(Math.abs(cents));
  return cents < 0 ? `N${digits.padStart(16, '0')}` : digits.padStart(17, '0');
}

const rate = (value: number) => String(Math.round(value * 100)).padStart(5, '0');

function render(fields: Field[], casillas: Record<string, number>): string {
  return fields.map((field) => {
    if (field[0] === 'box') return amount(field[1], casillas[field[1]] ?? 0);
    if (field[0] === 'rate') return rate(casillas[field[1]] ?? 0);
    if (field[0] === 'text') return alnum(field[1], field[2]);
    return field[1];
  }).join('');
}

const boxes = (names: string[]): Field[] => names.map((name) => [RATES.has(name) ? 'rate' : 'box', name]);
const blanks = (width: number): Field => ['fixed', ' '.repeat(width)];

function page01(form: Modelo303, who: Declarant, year: number, design2026: boolean): string {
  const last = form.periodo === '4T' || form.periodo === '12';
  const fields: Field[] = [
    ['fixed', '<T30301000>'], blanks(1), ['fixed', form.tipodeclaracion], ['fixed', taxId(who.nif)], ['text', who.nombre, 80], ['fixed', String(year)], ['fixed', form.periodo],
    // Identification flags: not foral, not REDEME, general regime only ("3"), no joint return, no cash
    // accounting (own or received), no special pro-rata, no revocation, no insolvency; its date and
    // moment blank; not in SII; the 390 and operations-volume flags "0" outside the last period.
    ['fixed', '223222222'], blanks(8), blanks(1), ['fixed', '2'], ['fixed', last ? '2' : '0'], ['fixed', last ? '1' : '0'],
    ...(design2026 ? [['fixed', '0'] as Field] : []),
    ...boxes(design2026 ? PAGE1_2026 : PAGE1_2024),
    blanks(design2026 ? 521 : 522), blanks(13), ['fixed', '</T30301000>'],
  ];
  return render(fields, form.casillas);
}

function page03(form: Modelo303, design2026: boolean): string {
  const c = form.casillas;
  // Without activity: no VAT accrued or borne (what earlier periods carry does not count).
  const inactive = Object.entries(c).every(([name, value]) => RATES.has(name) || ['110', '78', '87'].includes(name) || value === 0) ? 'X' : ' ';
  const common: Field[] = [['fixed', '<T30303000>'], ...boxes(['59', '60', '120', '122', '123', '124', '62', '63', '74', '75', '76', '64', '65', '66', '77', '110', '78', '87', '68'])];
  const tail: Field[] = design2026
    ? [...boxes(['108', '69', '70', '109', '112', '71']), ['fixed', inactive], blanks(1), blanks(13), blanks(1), ...boxes(['111']), blanks(1), blanks(1), blanks(546)]
    : [...boxes(['69', '70', '109', '71']), ['fixed', inactive], blanks(1), blanks(13), blanks(1), ...boxes(['108', '111']), blanks(120), blanks(1), blanks(1), blanks(443)];
  return render([...common, ...tail, ['fixed', '</T30303000>']], c);
}

/**
 * The presentation file of a return: `<T3030{year}{period}0000>`, the `<AUX>` block (software
 * version, developer's tax id), page 01, page 03 and the closing tag. Throws a `FileRefusal` for
 * what the design cannot hold (an unsigned box that is negative, a tax id that is not a NIF).
 */
export function aeat303File(form: Modelo303, who: Declarant, year: number, software: { version: string; nif: string }): string {
  if (!monthsOf(form.periodo)) throw new FileRefusal('invalid-period', `no period ${form.periodo}`);
  const design2026 = uses2026Design(year, form.periodo);
  const head = `<T3030${year}${form.periodo}0000>`;
  const aux = `<AUX>${' '.repeat(70)}${software.version.slice(0, 4).padEnd(4, ' ')}${' '.repeat(4)}${taxId(software.nif)}${' '.repeat(213)}</AUX>`;
  return `${head}${aux}${page01(form, who, year, design2026)}${page03(form, design2026)}</T3030${year}${form.periodo}0000>`;
}
