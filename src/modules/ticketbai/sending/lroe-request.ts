import { gzipSync } from 'node:zlib';
import type { create } from 'xmlbuilder2';
import { lazyLibrary } from '../../../lazy-library.ts';

const xmlbuilder2 = lazyLibrary<{ create: typeof create }>('xmlbuilder2');
const SCHEMAS = 'https://www.batuz.eus/fitxategiak/batuz/LROE/esquemas';

/** The LROE request each book and operation takes (chapter 1.1, invoices issued with guarantee software). */
const ROOTS = {
  '240': {
    alta: { root: 'LROEPJ240FacturasEmitidasConSGAltaPeticion', schema: 'LROE_PJ_240_1_1_FacturasEmitidas_ConSG_AltaPeticion_V1_0_2.xsd', list: 'FacturasEmitidas', item: 'FacturaEmitida' },
    anulacion: { root: 'LROEPJ240FacturasEmitidasConSGAnulacionPeticion', schema: 'LROE_PJ_240_1_1_FacturasEmitidas_ConSG_AnulacionPeticion_V1_0_0.xsd', list: 'FacturasEmitidas', item: 'FacturaEmitida' },
  },
  '140': {
    alta: { root: 'LROEPF140IngresosConFacturaConSGAltaPeticion', schema: 'LROE_PF_140_1_1_Ingresos_ConfacturaConSG_AltaPeticion_V1_0_2.xsd', list: 'Ingresos', item: 'Ingreso' },
    anulacion: { root: 'LROEPF140IngresosConFacturaConSGAnulacionPeticion', schema: 'LROE_PF_140_1_1_Ingresos_ConfacturaConSG_AnulacionPeticion_V1_0_0.xsd', list: 'Ingresos', item: 'Ingreso' },
  },
} as const;

export interface LroeSubmission {
  modelo: '240' | '140';
  operation: 'alta' | 'anulacion';
  /** The fiscal year every file's issue date belongs to (Batuz refuses others: B4_2000017). */
  ejercicio: string;
  taxpayer: { nif: string; name: string };
  /** Model 140: the activity's IAE heading, each income's `Renta`. */
  epigrafe?: string | null;
  /** The signed files, as stored. */
  files: string[];
}

/**
 * One Batuz LROE submission (Batuz LROE, envío masivo v1.0.7 §6; entry service v1.0.3): the XML
 * request carrying each TicketBAI file in base64, gzip-compressed, with the `eus-bizkaia-n3-*`
 * headers naming the taxpayer, the book and the year.
 */
export function lroeRequest(submission: LroeSubmission): { body: Buffer; headers: Record<string, string> } {
  const shape = ROOTS[submission.modelo][submission.operation];
  const doc = xmlbuilder2().create({ version: '1.0', encoding: 'UTF-8' });
  const root = doc.ele(`${SCHEMAS}/${shape.schema}`, `lrpj:${shape.root}`);
  const cabecera = root.ele('Cabecera');
  cabecera.ele('Modelo').txt(submission.modelo);
  cabecera.ele('Capitulo').txt('1');
  cabecera.ele('Subcapitulo').txt('1.1');
  cabecera.ele('Operacion').txt(submission.operation === 'alta' ? 'A00' : 'AN0');
  cabecera.ele('Version').txt('1.0');
  cabecera.ele('Ejercicio').txt(submission.ejercicio);
  const obligado = cabecera.ele('ObligadoTributario');
  obligado.ele('NIF').txt(submission.taxpayer.nif);
  obligado.ele('ApellidosNombreRazonSocial').txt(submission.taxpayer.name);
  const list = root.ele(shape.list);
  for (const file of submission.files) {
    const item = list.ele(shape.item);
    item.ele(submission.operation === 'alta' ? 'TicketBai' : 'AnulacionTicketBai').txt(Buffer.from(file, 'utf8').toString('base64'));
    if (submission.modelo === '140' && submission.operation === 'alta') item.ele('Renta').ele('DetalleRenta').ele('Epigrafe').txt(String(submission.epigrafe ?? ''));
  }
  const body = gzipSync(Buffer.from(doc.end(), 'utf8'));
  const data = {
    con: 'LROE',
    apa: '1.1',
    inte: { nif: submission.taxpayer.nif, nrs: submission.taxpayer.name.slice(0, 255) },
    drs: { mode: submission.modelo, ejer: submission.ejercicio },
  };
  return {
    body,
    headers: {
      'accept-encoding': 'gzip',
      'content-encoding': 'gzip',
      'content-type': 'application/octet-stream',
      'eus-bizkaia-n3-version': '1.0',
      'eus-bizkaia-n3-content-type': 'application/xml',
      // Header values are Latin-1 at most: a name's other characters go as JSON escapes.
      'eus-bizkaia-n3-data': JSON.stringify(data).replace(/[\u0080-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`),
    },
  };
}
