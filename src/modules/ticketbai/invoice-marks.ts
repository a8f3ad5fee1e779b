import { addPresenter, type AppContext } from '../../app-context.ts';
import { documentSeal, documentType, type DocumentSeal } from '../documents/index.ts';
import { fiscalQr } from '../export/index.ts';
import { RECORDED_TYPE } from '../verifactu/index.ts';
import { cancels, filesOfInvoices } from './file-reads.ts';
import { ticketbaiEmpresaModel } from './switch-model.ts';

/** An invoice with a TicketBAI file is issued: it keeps its identity and amounts, and is never deleted. */
const ISSUED: DocumentSeal = { change: 'invoice-issued', remove: 'fiscal-record-exists' };

/**
 * What a TicketBAI file marks on its invoice: the seal, the TBAI identifier above the QR at the end
 * of its PDF (specification 1.2 §4.3.1: at the bottom of a portrait invoice), and `ticketbai` in its answers (identifier, QR, state, cancelled).
 * An installation with no TicketBAI switch (cached, kept in step across instances) pays no query
 * for it on invoice lists; the seal and the exports always look.
 */
export function markIssuedInvoices(ctx: AppContext): void {
  const type = documentType(RECORDED_TYPE);
  const switches = ctx.shared.cache<boolean>('ticketbai-switches', [ticketbaiEmpresaModel.resource], async () =>
    (await ctx.database.kysely.selectFrom(ticketbaiEmpresaModel.table).select('idempresa').limit(1).executeTakeFirst()) !== undefined);
  const altaOf = async (db: Parameters<typeof filesOfInvoices>[0], id: number) => (await filesOfInvoices(db, [id])).get(id)?.find((row) => row.tipo === 'alta');

  ctx.hooks.on(documentSeal, async ({ db, type: sealed, id }) => (sealed.name === RECORDED_TYPE && (await altaOf(db, id)) ? ISSUED : undefined));
  ctx.hooks.on(fiscalQr, async ({ db, type: exported, doc }) => {
    if (exported.name !== RECORDED_TYPE) return undefined;
    const alta = await altaOf(db, Number(doc[exported.key]));
    return alta?.qr ? { url: String(alta.qr), caption: String(alta.identificador), legend: null, placement: 'end' as const } : undefined;
  });
  addPresenter(ctx, type.header, {
    properties: {
      ticketbai: {
        type: 'object',
        properties: {
          idregistro: { type: 'integer' },
          identificador: { type: 'string' },
          qr: { type: 'string' },
          estado: { type: 'string' },
          anulada: { type: 'boolean' },
          idanulacion: { type: ['integer', 'null'] },
        },
      },
    },
    async present(records) {
      if (!(await switches.read())) return records;
      const found = await filesOfInvoices(ctx.database.kysely, records.map((record) => Number(record[type.key])));
      if (!found.size) return records;
      return records.map((record) => {
        const rows = found.get(Number(record[type.key]));
        const alta = rows?.find((row) => row.tipo === 'alta');
        if (!alta) return record;
        const cancellation = rows!.filter(cancels).at(-1);
        return {
          ...record,
          ticketbai: { idregistro: Number(alta.id), identificador: String(alta.identificador), qr: String(alta.qr), estado: String(alta.estado), anulada: Boolean(cancellation), idanulacion: cancellation ? Number(cancellation.id) : null },
        };
      });
    },
  });
}
