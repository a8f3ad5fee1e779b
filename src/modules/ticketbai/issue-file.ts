import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { validationError } from '../../errors.ts';
import type { Values } from '../../models/define-model.ts';
import { companyOf } from '../company/index.ts';
import type { DocumentReference, DocumentType, Row } from '../documents/index.ts';
import { issuerNif, signXml, type KnownFacts, type XmlTree } from '../verifactu/index.ts';
import { altaContentOf } from './alta-content.ts';
import { signerOf, type CompanySwitch } from './company-switch.ts';
import { qrAddress, tbaiIdentifier } from './identifier.ts';
import { chainHeadModel, registroTicketbaiModel } from './record-models.ts';
import { softwareOf } from './software.ts';
import { TERRITORY } from './territories.ts';
import { fileXml, signatureValueOf } from './xml-file.ts';

/** The `IDVersionTBAI` of every 1.2.x file. */
export const TBAI_VERSION = '1.2';

/** The software block for the company's treasury and environment, or the 422 saying none is registered. */
export function softwareFor(ctx: AppContext, company: CompanySwitch): XmlTree {
  const software = softwareOf(ctx.config.ticketbai, company.territorio, company.entorno);
  if (!software) throw validationError({ ticketbai: 'software-not-registered' });
  return software;
}

/** The company's chain head, locked for the rest of the transaction (made when missing). */
async function lockedHead(ctx: AppContext, db: DbExecutor, idempresa: number): Promise<Row> {
  const { dialect } = ctx.database;
  const read = () => dialect.locking(db.selectFrom(chainHeadModel.table).selectAll().where('idempresa', '=', idempresa)).executeTakeFirst();
  const head = await read();
  if (head) return head;
  await dialect.insertIgnore(db.insertInto(chainHeadModel.table).values({ idempresa, registros: 0 }), ['idempresa']).execute();
  return (await read())!;
}

/**
 * An invoice's TicketBAI file, in the transaction that issues it (TicketBAI specification 1.2
 * §3.2: the file is made and signed before the invoice's image can exist): its content read and
 * checked (a 422 refuses the invoice), chained to the company's previous invoice file under the
 * chain's lock (held from here to the commit: one issuer per company at a time, whatever the
 * instance), signed XAdES-EPES under the territory's policy, its TBAI identifier and QR computed,
 * stored `pendiente` for the sender. Answers the file's id.
 */
export async function issueInvoiceFile(ctx: AppContext, db: DbExecutor, company: CompanySwitch, ref: DocumentReference, type: DocumentType, id: number, header: Row, lines: Row[], given: Partial<KnownFacts>): Promise<number> {
  const issuer = given.company ?? (await companyOf(db, company.idempresa));
  const nif = issuerNif(issuer);
  const software = softwareFor(ctx, company);
  const content = await altaContentOf(ctx, db, ref, type, header, lines, issuer!, nif, given);
  const signer = await signerOf(ctx, company);
  const head = await lockedHead(ctx, db, company.idempresa);
  const chained = head.idultimo !== null && head.idultimo !== undefined;
  const huella: XmlTree = {};
  if (chained) {
    huella.EncadenamientoFacturaAnterior = {
      ...(head.serie ? { SerieFacturaAnterior: String(head.serie) } : {}),
      NumFacturaAnterior: String(head.numero), FechaExpedicionFacturaAnterior: String(head.fecha), SignatureValueFirmaFacturaAnterior: String(head.firma),
    };
  }
  huella.Software = software;
  const tree: XmlTree = { Cabecera: { IDVersionTBAI: TBAI_VERSION }, Sujetos: content.Sujetos, Factura: content.Factura, HuellaTBAI: huella };
  const signed = await signXml(fileXml('alta', tree), signer, new Date(ctx.clock.now()), { policy: TERRITORY[company.territorio].policy });
  const firma = signatureValueOf(signed);
  const { invoice } = content;
  const identificador = tbaiIdentifier(nif, invoice.fecha, firma);
  const [idregistro] = await ctx.store.insertMany(registroTicketbaiModel, [{
    idempresa: company.idempresa, tipo: 'alta', idfactura: id, territorio: company.territorio, entorno: company.entorno,
    nif, serie: invoice.serie, numero: invoice.numero, fecha: invoice.fecha, importe: content.importe,
    identificador, qr: qrAddress(TERRITORY[company.territorio].qr[company.entorno], { id: identificador, serie: invoice.serie, numero: invoice.numero, importe: content.importe }),
    firma, idanterior: chained ? Number(head.idultimo) : null, firmaanterior: chained ? String(head.firma) : null,
    fichero: signed, estado: 'pendiente',
  } as Values], db);
  await db.updateTable(chainHeadModel.table).set({
    registros: Number(head.registros ?? 0) + 1, idultimo: idregistro!, serie: invoice.serie, numero: invoice.numero, fecha: invoice.fecha, firma: firma.slice(0, 100),
  }).where('idempresa', '=', company.idempresa).execute();
  return idregistro!;
}
