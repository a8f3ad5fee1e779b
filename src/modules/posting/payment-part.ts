import type { QueryResult } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import { afterCommit } from '../../db/transaction.ts';
import {
  accountTree, chartLockStatement, entryLinesStatements, entryRefusalOf, heldChartLock, newestEntryReference, numberedEntryId, numberedEntryStatement, removeEntryHeader, yearChart,
  type NewEntry, type NewEntryLine,
} from '../accounting/index.ts';
import { cachedExerciseCovering, exerciseReference, serieReference } from '../fiscal/index.ts';
import { paymentPreparing, type PaymentPart, type PreparingPayment } from '../payments/index.ts';
import type { Account } from './entry-line.ts';
import { NotPosted, postOrWarn } from './not-posted.ts';
import { bankAccounts, paymentEntryLines, paymentText } from './post-payment.ts';
import { postingReference } from './posting-reference.ts';
import { subjectAccount } from './subject-account.ts';
import { textValue } from './text-value.ts';

const PAYMENT_RESOURCES = { sales: 'pagocliente', purchase: 'pagoproveedor' } as const;

/**
 * The entry of a payment movement a `pagar*` request records, written with it (docs/accounting.md,
 * docs/performance.md): prepared with no lock from the cached years, chart and banks; then, under
 * the year's entry counter, its header (inserted only while the year takes it), its lines and
 * balances with the movement itself, which carries its `idasiento`. As `postPayment` posts one a
 * statement at a time, with the same refusals (`NotPosted`: a warning and an event).
 */
export function postPreparedPayments(ctx: AppContext): void {
  ctx.hooks.on(paymentPreparing, (preparing) => preparePaymentPart(ctx, preparing));
}

async function preparePaymentPart(ctx: AppContext, p: PreparingPayment): Promise<(() => PaymentPart) | undefined> {
  const importe = p.payment.importe;
  if (importe === 0) return undefined;
  const db = ctx.database.kysely;
  const { dialect, engine } = ctx.database;
  const fecha = p.payment.fecha;
  const year = cachedExerciseCovering(await exerciseReference(ctx), p.idempresa, fecha);
  const chart = year ? await yearChart(ctx, year.codejercicio) : undefined;
  if (year && !chart?.hasChart) return undefined;
  let refusal: NotPosted | undefined;
  let accounts: { bank: Account; fees: Account } | undefined;
  if (!year) refusal = new NotPosted('exercise-not-found', { fecha });
  else if (year.estado !== 'ABIERTO') refusal = new NotPosted('closed-exercise', { fecha });
  else {
    try {
      const bank = textValue(p.payment.codpago) ? (await postingReference(ctx)).banks.get(String(p.payment.codpago)) : undefined;
      await chart!.resolve(db, [textValue(p.subject.codsubcuenta), bank?.codsubcuenta, bank?.codsubcuentagasto]);
      accounts = bankAccounts(chart!, p.payment, bank);
      const own = chart!.byCode(textValue(p.subject.codsubcuenta));
      await chart!.resolveTree(db, [...(own ? [own] : []), accounts.bank, accounts.fees].map((account) => account.idsubcuenta));
    } catch (error) {
      if (!(error instanceof NotPosted)) throw error;
      refusal = error;
    }
  }
  const canal = (await serieReference(ctx)).get(String(p.invoice.codserie ?? ''))?.canal ?? null;
  const { concepto, documento } = paymentText(p.side, importe, p.receipt, p.invoice);
  const entry: NewEntry | undefined = year ? { codejercicio: year.codejercicio, idempresa: p.idempresa, fecha, concepto, documento, importe, canal, iddiario: null } : undefined;

  return () => {
    let notPosted = refusal;
    let idasiento: number | null = null;
    let lines: NewEntryLine[] = [];
    let tree = chart?.tree() ?? new Map<number, readonly number[]>();
    let inserted: Promise<QueryResult<Record<string, unknown>>> | undefined;
    return {
      get idasiento() {
        return idasiento;
      },
      lockAndWrite({ db: trx, batch }) {
        if (notPosted || !entry || !chart) return;
        const lock = chartLockStatement(trx, dialect, entry.codejercicio);
        if (lock) batch.add(lock);
        inserted = batch.add(numberedEntryStatement(trx, dialect, entry, 'skip'));
      },
      async afterLocks({ db: trx }) {
        if (!inserted || !entry || !chart) return;
        heldChartLock(trx, entry.codejercicio);
        const id = numberedEntryId(engine, await inserted);
        try {
          if (id === undefined) {
            // The year refused it under the lock: which way, read (a rare path) for the warning.
            throw new NotPosted((await entryRefusalOf(trx, dialect, entry.codejercicio, entry.fecha)) ?? 'closed-exercise');
          }
          idasiento = id;
          let own: Account | undefined = chart.byCode(textValue(p.subject.codsubcuenta));
          if (!own) {
            const found = await subjectAccount(ctx, trx, chart, p.side, p.subject);
            const above = (await accountTree(trx, [found.idsubcuenta])).get(found.idsubcuenta) ?? [];
            tree = new Map([...tree, [found.idsubcuenta, above]]);
            afterCommit(trx, () => chart.learn(found, above));
            own = found;
          }
          lines = paymentEntryLines({ side: p.side, importe, payment: p.payment, receipt: p.receipt, invoice: p.invoice, subject: own, bank: accounts!.bank, fees: accounts!.fees, decimals: p.decimals }).lines;
        } catch (error) {
          if (!(error instanceof NotPosted)) throw error;
          notPosted = error;
          if (idasiento !== null) await removeEntryHeader(trx, idasiento);
          idasiento = null;
        }
      },
      atOnce() {
        // A warning to give, or a customer's first payment in the year (its sub-account created after the lock): rounds.
        return !notPosted && (!entry || !chart || chart.byCode(textValue(p.subject.codsubcuenta)) !== undefined);
      },
      writeAtOnce({ db: trx, batch }) {
        if (notPosted || !entry || !chart) return null;
        const lock = chartLockStatement(trx, dialect, entry.codejercicio);
        if (lock) batch.add(lock);
        // A year that no longer takes it fails the insert, and the batch before its COMMIT.
        batch.add(numberedEntryStatement(trx, dialect, entry, 'fail'));
        const own = chart.byCode(textValue(p.subject.codsubcuenta))!;
        const entryLines = paymentEntryLines({ side: p.side, importe, payment: p.payment, receipt: p.receipt, invoice: p.invoice, subject: own, bank: accounts!.bank, fees: accounts!.fees, decimals: p.decimals }).lines;
        // Under the year's counter lock the new entry is the year's newest: its lines and the movement name it so.
        for (const statement of entryLinesStatements(trx, dialect, { newestOf: entry.codejercicio }, entryLines, tree)) batch.add(statement);
        return newestEntryReference(entry.codejercicio);
      },
      write({ db: trx, batch }) {
        if (idasiento === null) return;
        for (const statement of entryLinesStatements(trx, dialect, idasiento, lines, tree)) batch.add(statement);
      },
      async finish({ db: trx }, idpago) {
        if (!notPosted) return;
        const failed = notPosted;
        await postOrWarn(ctx, trx, { resource: PAYMENT_RESOURCES[p.side], id: idpago, codejercicio: null }, async () => {
          throw failed;
        });
      },
    };
  };
}
