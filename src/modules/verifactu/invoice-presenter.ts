import { addPresenter, type AppContext } from '../../app-context.ts';
import { documentType } from '../documents/index.ts';
import { verifactuEmpresaModel } from './company-switch-model.ts';
import { recordsOfInvoices } from './record-reads.ts';
import { RECORDED_TYPE } from './recorded-invoices.ts';

/**
 * What a customer invoice shows of its records (`verifactu`, on the generic resource): its alta, its
 * QR address, and whether it was cancelled. Absent for an invoice without records. An installation
 * where no company has a VERI*FACTU switch (cached, kept in step across instances) pays no query
 * for it on its invoice lists; records need a switch, so they appear once one exists (on another
 * instance, within STATE_REFRESH_MS).
 */
export function presentInvoiceRecords(ctx: AppContext): void {
  const type = documentType(RECORDED_TYPE);
  const switches = ctx.shared.cache<boolean>('verifactu-switches', [verifactuEmpresaModel.resource], async () =>
    (await ctx.database.kysely.selectFrom(verifactuEmpresaModel.table).select('idempresa').limit(1).executeTakeFirst()) !== undefined);
  addPresenter(ctx, type.header, {
    properties: {
      verifactu: {
        type: 'object',
        properties: {
          idregistro: { type: 'integer' },
          qr: { type: ['string', 'null'] },
          anulada: { type: 'boolean' },
          idanulacion: { type: ['integer', 'null'] },
        },
      },
    },
    async present(records) {
      if (!(await switches.read())) return records;
      const found = await recordsOfInvoices(ctx.database.kysely, records.map((record) => Number(record[type.key])));
      if (!found.size) return records;
      return records.map((record) => {
        const rows = found.get(Number(record[type.key]));
        const alta = rows?.find((row) => row.tipo === 'alta');
        if (!alta) return record;
        const last = rows![rows!.length - 1]!;
        const cancelled = last.tipo === 'anulacion';
        return { ...record, verifactu: { idregistro: Number(alta.id), qr: (alta.qr as string | null) ?? null, anulada: cancelled, idanulacion: cancelled ? Number(last.id) : null } };
      });
    },
  });
}
