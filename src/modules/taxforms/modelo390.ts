import type { AppContext } from '../../app-context.ts';
import { dbBoolean } from '../../db/row-codec.ts';
import { textOf } from '../../models/record-rules.ts';
import { fillTaxRowsOnce } from './fill-tax-rows.ts';
import { boxes303, sideSums } from './modelo303.ts';
import { vatSettlementModel } from './settlement-model.ts';
import { taxYearOf, type TaxPeriod } from './tax-period.ts';

type Row = Record<string, unknown>;

/**
 * The annual VAT summary (Modelo 390; ../shared/reference/tax-forms.md section 5): the year's
 * 303 boxes summed (the same two aggregates over the whole year, so its boxes are the sum of the
 * year's returns box by box) under the 390's numbers, the per-rate detail the 303 does not carry
 * (intra-EU acquisitions, deductions), the year's settled results, and the volume of operations.
 */

/** 390 box -> the 303 box it sums (reference section 5). */
const FROM_303: Record<string, string> = {
  '01': '01', '02': '03', '03': '04', '04': '06', '05': '07', '06': '09', 700: '150', 701: '152', 702: '153', 703: '155',
  27: '12', 28: '13', 29: '14', 30: '15', 35: '168', 36: '170', 599: '19', 600: '21', 601: '22', 602: '24', 41: '156', 42: '158', 43: '25', 44: '26',
  47: '27', 48: '28', 49: '29', 50: '30', 51: '31', 52: '32', 53: '33', 54: '34', 55: '35', 58: '38', 59: '39', 639: '40', 62: '41',
  60: '42', 61: '42', 63: '43', 522: '44', 64: '45', 65: '46', 103: '59', 104: '60', 110: '120',
};

const cents = (value: unknown) => Math.round(Number(value ?? 0) * 100);

/** The intra-EU acquisitions by kind (goods, services) and rate, in cents: what 390's 21-26, 545-554, 56/57 and 597/598 detail. */
function acquisitionsByRate(purchases: readonly Row[]): Array<{ tipo: 'bienes' | 'servicios'; iva: number; base: number; cuota: number }> {
  const detail = new Map<string, { tipo: 'bienes' | 'servicios'; iva: number; base: number; cuota: number }>();
  for (const row of purchases) {
    if (!dbBoolean(row.autoliquidada) || dbBoolean(row.rect) || !['intracomunitaria', 'intracom-servicios'].includes(textOf(row.operacion))) continue;
    const tipo = textOf(row.operacion) === 'intracomunitaria' ? 'bienes' : 'servicios';
    const key = `${tipo}|${Number(row.iva)}`;
    const found = detail.get(key) ?? { tipo, iva: Number(row.iva), base: 0, cuota: 0 };
    found.base += cents(row.base);
    found.cuota += cents(row.cuota);
    detail.set(key, found);
  }
  return [...detail.values()].sort((a, b) => a.tipo.localeCompare(b.tipo) || a.iva - b.iva);
}

/** `GET /api/3/modelo390?codejercicio=` (and `idempresa`). */
export async function modelo390(ctx: AppContext, query: Record<string, unknown>): Promise<Row> {
  const exercise = await taxYearOf(ctx, query);
  const year: TaxPeriod = { ...exercise, periodo: '', desde: `${exercise.year}-01-01`, hasta: `${exercise.year}-12-31` };
  const db = ctx.database.kysely;
  await fillTaxRowsOnce(ctx, year.idempresa);
  const [sales, purchases, settled, previousYear] = await Promise.all([
    sideSums(db, 'sales', year), sideSums(db, 'purchase', year),
    db.selectFrom(vatSettlementModel.table).select(['periodo', 'hasta', 'resultado', 'acompensar', 'casillas']).where('idempresa', '=', year.idempresa).where('anio', '=', year.year).orderBy('hasta').execute(),
    db.selectFrom(vatSettlementModel.table).select('acompensar').where('idempresa', '=', year.idempresa).where('anio', '=', year.year - 1).orderBy('hasta', 'desc').limit(1).executeTakeFirst(),
  ]);
  const { casillas: year303 } = boxes303(sales, purchases, 0);
  const box: Record<string, number> = {};
  for (const [target, source] of Object.entries(FROM_303)) box[target] = cents(year303[source]);
  // 60/61 are the farmers' compensations' base and amount: 303 has only the amount (42).
  box['60'] = 0;
  const acquisitions = acquisitionsByRate(purchases);
  const goods = acquisitions.filter((row) => row.tipo === 'bienes');
  const services = acquisitions.filter((row) => row.tipo === 'servicios');
  for (const [rate, [baseBox, quotaBox]] of [[4, ['21', '22']], [10, ['23', '24']], [21, ['25', '26']]] as const) {
    const row = goods.find((candidate) => candidate.iva === rate);
    box[baseBox] = row?.base ?? 0;
    box[quotaBox] = row?.cuota ?? 0;
  }
  box['56'] = goods.reduce((sum, row) => sum + row.base, 0);
  box['57'] = goods.reduce((sum, row) => sum + row.cuota, 0);
  box['597'] = services.reduce((sum, row) => sum + row.base, 0);
  box['598'] = services.reduce((sum, row) => sum + row.cuota, 0);
  box['33'] = ['01', '03', '05', '700', '702', '27', '29'].reduce((sum, name) => sum + box[name]!, 0) + cents(year303['10']);
  box['34'] = ['02', '04', '06', '701', '703', '28', '30'].reduce((sum, name) => sum + box[name]!, 0) + cents(year303['11']);
  box['84'] = box['65']!;
  // The year's settled returns: what they applied of the previous year's carry-forward (85; what
  // one quarter carries to another of the same year is already netted in 65), paid (95), left to
  // carry at the year's end from its last period (97) and from earlier periods of the year (662).
  const results = settled.map((row) => ({ periodo: textOf(row.periodo), resultado: cents(row.resultado), acompensar: cents(row.acompensar), applied: cents((typeof row.casillas === 'string' ? JSON.parse(row.casillas) : (row.casillas ?? {}) as Row)['78']) }));
  const carriedIn = cents(previousYear?.acompensar);
  box['85'] = Math.min(carriedIn, results.reduce((sum, row) => sum + row.applied, 0));
  box['86'] = box['84']! - box['85']!;
  box['95'] = results.filter((row) => row.resultado > 0).reduce((sum, row) => sum + row.resultado, 0);
  const last = results.at(-1);
  box['97'] = last && last.resultado < 0 ? -last.resultado : 0;
  box['98'] = 0;
  box['662'] = last ? Math.max(0, last.acompensar - box['97']! - (carriedIn - box['85']!)) : 0;
  // Sales only: 14 also holds the credit notes of self-assessed purchases.
  const salesOnly = boxes303(sales, [], 0).casillas;
  box['99'] = ['01', '03', '05', '700', '702'].reduce((sum, name) => sum + box[name]!, 0) + cents(salesOnly['14']) + cents(salesOnly['122']);
  box['105'] = 0;
  box['108'] = box['99']! + box['103']! + box['104']! + box['105']! + box['110']!;
  const casillas = Object.fromEntries(Object.entries(box).sort(([a], [b]) => Number(a) - Number(b) || a.localeCompare(b)).map(([name, value]) => [name, value / 100]));
  return {
    modelo: '390', codejercicio: year.codejercicio, idempresa: year.idempresa, casillas,
    adquisicionesintracomunitarias: acquisitions.map((row) => ({ ...row, base: row.base / 100, cuota: row.cuota / 100 })),
    liquidaciones: results.map((row) => ({ periodo: row.periodo, resultado: row.resultado / 100, acompensar: row.acompensar / 100 })),
  };
}
