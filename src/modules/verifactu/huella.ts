import { createHash } from 'node:crypto';

/**
 * The `Huella` of a record (AEAT, "Detalle de las especificaciones técnicas para generación de la
 * huella o hash", v0.1.2): SHA-256 of the UTF-8 text `name=value&name=value...` over fixed fields
 * in a fixed order, values exactly as the XML carries them (trimmed, no escaping, no URL encoding;
 * an empty value still writes `name=`), as 64 upper-case hexadecimal characters. `Huella` inside
 * the text is the previous record's (empty for the first record of a chain).
 */
export interface AltaHashFields {
  IDEmisorFactura: string;
  NumSerieFactura: string;
  FechaExpedicionFactura: string;
  TipoFactura: string;
  CuotaTotal: string;
  ImporteTotal: string;
  /** The previous record's Huella, or '' for the first. */
  Huella: string;
  FechaHoraHusoGenRegistro: string;
}

export interface AnulacionHashFields {
  IDEmisorFacturaAnulada: string;
  NumSerieFacturaAnulada: string;
  FechaExpedicionFacturaAnulada: string;
  Huella: string;
  FechaHoraHusoGenRegistro: string;
}

const ALTA_ORDER = ['IDEmisorFactura', 'NumSerieFactura', 'FechaExpedicionFactura', 'TipoFactura', 'CuotaTotal', 'ImporteTotal', 'Huella', 'FechaHoraHusoGenRegistro'] as const;
const ANULACION_ORDER = ['IDEmisorFacturaAnulada', 'NumSerieFacturaAnulada', 'FechaExpedicionFacturaAnulada', 'Huella', 'FechaHoraHusoGenRegistro'] as const;

/** The text that is hashed. */
export function hashInput(fields: AltaHashFields | AnulacionHashFields): string {
  const order: readonly string[] = 'TipoFactura' in fields ? ALTA_ORDER : ANULACION_ORDER;
  const values = fields as unknown as Record<string, string>;
  return order.map((name) => `${name}=${(values[name] ?? '').trim()}`).join('&');
}

export function huella(fields: AltaHashFields | AnulacionHashFields): string {
  return createHash('sha256').update(hashInput(fields), 'utf8').digest('hex').toUpperCase();
}
