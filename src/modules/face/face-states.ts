import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError, validationError } from '../../errors.ts';
import { publish } from '../../event-log.ts';
import { documentIdOf, documentType, type Row } from '../documents/index.ts';
import { childElements, childText, RECORDED_TYPE, type Element } from '../verifactu/index.ts';
import { callFace, faceRefusal } from './face-client.ts';
import { FINAL_STATES, registroFaceModel } from './face-models.ts';

/** At most this many registry numbers a `consultarListadoFacturas` (§3.7). */
const LIST_LIMIT = 500;

interface State {
  tramitacion: string | null;
  nombretramitacion: string | null;
  motivotramitacion: string | null;
  anulacion: string | null;
  nombreanulacion: string | null;
  motivoanulacion: string | null;
}

function stateOf(factura: Element | undefined): State {
  return {
    tramitacion: childText(factura, 'tramitacion', 'codigo') ?? null, nombretramitacion: childText(factura, 'tramitacion', 'descripcion')?.slice(0, 100) ?? null, motivotramitacion: childText(factura, 'tramitacion', 'motivo')?.slice(0, 500) || null,
    anulacion: childText(factura, 'anulacion', 'codigo') ?? null, nombreanulacion: childText(factura, 'anulacion', 'descripcion')?.slice(0, 100) ?? null, motivoanulacion: childText(factura, 'anulacion', 'motivo')?.slice(0, 500) || null,
  };
}

/** A registration's new state stored, added to its history, and announced (`face.state`), when it changed. */
async function storeState(ctx: AppContext, trx: DbExecutor, read: Row, state: State): Promise<void> {
  const at = ctx.clock.timestamp();
  // The row as it is now, locked: another instance's poll, or a cancellation asked meanwhile, may have moved it.
  const row = (await ctx.database.dialect.locking(trx.selectFrom(registroFaceModel.table).selectAll().where('id', '=', Number(read.id))).executeTakeFirst()) ?? read;
  // A cancellation only moves on (4100, 4200, then 4300 or 4400): an answer read before a request was made never undoes it.
  if (row.anulacion === '4200' && (state.anulacion === '4100' || state.anulacion === null)) Object.assign(state, { anulacion: row.anulacion, nombreanulacion: row.nombreanulacion, motivoanulacion: row.motivoanulacion });
  if (state.tramitacion === row.tramitacion && state.anulacion === row.anulacion) {
    await trx.updateTable(registroFaceModel.table).set({ ultimaconsulta: at }).where('id', '=', Number(row.id)).execute();
    return;
  }
  const before = row.historial === null || row.historial === undefined ? [] : (typeof row.historial === 'string' ? JSON.parse(row.historial) : row.historial) as unknown[];
  const motivo = state.motivoanulacion ?? state.motivotramitacion;
  await trx.updateTable(registroFaceModel.table).set({ ...state, ultimaconsulta: at, historial: JSON.stringify([...before, { fecha: at, tramitacion: state.tramitacion, anulacion: state.anulacion, motivo }]) })
    .where('id', '=', Number(row.id)).execute();
  await publish(trx, ctx, {
    type: 'face.state',
    payload: { idfactura: Number(row.idfactura), idregistro: Number(row.id), numeroregistro: (row.numeroregistro as string | null) ?? null, tramitacion: state.tramitacion, anulacion: state.anulacion, motivo },
    resource: registroFaceModel.resource,
    key: Number(row.id),
  });
}

/**
 * The polling job: every registration FACe may still move (registered, not paid, rejected nor
 * cancelled) asked for with `consultarListadoFacturas`, 500 at a time per company; each change
 * stored with its history and announced. A company whose call fails is asked again next time.
 */
export async function pollFaceStates(ctx: AppContext): Promise<void> {
  const db = ctx.database.kysely;
  const open = await db.selectFrom(registroFaceModel.table).selectAll().where('estado', '=', 'registrada').where('numeroregistro', 'is not', null)
    .where((eb) => eb.or([eb('tramitacion', 'is', null), eb('tramitacion', 'not in', [...FINAL_STATES])])).orderBy('id').execute();
  const byCompany = new Map<number, Row[]>();
  for (const row of open) byCompany.set(Number(row.idempresa), [...(byCompany.get(Number(row.idempresa)) ?? []), row]);
  for (const [idempresa, rows] of byCompany) {
    for (let start = 0; start < rows.length; start += LIST_LIMIT) {
      const page = rows.slice(start, start + LIST_LIMIT);
      try {
        const answer = await callFace(ctx, db, idempresa, 'consultarListadoFacturas', { request: { numeroRegistro: page.map((row) => String(row.numeroregistro)) } });
        if (answer.codigo !== '0') throw faceRefusal(answer);
        const items = childElements(childElements(answer.result, 'facturas')[0], 'consultarListadoFactura');
        await inTransaction(ctx.database, async (trx) => {
          for (const item of items) {
            if (childText(item, 'codigo') !== '0') continue;
            const factura = childElements(item, 'factura')[0];
            const row = page.find((candidate) => candidate.numeroregistro === childText(factura, 'numeroRegistro'));
            if (row) await storeState(ctx, trx, row, stateOf(factura));
          }
        });
      } catch (error) {
        ctx.log.warn({ err: error, idempresa }, 'FACe: states not read; asked again at the next poll');
      }
    }
  }
}

/** The invoice's live registration (the last one that FACe registered), or 404/409. */
async function registrationOf(ctx: AppContext, idOrCode: string): Promise<Row> {
  const type = documentType(RECORDED_TYPE);
  const db = ctx.database.kysely;
  const id = await documentIdOf(db, type, idOrCode);
  if (id === undefined) throw new AppError('record-not-found');
  const row = await db.selectFrom(registroFaceModel.table).selectAll().where('idfactura', '=', id).where('estado', '=', 'registrada').orderBy('id', 'desc').executeTakeFirst();
  if (!row) throw new AppError('record-not-found');
  return row;
}

/**
 * `anularFACe/{idfactura}` with `motivo` (at most 255 characters): FACe is asked to cancel the
 * invoice (a request the unit accepts or rejects later: 4200 until then). FACe's refusals (paid,
 * rejected, already asked) come back as 422 with its code.
 */
export async function cancelAtFace(ctx: AppContext, idOrCode: string, motivo: unknown): Promise<Row> {
  const reason = typeof motivo === 'string' ? motivo.trim() : '';
  if (!reason) throw validationError({ motivo: 'required' });
  if (reason.length > 255) throw validationError({ motivo: 'too-long' });
  const row = await registrationOf(ctx, idOrCode);
  const answer = await callFace(ctx, ctx.database.kysely, Number(row.idempresa), 'anularFactura', { numeroRegistro: String(row.numeroregistro), motivo: reason });
  if (answer.codigo !== '0') throw faceRefusal(answer);
  return inTransaction(ctx.database, async (trx) => {
    const current = (await trx.selectFrom(registroFaceModel.table).selectAll().where('id', '=', Number(row.id)).executeTakeFirst())!;
    await storeState(ctx, trx, current, { ...stateOf(undefined), tramitacion: (current.tramitacion as string | null) ?? null, nombretramitacion: (current.nombretramitacion as string | null) ?? null, motivotramitacion: (current.motivotramitacion as string | null) ?? null, anulacion: '4200', nombreanulacion: 'Solicitada anulación', motivoanulacion: reason });
    return (await ctx.store.get(registroFaceModel, Number(row.id), trx))!;
  });
}
