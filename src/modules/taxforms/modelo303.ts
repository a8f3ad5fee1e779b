import { sql } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { dbBoolean } from '../../db/row-codec.ts';
import { textOf } from '../../models/record-rules.ts';
import { invoiceTaxModel } from './tax-line-model.ts';
import { vatDateSql } from './vat-date.ts';
import type { TaxPeriod } from './tax-period.ts';

/**
 * The quarterly (or monthly) VAT return, Modelo 303 (docs/tax-forms.md; ../shared/reference/
 * tax-forms.md section 1): every box of pages 1 and 3, from two SQL aggregates of the period's
 * invoices' tax rows (one per side) whatever their number, amounts summed in cents.
 */

type Row = Record<string, unknown>;

/** Page 1 and page 3 boxes, in the agency's order. */
export const BOXES_303 = [
  '150', '151', '152', '165', '166', '167', '01', '02', '03', '153', '154', '155', '04', '05', '06', '07', '08', '09',
  '10', '11', '12', '13', '14', '15', '156', '157', '158', '168', '169', '170', '16', '17', '18', '19', '20', '21', '22', '23', '24', '25', '26', '27',
  '28', '29', '30', '31', '32', '33', '34', '35', '36', '37', '38', '39', '40', '41', '42', '43', '44', '45', '46',
  '59', '60', '120', '122', '123', '124', '62', '63', '74', '75', '76', '64', '65', '66', '77', '110', '78', '87', '68', '108', '69', '70', '109', '112', '71', '111',
] as const;

/** VAT rate -> its base, rate and quota boxes (7.5 % and 5 % share a row; so do the surcharges of 2024). */
const VAT_ROWS: Record<string, [string, string, string]> = {
  '0': ['150', '151', '152'], '2': ['165', '166', '167'], '4': ['01', '02', '03'], '5': ['153', '154', '155'], '7.5': ['153', '154', '155'],
  '10': ['04', '05', '06'], '21': ['07', '08', '09'],
};
const SURCHARGE_ROWS: Record<string, [string, string, string]> = {
  '1.75': ['156', '157', '158'], '0.5': ['168', '169', '170'], '0.26': ['168', '169', '170'], '0': ['16', '17', '18'], '0.62': ['16', '17', '18'], '1': ['16', '17', '18'],
  '1.4': ['19', '20', '21'], '5.2': ['22', '23', '24'],
};
/** The rate each rate box shows (the record design's fixed values from 2025 on). */
const RATE_BOXES: Record<string, number> = { '151': 0, '166': 0, '02': 4, '154': 0, '05': 10, '08': 21, '157': 1.75, '169': 0.5, '17': 0, '20': 1.4, '23': 5.2, '65': 100 };
const INTRA_EU = new Set(['intracomunitaria', 'intracom-servicios']);
const REVERSE_CHARGE = 'inv-sujeto-pasivo';

/** A warning of the return: something in the books that no box takes (an unknown rate, imports). */
export interface Warning303 {
  motivo: 'rate-without-box' | 'surcharge-without-box' | 'imports-not-covered';
  lado: 'ventas' | 'compras';
  iva?: number;
  recargo?: number;
  base: number;
}

export interface Modelo303 {
  modelo: '303';
  codejercicio: string;
  periodo: string;
  idempresa: number;
  desde: string;
  hasta: string;
  casillas: Record<string, number>;
  tipodeclaracion: 'I' | 'C' | 'N';
  avisos: Warning303[];
}

/** The grouped tax rows of one side in the period (`period` dates as the reference says: accrual for sales, reception for purchases). */
export function sideSums(db: DbExecutor, side: 'sales' | 'purchase', period: TaxPeriod) {
  const [table, column, date] = side === 'sales'
    ? ['facturascli', 't.idfacturacli', vatDateSql('sales')]
    : ['facturasprov', 't.idfacturaprov', vatDateSql('purchase')];
  // A credit note: a refund of an invoice, or an invoice of negative total (a supplier's credit note is recorded so).
  const rectified = sql<number>`CASE WHEN f.idfacturarect IS NOT NULL OR f.total < 0 THEN 1 ELSE 0 END`;
  const abroad = sql<number>`CASE WHEN f.codpais IS NULL OR f.codpais = 'ESP' THEN 0 ELSE 1 END`;
  const operation = sql<string>`COALESCE(f.operacion, '')`;
  return db.selectFrom(`${invoiceTaxModel.table} as t`).innerJoin(`${table} as f`, 'f.idfactura', column as never)
    .select([
      operation.as('operacion'), rectified.as('rect'), abroad.as('abroad'), 't.iva', 't.recargo', 't.autoliquidada',
      sql<number>`SUM(t.base)`.as('base'), sql<number>`SUM(t.cuota)`.as('cuota'), sql<number>`SUM(t.cuotarecargo)`.as('cuotarecargo'),
    ])
    .where('f.idempresa', '=', period.idempresa).where(date, '>=', period.desde).where(date, '<=', period.hasta)
    .groupBy([operation, rectified, abroad, 't.iva', 't.recargo', 't.autoliquidada'])
    .execute();
}

const cents = (value: unknown) => Math.round(Number(value ?? 0) * 100);
const rateKey = (rate: unknown) => String(Number(rate));

/**
 * The return of `period`, in cents per box: output VAT per rate and surcharge, intra-EU
 * acquisitions and reverse charge self-assessed on both sides, credit notes in 14/15 and 40/41
 * (never in the rate boxes), deductible input VAT, the informative boxes and the result with the
 * quotas carried from earlier periods (`carried`, box 110, in cents).
 */
export function boxes303(sales: readonly Row[], purchases: readonly Row[], carried: number): { casillas: Record<string, number>; avisos: Warning303[] } {
  const box = Object.fromEntries(BOXES_303.map((name) => [name, 0])) as Record<string, number>;
  const add = (name: string, value: number) => { box[name]! += value; };
  const avisos: Warning303[] = [];
  for (const row of sales) {
    const base = cents(row.base);
    const cuota = cents(row.cuota);
    const operacion = textOf(row.operacion);
    if (INTRA_EU.has(operacion)) add('59', base);
    else if (operacion === 'exportacion') add('60', base);
    else if (operacion === REVERSE_CHARGE) add('122', base);
    else if (Number(row.iva) === 0 && cuota === 0) {
      // Not subject by the place of supply (a service to a business abroad) or exempt at home: 120,
      // or no box; its credit notes the same (no VAT was modified).
      if (dbBoolean(row.abroad)) add('120', base);
    } else if (dbBoolean(row.rect)) {
      add('14', base);
      add('15', cuota);
    } else {
      const boxes = VAT_ROWS[rateKey(row.iva)];
      if (boxes) {
        add(boxes[0], base);
        add(boxes[2], cuota);
      } else avisos.push({ motivo: 'rate-without-box', lado: 'ventas', iva: Number(row.iva), base: base / 100 });
    }
    if (Number(row.recargo) !== 0 || cents(row.cuotarecargo) !== 0) {
      if (dbBoolean(row.rect)) {
        add('25', base);
        add('26', cents(row.cuotarecargo));
      } else {
        const boxes = SURCHARGE_ROWS[rateKey(row.recargo)];
        if (boxes) {
          add(boxes[0], base);
          add(boxes[2], cents(row.cuotarecargo));
        } else avisos.push({ motivo: 'surcharge-without-box', lado: 'ventas', recargo: Number(row.recargo), base: base / 100 });
      }
    }
  }
  for (const row of purchases) {
    const base = cents(row.base);
    const cuota = cents(row.cuota);
    const operacion = textOf(row.operacion);
    if (dbBoolean(row.autoliquidada)) {
      // Self-assessed: output VAT on page 1 and the same VAT deducted.
      const [output, input] = dbBoolean(row.rect) ? [['14', '15'], ['40', '41']] : INTRA_EU.has(operacion) ? [['10', '11'], ['36', '37']] : [['12', '13'], ['28', '29']];
      add(output[0]!, base);
      add(output[1]!, cuota);
      add(input[0]!, base);
      add(input[1]!, cuota);
    } else if (operacion === 'importacion') {
      if (base !== 0) avisos.push({ motivo: 'imports-not-covered', lado: 'compras', base: base / 100 });
    } else if (cuota === 0) {
      // No deductible VAT (exempt, 0 %): in no box, nor its credit notes.
    } else if (dbBoolean(row.rect)) {
      add('40', base);
      add('41', cuota);
    } else {
      add('28', base);
      add('29', cuota);
    }
  }
  const sum = (...names: string[]) => names.reduce((total, name) => total + box[name]!, 0);
  box['27'] = sum('152', '167', '03', '155', '06', '09', '11', '13', '15', '158', '170', '18', '21', '24', '26');
  box['45'] = sum('29', '31', '33', '35', '37', '39', '41', '42', '43', '44');
  box['46'] = box['27']! - box['45']!;
  box['64'] = box['46']! + box['76']!;
  box['66'] = box['64']!;
  box['110'] = carried;
  // Quotas carried from earlier periods offset a positive result only, never beyond it.
  box['78'] = Math.min(carried, Math.max(0, box['66']! + box['77']!));
  box['87'] = carried - box['78']!;
  box['69'] = box['66']! + box['77']! - box['78']! + box['68']! + box['108']!;
  box['71'] = box['69']! - box['70']! + box['109']! - box['112']!;
  const casillas = Object.fromEntries(BOXES_303.map((name) => [name, name in RATE_BOXES ? RATE_BOXES[name]! : box[name]! / 100]));
  return { casillas, avisos };
}

/**
 * The 303 of a period: its two aggregates, then the boxes. `carried` is box 110 in cents (the
 * previous settlement's carry-forward). The caller has filled the period's missing tax rows first.
 */
export async function modelo303(ctx: AppContext, period: TaxPeriod, carried = 0, db: DbExecutor = ctx.database.kysely): Promise<Modelo303> {
  const [sales, purchases] = await Promise.all([sideSums(db, 'sales', period), sideSums(db, 'purchase', period)]);
  const { casillas, avisos } = boxes303(sales, purchases, carried);
  const result = casillas['71']!;
  return {
    modelo: '303', codejercicio: period.codejercicio, periodo: period.periodo, idempresa: period.idempresa, desde: period.desde, hasta: period.hasta,
    casillas, tipodeclaracion: result > 0 ? 'I' : result < 0 ? 'C' : 'N', avisos,
  };
}
