/**
 * The benchmark's data: 1,000 customers "Customer N", twenty products sold without stock limits,
 * a 20-line invoice (number 1, the export scenario's), a key restricted to reading customers,
 * and then books of the given size written in bulk (bench/large-data.ts): 1,000 customers and
 * 1,000 invoices on the small database, 100,000 or 1,000,000 of each on the growth ones.
 */
import type { App } from '../src/app.ts';
import { inTransaction } from '../src/db/transaction.ts';
import { BENCH_KEY } from './bench-key.ts';
import { addLargeBooks } from './large-data.ts';

const SMALL_CUSTOMERS = 1000;
export const SMALL_BOOKS = { customers: 1000, invoices: 1000 };

/** Adds the installation's data; returns the token of a key that may only read customers. */
export async function addSampleData(app: App, books = SMALL_BOOKS): Promise<string> {
  const { store, registry, database } = app.ctx;
  await inTransaction(database, async (trx) => {
    for (let i = 1; i <= SMALL_CUSTOMERS; i++) {
      await store.create(registry.get('cliente')!, { codcliente: String(i), nombre: `Customer ${i}`, cifnif: `B${String(i).padStart(8, '0')}` }, trx);
    }
    for (let i = 1; i <= 20; i++) {
      await store.create(registry.get('producto')!, { referencia: `BENCH${i}`, descripcion: `Bench product ${i}`, precio: 9.99 + i, ventasinstock: true, codimpuesto: 'IVA21' }, trx);
    }
  });
  const lineas = Array.from({ length: 20 }, (_, i) => ({ referencia: `BENCH${(i % 5) + 1}`, descripcion: `Bench line ${i + 1} with a description of ordinary length`, cantidad: i + 1, dtopor: i % 3 === 0 ? 5 : 0 }));
  const made = await app.server.inject({ method: 'POST', url: '/api/3/crearFacturaCliente', headers: { 'x-auth-token': BENCH_KEY }, payload: { codcliente: '42', lineas } });
  if (made.statusCode !== 200 || made.json().doc.idfactura !== 1) throw new Error(`export invoice: ${made.statusCode} ${made.body.slice(0, 200)}`);
  const key = await store.create(registry.get('apikey')!, { description: 'bench: customers only' });
  await store.create(registry.get('apiaccess')!, { idapikey: key.record.id, resource: 'cliente', allowget: true, allowpost: false, allowput: false, allowdelete: false });
  await addLargeBooks(app, books);
  return String(key.reveal.apikey);
}
