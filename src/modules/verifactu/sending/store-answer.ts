import type { AppContext } from '../../../app-context.ts';
import type { DbExecutor } from '../../../db/database.ts';
import type { XmlTree } from '../xml-tree.ts';
import type { Answer, AnswerLine } from './answer.ts';

/** A record as a message carries it. */
export interface SentRecord {
  id: number;
  tipo: 'alta' | 'anulacion';
  nifemisor: string;
  numserie: string;
  fechaexpedicion: string;
  registro: XmlTree;
  /** NO VERI*FACTU: the signed XML, sent as signed. */
  firmado?: string | null;
}

/** The AEAT's code for a record it holds already (errores.properties). */
const DUPLICATE = 3000;

const STATES: Record<AnswerLine['EstadoRegistro'], string> = { Correcto: 'correcto', AceptadoConErrores: 'aceptadoconerrores', Incorrecto: 'incorrecto' };

const keyOf = (operation: string, nif: string, serial: string, date: string) => `${operation}|${nif}|${serial}|${date}`;

/**
 * What a record becomes: the AEAT's verdict, except that a duplicate (3000) of a record an earlier,
 * unanswered message carried is that message's own arrival (the sender died or the connection
 * dropped before the answer was stored): the record takes the state the AEAT holds for it.
 */
function outcomeOf(line: AnswerLine, maybeDelivered: boolean): { estado: string; codigoerror: number | null; descripcionerror: string | null } {
  const duplicate = line.RegistroDuplicado;
  if (line.CodigoErrorRegistro === DUPLICATE && duplicate && maybeDelivered) {
    return {
      estado: duplicate.EstadoRegistroDuplicado === 'AceptadaConErrores' ? 'aceptadoconerrores' : 'correcto',
      codigoerror: duplicate.CodigoErrorRegistro ?? null,
      descripcionerror: `Recibido en la petición ${duplicate.IdPeticionRegistroDuplicado} (reenviado tras un envío sin respuesta)${duplicate.DescripcionErrorRegistro ? `: ${duplicate.DescripcionErrorRegistro}` : ''}`.slice(0, 1500),
    };
  }
  return { estado: STATES[line.EstadoRegistro] ?? 'incorrecto', codigoerror: line.CodigoErrorRegistro ?? null, descripcionerror: line.DescripcionErrorRegistro?.slice(0, 1500) ?? null };
}

/**
 * Stores an answer in the caller's transaction: the message's CSV and submission data, and each record's state
 * and error, on the records themselves. A record the answer does not mention stays queued.
 */
export async function storeAnswer(ctx: AppContext, db: DbExecutor, idempresa: number, idenvio: number, records: SentRecord[], answer: Answer, finished: string): Promise<void> {
  const lines = new Map(answer.lines.map((line) => [keyOf(line.TipoOperacion, line.IDEmisorFactura, line.NumSerieFactura, line.FechaExpedicionFactura), line]));
  // Earlier messages that may have arrived without their answer being stored: a sender that died, or no answer read.
  const unanswered = records.length ? await db.selectFrom('verifactu_envios').select(['desde', 'hasta'])
    .where('idempresa', '=', idempresa).where('id', '<', idenvio).where('estado', 'in', ['enviando', 'sinrespuesta']).where('hasta', '>=', records[0]!.id).execute() : [];
  const maybeDelivered = (id: number) => unanswered.some((row) => Number(row.desde) <= id && id <= Number(row.hasta));
  const correct: number[] = [];
  for (const record of records) {
    const line = lines.get(keyOf(record.tipo === 'alta' ? 'Alta' : 'Anulacion', record.nifemisor, record.numserie, record.fechaexpedicion));
    if (!line) continue;
    const outcome = outcomeOf(line, maybeDelivered(record.id));
    if (outcome.estado === 'correcto' && outcome.codigoerror === null && outcome.descripcionerror === null) {
      correct.push(record.id);
      continue;
    }
    await db.updateTable('registros_verifactu').set({ ...outcome, idenvio, csv: answer.CSV ?? null }).where('id', '=', record.id).execute();
    if (outcome.estado === 'incorrecto') ctx.log.warn({ idregistro: record.id, codigo: outcome.codigoerror, error: outcome.descripcionerror }, 'VERI*FACTU record rejected');
  }
  for (let start = 0; start < correct.length; start += 500) {
    await db.updateTable('registros_verifactu').set({ estado: 'correcto', idenvio, csv: answer.CSV ?? null })
      .where('id', 'in', correct.slice(start, start + 500)).execute();
  }
  await db.updateTable('verifactu_envios').set({
    estado: 'respondido',
    csv: answer.CSV ?? null,
    estadoenvio: answer.EstadoEnvio,
    idpeticion: answer.DatosPresentacion?.IdPeticion ?? null,
    timestamppresentacion: answer.DatosPresentacion?.TimestampPresentacion ?? null,
    nifpresentador: answer.DatosPresentacion?.NIFPresentador ?? null,
    tiempoespera: answer.TiempoEsperaEnvio,
    fechafin: finished,
  }).where('id', '=', idenvio).execute();
}
