import { PACKAGE_VERSION } from '../../version.ts';
import type { XmlTree } from './xml-tree.ts';

/**
 * The producer of this invoicing system and the system itself: the one place that names them.
 * Every record's `SistemaInformatico` and the declaración responsable (declaration.ts,
 * docs/verifactu-declaracion.md) are written from here.
 *
 * The producer's legal name, NIF and address must be those of the entity that distributes the
 * system: until the team fills them in, they are the AEAT's own test taxpayer (89890001K, the NIF
 * of its published examples), accepted by its test environment only.
 */
export const PRODUCER = {
  /** False while the data below are placeholders: no company may then use the AEAT's production environment. */
  identified: false,
  name: 'Invoicing API (productor pendiente de identificar)',
  nif: '89890001K',
  address: 'pendiente de identificar',
  place: 'pendiente de identificar',
} as const;

export const SYSTEM = {
  /** NombreSistemaInformatico (at most 30 characters). */
  name: 'Invoicing API',
  /** IdSistemaInformatico: two characters [A-Z0-9], fixed for the product. */
  id: 'IA',
  version: PACKAGE_VERSION,
  /** The system also works as NO VERI*FACTU (signed records and an event log). */
  onlyVerifactu: false,
  /** One installation may keep the records of several taxpayers (companies), each with its own chain and switch. */
  multipleTaxpayers: true,
} as const;

const yesNo = (value: boolean) => (value ? 'S' : 'N');

/**
 * `SistemaInformatico` of a record: the producer and the system, the company's installation number,
 * and whether this installation holds more than one taxpayer (computed, never typed by a user).
 */
export function systemInfo(numeroInstalacion: string, severalTaxpayers: boolean): XmlTree {
  return {
    NombreRazon: PRODUCER.name,
    NIF: PRODUCER.nif,
    NombreSistemaInformatico: SYSTEM.name,
    IdSistemaInformatico: SYSTEM.id,
    Version: SYSTEM.version,
    NumeroInstalacion: numeroInstalacion,
    TipoUsoPosibleSoloVerifactu: yesNo(SYSTEM.onlyVerifactu),
    TipoUsoPosibleMultiOT: yesNo(SYSTEM.multipleTaxpayers),
    IndicadorMultiplesOT: yesNo(severalTaxpayers),
  };
}
