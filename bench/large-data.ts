/**
 * Books of any size, written in bulk (`npm run seed:large`, and the growth side of `npm run bench`):
 * customers with realistic names and tax ids, and sales invoices with their lines over several
 * years and two series (A general, S simplified), numbered gap-free in each series and year with
 * dates rising with the numbers, a tenth of them going to the first 5 customers (customers with
 * thousands of invoices on a large database). Amounts are those of real invoices made by the API,
 * so every header adds up to its lines to the cent.
 *
 * How: the first VARIANTS invoices of each series and year are made through the API (creating the
 * exercise and the sequence, computing the amounts); the rest are copies of them with their own numbers, codes, dates,
 * customers and amounts, written by multi-row INSERTs in large transactions, and each sequence is
 * set after its last number so that the next invoice through the API follows on. Not written:
 * receipts, stock moves and customer risk of the copies (they are headers and lines only).
 */
import { sql } from 'kysely';
import type { App } from '../src/app.ts';
import type { Database, DbExecutor } from '../src/db/database.ts';
import { inTransaction } from '../src/db/transaction.ts';

export interface LargeDataOptions {
  customers: number;
  invoices: number;
  /** Years of books, ending with the current business year (default 5). */
  years?: number;
  /** Called after each written batch with the rows written so far and the total. */
  progress?: (written: number, total: number) => void;
}

export interface LargeDataReport {
  customers: number;
  invoices: number;
  lines: number;
  seconds: number;
}

/** Codes of the generated customers: L0000001 ... (fits codcliente's 10 characters up to 99,999,999). */
export const largeCustomerCode = (n: number) => `L${String(n).padStart(7, '0')}`;
/** The customers that receive a tenth of all invoices between them. */
export const HEAVY_CUSTOMERS = 5;
export const LARGE_SERIES = ['A', 'S'] as const;

const FIRST = ['Ana', 'Luis', 'María', 'Javier', 'Lucía', 'Carlos', 'Elena', 'Pablo', 'Carmen', 'Jorge', 'Marta', 'David', 'Sara', 'Andrés', 'Paula', 'Miguel'];
const LAST = ['García', 'López', 'Martínez', 'Sánchez', 'Pérez', 'Gómez', 'Ruiz', 'Díaz', 'Moreno', 'Álvarez', 'Romero', 'Navarro', 'Torres', 'Domínguez', 'Vázquez', 'Ramos', 'Gil', 'Serrano', 'Molina', 'Blanco'];
const COMPANY = ['Servicios', 'Distribuciones', 'Talleres', 'Construcciones', 'Consultores', 'Comercial', 'Transportes', 'Suministros'];
const NIF_LETTERS = 'TRWAGMYFPDXBNJZSQVHLCKE';
/** Invoices made by the API per series and year, each with its own quantities; the copies cycle through them. */
const VARIANTS = 7;
/** Rows per INSERT (well under every engine's limit on bound values) and INSERTs per transaction. */
const CHUNK = 400;
const CHUNKS_PER_TRANSACTION = 25;

/** Runs `write(trx, first, end)` over [from, to) in chunks of CHUNK rows, CHUNKS_PER_TRANSACTION chunks per transaction. */
async function inChunks(database: Database, from: number, to: number, write: (trx: DbExecutor, first: number, end: number) => Promise<void>): Promise<void> {
  for (let start = from; start < to; start += CHUNK * CHUNKS_PER_TRANSACTION) {
    await inTransaction(database, async (trx) => {
      for (let chunk = start; chunk < Math.min(start + CHUNK * CHUNKS_PER_TRANSACTION, to); chunk += CHUNK) await write(trx, chunk, Math.min(chunk + CHUNK, to));
    });
  }
}

/** A customer's name: a person (with a valid DNI) or a company (CIF-like), by its number. */
function customerOf(n: number): { nombre: string; cifnif: string; personafisica: boolean } {
  const first = FIRST[n % FIRST.length]!;
  const last1 = LAST[Math.floor(n / FIRST.length) % LAST.length]!;
  const last2 = LAST[Math.floor(n / (FIRST.length * LAST.length)) % LAST.length]!;
  if (n % 4 === 0) return { nombre: `${COMPANY[(n / 4) % COMPANY.length]} ${last1} ${last2} SL`, cifnif: `B${String(n).padStart(8, '0')}`, personafisica: false };
  const dni = n % 100_000_000;
  return { nombre: `${last1} ${last2}, ${first}`, cifnif: `${String(dni).padStart(8, '0')}${NIF_LETTERS[dni % 23]}`, personafisica: true };
}

/** Which customer invoice `i` of `count` goes to: one in ten to the heavy customers, the rest spread by a hash. */
function customerFor(i: number, customers: number): number {
  if (i % 10 === 0) return ((i / 10) % Math.min(HEAVY_CUSTOMERS, customers)) + 1;
  return (Math.imul(i, 2654435761) >>> 0) % customers + 1;
}

export async function addLargeBooks(app: App, options: LargeDataOptions): Promise<LargeDataReport> {
  const started = Date.now();
  const { ctx } = app;
  const db = ctx.database.kysely;
  const lineTable = 'lineasfacturascli';
  const years = options.years ?? 5;
  const today = ctx.clock.today().date;
  const thisYear = Number(today.slice(0, 4));
  const total = options.customers + options.invoices;
  let written = 0;
  const tick = (rows: number) => options.progress?.((written += rows), total);

  // A key for this process only: the templates go through the API like any client's invoice.
  const key = await ctx.store.create(ctx.registry.get('apikey')!, { description: 'seed:large (deleted when done)', fullaccess: true });
  const token = String(key.reveal.apikey);
  try {
    await ensureProducts(app);
    const existing = await db.selectFrom('clientes').select('codcliente').where('codcliente', '=', largeCustomerCode(1)).executeTakeFirst();
    if (existing) throw new Error(`customer ${largeCustomerCode(1)} exists: seed:large adds its books once, to an installation without them`);
    await ctx.store.create(ctx.registry.get('cliente')!, { codcliente: largeCustomerCode(1), ...customerOf(1), razonsocial: customerOf(1).nombre });
    const customerTemplate = await db.selectFrom('clientes').selectAll().where('codcliente', '=', largeCustomerCode(1)).executeTakeFirstOrThrow();
    tick(1);

    // Customers.
    await inChunks(ctx.database, 2, options.customers + 1, async (trx, first, end) => {
      const rows = [];
      for (let n = first; n < end; n++) {
        const person = customerOf(n);
        rows.push({ ...customerTemplate, codcliente: largeCustomerCode(n), ...person, razonsocial: person.nombre, email: `cliente${n}@example.com`, personafisica: person.personafisica ? 1 : 0 });
      }
      await trx.insertInto('clientes').values(rows).execute();
      tick(rows.length);
    });

    // Invoices: an equal share per series and year, the current year's ending today.
    const blocks = LARGE_SERIES.flatMap((codserie) => Array.from({ length: years }, (_, i) => ({ codserie, year: thisYear - years + 1 + i })));
    let nextId = Number((await db.selectFrom('facturascli').select((eb) => eb.fn.max('idfactura').as('m')).executeTakeFirst())?.m ?? 0);
    let invoiceIndex = 0;
    let lineCount = 0;
    for (const [b, block] of blocks.entries()) {
      const count = Math.floor(options.invoices / blocks.length) + (b < options.invoices % blocks.length ? 1 : 0);
      if (!count) continue;
      const last = await db.selectFrom('facturascli').select((eb) => eb.fn.max('fecha').as('f')).where('codserie', '=', block.codserie)
        .where('fecha', '>=', `${block.year}-01-01`).where('fecha', '<=', `${block.year}-12-31`).executeTakeFirst();
      const firstDay = last?.f ? String(last.f).slice(0, 10) : `${block.year}-01-01`;
      const lastDay = block.year === thisYear ? today : `${block.year}-12-31`;
      // The templates: one invoice per amount variant through the API, the block's first numbers.
      const templates: Array<{ header: Record<string, unknown>; lines: Array<Record<string, unknown>> }> = [];
      for (let variant = 1; variant <= Math.min(VARIANTS, count); variant++) {
        const made = await app.server.inject({
          method: 'POST',
          url: '/api/3/crearFacturaCliente',
          headers: { 'x-auth-token': token },
          payload: { codcliente: largeCustomerCode(1), codserie: block.codserie, fecha: firstDay, lineas: [{ referencia: 'LARGE1', cantidad: variant }, { referencia: 'LARGE2', cantidad: 2 * variant + 1, dtopor: 5 }] },
        });
        if (made.statusCode !== 200) throw new Error(`template invoice ${block.codserie} ${block.year}: ${made.statusCode} ${made.body.slice(0, 300)}`);
        const id = Number(made.json().doc.idfactura);
        nextId = Math.max(nextId, id);
        const { idfactura: _id, ...header } = await db.selectFrom('facturascli').selectAll().where('idfactura', '=', id).executeTakeFirstOrThrow();
        const lines = (await db.selectFrom(lineTable).selectAll().where('idfactura', '=', id).orderBy('orden').orderBy('idlinea').execute()).map(({ idlinea: _line, ...line }) => line);
        templates.push({ header, lines });
        invoiceIndex++;
        lineCount += lines.length;
        tick(1);
      }
      const first = templates[0]!.header;
      const digits = /(\d+)$/.exec(String(first.codigo))?.[1] ?? '';
      const codePrefix = String(first.codigo).slice(0, String(first.codigo).length - digits.length);
      const firstNumber = Number(first.numero);
      const from = Date.parse(`${firstDay}T00:00:00Z`);
      const span = Date.parse(`${lastDay}T00:00:00Z`) - from;
      await inChunks(ctx.database, templates.length, count, async (trx, first, end) => {
        const headers = [];
        const lineRows = [];
        for (let k = first; k < end; k++) {
          const numero = firstNumber + k;
          const template = templates[invoiceIndex % templates.length]!;
          const customer = customerFor(invoiceIndex++, options.customers);
          const person = customerOf(customer);
          const idfactura = ++nextId;
          headers.push({
            ...template.header,
            idfactura,
            numero: String(numero),
            codigo: `${codePrefix}${String(numero).padStart(digits.length, '0')}`,
            fecha: new Date(from + Math.floor((span * k) / count / 86_400_000) * 86_400_000).toISOString().slice(0, 10),
            codcliente: largeCustomerCode(customer),
            nombrecliente: person.nombre,
            cifnif: person.cifnif,
          });
          for (const line of template.lines) lineRows.push({ ...line, idfactura });
        }
        await trx.insertInto('facturascli').values(headers).execute();
        // Lines in the same chunk size: a few times as many rows per statement would pass the bound-value limits.
        for (let l = 0; l < lineRows.length; l += CHUNK) await trx.insertInto(lineTable).values(lineRows.slice(l, l + CHUNK)).execute();
        lineCount += lineRows.length;
        tick(headers.length);
      });
      // PostgreSQL's serial does not see explicit keys: the next template would take a copy's.
      if (ctx.database.engine === 'postgres') await sql`SELECT setval(pg_get_serial_sequence('facturascli', 'idfactura'), ${nextId})`.execute(db);
      // The next invoice through the API follows the last copy.
      await db.updateTable('secuencias_documentos').set({ numero: firstNumber + count })
        .where('tipodoc', '=', 'FacturaCliente').where('codserie', '=', block.codserie).where('codejercicio', '=', String(first.codejercicio)).execute();
    }
    await analyze(app);
    return { customers: options.customers, invoices: invoiceIndex, lines: lineCount, seconds: (Date.now() - started) / 1000 };
  } finally {
    await ctx.store.remove(ctx.registry.get('apikey')!, key.record.id as number).catch(() => {});
  }
}

/**
 * Fresh statistics for the planners after a bulk load (and, on PostgreSQL, the visibility map that
 * lets counts read indexes alone): what autovacuum would do some minutes later.
 */
async function analyze(app: App): Promise<void> {
  const { engine, kysely: db } = app.ctx.database;
  const tables = ['clientes', 'facturascli', 'lineasfacturascli'];
  if (engine === 'sqlite') await sql`ANALYZE`.execute(db);
  else if (engine === 'postgres') for (const table of tables) await sql`VACUUM ANALYZE ${sql.table(table)}`.execute(db);
  else await sql.raw(`ANALYZE TABLE ${tables.join(', ')}`).execute(db);
}

/** Two products sold without stock limits, for the template invoices. */
async function ensureProducts(app: App): Promise<void> {
  const { store, registry, database } = app.ctx;
  for (const [i, precio] of [[1, 24.5], [2, 9.95]] as const) {
    const referencia = `LARGE${i}`;
    const found = await database.kysely.selectFrom('productos').select('referencia').where('referencia', '=', referencia).executeTakeFirst();
    if (!found) await store.create(registry.get('producto')!, { referencia, descripcion: `Product ${referencia}`, precio, ventasinstock: true, codimpuesto: 'IVA21' });
  }
}


/** The database's size on disk in MiB (SQLite: its file, with the WAL; others: the engine's own figure). */
export async function databaseSizeMib(app: App): Promise<number> {
  const { engine, kysely: db } = app.ctx.database;
  const query =
    engine === 'sqlite'
      ? sql<{ b: number }>`SELECT page_count * page_size AS b FROM pragma_page_count(), pragma_page_size()`
      : engine === 'postgres'
        ? sql<{ b: number }>`SELECT pg_database_size(current_database()) AS b`
        : sql<{ b: number }>`SELECT SUM(data_length + index_length) AS b FROM information_schema.tables WHERE table_schema = DATABASE()`;
  const { rows } = await query.execute(db);
  return Math.round(Number(rows[0]?.b ?? 0) / 1024 / 1024);
}

/**
 * The 12-month sales report (invoices, net, tax and total per month up to today) as one query, the
 * way a report would ask for it; there is no report endpoint, so the bench times the query itself.
 */
export async function salesByMonth(app: App): Promise<Array<{ month: string; invoices: number; total: number }>> {
  const { engine, kysely: db } = app.ctx.database;
  const today = app.ctx.clock.today().date;
  const from = `${Number(today.slice(0, 4)) - 1}${today.slice(4, 8)}01`;
  const month = engine === 'sqlite' ? sql<string>`substr(fecha, 1, 7)` : engine === 'postgres' ? sql<string>`to_char(fecha, 'YYYY-MM')` : sql<string>`DATE_FORMAT(fecha, '%Y-%m')`;
  const rows = await db.selectFrom('facturascli').select([month.as('month'), (eb) => eb.fn.countAll().as('invoices'), (eb) => eb.fn.sum('neto').as('neto'), (eb) => eb.fn.sum('totaliva').as('iva'), (eb) => eb.fn.sum('total').as('total')])
    .where('fecha', '>=', from).where('fecha', '<=', today).groupBy(month).orderBy(month).execute();
  return rows.map((row) => ({ month: String(row.month), invoices: Number(row.invoices), total: Number(row.total) }));
}
