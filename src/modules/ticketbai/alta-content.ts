import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { validationError } from '../../errors.ts';
import { dec, Dec, round } from '../../models/round.ts';
import { headerOf, productTypesOf, type DocumentReference, type DocumentType, type Row } from '../documents/index.ts';
import { paisModel } from '../geography/index.ts';
import { customerOf } from '../customers/index.ts';
import { breakdownOf, descriptionOf, recipientOf, xmlAmount, xmlDate, xmlText, type KnownFacts, type XmlTree } from '../verifactu/index.ts';
import { desgloseOf } from './desglose.ts';

/** How a file names an invoice: its series (the invoice's serie and year: numbers restart each year), number and issue date. */
export interface FileInvoice {
  serie: string;
  numero: string;
  /** dd-mm-yyyy */
  fecha: string;
}

export function fileInvoiceOf(header: Row): FileInvoice {
  return { serie: xmlText(`${String(header.codserie ?? '')}${String(header.codejercicio ?? '')}`, 20), numero: String(header.numero), fecha: xmlDate(String(header.fecha)) };
}

/** A TicketBAI series and number: upper-case letters, digits and single inner spaces or `-` (TicketBAI specification 1.2 §6.4). */
const SERIE = /^[0-9A-Z]+(?:[ -][0-9A-Z]+)*$/;
const MAX_LINES = 1000;

/** What an invoice's file says of it, but its chain and signature: `Sujetos`, `Factura`, and its total as written. */
export interface AltaContent {
  invoice: FileInvoice;
  Sujetos: XmlTree;
  Factura: XmlTree;
  importe: string;
}

const isService = (type: string | null | undefined) => /^servicio/i.test(type ?? '');

/**
 * The invoice's `Sujetos` and `Factura` (TicketBAI 1.2.2), from the invoice as stored and what the
 * VERI*FACTU record would say of it (the same tax classification of its lines and the same
 * breakdown, summed as the invoice was): a 422 names what keeps it from a valid file.
 */
export async function altaContentOf(ctx: AppContext, db: DbExecutor, ref: DocumentReference, type: DocumentType, header: Row, lines: Row[], company: Row, nif: string, given: Partial<KnownFacts>): Promise<AltaContent> {
  const known: KnownFacts = { countryOf: (codpais) => ctx.store.get(paisModel, codpais, db, 'all'), ...given };
  known.productTypes ??= await productTypesOf(db, lines);
  const invoice = fileInvoiceOf(header);
  if (!SERIE.test(invoice.serie)) throw validationError({ codserie: 'invalid-for-ticketbai' });
  const taxed = lines.filter((line) => !line.suplido);
  if (!taxed.length) throw validationError({ lineas: 'required' });
  if (taxed.length > MAX_LINES) throw validationError({ lineas: 'too-many-lines-for-ticketbai' });

  const simplified = (serie: unknown) => ref.series.get(String(serie))?.tipo === 'S';
  const original = header.idfacturarect === null || header.idfacturarect === undefined ? undefined : await headerOf(db, type, header.idfacturarect);
  const customer = known.customer ?? (await customerOf(db, String(header.codcliente))) ?? {};
  // A credit note of a simplified invoice is simplified too (R5), whatever its own series.
  const full = !simplified(header.codserie) && !(original && simplified(original.codserie));
  const recipient = full ? await recipientOf(known, header, customer, nif) : undefined;
  const foreign = recipient !== undefined && ('IDOtro' in recipient || String(recipient.NIF ?? '').startsWith('N'));
  const types = taxed.map((line) => (line.idproducto ? known.productTypes?.get(Number(line.idproducto)) : undefined));
  // A recipient abroad: the breakdown by kind of operation. A line is a service unless it sells a
  // product of another type (goods); free-text lines are services.
  const kindOf = (line: Row) => (line.idproducto && !isService(known.productTypes?.get(Number(line.idproducto)) ?? null) ? 'Entrega' : 'PrestacionServicios');
  const details = await breakdownOf(db, ref, type, header, lines, customer, { travelAgency: company.regimeniva === 'Agencias de viaje' }, known, foreign ? kindOf : undefined);
  const { desglose, importe, claves } = desgloseOf(details);
  // Rent of business premises: its own keys, by whether the rent bears a withholding (11) or not (12).
  if (types.some((kind) => /^arrendamiento/i.test(kind ?? ''))) claves.unshift(Number(header.totalirpf ?? 0) ? '11' : '12');
  if (types.some((kind) => /^segunda mano/i.test(kind ?? ''))) claves.push('03');

  const toEuros = String(header.coddivisa ?? 'EUR') === 'EUR' ? (amount: Dec) => amount : (amount: Dec) => amount.div(dec(Number(header.tasaconv) || 1));
  const discount = new Dec(1).minus(dec(Number(header.dtopor1 ?? 0)).div(100)).times(new Dec(1).minus(dec(Number(header.dtopor2 ?? 0)).div(100)));
  const eight = (value: Dec) => round(value, 8).toFixed(8).replace(/\.?0+$/, '') || '0';
  const detalles = taxed.map((line) => {
    const net = toEuros(dec(Number(line.pvptotal ?? 0)).times(discount));
    const gross = toEuros(dec(Number(line.cantidad ?? 0)).times(dec(Number(line.pvpunitario ?? 0))));
    return {
      DescripcionDetalle: xmlText(line.descripcion, 250) || xmlText(line.referencia, 250) || '-',
      Cantidad: eight(dec(Number(line.cantidad ?? 0))),
      ImporteUnitario: eight(toEuros(dec(Number(line.pvpunitario ?? 0)))),
      Descuento: xmlAmount(round(gross.minus(net), 2)),
      ImporteTotal: xmlAmount(round(net.times(new Dec(1).plus(dec(Number(line.iva ?? 0)).plus(dec(Number(line.recargo ?? 0))).div(100))), 2)),
    };
  });

  const cabecera: XmlTree = {
    SerieFactura: invoice.serie,
    NumFactura: invoice.numero,
    FechaExpedicionFactura: invoice.fecha,
    HoraExpedicionFactura: String(header.hora ?? '00:00:00').slice(0, 8),
    FacturaSimplificada: full ? 'N' : 'S',
  };
  if (original) {
    const rectified = fileInvoiceOf(original);
    // R5 corrects a simplified invoice; R1 the rest (an error in law, art. 80 LIVA), by differences.
    cabecera.FacturaRectificativa = { Codigo: simplified(original.codserie) ? 'R5' : 'R1', Tipo: 'I' };
    cabecera.FacturasRectificadasSustituidas = { IDFacturaRectificadaSustituida: [{ SerieFactura: rectified.serie, NumFactura: rectified.numero, FechaExpedicionFactura: rectified.fecha }] };
  }
  const devengo = header.fechadevengo ? String(header.fechadevengo) : null;
  const datos: XmlTree = {
    ...(devengo && devengo !== String(header.fecha) ? { FechaOperacion: xmlDate(devengo) } : {}),
    DescripcionFactura: xmlText(descriptionOf(header, lines, Boolean(original)), 250),
    DetallesFactura: { IDDetalleFactura: detalles },
    ImporteTotalFactura: importe,
    ...(Number(header.totalirpf ?? 0) ? { RetencionSoportada: xmlAmount(round(toEuros(dec(Number(header.totalirpf))), 2)) } : {}),
    Claves: { IDClave: [...new Set(claves)].slice(0, 3).map((clave) => ({ ClaveRegimenIvaOpTrascendencia: clave })) },
  };
  const tipoDesglose: XmlTree = foreign ? { DesgloseTipoOperacion: byKind(details) } : { DesgloseFactura: desglose };

  const sujetos: XmlTree = { Emisor: { NIF: nif, ApellidosNombreRazonSocial: xmlText(company.nombre, 120) } };
  if (recipient) sujetos.Destinatarios = { IDDestinatario: [destinatario(recipient, header)] };
  return { invoice, Sujetos: sujetos, Factura: { CabeceraFactura: cabecera, DatosFactura: datos, TipoDesglose: tipoDesglose }, importe };
}

/** `DesgloseTipoOperacion`: services first, then deliveries of goods (schema order), each its own breakdown. */
function byKind(details: XmlTree[]): XmlTree {
  const out: XmlTree = {};
  for (const kind of ['PrestacionServicios', 'Entrega']) {
    const part = details.filter((detail) => detail.Parte === kind);
    if (part.length) out[kind] = desgloseOf(part).desglose;
  }
  return out;
}

/** A VERI*FACTU recipient as TicketBAI names one, with the postal code and address Gipuzkoa asks for. */
function destinatario(recipient: XmlTree, header: Row): XmlTree {
  const out: XmlTree = 'NIF' in recipient ? { NIF: String(recipient.NIF) } : { IDOtro: recipient.IDOtro as XmlTree };
  out.ApellidosNombreRazonSocial = String(recipient.NombreRazon);
  const postcode = xmlText(header.codpostal, 20);
  const address = xmlText(header.direccion, 250);
  if (postcode) out.CodigoPostal = postcode;
  if (address) out.Direccion = address;
  return out;
}
