import { sql, type RawBuilder } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import { textOf } from '../../models/record-rules.ts';
import { fillTaxRowsOnce } from './fill-tax-rows.ts';
import { invoiceTaxModel } from './tax-line-model.ts';
import { vatDateSql } from './vat-date.ts';
import { taxPeriodOf, taxYearOf } from './tax-period.ts';

/**
 * The annual statement of operations with third parties (Modelo 347) and the recapitulative
 * statement of intra-EU operations (Modelo 349), from SQL aggregates of the invoices
 * (docs/tax-forms.md; ../shared/reference/tax-forms.md sections 3 and 4).
 */

type Row = Record<string, unknown>;

/** The 347's threshold: a party is declared when its annual total is strictly above it (per key). */
export const THRESHOLD_347 = 3005.06;

const SIDES = {
  sales: { table: 'facturascli', name: 'nombrecliente', date: vatDateSql('sales'), key347: 'B', column: 't.idfacturacli' },
  purchase: { table: 'facturasprov', name: 'nombre', date: vatDateSql('purchase'), key347: 'A', column: 't.idfacturaprov' },
} as const;

/** Operations another return carries (349: intra-EU; imports and exports): out of the 347. */
const NOT_IN_347 = ['intracomunitaria', 'intracom-servicios', 'exportacion', 'importacion'];

const euros = (value: unknown) => Math.round(Number(value ?? 0) * 100) / 100;

/**
 * `GET /api/3/modelo347?codejercicio=`: every customer (key B) and supplier (key A) whose year's
 * invoices add up to more than 3,005.06 EUR, VAT and surcharge included, by tax id, with the
 * quarters of their VAT periods. Left out: intra-EU operations (349), imports and exports, invoices
 * with IRPF (models 190/180), disbursements (suplidos). Credit notes reduce their quarter.
 */
export async function modelo347(ctx: AppContext, query: Record<string, unknown>): Promise<Row> {
  const { codejercicio, year, idempresa } = await taxYearOf(ctx, query);
  const db = ctx.database.kysely;
  const declarados: Row[] = [];
  for (const side of ['sales', 'purchase'] as const) {
    const { table, name, date, key347 } = SIDES[side];
    // Rounded per invoice to the cent (a DECIMAL: PostgreSQL rounds no doubles to a number of places).
    const amount = sql<number>`ROUND(CAST((f.total - COALESCE(f.totalsuplidos, 0)) / COALESCE(NULLIF(f.tasaconv, 0), 1) AS DECIMAL(20, 6)), 2)`;
    const quarter = (q: number): RawBuilder<number> => sql<number>`SUM(CASE WHEN ${date} >= ${`${year}-${String(q * 3 - 2).padStart(2, '0')}-01`} AND ${date} <= ${`${year}-${String(q * 3).padStart(2, '0')}-${q === 1 || q === 4 ? '31' : '30'}`} THEN ${amount} ELSE 0 END)`;
    const rows = await db.selectFrom(`${table} as f`)
      .select([
        'f.cifnif', sql<string>`MAX(${sql.ref(`f.${name}`)})`.as('nombre'), sql<string>`MAX(f.codpais)`.as('codpais'), sql<number>`SUM(${amount})`.as('importe'),
        quarter(1).as('q1'), quarter(2).as('q2'), quarter(3).as('q3'), quarter(4).as('q4'),
      ])
      .where('f.idempresa', '=', idempresa).where(date, '>=', `${year}-01-01`).where(date, '<=', `${year}-12-31`)
      .where((eb) => eb.or([eb('f.operacion', 'is', null), eb('f.operacion', 'not in', NOT_IN_347)]))
      .where((eb) => eb.or([eb('f.totalirpf', 'is', null), eb('f.totalirpf', '=', 0)]))
      // Without the customer's or supplier's tax id there is no one to declare (simplified invoices).
      .where('f.cifnif', 'is not', null).where('f.cifnif', '<>', '')
      .groupBy('f.cifnif')
      .having(sql`SUM(${amount})`, '>', THRESHOLD_347)
      .orderBy('f.cifnif').execute();
    for (const row of rows) {
      declarados.push({
        cifnif: textOf(row.cifnif), nombre: textOf(row.nombre), codpais: row.codpais ? textOf(row.codpais) : null, clave: key347,
        importe: euros(row.importe), trimestres: [euros(row.q1), euros(row.q2), euros(row.q3), euros(row.q4)],
      });
    }
  }
  return { modelo: '347', codejercicio, idempresa, umbral: THRESHOLD_347, declarados };
}

/** The 349 keys our invoices carry: deliveries (E) and services rendered (S); acquisitions of goods (A) and services (I). */
const KEYS_349: Record<'sales' | 'purchase', Record<string, string>> = {
  sales: { intracomunitaria: 'E', 'intracom-servicios': 'S' },
  purchase: { intracomunitaria: 'A', 'intracom-servicios': 'I' },
};

/**
 * `GET /api/3/modelo349?codejercicio=&periodo=`: the period's intra-EU operations per operator
 * (its EU VAT number) and key, the taxable base in euros summed from the invoices' tax rows.
 * Credit notes of the period reduce it (no rectification records of earlier periods).
 */
export async function modelo349(ctx: AppContext, query: Record<string, unknown>): Promise<Row> {
  const period = await taxPeriodOf(ctx, query);
  await fillTaxRowsOnce(ctx, period.idempresa);
  const db = ctx.database.kysely;
  const operaciones: Row[] = [];
  for (const side of ['sales', 'purchase'] as const) {
    const { table, name, date, column } = SIDES[side];
    const rows = await db.selectFrom(`${invoiceTaxModel.table} as t`).innerJoin(`${table} as f`, 'f.idfactura', column as never)
      .select(['f.cifnif', 'f.operacion', sql<string>`MAX(${sql.ref(`f.${name}`)})`.as('nombre'), sql<string>`MAX(f.codpais)`.as('codpais'), sql<number>`SUM(t.base)`.as('base')])
      .where('f.idempresa', '=', period.idempresa).where(date, '>=', period.desde).where(date, '<=', period.hasta)
      .where('f.operacion', 'in', Object.keys(KEYS_349[side]))
      .groupBy(['f.cifnif', 'f.operacion']).orderBy('f.cifnif').execute();
    for (const row of rows) {
      operaciones.push({
        cifnif: textOf(row.cifnif), nombre: textOf(row.nombre), codpais: row.codpais ? textOf(row.codpais) : null, clave: KEYS_349[side][textOf(row.operacion)], base: euros(row.base),
      });
    }
  }
  operaciones.sort((a, b) => textOf(a.cifnif).localeCompare(textOf(b.cifnif)) || textOf(a.clave).localeCompare(textOf(b.clave)));
  return { modelo: '349', codejercicio: period.codejercicio, periodo: period.periodo, idempresa: period.idempresa, desde: period.desde, hasta: period.hasta, operaciones };
}
