import type { Model } from '../../models/define-model.ts';
import type { ModelRegistry } from '../../models/registry.ts';
import type { SourceTable } from './source-database.ts';

/**
 * What an import copies: every table of the source that has a model here (the established
 * system's tables, whose names and columns ours mirror), with the columns both have; and what it
 * does not, to be listed, never silently dropped: the source's tables without a model (plugins'),
 * the source's columns we do not keep (old columns, plugins' additions), and the columns of ours
 * the source lacks (they take their defaults).
 */

export interface TablePlan {
  model: Model;
  source: SourceTable;
  /** The columns copied (both have them), in the model's order. */
  columns: string[];
  /**
   * Columns naming a row of the same table or of a table copied later (a tree of accounts, a
   * credit note naming its invoice): written once every table is in, so that no row waits for a
   * row after it.
   */
  deferred: string[];
  /** The source's columns we have no place for. */
  notImported: string[];
  /** Our columns the source lacks. */
  notInSource: string[];
}

export interface ImportPlan {
  tables: TablePlan[];
  /** The source's tables without a model here. */
  unknownTables: SourceTable[];
  /** Tables of ours mirroring the system's that the source does not have (an older installation). */
  absentTables: string[];
}

/** The plan of an import from the source's tables: our internal tables (service bookkeeping) are never copied. */
export function planImport(registry: ModelRegistry, tables: readonly SourceTable[]): ImportPlan {
  const byName = new Map(tables.map((table) => [table.name.toLowerCase(), table]));
  const plans: TablePlan[] = [];
  const order = new Map(registry.models.map((model, index) => [model.table, index]));
  for (const model of registry.models) {
    if (model.internal) continue;
    const source = byName.get(model.table);
    if (!source) continue;
    const sourceColumns = new Map(source.columns.map((column) => [column.name.toLowerCase(), column.name]));
    const columns = Object.keys(model.fields).filter((name) => sourceColumns.has(name));
    const own = order.get(model.table)!;
    const deferred = columns.filter((name) => {
      const target = model.fields[name]!.references?.table;
      return target !== undefined && (order.get(target) ?? -1) >= own;
    });
    plans.push({
      model,
      source,
      columns,
      deferred,
      notImported: source.columns.map((column) => column.name).filter((name) => !Object.hasOwn(model.fields, name.toLowerCase())),
      notInSource: Object.keys(model.fields).filter((name) => !sourceColumns.has(name)),
    });
  }
  const planned = new Set(plans.map((plan) => plan.model.table));
  const ours = new Set(registry.models.map((model) => model.table));
  return {
    tables: plans,
    unknownTables: tables.filter((table) => !ours.has(table.name.toLowerCase())),
    absentTables: registry.resources().map((model) => model.table).filter((table) => !planned.has(table) && isSystemTable(table)),
  };
}

/**
 * The established system's 83 core tables (its Core/Table definitions), which an installation of
 * it always has: the tables of ours beyond them (VERI*FACTU, banking, recurring invoices ...) are
 * not expected in a source.
 */
const SYSTEM_TABLES = new Set(`agenciastrans agentes albaranescli albaranesprov almacenes api_access api_keys asientos atributos atributos_valores attached_files
  attached_files_rel ciudades clientes codigos_postales conceptos_partidas contactos cronjobs cuentas cuentasbanco cuentasbcocli cuentasbcopro cuentasesp diarios
  divisas doctransformations ejercicios emails_notifications emails_sent empresas estados_documentos fabricantes facturascli facturasprov familias formaspago
  formatos_documentos gruposclientes idsfiscales impuestos impuestoszonas lineasalbaranescli lineasalbaranesprov lineasfacturascli lineasfacturasprov lineaspedidoscli
  lineaspedidosprov lineaspresupuestoscli lineaspresupuestosprov logs pages pages_filters pages_options pagoscli pagosprov paises partidas pedidoscli pedidosprov
  presupuestoscli presupuestosprov productos productos_imagenes productosprov proveedores provincias puntos_interes_ciudades recibospagoscli recibospagosprov
  regularizacionimpuestos retenciones roles roles_access roles_users secuencias_documentos series settings stocks subcuentas tarifas users variantes work_events`.split(/\s+/).filter(Boolean));

export const isSystemTable = (table: string) => SYSTEM_TABLES.has(table);
