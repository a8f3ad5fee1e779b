import { sql } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { rowReader } from '../../db/row-codec.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError, validationError } from '../../errors.ts';
import { chartLock, entryRefusal, regularizacionImpuestoModel, removeEntries, writeEntry, type NewEntryLine } from '../accounting/index.ts';
import { fillTaxRowsOnce } from './fill-tax-rows.ts';
import { modelo303, type Modelo303 } from './modelo303.ts';
import { vatSettlementModel } from './settlement-model.ts';
import { daysOf, previousPeriod, taxPeriodOf, type TaxPeriod } from './tax-period.ts';

type Row = Record<string, unknown>;

/** The VAT accounts a settlement clears: output (repercutido) and input (soportado), by the chart's special codes. */
const VAT_ACCOUNTS = ['IVAREP', 'IVARRE', 'IVARUE', 'IVARXP', 'IVAREX', 'IVAEUE', 'IVASOP', 'IVASUE', 'IVASIM', 'IVASEX'];

const cents = (value: unknown) => Math.round(Number(value ?? 0) * 100);

/**
 * Settlements and their undoing of one company take turns on its row, locked (period-lock.ts):
 * invoices being written for the company (their inserts share that row through their foreign key,
 * their changes share it before their checks) finish first, so the return counts them, and those
 * that come after find the period locked. The year's entry counter is taken before it, in the
 * order a new invoice takes both (its entry's counter, then its insert): the two never wait for
 * each other in a circle.
 */
async function lockCompany(ctx: AppContext, trx: DbExecutor, idempresa: number, codejercicio: string): Promise<void> {
  await chartLock(trx, ctx.database.dialect, codejercicio);
  await ctx.database.dialect.locking(trx.selectFrom('empresas').select('idempresa').where('idempresa', '=', idempresa)).execute();
}

/**
 * The periods of the company the established system settled and locked (`regularizacionimpuestos`
 * rows without a settlement of ours: imported books), ending by `hasta`. Such a period is settled:
 * it is not settled again here, and the next one follows it (carrying nothing: that system keeps
 * no amount to carry).
 */
async function settledElsewhere(trx: DbExecutor, ctx: AppContext, idempresa: number, hasta: string): Promise<Array<{ desde: string; hasta: string }>> {
  const rows = await trx.selectFrom(`${regularizacionImpuestoModel.table} as r`).select(['r.fechainicio', 'r.fechafin'])
    .where('r.bloquear', '=', ctx.database.dialect.boolean(true)).where('r.fechafin', '<=', hasta)
    .where((eb) => eb.or([eb('r.idempresa', '=', idempresa), eb('r.idempresa', 'is', null)]))
    .where((eb) => eb.not(eb.exists(eb.selectFrom(`${vatSettlementModel.table} as s`).select('s.idliquidacion').whereRef('s.idregiva', '=', 'r.idregiva'))))
    .execute();
  return rows.map((row) => ({ desde: String(row.fechainicio), hasta: String(row.fechafin) }));
}

/** What the period before carries (box 110), in cents: its settlement's `acompensar`, none when it was not settled. */
export async function carriedInto(db: DbExecutor, period: TaxPeriod): Promise<number> {
  const before = previousPeriod(period.year, period.periodo);
  const row = await db.selectFrom(vatSettlementModel.table).select('acompensar').where('idempresa', '=', period.idempresa).where('anio', '=', before.year).where('periodo', '=', before.periodo).executeTakeFirst();
  return cents(row?.acompensar);
}

/**
 * The settlement entry's lines: each VAT sub-account's balance over the period's entries of the
 * company's exercise, cleared by its opposite; the difference to the tax authority, payable
 * (IVAACR, 4750) or receivable (IVADEU, 4700). Empty when the year has no such accounts.
 */
async function settlementLines(db: DbExecutor, period: TaxPeriod): Promise<NewEntryLine[]> {
  const balances = await db.selectFrom('partidas as p').innerJoin('asientos as a', 'a.idasiento', 'p.idasiento')
    .innerJoin('subcuentas as s', 's.idsubcuenta', 'p.idsubcuenta').innerJoin('cuentas as c', 'c.idcuenta', 's.idcuenta')
    .select(['s.idsubcuenta', 's.codsubcuenta', sql<number>`SUM(p.debe) - SUM(p.haber)`.as('saldo')])
    .where('a.codejercicio', '=', period.codejercicio).where('a.idempresa', '=', period.idempresa)
    .where('a.fecha', '>=', period.desde).where('a.fecha', '<=', period.hasta).where('c.codcuentaesp', 'in', VAT_ACCOUNTS)
    .groupBy(['s.idsubcuenta', 's.codsubcuenta']).orderBy('s.codsubcuenta').execute();
  const concepto = `Regularización de IVA ${period.periodo} ${period.year}`;
  const lines: NewEntryLine[] = balances.filter((row) => cents(row.saldo) !== 0).map((row) => {
    const saldo = cents(row.saldo);
    return { idsubcuenta: Number(row.idsubcuenta), codsubcuenta: String(row.codsubcuenta), debe: saldo < 0 ? -saldo / 100 : 0, haber: saldo > 0 ? saldo / 100 : 0, concepto, documento: null };
  });
  if (!lines.length) return [];
  const difference = lines.reduce((sum, line) => sum + cents(line.debe) - cents(line.haber), 0);
  if (difference !== 0) {
    const role = difference > 0 ? 'IVAACR' : 'IVADEU';
    const account = await db.selectFrom('subcuentas as s').innerJoin('cuentas as c', 'c.idcuenta', 's.idcuenta').select(['s.idsubcuenta', 's.codsubcuenta'])
      .where('c.codejercicio', '=', period.codejercicio).where('c.codcuentaesp', '=', role).orderBy('s.codsubcuenta').limit(1).executeTakeFirst();
    if (!account) throw new AppError('validation-failed', { fields: { codejercicio: `${role.toLowerCase()}-account-not-found` } });
    // Output VAT above input: a debt to the tax authority (credit); below: a claim on it (debit).
    lines.push({ idsubcuenta: Number(account.idsubcuenta), codsubcuenta: String(account.codsubcuenta), debe: difference < 0 ? -difference / 100 : 0, haber: difference > 0 ? difference / 100 : 0, concepto, documento: null });
  }
  return lines;
}

/**
 * `POST /api/3/liquidarIVA {codejercicio, periodo, idempresa?}`: settles a VAT period in one
 * transaction: its 303 (with what the previous settlement carries), the settlement entry on the
 * period's last day, the reference's settlement row locking the period, and the result to carry.
 * A period settled already is 422 `periodo: already-settled`.
 */
export async function settleVat(ctx: AppContext, body: unknown): Promise<Row> {
  const input = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  for (const key of Object.keys(input)) if (!['codejercicio', 'periodo', 'idempresa'].includes(key)) throw validationError({ [key]: 'unknown-field' });
  const period = await taxPeriodOf(ctx, input);
  const { dialect } = ctx.database;
  await fillTaxRowsOnce(ctx, period.idempresa);
  const id = await inTransaction(ctx.database, async (trx) => {
    await lockCompany(ctx, trx, period.idempresa, period.codejercicio);
    const settled = await trx.selectFrom(vatSettlementModel.table).select('idliquidacion').where('idempresa', '=', period.idempresa).where('anio', '=', period.year).where('periodo', '=', period.periodo).executeTakeFirst();
    const elsewhere = await settledElsewhere(trx, ctx, period.idempresa, period.hasta);
    const covers = (days: { desde: string; hasta: string }) => elsewhere.some((row) => row.desde <= days.desde && row.hasta >= days.hasta);
    if (settled || covers(period)) throw validationError({ periodo: 'already-settled' });
    // Settled in order: a period after a settled one needs the one before it (what it carries).
    const before = previousPeriod(period.year, period.periodo);
    const earlier = await trx.selectFrom(vatSettlementModel.table).select(['anio', 'periodo']).where('idempresa', '=', period.idempresa).where('hasta', '<', period.desde).execute();
    const settledBefore = earlier.some((row) => Number(row.anio) === before.year && String(row.periodo) === before.periodo) || covers(daysOf(before.year, before.periodo));
    if ((earlier.length || elsewhere.some((row) => row.hasta < period.desde)) && !settledBefore) throw validationError({ periodo: 'previous-not-settled' });
    const carried = await carriedInto(trx, period);
    const form: Modelo303 = await modelo303(ctx, period, carried, trx);
    const result = cents(form.casillas['71']);
    const acompensar = (Math.max(0, -result) + cents(form.casillas['87'])) / 100;
    const lines = await settlementLines(trx, period);
    let idasiento: number | null = null;
    if (lines.length) {
      const refusal = await entryRefusal(trx, dialect, period.codejercicio, period.hasta);
      if (refusal) throw validationError({ periodo: refusal });
      const importe = lines.reduce((sum, line) => sum + cents(line.debe), 0) / 100;
      idasiento = await writeEntry(trx, dialect, { codejercicio: period.codejercicio, idempresa: period.idempresa, fecha: period.hasta, concepto: lines[0]!.concepto, documento: null, importe, canal: null, iddiario: null }, lines);
    }
    const { record } = await ctx.store.create(regularizacionImpuestoModel, {
      codejercicio: period.codejercicio, idempresa: period.idempresa, periodo: period.periodo, fechainicio: period.desde, fechafin: period.hasta, fechaasiento: period.hasta, bloquear: true, idasiento,
    }, trx);
    const { record: settlement } = await ctx.store.create(vatSettlementModel, {
      idempresa: period.idempresa, codejercicio: period.codejercicio, anio: period.year, periodo: period.periodo, desde: period.desde, hasta: period.hasta,
      resultado: result / 100, acompensar, casillas: form.casillas, idregiva: record.idregiva, idasiento,
    }, trx);
    return Number(settlement.idliquidacion);
  });
  return (await ctx.store.get(vatSettlementModel, id))!;
}

/**
 * `DELETE /api/3/liquidarIVA/{id}`: undoes a settlement: the lock goes, then its entry, then the
 * settlement; refused while a later period of the company is settled (it carried from this one).
 */
export async function undoSettlement(ctx: AppContext, id: number): Promise<Row> {
  return inTransaction(ctx.database, async (trx) => {
    const found = await trx.selectFrom(vatSettlementModel.table).selectAll().where('idliquidacion', '=', id).executeTakeFirst();
    if (!found) throw new AppError('record-not-found');
    await lockCompany(ctx, trx, Number(found.idempresa), String(found.codejercicio));
    const settlement = rowReader(vatSettlementModel)(found);
    const later = await trx.selectFrom(vatSettlementModel.table).select('idliquidacion').where('idempresa', '=', Number(settlement.idempresa)).where('hasta', '>', String(settlement.hasta)).executeTakeFirst();
    if (later) throw validationError({ periodo: 'later-settlement' });
    if (settlement.idregiva !== null && settlement.idregiva !== undefined) await trx.deleteFrom(regularizacionImpuestoModel.table).where('idregiva', '=', Number(settlement.idregiva)).execute();
    if (settlement.idasiento !== null && settlement.idasiento !== undefined) await removeEntries(trx, ctx.database.dialect, [Number(settlement.idasiento)]);
    await trx.deleteFrom(vatSettlementModel.table).where('idliquidacion', '=', id).execute();
    return settlement;
  });
}
