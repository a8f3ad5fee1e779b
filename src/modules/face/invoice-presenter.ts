import { addPresenter, type AppContext } from '../../app-context.ts';
import { documentType } from '../documents/index.ts';
import { RECORDED_TYPE } from '../verifactu/index.ts';
import { registroFaceModel } from './face-models.ts';

/**
 * What a customer invoice shows of FACe (`face`, on its answers): its last send's registry number
 * and states. Absent for an invoice never sent. An installation that never sent to FACe (cached,
 * kept in step across instances) pays no query for it on invoice lists.
 */
export function presentFaceState(ctx: AppContext): void {
  const type = documentType(RECORDED_TYPE);
  const sent = ctx.shared.cache<boolean>('face-sent', [registroFaceModel.resource], async () =>
    (await ctx.database.kysely.selectFrom(registroFaceModel.table).select('id').limit(1).executeTakeFirst()) !== undefined);
  addPresenter(ctx, type.header, {
    properties: {
      face: {
        type: 'object',
        properties: {
          idregistro: { type: 'integer' }, estado: { type: 'string' }, numeroregistro: { type: ['string', 'null'] },
          tramitacion: { type: ['string', 'null'] }, nombretramitacion: { type: ['string', 'null'] }, anulacion: { type: ['string', 'null'] }, nombreanulacion: { type: ['string', 'null'] },
        },
      },
    },
    async present(records) {
      if (!(await sent.read())) return records;
      const ids = records.map((record) => Number(record[type.key])).filter(Number.isFinite);
      if (!ids.length) return records;
      const rows = await ctx.database.kysely.selectFrom(registroFaceModel.table)
        .select(['id', 'idfactura', 'estado', 'numeroregistro', 'tramitacion', 'nombretramitacion', 'anulacion', 'nombreanulacion']).where('idfactura', 'in', ids).orderBy('id').execute();
      if (!rows.length) return records;
      const last = new Map(rows.map((row) => [Number(row.idfactura), row]));
      return records.map((record) => {
        const row = last.get(Number(record[type.key]));
        if (!row) return record;
        return {
          ...record,
          face: {
            idregistro: Number(row.id), estado: String(row.estado), numeroregistro: (row.numeroregistro as string | null) ?? null,
            tramitacion: (row.tramitacion as string | null) ?? null, nombretramitacion: (row.nombretramitacion as string | null) ?? null,
            anulacion: (row.anulacion as string | null) ?? null, nombreanulacion: (row.nombreanulacion as string | null) ?? null,
          },
        };
      });
    },
  });
}
