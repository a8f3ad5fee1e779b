import { PRODUCER, SYSTEM } from './producer.ts';

/**
 * The producer's declaración responsable (RD 1007/2023 art. 13; Orden HAC/1177/2024 art. 15), in
 * the order the Orden gives, written from the producer's and the system's data (producer.ts):
 * served at `GET /api/3/verifactuDeclaracion`, shown by the admin console, and kept as
 * docs/verifactu-declaracion.md (a test keeps the file and this text in step).
 */
export const DECLARATION_TITLE = 'DECLARACIÓN RESPONSABLE DEL SISTEMA INFORMÁTICO DE FACTURACIÓN';

/** The date this version's declaration is made (the version's release). */
export const DECLARATION_DATE = '2026-11-26';

export interface Declaration {
  titulo: string;
  sistema: { nombre: string; id: string; version: string };
  componentes: string;
  soloVerifactu: boolean;
  multiplesObligados: boolean;
  firma: string;
  productor: { nombre: string; nif: string; direccion: string };
  cumplimiento: string;
  fecha: string;
  lugar: string;
}

export function declaration(): Declaration {
  return {
    titulo: DECLARATION_TITLE,
    sistema: { nombre: SYSTEM.name, id: SYSTEM.id, version: SYSTEM.version },
    componentes: 'Servicio web (API REST JSON) de facturación y gestión, que se ejecuta en Node.js sobre una base de datos SQLite, PostgreSQL o ' +
      'MariaDB/MySQL, con una consola de administración web. Funciones: clientes, proveedores, productos, presupuestos, pedidos, albaranes, ' +
      'facturas emitidas y recibidas, facturas rectificativas, recibos y pagos, exportación de documentos (PDF, hojas de cálculo, factura ' +
      'electrónica UBL, CII y Facturae) y, para cada factura emitida, su registro de facturación de alta o de anulación, encadenado por huella ' +
      'SHA-256, con el código QR en la factura; en la modalidad VERI*FACTU, la remisión de los registros a la Agencia Tributaria; en la ' +
      'modalidad NO VERI*FACTU, su firma electrónica y el registro de eventos.',
    soloVerifactu: SYSTEM.onlyVerifactu,
    multiplesObligados: SYSTEM.multipleTaxpayers,
    firma: 'Modalidad NO VERI*FACTU: firma electrónica XAdES Enveloped (ETSI EN 319 132) con la política de firma de la Administración ' +
      'General del Estado (urn:oid:2.16.724.1.3.1.1.2.1.9), RSA-SHA256, con el certificado cualificado del obligado tributario, sobre cada ' +
      'registro de facturación y de evento.',
    productor: { nombre: PRODUCER.name, nif: PRODUCER.nif, direccion: PRODUCER.address },
    cumplimiento: `${PRODUCER.name}, con NIF ${PRODUCER.nif}, como productora del sistema informático de facturación identificado en esta ` +
      'declaración, declara bajo su responsabilidad que, en la versión indicada, dicho sistema cumple lo dispuesto en el artículo 29.2.j) de ' +
      'la Ley 58/2003, de 17 de diciembre, General Tributaria, en el Reglamento aprobado por el Real Decreto 1007/2023, de 5 de diciembre, ' +
      'en la Orden HAC/1177/2024, de 17 de octubre, y en las especificaciones técnicas publicadas en la sede electrónica de la Agencia ' +
      'Estatal de Administración Tributaria.',
    fecha: DECLARATION_DATE,
    lugar: PRODUCER.place,
  };
}

const yesNo = (value: boolean) => (value ? 'Sí' : 'No');

/** The declaration as a Markdown page. */
export function declarationMarkdown(): string {
  const d = declaration();
  return [
    `# ${d.titulo}`,
    '',
    `1. **Nombre del sistema informático:** ${d.sistema.nombre}`,
    `2. **Código identificador del sistema (IdSistemaInformatico):** ${d.sistema.id}`,
    `3. **Versión:** ${d.sistema.version}`,
    `4. **Componentes y funcionalidades:** ${d.componentes}`,
    `5. **Uso exclusivo como VERI*FACTU:** ${yesNo(d.soloVerifactu)}. El sistema puede funcionar en la modalidad VERI*FACTU y en la modalidad NO VERI*FACTU, que se eligen por obligado tributario.`,
    `6. **Uso por varios obligados tributarios:** ${yesNo(d.multiplesObligados)}. Cada obligado (empresa) tiene su propia cadena de registros, su propio número de instalación y su propia modalidad.`,
    `7. **Tipos de firma:** ${d.firma}`,
    `8. **Productor:** ${d.productor.nombre}, NIF ${d.productor.nif}, domicilio: ${d.productor.direccion}.`,
    '',
    d.cumplimiento,
    '',
    `En ${d.lugar}, a ${d.fecha}.`,
    '',
  ].join('\n');
}
