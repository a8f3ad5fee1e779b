/**
 * The benchmark's data: a small installation (1,000 customers, five products sold without stock
 * limits, 1,000 invoices of which the first, with 20 lines, is the export scenario's, a key
 * restricted to reading customers) and, for the growth scenarios, 100,000 more customers and
 * invoices written in bulk.
 */
import type { App } from '../src/app.ts';
import { inTransaction } from '../src/db/transaction.ts';
import { BENCH_KEY } from './bench-key.ts';

export const SMALL_CUSTOMERS = 1000;
export const LARGE_ROWS = 100_000;
/** The bulk invoices go to the first customers: each has ~50 on the small database, ~5,000 on the large. */
export const INVOICED_CUSTOMERS = 20;
/** Rows per bulk INSERT: well below every engine's limit on bound values for these tables. */
const CHUNK = 500;

/** Adds the small installation's data; returns the token of a key that may only read customers. */
export async function addSampleData(app: App): Promise<string> {
  const { store, registry, database } = app.ctx;
  await inTransaction(database, async (trx) => {
    for (let i = 1; i <= SMALL_CUSTOMERS; i++) {
      await store.create(registry.get('cliente')!, { codcliente: String(i), nombre: `Customer ${i}`, cifnif: `B${String(i).padStart(8, '0')}` }, trx);
    }
    for (let i = 1; i <= 5; i++) {
      await store.create(registry.get('producto')!, { referencia: `BENCH${i}`, descripcion: `Bench product ${i}`, precio: 9.99 + i, ventasinstock: true, codimpuesto: 'IVA21' }, trx);
    }
  });
  const lineas = Array.from({ length: 20 }, (_, i) => ({ referencia: `BENCH${(i % 5) + 1}`, descripcion: `Bench line ${i + 1} with a description of ordinary length`, cantidad: i + 1, dtopor: i % 3 === 0 ? 5 : 0 }));
  const made = await app.server.inject({ method: 'POST', url: '/api/3/crearFacturaCliente', headers: { 'x-auth-token': BENCH_KEY }, payload: { codcliente: '42', lineas } });
  if (made.statusCode !== 200 || made.json().doc.idfactura !== 1) throw new Error(`export invoice: ${made.statusCode} ${made.body.slice(0, 200)}`);
  const key = await store.create(registry.get('apikey')!, { description: 'bench: customers only' });
  await store.create(registry.get('apiaccess')!, { idapikey: key.record.id, resource: 'cliente', allowget: true, allowpost: false, allowput: false, allowdelete: false });
  await addInBulk(app, 0, SMALL_CUSTOMERS - 1);
  return String(key.reveal.apikey);
}

/** Adds LARGE_ROWS customers and invoices to the small installation (see addInBulk). */
export function addLargeData(app: App): Promise<void> {
  return addInBulk(app, LARGE_ROWS, LARGE_ROWS);
}

/**
 * Adds `customerCount` customers and `invoiceCount` invoice headers in bulk: copies of customer 1
 * and of invoice 1 with their own codes, numbers (following the last), names, tax ids and dates
 * spread over the year, the invoices shared out among the first INVOICED_CUSTOMERS customers.
 */
async function addInBulk(app: App, customerCount: number, invoiceCount: number): Promise<void> {
  const db = app.ctx.database.kysely;
  const customer = await db.selectFrom('clientes').selectAll().where('codcliente', '=', '1').executeTakeFirstOrThrow();
  const invoice = await db.selectFrom('facturascli').selectAll().where('idfactura', '=', 1).executeTakeFirstOrThrow();
  const year = String(invoice.fecha).slice(0, 4);
  const codePrefix = String(invoice.codigo).replace(/\d+$/, '');
  const firstCustomer = Number((await db.selectFrom('clientes').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n) + 1;
  const firstNumber = Number((await db.selectFrom('facturascli').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n) + 1;
  const { idfactura: _id, ...header } = invoice;
  for (let start = 0; start < Math.max(customerCount, invoiceCount); start += CHUNK) {
    const customers = Array.from({ length: Math.max(0, Math.min(CHUNK, customerCount - start)) }, (_, i) => {
      const n = firstCustomer + start + i;
      return { ...customer, codcliente: String(n), nombre: `Customer ${n}`, razonsocial: `Customer ${n}`, cifnif: `B${String(n).padStart(8, '0')}` };
    });
    const invoices = Array.from({ length: Math.max(0, Math.min(CHUNK, invoiceCount - start)) }, (_, i) => {
      const n = firstNumber + start + i;
      const day = new Date(Date.UTC(Number(year), 0, 1 + (n % 300)));
      return { ...header, numero: String(n), codigo: `${codePrefix}${n}`, codcliente: String((n % INVOICED_CUSTOMERS) + 1), fecha: day.toISOString().slice(0, 10) };
    });
    await inTransaction(app.ctx.database, async (trx) => {
      if (customers.length) await trx.insertInto('clientes').values(customers).execute();
      if (invoices.length) await trx.insertInto('facturascli').values(invoices).execute();
    });
  }
}
