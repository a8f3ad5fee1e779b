/**
 * What `npm run bench` measures, and the targets it checks (issue "Operations and speed"): ratios
 * to the plain node:http baseline measured in the same run, on SQLite; the other engines are
 * reported beside it. Growth scenarios run on a database with 100,000 more customers and invoices
 * and are compared with the same request on the small database.
 */
const invoiceBody = JSON.stringify({
  codcliente: '42',
  lineas: [
    ...[1, 2, 3].map((i) => ({ referencia: `BENCH${i}`, cantidad: i })),
    { referencia: 'BENCH4', cantidad: 2, dtopor: 10 },
    { descripcion: 'Service', cantidad: 1, pvpunitario: 12.5 },
  ],
});

export interface Scenario {
  name: string;
  method?: 'GET' | 'POST';
  path: string;
  body?: string;
  /** Sent with the key restricted to reading customers instead of the global key. */
  restricted?: boolean;
  /** The lowest ratio to the baseline this scenario must reach on SQLite. */
  target?: number;
  /** Creates invoices: their numbers are checked gap-free afterwards. */
  createsInvoices?: boolean;
  /** The request on the large database, when it differs (a page as deep in proportion). */
  largePath?: string;
  /** Measure the page this request's `Link: rel="next"` points to (a cursor page) instead. */
  followLink?: boolean;
}

export const SCENARIOS: Scenario[] = [
  { name: 'GET one customer', path: '/api/3/cliente/42', target: 0.6 },
  { name: 'GET one customer, restricted key', path: '/api/3/cliente/42', restricted: true, target: 0.55 },
  { name: 'customer list: 50 rows, filter + sort', path: '/api/3/cliente?filter[nombre_like]=customer%201&sort[nombre]=ASC&limit=50', target: 0.12 },
  { name: 'POST crearFacturaCliente, 5 lines', method: 'POST', path: '/api/3/crearFacturaCliente', body: invoiceBody, target: 0.035, createsInvoices: true },
  { name: 'PDF of a 20-line invoice', path: '/api/3/exportarFacturaCliente/1?type=PDF' },
];

/** Growth: each runs on the small and on the large database; the large must keep half the rate. */
export const GROWTH_SCENARIOS: Scenario[] = [
  { name: 'customers: filter + sort, 50 rows', path: '/api/3/cliente?filter[nombre_like]=customer%201&sort[nombre]=ASC&limit=50' },
  { name: 'customers: by tax id', path: '/api/3/cliente?filter[cifnif]=B00000420&limit=50' },
  { name: 'customers: sorted, deep offset', path: '/api/3/cliente?sort[nombre]=ASC&limit=50&offset=900', largePath: '/api/3/cliente?sort[nombre]=ASC&limit=50&offset=90000' },
  { name: 'customers: sorted, deep page by cursor', path: '/api/3/cliente?sort[nombre]=ASC&limit=50&offset=850', largePath: '/api/3/cliente?sort[nombre]=ASC&limit=50&offset=89950', followLink: true },
  { name: 'invoices: of a customer, by date', path: '/api/3/facturacliente?filter[codcliente]=2&sort[fecha]=DESC&limit=50' },
  { name: 'invoices: by date, deep offset', path: '/api/3/facturacliente?sort[fecha]=DESC&limit=50&offset=900', largePath: '/api/3/facturacliente?sort[fecha]=DESC&limit=50&offset=90000' },
  { name: 'invoices: by date, deep page by cursor', path: '/api/3/facturacliente?sort[fecha]=DESC&limit=50&offset=850', largePath: '/api/3/facturacliente?sort[fecha]=DESC&limit=50&offset=89950', followLink: true },
];

/** The large database's rate must be at least this share of the small one's. */
export const GROWTH_TARGET = 0.5;
/** Peak resident memory of a server, in MiB. */
export const RSS_LIMIT_MIB = 250;
