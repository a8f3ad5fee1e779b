import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { sql } from 'kysely';
import { loadConfig } from '../src/config.ts';
import { documentPreparing } from '../src/modules/documents/index.ts';
import { paymentPreparing } from '../src/modules/payments/index.ts';
import { observe, type Observed } from './helpers/observe-statements.ts';
import { forEachEngine, type TestApp } from './helpers/test-app.ts';

/**
 * A new invoice committed with its batch (issue 59, docs/performance.md "Committing with the
 * batch"): on PostgreSQL and MariaDB every check after the locks is also a condition the read
 * after the locks fails the transaction on, and the COMMIT goes in that batch with the event log's
 * rows. Each refusal here is arranged after the invoice was prepared (a hook of the preparation
 * changes the database behind it), so that the guarded batch is sent and must fail: the write then
 * runs again in rounds, which give the exact refusal, and nothing of it is committed.
 */

/** The guarded read: its failure column is named `guard`. */
const GUARDED = / end as guard from \(/;
const CLAIM = /^update .secuencias_documentos./;

/** Whether the write went through the guard and failed it: a guarded batch, then the claim again. */
function failedTheGuard(seen: Observed): boolean {
  const guarded = seen.statements.findIndex((text) => GUARDED.test(text));
  return guarded >= 0 && seen.statements.slice(guarded).some((text) => CLAIM.test(text));
}

forEachEngine('commit with the batch', (t) => {
  const server = () => t().engine !== 'sqlite';
  /** What the next preparation does once the invoice is prepared (run once). */
  let arrange: ((db: TestApp['app']['ctx']['database']['kysely']) => Promise<void>) | undefined;
  let year = '';
  const today = new Date().toISOString().slice(0, 10);
  const invoice = (extra: Record<string, unknown> = {}) => t().call('POST', '/api/3/crearFacturaCliente', {
    codcliente: 'GUARD', lineas: [{ referencia: 'GRD1', cantidad: 1 }, { referencia: 'GRD2', cantidad: 2 }], ...extra,
  });
  const count = async () => Number((await sql<{ n: number }>`SELECT COUNT(*) AS n FROM facturascli`.execute(t().app.ctx.database.kysely)).rows[0]!.n);

  /** Creates an invoice with `arranged` done behind its preparation; answers it, what ran, and how many invoices it added. */
  async function attempt(arranged: NonNullable<typeof arrange>, extra: Record<string, unknown> = {}) {
    const before = await count();
    arrange = arranged;
    const seen = await observe(t(), () => invoice(extra));
    assert.equal(arrange, undefined, 'the arrangement ran');
    return { answer: seen.value, seen, added: (await count()) - before };
  }

  /** A refusal: the exact code, nothing committed, and on the server engines through the guard's failure. */
  async function assertRefused(outcome: Awaited<ReturnType<typeof attempt>>, message: string): Promise<void> {
    assert.equal(outcome.answer.status, 422, JSON.stringify(outcome.answer.body));
    assert.equal(outcome.answer.body.message, message);
    assert.equal(outcome.added, 0, 'no invoice committed');
    if (server()) assert.ok(failedTheGuard(outcome.seen), `through the guard:\n${outcome.seen.statements.join('\n')}`);
  }

  before(async () => {
    const arranged = async () => {
      const run = arrange;
      arrange = undefined;
      await run?.(t().app.ctx.database.kysely);
      return undefined;
    };
    t().app.ctx.hooks.on(documentPreparing, arranged);
    t().app.ctx.hooks.on(paymentPreparing, arranged);
    assert.equal((await t().call('POST', '/api/3/cliente', { codcliente: 'GUARD', nombre: 'Guarded', cifnif: '12345678Z' })).status, 201);
    const stocked = await t().call('POST', '/api/3/producto', { referencia: 'GRD1', precio: 10, ventasinstock: false });
    assert.equal(stocked.status, 201);
    assert.equal((await t().call('POST', '/api/3/stock', { referencia: 'GRD1', idproducto: stocked.body.idproducto, codalmacen: 'ALG', cantidad: 1000 })).status, 201);
    assert.equal((await t().call('POST', '/api/3/producto', { referencia: 'GRD2', precio: 5, ventasinstock: true })).status, 201);
    // The first creates the year's sequence; the second claims from it, which the next ones' late numbers start from.
    const first = await invoice();
    assert.equal(first.status, 200, JSON.stringify(first.body));
    year = first.body.doc.codejercicio;
    assert.equal((await invoice()).status, 200);
  });

  after(() => {
    arrange = undefined;
  });

  it('commits in the batch of the locks: one round trip, the events logged with the ids the database gave, and announced as answered', async () => {
    const announced: unknown[] = [];
    const stop = t().app.ctx.events.on('document.created', (payload) => void announced.push(payload));
    try {
      const seen = await observe(t(), () => invoice());
      const answer = seen.value;
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      const { doc, lines } = answer.body;
      if (server()) {
        const guarded = seen.statements.findIndex((text) => GUARDED.test(text));
        assert.ok(guarded >= 0, 'the guarded read');
        // The COMMIT travels in the round trip of the claim, the guard and the writes.
        const commit = seen.statements.lastIndexOf('commit');
        const claim = seen.statements.findIndex((text) => CLAIM.test(text));
        assert.equal(seen.trips[commit], seen.trips[claim]);
        assert.equal(seen.trips[guarded], seen.trips[claim]);
      }
      const stored = (await t().call('GET', `/api/3/facturacliente/${doc.idfactura}`)).body;
      assert.deepEqual(stored, doc, 'answered as stored');
      const { kysely } = t().app.ctx.database;
      const logged = await kysely.selectFrom('event_log').select(['type', 'resource', 'recordkey', 'payload']).where('type', 'in', ['document.created', 'model.save'])
        .where('id', '>', sql<number>`(SELECT MAX(e.id) - 20 FROM event_log e)`).orderBy('id').execute();
      const payloadOf = (row: { payload: unknown }) => (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload);
      const created = logged.filter((row) => row.type === 'document.created' && row.recordkey === String(doc.idfactura));
      assert.equal(created.length, 1, 'document.created logged under the invoice id');
      assert.deepEqual(payloadOf(created[0]!), { type: 'FacturaCliente', doc, lines }, 'the logged payload is the answer');
      const header = logged.filter((row) => row.type === 'model.save' && row.resource === 'facturacliente' && row.recordkey === String(doc.idfactura));
      assert.equal(header.length, 1);
      assert.deepEqual(payloadOf(header[0]!).record, doc);
      const lineRows = logged.filter((row) => row.type === 'model.save' && row.resource === 'lineafacturacliente' && lines.some((line: any) => String(line.idlinea) === row.recordkey));
      assert.deepEqual(lineRows.map((row) => payloadOf(row).record), lines, 'each line logged with its own id');
      assert.deepEqual(announced, [{ type: 'FacturaCliente', doc, lines }], 'announced in process as answered');
      assert.equal(typeof doc.idasiento, 'number');
    } finally {
      stop();
    }
  });

  it('refuses an invoice dated before a later one of its serie (the date order)', async () => {
    const latest = Number((await sql<{ id: number }>`SELECT MAX(idfactura) AS id FROM facturascli`.execute(t().app.ctx.database.kysely)).rows[0]!.id);
    const later = `${year}-12-31` > today ? `${year}-12-31` : today;
    const outcome = await attempt((db) => db.updateTable('facturascli').set({ fecha: later }).where('idfactura', '=', latest).execute().then(() => {}), { fecha: today < later ? today : `${year}-01-01` });
    try {
      await assertRefused(outcome, 'invoice-date-order');
    } finally {
      await t().app.ctx.database.kysely.updateTable('facturascli').set({ fecha: today }).where('idfactura', '=', latest).execute();
    }
  });

  it('refuses an invoice whose customer reached its maximum risk', async () => {
    assert.equal((await t().call('PATCH', '/api/3/cliente/GUARD', { riesgomax: 100000 })).status, 200);
    const { kysely } = t().app.ctx.database;
    const kept = (await kysely.selectFrom('clientes').select('riesgoalcanzado').where('codcliente', '=', 'GUARD').executeTakeFirstOrThrow()).riesgoalcanzado;
    try {
      const outcome = await attempt((db) => db.updateTable('clientes').set({ riesgoalcanzado: 200000 }).where('codcliente', '=', 'GUARD').execute().then(() => {}));
      await assertRefused(outcome, 'customer-reached-maximum-risk');
    } finally {
      await kysely.updateTable('clientes').set({ riesgoalcanzado: kept }).where('codcliente', '=', 'GUARD').execute();
      assert.equal((await t().call('PATCH', '/api/3/cliente/GUARD', { riesgomax: 0 })).status, 200);
    }
  });

  it('refuses an invoice selling stock that is no longer there', async () => {
    const { kysely } = t().app.ctx.database;
    try {
      const outcome = await attempt((db) => db.updateTable('stocks').set({ cantidad: 0, disponible: 0 }).where('referencia', '=', 'GRD1').execute().then(() => {}));
      await assertRefused(outcome, 'not-enough-stock');
    } finally {
      await kysely.updateTable('stocks').set({ cantidad: 1000, disponible: 1000 }).where('referencia', '=', 'GRD1').execute();
    }
  });

  it('refuses an invoice in a VAT period a settlement locked meanwhile', async () => {
    const { kysely, dialect } = t().app.ctx.database;
    try {
      const outcome = await attempt((db) => db.insertInto('regularizacionimpuestos').values({
        codejercicio: year, periodo: 'T4', fechainicio: today, fechafin: today, bloquear: dialect.boolean(true), idempresa: 1,
      }).execute().then(() => {}));
      await assertRefused(outcome, 'period-locked');
    } finally {
      await kysely.deleteFrom('regularizacionimpuestos').where('codejercicio', '=', year).where('periodo', '=', 'T4').execute();
    }
  });

  it('refuses an invoice in a year closed meanwhile (the entry\'s refusal)', async () => {
    const { kysely } = t().app.ctx.database;
    try {
      const outcome = await attempt((db) => db.updateTable('ejercicios').set({ estado: 'CERRADO' }).where('codejercicio', '=', year).execute().then(() => {}));
      await assertRefused(outcome, 'exercise-closed');
    } finally {
      await kysely.updateTable('ejercicios').set({ estado: 'ABIERTO' }).where('codejercicio', '=', year).execute();
    }
  });

  it('numbers on when the claimed number was taken meanwhile, and commits nothing twice', async () => {
    const before = (await invoice()).body.doc;
    const outcome = await attempt((db) => db.updateTable('secuencias_documentos').set({ numero: sql`numero - 1` }).where('codejercicio', '=', year).where('codserie', '=', 'A')
      .where('tipodoc', '=', 'FacturaCliente').execute().then(() => {}));
    assert.equal(outcome.answer.status, 200, JSON.stringify(outcome.answer.body));
    assert.equal(outcome.added, 1);
    assert.equal(Number(outcome.answer.body.doc.numero), Number(before.numero) + 1, 'the next free number');
    if (server()) assert.ok(failedTheGuard(outcome.seen), 'through the guard');
    const codes = await sql<{ n: number }>`SELECT COUNT(*) AS n FROM facturascli WHERE codigo = ${outcome.answer.body.doc.codigo}`.execute(t().app.ctx.database.kysely);
    assert.equal(Number(codes.rows[0]!.n), 1);
  });

  it('fills a gap recorded meanwhile below the claimed number', async () => {
    const { kysely, dialect } = t().app.ctx.database;
    const scope = <Q extends { where: (...args: any[]) => Q }>(query: Q) => query.where('codejercicio', '=', year).where('codserie', '=', 'A').where('tipodoc', '=', 'FacturaCliente');
    await scope(kysely.updateTable('secuencias_documentos').set({ usarhuecos: dialect.boolean(true) })).execute();
    try {
      // Two creations learn the sequence as it is now (gaps used).
      assert.equal((await invoice()).status, 200);
      const last = (await invoice()).body.doc;
      const sequence = await scope(kysely.selectFrom('secuencias_documentos').select('idsecuencia')).executeTakeFirstOrThrow();
      // Behind the preparation: a number skipped (the one after the last) and recorded as a gap.
      const outcome = await attempt(async (db) => {
        await scope(db.updateTable('secuencias_documentos').set({ numero: sql`numero + 1` })).execute();
        await db.insertInto('secuencias_huecos').values({ idsecuencia: sequence.idsecuencia, numero: Number(last.numero) + 1 }).execute();
      });
      assert.equal(outcome.answer.status, 200, JSON.stringify(outcome.answer.body));
      assert.equal(Number(outcome.answer.body.doc.numero), Number(last.numero) + 1, 'the gap filled');
      if (server()) assert.ok(failedTheGuard(outcome.seen), 'through the guard');
    } finally {
      await scope(kysely.updateTable('secuencias_documentos').set({ usarhuecos: dialect.boolean(false) })).execute();
    }
  });

  it('numbers with a sequence changed meanwhile as the sequence now says', async () => {
    const { kysely } = t().app.ctx.database;
    const scope = <Q extends { where: (...args: any[]) => Q }>(query: Q) => query.where('codejercicio', '=', year).where('codserie', '=', 'A').where('tipodoc', '=', 'FacturaCliente');
    const kept = await scope(kysely.selectFrom('secuencias_documentos').select(['patron', 'longnumero'])).executeTakeFirstOrThrow();
    try {
      const outcome = await attempt((db) => scope(db.updateTable('secuencias_documentos').set({ patron: 'Z{EJE}{SERIE}{0NUM}', longnumero: 7 })).execute().then(() => {}));
      assert.equal(outcome.answer.status, 200, JSON.stringify(outcome.answer.body));
      const { doc } = outcome.answer.body;
      assert.equal(doc.codigo, `Z${year}A${String(doc.numero).padStart(7, '0')}`);
      if (server()) assert.ok(failedTheGuard(outcome.seen), 'through the guard');
      assert.deepEqual((await t().call('GET', `/api/3/facturacliente/${doc.idfactura}`)).body, doc);
      const receipts = (await t().call('GET', `/api/3/recibocliente?filter[idfactura]=${doc.idfactura}`)).body;
      assert.deepEqual(receipts.map((receipt: any) => receipt.codigofactura), [doc.codigo]);
    } finally {
      await scope(kysely.updateTable('secuencias_documentos').set({ patron: kept.patron, longnumero: kept.longnumero })).execute();
    }
  });

  /** Pays invoice `id` with `arranged` done behind the payment's preparation. */
  async function payment(id: number, arranged: NonNullable<typeof arrange>) {
    arrange = arranged;
    const seen = await observe(t(), () => t().call('POST', `/api/3/pagarFacturaCliente/${id}`, { pagada: true }));
    assert.equal(arrange, undefined, 'the arrangement ran');
    const receipts = (await t().call('GET', `/api/3/recibocliente?filter[idfactura]=${id}`)).body;
    const movements = (await t().call('GET', `/api/3/pagocliente?filter[idrecibo]=${receipts[0].idrecibo}`)).body;
    return { answer: seen.value, seen, movements };
  }
  /** Whether a payment went through the guard and failed it: an update failing unless still as read, then the invoice's update again. */
  const paymentFailedTheGuard = (seen: Observed) => {
    const guarded = seen.statements.findIndex((text) => /^update .facturascli. set .pagada. = case when case when /.test(text));
    return guarded >= 0 && seen.statements.slice(guarded + 1).some((text) => /^update .facturascli./.test(text));
  };

  it('records a payment once when its invoice was paid meanwhile', async () => {
    const created = (await invoice()).body.doc;
    const outcome = await payment(created.idfactura, (db) => db.updateTable('facturascli').set({ pagada: t().app.ctx.database.dialect.boolean(true) }).where('idfactura', '=', created.idfactura).execute().then(() => {}));
    assert.equal(outcome.answer.status, 200, JSON.stringify(outcome.answer.body));
    assert.equal(outcome.answer.body.ok, 'no-changes', 'already paid when its lock was taken');
    assert.equal(outcome.movements.length, 0, 'no movement committed');
    if (server()) assert.ok(paymentFailedTheGuard(outcome.seen), `through the guard:\n${outcome.seen.statements.join('\n')}`);
  });

  it('records a payment without its entry, with the warning, in a year closed meanwhile', async () => {
    const created = (await invoice()).body.doc;
    const { kysely } = t().app.ctx.database;
    try {
      const outcome = await payment(created.idfactura, (db) => db.updateTable('ejercicios').set({ estado: 'CERRADO' }).where('codejercicio', '=', year).execute().then(() => {}));
      assert.equal(outcome.answer.status, 200, JSON.stringify(outcome.answer.body));
      assert.equal(outcome.answer.body.data.pagada, true);
      assert.deepEqual(outcome.answer.body.warnings?.map((warning: any) => [warning.code, warning.resource]), [['closed-exercise', 'pagocliente']], JSON.stringify(outcome.answer.body.warnings));
      assert.equal(outcome.movements.length, 1, 'the movement, once');
      assert.equal(outcome.movements[0].idasiento, null, 'not posted');
      if (server()) assert.ok(paymentFailedTheGuard(outcome.seen), `through the guard:\n${outcome.seen.statements.join('\n')}`);
    } finally {
      await kysely.updateTable('ejercicios').set({ estado: 'ABIERTO' }).where('codejercicio', '=', year).execute();
    }
  });

  it('pays in one round trip, posted, its events logged', async () => {
    const created = (await invoice()).body.doc;
    const outcome = await payment(created.idfactura, async () => {});
    assert.equal(outcome.answer.status, 200, JSON.stringify(outcome.answer.body));
    assert.equal(outcome.movements.length, 1);
    assert.equal(typeof outcome.movements[0].idasiento, 'number', 'posted');
    const entry = (await t().call('GET', `/api/3/asiento/${outcome.movements[0].idasiento}`)).body;
    assert.ok(String(entry.concepto).includes(created.codigo), entry.concepto);
    const lines = (await t().call('GET', `/api/3/partida?filter[idasiento]=${entry.idasiento}`)).body;
    assert.equal(lines.length, 2, 'its lines name it');
    const logged = await t().app.ctx.database.kysely.selectFrom('event_log').select(['type', 'recordkey']).where('type', '=', 'payment.recorded').where('recordkey', '=', String(created.idfactura)).execute();
    assert.equal(logged.length, 1);
    if (server()) {
      const first = outcome.seen.statements.findIndex((text) => /^update .clientes./.test(text));
      assert.equal(outcome.seen.trips[first], outcome.seen.trips[outcome.seen.statements.lastIndexOf('commit')], 'the COMMIT with the first lock');
    }
  });
}, {
  // The observer counts every connection: background jobs stay quiet meanwhile.
  config: { stateRefreshMs: 60_000, verifactu: { ...loadConfig({}).verifactu, pollMs: 3_600_000 } },
});
