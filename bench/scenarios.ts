/**
 * What `npm run bench` measures, and the targets it checks (issues 28 and 36): each SQLite read as
 * a ratio to the stack's own ceiling measured in the same run (Fastify with one prepared SQLite
 * statement answering the same request, bench/stack-ceiling.ts); SQLite's invoice creation as a
 * ratio to the same scenario on an earlier commit of the service, measured alternately in the same
 * run (BENCH_BASELINE_REF, built in a temporary worktree); the other engines as ratios to SQLite's
 * figure in the same run. Growth scenarios compare the same request on a small and a large database.
 */
const invoiceFor = (codcliente: string) => JSON.stringify({
  codcliente,
  lineas: [
    ...[1, 2, 3].map((i) => ({ referencia: `BENCH${i}`, cantidad: i })),
    { referencia: 'BENCH4', cantidad: 2, dtopor: 10 },
    { descripcion: 'Service', cantidad: 1, pvpunitario: 12.5 },
  ],
});
const invoiceBody = invoiceFor('42');

/**
 * Invoices of 50 customers, each with 4 of 20 products and a free line: writers that share less
 * (issue 36), with what a user's invoice holds (issue 59: a line that is no product).
 */
const spreadBodies = Array.from({ length: 50 }, (_, i) => JSON.stringify({
  codcliente: String(100 + i),
  lineas: [
    ...[0, 1, 2, 3].map((j) => ({ referencia: `BENCH${((i * 3 + j * 4) % 20) + 1}`, cantidad: 1 + ((i + j) % 3) })),
    { descripcion: 'Service', cantidad: 1, pvpunitario: 12.5 + i },
  ],
}));

export interface Scenario {
  name: string;
  method?: 'GET' | 'POST';
  path: string;
  body?: string;
  /** Bodies sent in turn, one per request (instead of `body`). */
  bodies?: string[];
  /** Sent with the key restricted to reading customers instead of the global key. */
  restricted?: boolean;
  /**
   * The lowest ratio this scenario must reach on SQLite, to the ceiling's figure for `ceilingPath`
   * (its own path when unset): the same request, or for a write the GET one ceiling.
   */
  target?: number;
  ceilingPath?: string;
  /**
   * The lowest ratio to SQLite's figure, in the same run, on PostgreSQL and MariaDB. A scenario with
   * one is measured in the creation phase: every engine's server and the servers of START_REF
   * (and BASELINE_REF for SQLite) in turn, round after round, each figure the median of its rounds.
   */
  engineTarget?: number;
  /** The lowest ratio of each engine's figure to its own at START_REF, measured in turn in the same run. */
  startTarget?: number;
  /**
   * On SQLite, the lowest ratio to the same scenario on the baseline commit (BENCH_BASELINE_REF),
   * both servers measured alternately in the same run.
   */
  baselineTarget?: number;
  /** The highest 99th percentile latency, ms, on every engine. */
  p99Limit?: number;
  /** Creates invoices: their numbers are checked gap-free afterwards. */
  createsInvoices?: boolean;
  /** Measure the page this request's `Link: rel="next"` points to (a cursor page) instead. */
  followLink?: boolean;
  /** Which stack ceilings (bench/stack-ceiling.ts) answer this request: both, or only the one with SQLite. */
  ceiling?: 'any' | 'sqlite';
  /** Renders PDFs: measured last, and left out of the peak memory limit. */
  pdf?: boolean;
}

const GET_ONE = '/api/3/cliente/42';

export const SCENARIOS: Scenario[] = [
  // The reads are held where issue 28 left them (its measured floor), not raised.
  { name: 'GET one customer', path: GET_ONE, target: 0.4, ceiling: 'any' },
  { name: 'GET one customer, restricted key', path: GET_ONE, restricted: true, ceiling: 'any' },
  { name: 'customer list: 50 rows, filter + sort', path: '/api/3/cliente?filter[nombre_like]=customer%201&sort[nombre]=ASC&limit=50', target: 0.5, ceiling: 'sqlite' },
  // 50 concurrent writers (the bench's connections), one customer and the same products: every
  // creation takes the same locks (the serie's sequence, the customer, the stock rows, the year).
  // Its customer and products as bench/creation-data.ts arranges them (a risk limit, stock kept).
  { name: 'POST crearFacturaCliente, 5 lines', method: 'POST', path: '/api/3/crearFacturaCliente', body: invoiceBody, baselineTarget: 2, engineTarget: 0.6, startTarget: 1.3, p99Limit: 500, createsInvoices: true },
  // 50 writers over 50 customers and 20 products: they share the sequence and the year only.
  { name: 'POST crearFacturaCliente, 50 customers, 20 products', method: 'POST', path: '/api/3/crearFacturaCliente', bodies: spreadBodies, engineTarget: 0.6, startTarget: 1.3, p99Limit: 500, createsInvoices: true },
  // Reported on its own line, with its own memory: rendering a PDF is not what the limits below are about.
  { name: 'PDF of a 20-line invoice', path: '/api/3/exportarFacturaCliente/1?type=PDF', pdf: true },
];

const lastYear = new Date().getFullYear() - 1;

/** A page in the middle of `rows` rows (page 10,000 of a million), on a page boundary. */
const middle = (rows: number) => Math.floor(rows / 100) * 50;

export interface GrowthScenario extends Scenario {
  /** The request for a database with these books, when it depends on their size. */
  at?: (books: { customers: number; invoices: number }) => string;
  /** Only reported on the large bench (deep offset pages, substring filters): their cost grows with the table by nature. */
  reportOnly?: boolean;
}

/**
 * Growth: each runs on the small database (1,000 customers and invoices of bench/large-data.ts
 * beside the sample data) and on a large one (100,000 of each by default, a million with
 * `--large`); the large must keep GROWTH_TARGET (LARGE_TARGET with --large) of the small one's rate.
 */
export const GROWTH_SCENARIOS: GrowthScenario[] = [
  { name: 'POST crearFacturaCliente, 5 lines', method: 'POST', path: '/api/3/crearFacturaCliente', body: invoiceBody, createsInvoices: true },
  // The first of the heavy customers (bench/large-data.ts): a twentieth of all invoices, unpaid.
  // Its risk must not be counted again over them on every creation (issue 28, item 3).
  { name: 'POST crearFacturaCliente, busiest customer', method: 'POST', path: '/api/3/crearFacturaCliente', body: invoiceFor('L0000001'), createsInvoices: true },
  { name: 'GET one customer', path: '/api/3/cliente/L0000042' },
  // A substring filter no index can serve: the sorted index is walked until 50 names match, a walk
  // that grows with the rows sorting before them (reported; the count is cached, see query-syntax.md).
  { name: 'customers: name contains, sorted, 50 rows', path: '/api/3/cliente?filter[nombre_like]=garc%C3%ADa&sort[nombre]=ASC&limit=50', reportOnly: true },
  { name: 'invoices: last year, by date, 50 rows', path: `/api/3/facturacliente?filter[fecha_gte]=${lastYear}-01-01&filter[fecha_lte]=${lastYear}-12-31&sort[fecha]=DESC&limit=50` },
  { name: 'customers: by tax id', path: '/api/3/cliente?filter[cifnif]=B00000420&limit=50' },
  { name: 'invoices: of a customer, by date', path: '/api/3/facturacliente?filter[codcliente]=L0000002&sort[fecha]=DESC&limit=10' },
  { name: 'invoices: by date, page 1', path: '/api/3/facturacliente?sort[fecha]=DESC&limit=50' },
  { name: 'invoices: by date, middle page by offset', path: '', at: (books) => `/api/3/facturacliente?sort[fecha]=DESC&limit=50&offset=${middle(books.invoices)}`, reportOnly: true },
  { name: 'invoices: by date, middle page by cursor', path: '', at: (books) => `/api/3/facturacliente?sort[fecha]=DESC&limit=50&offset=${middle(books.invoices) - 50}`, followLink: true },
  { name: 'customers: by name, middle page by offset', path: '', at: (books) => `/api/3/cliente?sort[nombre]=ASC&limit=50&offset=${middle(books.customers)}`, reportOnly: true },
  { name: 'customers: by name, middle page by cursor', path: '', at: (books) => `/api/3/cliente?sort[nombre]=ASC&limit=50&offset=${middle(books.customers) - 50}`, followLink: true },
];

/** The 100,000-row database's rate must be at least this share of the small one's (issue: within 2x). */
export const GROWTH_TARGET = 0.5;
/** With --large (a million rows): within 1.2x. */
export const LARGE_TARGET = 1 / 1.2;
/** Peak resident memory of a server through the read and creation scenarios, in MiB (the PDF's is reported apart). */
export const RSS_LIMIT_MIB = 320;
/** Resident memory of a server at rest after it started on an existing database, in MiB. */
export const IDLE_RSS_LIMIT_MIB = 160;
/** The commit whose SQLite invoice creation the bench sets the current one against (issue 36: the landed main before it). */
export const BASELINE_REF = process.env.BENCH_BASELINE_REF ?? '857379a';
/** The commit every engine's creation is set against (issue 59: the landed main before it), for `startTarget` and CPU per invoice. */
export const START_REF = process.env.BENCH_START_REF ?? '674847e';
/** Rounds of the creation phase: each figure is their median. */
export const CREATION_ROUNDS = Number(process.env.BENCH_CREATION_ROUNDS ?? 3);
