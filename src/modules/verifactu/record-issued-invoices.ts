import { sql } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { rowReader } from '../../db/row-codec.ts';
import { beforeCommit } from '../../db/transaction.ts';
import type { Values } from '../../models/define-model.ts';
import { documentCreated, documentPreparing, type DocumentInWriting, type DocumentReference, type DocumentType, type PreparingDocument, type Row } from '../documents/index.ts';
import { appendRecord, nextRecord, type PendingRecord } from './chain.ts';
import { activeSwitchOf, type CompanySwitch } from './company-switch.ts';
import { altaFactsOf, type KnownFacts } from './invoice-facts.ts';
import { altaRecord } from './record-content.ts';
import { chainHeadModel, registroVerifactuModel } from './record-models.ts';
import { RECORDED_TYPE } from './recorded-invoices.ts';
import type { Environment, RecordMode } from './qr-url.ts';
import { writingReference } from './writing-reference.ts';

/**
 * Every customer invoice of a company whose VERI*FACTU switch is on gets its alta in the
 * transaction that writes it (RD 1007/2023 art. 8: no invoice without its record, no record
 * without its invoice): created, generated from a delivery note, or a refund. What the record
 * says is read and checked at once (a 422 refuses the invoice); its place in the chain is taken
 * last (the chain's lock is the last of the fixed order, docs/performance.md), so that it is held
 * as briefly as possible.
 */
export function recordIssuedInvoices(ctx: AppContext): void {
  ctx.hooks.on(documentPreparing, (preparing) => prepareRecordPart(ctx, preparing));
  // Invoices generated from a delivery note (insert-document.ts); new ones and refunds take part through documentPreparing.
  ctx.hooks.on(documentCreated, async ({ db, ref, type, id, header, lines }) => {
    if (type.name !== RECORDED_TYPE) return;
    const company = await activeSwitchOf(db, Number(header.idempresa));
    if (!company) return;
    const append = await prepareAlta(ctx, db, company, ref, type, id, header, lines);
    if (!beforeCommit(db, append)) await append();
  });
}

/**
 * A new invoice's record (document-parts.ts). The switch is read with the other reads after the
 * locks, so that one turned on a moment ago on another instance is never missed; it costs no
 * statement while off. In VERI*FACTU mode, for a switch this instance knew of: the chain's head
 * locked last in round 2, the record's facts from the invoice, its preparation and the caches,
 * and the record and the head's move written with the lines. Otherwise (a switch just turned on,
 * NO VERI*FACTU mode with its signatures and event log) the record is appended a statement at a
 * time once the invoice is written, still last.
 */
async function prepareRecordPart(ctx: AppContext, p: PreparingDocument) {
  if (p.type.name !== RECORDED_TYPE) return undefined;
  const idempresa = Number(p.header.idempresa);
  const reference = await writingReference(ctx);
  const known = reference.switches.get(idempresa);
  const lean = known?.modo === 'verifactu';
  const given: Partial<KnownFacts> = {
    company: reference.companies.get(idempresa),
    customer: p.subject,
    countryOf: async (codpais) => reference.countries.get(codpais),
    productTypes: p.productTypes,
    breakdown: p.breakdown,
  };
  if (!given.company) delete given.company;
  return () => {
    let head: Promise<{ rows: Record<string, unknown>[] }> | undefined;
    let written: (() => Promise<void>) | undefined;
    const current = (doc: DocumentInWriting): CompanySwitch | undefined => {
      const modo = doc.readValue('verifactu.modo');
      if (modo === null || modo === undefined || modo === 'off') return undefined;
      return { idempresa, modo: modo as RecordMode, entorno: String(doc.readValue('verifactu.entorno')) as Environment, numeroinstalacion: String(doc.readValue('verifactu.numeroinstalacion')) };
    };
    return {
      lock: 'chain' as const,
      // The switch read off (as this instance knew it), `finish` has nothing to do; in VERI*FACTU
      // mode the rounds stay apart anyway (the record's hash needs the head's answer).
      guarded: !lean,
      lockAndWrite(doc: DocumentInWriting) {
        const of = (column: string) => sql`(SELECT ${sql.ref(column)} FROM verifactu_empresas WHERE idempresa = ${idempresa})`;
        const any = () => sql`1 = 1`;
        doc.readAfterLocks('verifactu.modo', of('modo'), (value) => sql`(${value} IS NULL OR ${value} = 'off')`);
        doc.readAfterLocks('verifactu.entorno', of('entorno'), any);
        doc.readAfterLocks('verifactu.numeroinstalacion', of('numeroinstalacion'), any);
        if (lean) {
          head = doc.batch.add(ctx.database.dialect.locking(doc.db.selectFrom(chainHeadModel.table).selectAll().where('idempresa', '=', idempresa)));
          // The record's hash needs the head read under its lock: round 3 waits for round 2's answer.
          doc.together = false;
        }
      },
      async afterHeader(doc: DocumentInWriting) {
        // VERI*FACTU mode with the head locked in round 2: the record and the head's move go with the lines.
        if (!head) return;
        const company = current(doc);
        if (!company || company.modo !== 'verifactu') return;
        const locked = (await head).rows[0];
        if (!locked) return;
        const pending = await pendingAlta(ctx, doc.db, company, doc.ref, doc.type, 0, doc.header, doc.lines, given);
        const next = await nextRecord(ctx, doc.db, company, pending, locked);
        // The invoice is named by its code in SQL: its id is not back yet (document-parts.ts, round 3).
        const insert = ctx.store.insertStatement(registroVerifactuModel, [{ ...next.record, idfactura: doc.idReference } as Values], doc.db);
        const inserted = insert.statements.map((statement) => doc.batch.add(statement));
        // The head names the new record by its id, which the database gives in the same round: under
        // the chain's lock it is the company's highest (an index lookup), so that no round trip waits for it.
        doc.batch.add(doc.db.updateTable(chainHeadModel.table).set({
          ...next.head(0),
          idultimo: sql`(SELECT MAX(r.id) FROM ${sql.table(registroVerifactuModel.table)} r WHERE r.idempresa = ${idempresa})`,
        }).where('idempresa', '=', idempresa));
        written = async () => {
          const [id] = insert.ids(await Promise.all(inserted));
          await ctx.store.announceInserted(registroVerifactuModel, [rowReader(registroVerifactuModel)({ ...insert.rows[0], idfactura: doc.id, id })], doc.db, false);
        };
      },
      async finish(doc: DocumentInWriting) {
        if (written) return written();
        const company = current(doc);
        if (!company) return;
        // A switch this instance did not know of, or NO VERI*FACTU mode: a statement at a time, still last.
        await appendRecord(ctx, doc.db, company, await pendingAlta(ctx, doc.db, company, doc.ref, doc.type, doc.id!, doc.header, doc.lines, given));
      },
    };
  };
}

/** Reads and checks what an invoice's alta says (a 422 refuses the invoice), and answers how to append it to the chain. */
async function prepareAlta(ctx: AppContext, db: DbExecutor, company: CompanySwitch, ref: DocumentReference, type: DocumentType, id: number, header: Row, lines: Row[]): Promise<() => Promise<void>> {
  const pending = await pendingAlta(ctx, db, company, ref, type, id, header, lines);
  return async () => {
    await appendRecord(ctx, db, company, pending);
  };
}

/** An invoice's alta as a record to append: its facts read (or known) and checked. */
async function pendingAlta(ctx: AppContext, db: DbExecutor, company: CompanySwitch, ref: DocumentReference, type: DocumentType, id: number, header: Row, lines: Row[], given?: Partial<KnownFacts>): Promise<PendingRecord> {
  const { facts, territory } = await altaFactsOf(ctx, db, ref, type, header, lines, given);
  return {
    tipo: 'alta',
    idfactura: id,
    invoice: facts.id,
    alta: { tipofactura: facts.TipoFactura, cuotatotal: facts.CuotaTotal, importetotal: facts.ImporteTotal },
    territory,
    severalTaxpayers: ref.company.companies.size > 1,
    build: (previous, system, timestamp) => altaRecord(facts, previous, system, timestamp),
  };
}
