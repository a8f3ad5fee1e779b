import type { AppContext } from '../../app-context.ts';
import type { DataSeed } from '../../db/data-seeds.ts';
import type { DbExecutor } from '../../db/database.ts';
import type { Values } from '../../models/define-model.ts';
import { DOCUMENT_FORMATS, JOURNALS, MORE_CURRENCIES, SPECIAL_ACCOUNTS } from './reference-rows.ts';

/**
 * Default data added after the first release (versioned seeds: new ids, never edits of the old
 * ones), so that existing databases get it on their next start as new ones do. A database may
 * already hold some of these rows (a user added a currency) or miss what they refer to (a user
 * deleted serie R): such rows are skipped instead of failing the start.
 */
function insertMissing(resource: string, rows: Values[], usable: (row: Values, ctx: AppContext, trx: DbExecutor) => Promise<boolean> = async () => true) {
  return async (ctx: AppContext, trx: DbExecutor) => {
    const model = ctx.registry.get(resource);
    if (!model) throw new Error(`default data for unknown resource ${resource}`);
    let added = 0;
    for (const row of rows) {
      const key = row[model.primaryKey];
      if (key !== undefined && key !== null && (await ctx.store.get(model, key, trx))) continue;
      if (!(await usable(row, ctx, trx))) continue;
      await ctx.store.create(model, row, trx);
      added++;
    }
    return added > 0;
  };
}

/** Whether the record `id` of `resource` exists. */
async function exists(ctx: AppContext, trx: DbExecutor, resource: string, id: string | number): Promise<boolean> {
  return (await ctx.store.get(ctx.registry.get(resource)!, id, trx)) !== undefined;
}

export const MORE_DEFAULT_DATA: DataSeed[] = [
  {
    id: 'currencies-2',
    // The reference's other 22 currencies, with its published rates.
    run: insertMissing(
      'divisa',
      MORE_CURRENCIES.map(([coddivisa, descripcion, tasaconv, codiso, simbolo]) => ({ coddivisa, descripcion, tasaconv, tasaconvcompra: tasaconv, codiso, simbolo })),
    ),
  },
  {
    id: 'accounting-journals',
    run: insertMissing('diario', JOURNALS.map(([iddiario, descripcion]) => ({ iddiario, descripcion }))),
  },
  {
    id: 'accounting-special-accounts',
    run: insertMissing('cuentaespecial', SPECIAL_ACCOUNTS.map(([codcuentaesp, descripcion]) => ({ codcuentaesp, descripcion }))),
  },
  {
    id: 'document-formats',
    run: insertMissing(
      'formatodocumento',
      DOCUMENT_FORMATS.map(([codserie, nombre, tipodoc, titulo]) => ({ codserie, idempresa: 1, nombre, tipodoc, titulo, autoaplicar: true })),
      async (row, ctx, trx) => {
        const same = await trx.selectFrom('formatos_documentos').select('id')
          .where('codserie', '=', String(row.codserie)).where('tipodoc', '=', String(row.tipodoc)).where('nombre', '=', String(row.nombre)).executeTakeFirst();
        return !same && (await exists(ctx, trx, 'serie', String(row.codserie))) && (await exists(ctx, trx, 'empresa', 1));
      },
    ),
  },
];
