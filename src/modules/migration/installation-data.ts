import { sql } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { ImportRefused } from './copy-tables.ts';
import type { TablePlan } from './import-plan.ts';

/**
 * A new installation as an import finds and clears it: what it may hold (its default data, which
 * the source's replaces), checked before anything is written.
 */

/**
 * The tables a new installation fills (the default data: company, warehouse, series, taxes,
 * payment methods, countries, the chart, sample products ...) or its operator may have touched
 * before importing (keys, users, settings). Any other table with a row means books are here.
 */
const DEFAULT_DATA = new Set([
  'settings', 'series', 'empresas', 'users', 'paises', 'provincias', 'ciudades', 'codigos_postales', 'almacenes', 'ejercicios', 'estados_documentos', 'formatos_documentos', 'impuestos',
  'impuestoszonas', 'retenciones', 'idsfiscales', 'divisas', 'formaspago', 'diarios', 'conceptos_partidas', 'cuentasesp', 'cuentas', 'subcuentas', 'familias', 'fabricantes', 'productos', 'variantes',
  'agenciastrans', 'emails_notifications', 'api_keys', 'api_access', 'roles', 'roles_access', 'roles_users', 'pages', 'pages_filters', 'pages_options', 'logs', 'cronjobs', 'work_events',
]);

/** Refuses (before anything is written) an installation that holds more than a new one: the import is for a fresh one. */
export async function refuseUnlessFresh(ctx: AppContext, db: DbExecutor = ctx.database.kysely): Promise<void> {
  const found: string[] = [];
  for (const model of ctx.registry.resources()) {
    if (DEFAULT_DATA.has(model.table)) continue;
    const rows = Number((await sql<{ n: unknown }>`SELECT COUNT(*) AS n FROM ${sql.table(model.table)}`.execute(db)).rows[0]!.n);
    if (rows) found.push(`${model.table} (${rows})`);
  }
  if (found.length) {
    throw new ImportRefused(`the installation of DATABASE_URL is not new: it holds ${found.join(', ')}. An import goes into a new installation only (default data, no documents): point DATABASE_URL at a new database (its first start makes it) and run the import again.`);
  }
}

/** Removes the rows of the tables about to be copied, children first (the source's data replaces the default data). */
export async function clearTables(db: DbExecutor, plans: readonly TablePlan[]): Promise<void> {
  for (const plan of [...plans].reverse()) await db.deleteFrom(plan.model.table).execute();
}
