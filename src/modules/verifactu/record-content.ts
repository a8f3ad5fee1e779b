import { huella, type AltaHashFields, type AnulacionHashFields } from './huella.ts';
import type { XmlTree } from './xml-tree.ts';

/**
 * The content of the records (`RegistroAlta`, `RegistroAnulacion` of SuministroInformacion.xsd), in
 * schema order, with their Huella: pure functions of what the invoice says, the previous record of
 * the chain, the system and the moment of generation.
 */

/** An invoice as a record identifies it. */
export interface InvoiceId {
  IDEmisorFactura: string;
  NumSerieFactura: string;
  FechaExpedicionFactura: string;
}

/** The previous record of the chain, as the next one's `RegistroAnterior` names it. */
export interface ChainLink extends InvoiceId {
  Huella: string;
}

/** What an alta says of its invoice: everything but the chain, the system and the timestamp. */
export interface AltaFacts {
  id: InvoiceId;
  NombreRazonEmisor: string;
  TipoFactura: 'F1' | 'F2' | 'R1' | 'R5';
  TipoRectificativa?: 'I';
  FacturasRectificadas?: InvoiceId[];
  FechaOperacion?: string;
  DescripcionOperacion: string;
  Macrodato?: 'S';
  Destinatarios?: XmlTree[];
  Desglose: XmlTree[];
  CuotaTotal: string;
  ImporteTotal: string;
}

/**
 * What closes every record, in schema order: `Encadenamiento` (the first record of a chain, or the
 * one before), the system, the moment of generation and the hash.
 */
function closing(previous: ChainLink | undefined, system: XmlTree, timestamp: string, hash: string): XmlTree {
  return {
    Encadenamiento: previous ? { RegistroAnterior: { ...previous } } : { PrimerRegistro: 'S' },
    SistemaInformatico: system,
    FechaHoraHusoGenRegistro: timestamp,
    TipoHuella: '01',
    Huella: hash,
  };
}

export interface Generated {
  content: XmlTree;
  huella: string;
}

export function altaRecord(facts: AltaFacts, previous: ChainLink | undefined, system: XmlTree, timestamp: string): Generated {
  const hashed: AltaHashFields = {
    ...facts.id, TipoFactura: facts.TipoFactura, CuotaTotal: facts.CuotaTotal, ImporteTotal: facts.ImporteTotal,
    Huella: previous?.Huella ?? '', FechaHoraHusoGenRegistro: timestamp,
  };
  const hash = huella(hashed);
  const content: XmlTree = { IDVersion: '1.0', IDFactura: { ...facts.id }, NombreRazonEmisor: facts.NombreRazonEmisor, TipoFactura: facts.TipoFactura };
  if (facts.TipoRectificativa) content.TipoRectificativa = facts.TipoRectificativa;
  if (facts.FacturasRectificadas?.length) content.FacturasRectificadas = { IDFacturaRectificada: facts.FacturasRectificadas.map((id) => ({ ...id })) };
  if (facts.FechaOperacion) content.FechaOperacion = facts.FechaOperacion;
  content.DescripcionOperacion = facts.DescripcionOperacion;
  if (facts.Macrodato) content.Macrodato = facts.Macrodato;
  if (facts.Destinatarios?.length) content.Destinatarios = { IDDestinatario: facts.Destinatarios };
  Object.assign(content, { Desglose: { DetalleDesglose: facts.Desglose }, CuotaTotal: facts.CuotaTotal, ImporteTotal: facts.ImporteTotal }, closing(previous, system, timestamp, hash));
  return { content, huella: hash };
}

export function anulacionRecord(invoice: InvoiceId, previous: ChainLink | undefined, system: XmlTree, timestamp: string): Generated {
  const hashed: AnulacionHashFields = {
    IDEmisorFacturaAnulada: invoice.IDEmisorFactura, NumSerieFacturaAnulada: invoice.NumSerieFactura, FechaExpedicionFacturaAnulada: invoice.FechaExpedicionFactura,
    Huella: previous?.Huella ?? '', FechaHoraHusoGenRegistro: timestamp,
  };
  const hash = huella(hashed);
  const content: XmlTree = {
    IDVersion: '1.0',
    IDFactura: { IDEmisorFacturaAnulada: hashed.IDEmisorFacturaAnulada, NumSerieFacturaAnulada: hashed.NumSerieFacturaAnulada, FechaExpedicionFacturaAnulada: hashed.FechaExpedicionFacturaAnulada },
    ...closing(previous, system, timestamp, hash),
  };
  return { content, huella: hash };
}

/** The fields a stored record's Huella was computed from, read back from its content (chain checks). */
export function hashFieldsOf(tipo: 'alta' | 'anulacion', content: XmlTree): AltaHashFields | AnulacionHashFields {
  const id = content.IDFactura as Record<string, string>;
  const chain = content.Encadenamiento as { RegistroAnterior?: { Huella: string } };
  const common = { Huella: chain.RegistroAnterior?.Huella ?? '', FechaHoraHusoGenRegistro: String(content.FechaHoraHusoGenRegistro) };
  if (tipo === 'anulacion') {
    return { IDEmisorFacturaAnulada: id.IDEmisorFacturaAnulada!, NumSerieFacturaAnulada: id.NumSerieFacturaAnulada!, FechaExpedicionFacturaAnulada: id.FechaExpedicionFacturaAnulada!, ...common };
  }
  return {
    IDEmisorFactura: id.IDEmisorFactura!, NumSerieFactura: id.NumSerieFactura!, FechaExpedicionFactura: id.FechaExpedicionFactura!,
    TipoFactura: String(content.TipoFactura), CuotaTotal: String(content.CuotaTotal), ImporteTotal: String(content.ImporteTotal), ...common,
  };
}

/** What a subsanación may say differently of its invoice: the data the AEAT rejected, never the invoice's identity or amounts. */
export interface AltaCorrections {
  NombreRazonEmisor?: string;
  DescripcionOperacion?: string;
  Destinatarios?: XmlTree[];
}

/** RechazoPrevio of a subsanación: `X` after a rejected alta the AEAT never held, `S` after a rejected subsanación. */
export type PreviousRejection = 'X' | 'S' | undefined;

const CLOSING = new Set(['Encadenamiento', 'SistemaInformatico', 'FechaHoraHusoGenRegistro', 'TipoHuella', 'Huella']);

/**
 * An *alta de subsanación*: the record `content` corrects (same invoice, same type and totals),
 * with the corrections, `Subsanacion=S` and its `RechazoPrevio`, chained and hashed as a new record.
 */
export function subsanacionRecord(content: XmlTree, corrections: AltaCorrections, rejection: PreviousRejection, previous: ChainLink | undefined, system: XmlTree, timestamp: string): Generated {
  // The corrected record's own fields, chained after `previous` and dated now.
  const hashed: AltaHashFields = { ...(hashFieldsOf('alta', content) as AltaHashFields), Huella: previous?.Huella ?? '', FechaHoraHusoGenRegistro: timestamp };
  const hash = huella(hashed);
  const corrected: XmlTree = {};
  for (const [name, value] of Object.entries(content)) {
    if (CLOSING.has(name) || name === 'Subsanacion' || name === 'RechazoPrevio') continue;
    if (name === 'TipoFactura') {
      corrected.Subsanacion = 'S';
      if (rejection) corrected.RechazoPrevio = rejection;
    }
    if (name === 'NombreRazonEmisor' && corrections.NombreRazonEmisor !== undefined) corrected[name] = corrections.NombreRazonEmisor;
    else if (name === 'DescripcionOperacion' && corrections.DescripcionOperacion !== undefined) corrected[name] = corrections.DescripcionOperacion;
    else if (name === 'Destinatarios' && corrections.Destinatarios !== undefined) corrected[name] = { IDDestinatario: corrections.Destinatarios };
    else corrected[name] = value;
  }
  Object.assign(corrected, closing(previous, system, timestamp, hash));
  return { content: corrected, huella: hash };
}
