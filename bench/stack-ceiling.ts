/**
 * The stack's own ceilings, measured in the same run as the service so that its targets can be
 * read against them: Fastify answering the customer record with nothing behind it, and Fastify
 * with one better-sqlite3 prepared statement per request (the record by code; the 50-row page of
 * the list scenario and its count). Neither checks a key, validates, logs or decodes rows: they
 * are what a request costs before anything of ours runs, so a target above them cannot be met
 * by our code on this machine, however lean.
 */
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import { customerModel } from '../src/modules/customers/customer-model.ts';

/** A customer record as the API answers it (every visible field; the baseline's body). */
export function customerRecord(code = '42'): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const name of customerModel.visibleFields) record[name] = null;
  return Object.assign(record, { codcliente: code, nombre: `Customer ${code}`, razonsocial: `Customer ${code}`, cifnif: `B${code}`, debaja: false, fechaalta: '2026-11-21', personafisica: true, regimeniva: 'General' });
}

const CUSTOMERS = 1000;

/** Starts the ceiling server (`sqlite`: with the table behind it); resolves to its port. */
export async function stackCeiling(withSqlite: boolean): Promise<number> {
  const app = Fastify();
  if (!withSqlite) {
    const record = customerRecord();
    app.get('/api/3/cliente/:code', async () => record);
  } else {
    const db = new Database(':memory:');
    const columns = Object.keys(customerRecord());
    db.exec(`CREATE TABLE clientes (${columns.map((column) => `"${column}"`).join(', ')}, PRIMARY KEY (codcliente))`);
    db.exec('CREATE INDEX clientes_nombre ON clientes (nombre, codcliente)');
    const insert = db.prepare(`INSERT INTO clientes VALUES (${columns.map(() => '?').join(', ')})`);
    db.transaction(() => {
      for (let i = 1; i <= CUSTOMERS; i++) {
        insert.run(Object.values(customerRecord(String(i))).map((value) => (typeof value === 'boolean' ? Number(value) : value)));
      }
    })();
    const one = db.prepare('SELECT * FROM clientes WHERE codcliente = ?');
    const page = db.prepare('SELECT * FROM clientes WHERE nombre LIKE ? ORDER BY nombre LIMIT 50');
    const total = db.prepare('SELECT COUNT(*) AS n FROM clientes WHERE nombre LIKE ?').pluck();
    app.get('/api/3/cliente/:code', async (request) => one.get((request.params as { code: string }).code));
    app.get('/api/3/cliente', async (request, reply) => {
      const pattern = `%${(request.query as Record<string, string>)['filter[nombre_like]'] ?? ''}%`;
      reply.header('x-total-count', total.get(pattern));
      return page.all(pattern);
    });
  }
  await app.listen({ port: 0, host: '127.0.0.1' });
  return (app.server.address() as { port: number }).port;
}
