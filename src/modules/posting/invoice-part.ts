import { sql } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import {
  heldChartLock, chartLockStatement, accountTree, entryLinesStatements, entryRefusalRead, newestEntryReference, numberedEntryId, numberedEntryStatement, removeEntryHeader, yearChart, type EntryOfLines, type NewEntryLine,
} from '../accounting/index.ts';
import { afterCommit } from '../../db/transaction.ts';
import { AppError } from '../../errors.ts';
import { documentPreparing, WriteInRounds, type DocumentInWriting, type PartMaker, type PreparingDocument } from '../documents/index.ts';
import type { Account } from './entry-line.ts';
import { NotPosted, postOrWarn } from './not-posted.ts';
import { goodsField, invoiceAccounts, invoiceCodes, invoiceEntryHeader, invoiceEntryLinesOf, retentionCodeOf, type InvoiceAccounts } from './post-invoice.ts';
import { cachedGoodsCodes, postingReference, retentionOfRate } from './posting-reference.ts';
import { subjectAccount } from './subject-account.ts';
import { textValue } from './text-value.ts';

/**
 * A new invoice's entry, written with it (docs/accounting.md, docs/performance.md). Prepared with
 * no lock from the cached chart (yearChart), taxes, retentions and families: every sub-account
 * resolved, or the `NotPosted` that says what is missing. In the commit, under the year's entry
 * counter (the lock after the stock's): the entry's header, numbered by the database, and a read
 * of whether the year still takes it; then its lines and balances before the invoice's header,
 * which carries its `idasiento`, all of them naming the entry in SQL so that they go with that
 * read. A customer without a sub-account in the year gets one, a statement at a time, under the
 * same lock, the lines after it (the rare path of `subjectAccount`, rounds apart).
 */
export function postNewInvoices(ctx: AppContext): void {
  ctx.hooks.on(documentPreparing, (preparing) => prepareInvoicePart(ctx, preparing));
}

async function prepareInvoicePart(ctx: AppContext, p: PreparingDocument): Promise<PartMaker | undefined> {
  const { type, header, lines, subject, ref } = p;
  if (!type.invoice || Number(header.total ?? 0) === 0) return undefined;
  const chart = await yearChart(ctx, p.exercise.codejercicio);
  if (!chart?.hasChart) return undefined;
  const db = ctx.database.kysely;
  const decimals = ref.settings.decimals;
  let accounts: InvoiceAccounts | undefined;
  let refusal: NotPosted | undefined;
  try {
    const reference = await postingReference(ctx);
    const { groups } = await p.breakdown();
    const taxes = new Map(groups.flatMap((group) => {
      const tax = group.codimpuesto ? reference.taxes.get(group.codimpuesto) : undefined;
      return tax ? [[group.codimpuesto!, tax] as const] : [];
    }));
    const productCodes = cachedGoodsCodes(reference, goodsField(type.side), p.products.values());
    const retentionCode = retentionCodeOf(type.side, header, Number(header.totalirpf ?? 0) !== 0 ? retentionOfRate(reference, Number(header.irpf ?? 0)) : undefined);
    await chart.resolve(db, invoiceCodes(type.side, subject, retentionCode, productCodes, taxes));
    accounts = invoiceAccounts({ type, invoice: header, lines, groups, taxes, chart, productCodes, retentionCode, decimals });
    const own = chart.byCode(textValue(subject.codsubcuenta));
    await chart.resolveTree(db, [...(own ? [own] : []), ...accountsOf(accounts)].map((account) => account.idsubcuenta));
  } catch (error) {
    if (!(error instanceof NotPosted)) throw error;
    refusal = error;
  }
  const series = ref.series.get(String(header.codserie)) ?? { siniva: false, tipo: null, iddiario: null, canal: null };
  const english = ref.settings.langcode.startsWith('en');
  const { dialect, engine } = ctx.database;

  return () => {
    let notPosted = refusal;
    let idasiento: EntryOfLines | undefined;
    let entryLines: NewEntryLine[] = [];
    let tree: ReadonlyMap<number, readonly number[]> = chart.tree();
    let inserted: Promise<{ rows: Record<string, unknown>[]; insertId?: bigint }> | undefined;
    /** The invoice written without its entry: the warning and the event that say why (a part's `finish` only then). */
    const warnNotPosted = async (doc: DocumentInWriting) => {
      const failed = notPosted!;
      await postOrWarn(ctx, doc.db, { resource: type.header.resource, id: doc.id!, codejercicio: chart.codejercicio }, async () => {
        throw failed;
      });
    };
    return {
      lock: 'entries',
      lockAndWrite(doc) {
        if (notPosted) {
          this.finish = warnNotPosted;
          return;
        }
        // Its read passing (no refusal of the entry), `afterLocks` only takes the entry's id.
        this.guarded = true;
        const entry = invoiceEntryHeader({ type, invoice: doc.header, series, english });
        const lock = chartLockStatement(doc.db, dialect, chart.codejercicio);
        if (lock) doc.batch.add(lock);
        inserted = doc.batch.add(numberedEntryStatement(doc.db, dialect, entry));
        doc.readAfterLocks('entry.refusal', entryRefusalRead(dialect, chart.codejercicio, entry.fecha), (value) => sql`${value} IS NULL`);
        const own = chart.byCode(textValue(subject.codsubcuenta));
        if (own) {
          // The usual case: the lines are known now, and name the new entry in SQL (under the year's
          // counter lock it is the year's newest), so they may go with the read.
          entryLines = invoiceEntryLinesOf({ type, invoice: doc.header, accounts: accounts!, subject: own, decimals, entry });
          idasiento = { newestOf: chart.codejercicio };
          doc.header.idasiento = newestEntryReference(chart.codejercicio);
        } else {
          // A customer's first invoice in the year creates its sub-account after the locks: apart.
          doc.together = false;
        }
        this.afterLocks = async () => {
          heldChartLock(doc.db, chart.codejercicio);
          const why = doc.readValue('entry.refusal');
          // A year closed since it was cached refuses the document, as a closed year always does.
          if (why === 'closed-exercise') throw new AppError('exercise-closed', { fecha: String(doc.header.fecha), codejercicio: chart.codejercicio });
          // Not posted after all (a locked settlement): its lines went with the read; again, apart.
          if (why && doc.together) throw new WriteInRounds(String(why));
          const id = numberedEntryId(engine, await inserted!)!;
          try {
            if (why) throw new NotPosted(String(why));
            if (!own) {
              const found = await subjectAccount(ctx, doc.db, chart, type.side, subject);
              const above = (await accountTree(doc.db, [found.idsubcuenta])).get(found.idsubcuenta) ?? [];
              tree = new Map([...tree, [found.idsubcuenta, above]]);
              afterCommit(doc.db, () => chart.learn(found, above));
              entryLines = invoiceEntryLinesOf({ type, invoice: doc.header, accounts: accounts!, subject: found, decimals, entry });
            }
            idasiento = id;
            doc.header.idasiento = id;
          } catch (error) {
            if (!(error instanceof NotPosted)) throw error;
            notPosted = error;
            this.finish = warnNotPosted;
            await removeEntryHeader(doc.db, id);
            idasiento = undefined;
            delete doc.header.idasiento;
          }
        };
      },
      beforeHeader(doc) {
        if (idasiento === undefined) return;
        for (const statement of entryLinesStatements(doc.db, dialect, idasiento, entryLines, tree)) doc.batch.add(statement);
      },
    };
  };
}

/** Every sub-account an entry's accounts name (for their tree). */
function accountsOf(accounts: InvoiceAccounts): Account[] {
  return [
    ...accounts.vatGroups.flatMap((group) => [group.vat, group.surcharge, ...(group.selfAssessed ? [group.selfAssessed.input, group.selfAssessed.output] : [])]),
    ...(accounts.irpf ? [accounts.irpf] : []), ...(accounts.suplidos ? [accounts.suplidos] : []), ...accounts.goods.map((goods) => goods.account),
  ];
}
