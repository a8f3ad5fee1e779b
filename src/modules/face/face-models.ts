import { defineModel } from '../../models/define-model.ts';
import { f, now } from '../../models/fields.ts';

/** FACe's processing states (`tramitacion`) that end an invoice's life there: paid, rejected, cancelled. */
export const FINAL_STATES = ['2500', '2600', '3100'] as const;

/**
 * An invoice sent to FACe (resource `registroface`, read-only): its registry number and where it
 * stands, on FACe's two axes: processing (`tramitacion`: 1200 registered, 1300 in the unit's
 * accounting register, 2400 obligation recognised, 2500 paid, 2600 rejected, 3100 cancelled) and
 * cancellation (`anulacion`: 4100 none, 4200 requested, 4300 accepted, 4400 rejected), each with
 * FACe's name and reason, and every change in `historial`. `estado` is `enviando` while the request
 * is out, `registrada` once FACe gave its number, `fallida` when it refused or was never reached,
 * `sinrespuesta` when the request went and no answer came back (it may be at FACe: a new send then
 * meets FACe's duplicate refusal, 409; see FACe's portal for its number).
 */
export const registroFaceModel = defineModel({
  name: 'RegistroFace',
  table: 'registros_face',
  alias: 'registrosface',
  readOnlyResource: true,
  fields: {
    id: f.serial(),
    idfactura: f.integer({ notNull: true, references: f.ref('facturascli', 'idfactura', 'RESTRICT') }),
    idempresa: f.integer({ notNull: true }),
    estado: f.string(12, { notNull: true, default: 'enviando', values: ['enviando', 'registrada', 'fallida', 'sinrespuesta'] }),
    numeroregistro: f.string(60),
    codigoseguimiento: f.string(100),
    oficinacontable: f.string(10),
    organogestor: f.string(10),
    unidadtramitadora: f.string(10),
    tramitacion: f.string(4),
    nombretramitacion: f.string(100),
    motivotramitacion: f.string(500),
    anulacion: f.string(4),
    nombreanulacion: f.string(100),
    motivoanulacion: f.string(500),
    /** Every state FACe gave, in order: `[{fecha, tramitacion, anulacion, motivo}]`. */
    historial: f.json(),
    /** FACe's refusal, or why no answer came (a `fallida` send). */
    error: f.string(1500),
    fechaenvio: f.timestamp({ initial: now }),
    fecharegistro: f.string(30),
    ultimaconsulta: f.timestamp(),
  },
  indexes: [['idfactura', 'id'], ['estado', 'tramitacion', 'id']],
});
