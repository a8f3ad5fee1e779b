import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { dbBoolean } from '../../db/row-codec.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError } from '../../errors.ts';
import type { FieldValue } from '../../models/fields.ts';
import { textOf } from '../../models/record-rules.ts';
import { automaticFormat, empresaModel, formatoDocumentoModel } from '../company/index.ts';
import { customerOf, debitAccountOf } from '../customers/index.ts';
import { supplierOf } from '../contacts/index.ts';
import { headerOf, linesOf, loadReference, storedBreakdown, type DocumentType, type Row } from '../documents/index.ts';
import { attachedImage } from '../files/index.ts';
import { cuentaBancoModel, divisaModel, formaPagoModel } from '../finance/index.ts';
import { paisModel } from '../geography/index.ts';
import { invoiceReceipts } from '../payments/index.ts';
import type { ExportDocumentType, ExportFormat, ExportParty, ExportPaymentMethod, ExportView } from './export-view.ts';
import { chooseLanguage } from './labels/labels.ts';
import { fiscalQr } from './fiscal-qr.ts';

const KINDS = { Factura: 'invoice', Albaran: 'deliveryNote', Pedido: 'order', Presupuesto: 'quote' } as const;

/** What the request chose: a print format (`undefined`: the automatic one) and a language (`undefined`: the subject's). */
export interface ViewOptions {
  format?: number;
  lang?: string;
}

const text = textOf;
const orNull = (value: unknown): string | null => (value === null || value === undefined || value === '' ? null : String(value));
const num = (value: unknown): number => Number(value ?? 0) || 0;

/**
 * Reads one stored document and everything its export prints, in one read transaction (a
 * consistent snapshot: an edit committing meanwhile is either wholly in or wholly out), and
 * builds the view the renderers draw. The logo file is read after the transaction. Undefined when
 * the document does not exist; a `format` id naming no format is `format-not-found`.
 */
export async function loadExportView(ctx: AppContext, type: DocumentType, id: number, options: ViewOptions): Promise<ExportView | undefined> {
  const ref = await loadReference(ctx);
  const loaded = await inTransaction(ctx.database, async (db) => {
    const doc = await headerOf(db, type, id);
    if (!doc) return undefined;
    return readEverything(ctx, db, type, doc, ref, options);
  });
  if (!loaded) return undefined;
  const { view, logoFile } = loaded;
  return { ...view, logo: logoFile === null ? null : await attachedImage(ctx, ctx.database.kysely, logoFile) };
}

async function readEverything(ctx: AppContext, db: DbExecutor, type: DocumentType, doc: Row, ref: Awaited<ReturnType<typeof loadReference>>, options: ViewOptions) {
  const get = (model: Parameters<AppContext['store']['get']>[0], key: unknown) =>
    key === null || key === undefined || key === '' ? Promise.resolve(undefined) : ctx.store.get(model, key as FieldValue, db, 'all');
  const code = String(doc[type.subject] ?? '');
  const [lines, subjectRow, companyRow, currency, method, format] = await Promise.all([
    linesOf(db, type, doc[type.key]),
    type.side === 'sales' ? customerOf(db, code) : supplierOf(db, code),
    get(empresaModel, doc.idempresa),
    get(divisaModel, doc.coddivisa),
    get(formaPagoModel, doc.codpago),
    options.format === undefined
      ? automaticFormat(db, { tipodoc: type.name, codserie: String(doc.codserie), idempresa: doc.idempresa === null ? null : Number(doc.idempresa) })
      : get(formatoDocumentoModel, options.format),
  ]);
  if (options.format !== undefined && !format) throw new AppError('format-not-found', { format: options.format });
  const subject = subjectRow ?? {};
  const breakdown = await storedBreakdown(db, ref, type, doc, lines, subject);
  const [subjectCountry, companyCountry, account, debit, receipts, rectified, [qr]] = await Promise.all([
    get(paisModel, doc.codpais),
    get(paisModel, companyRow?.codpais),
    get(cuentaBancoModel, method?.codcuentabanco),
    type.side === 'sales' && method?.domiciliado === true && code ? debitAccountOf(db, code) : undefined,
    type.invoice ? invoiceReceipts(db, type.side, Number(doc[type.key])) : [],
    type.invoice && doc.idfacturarect ? headerOf(db, type, doc.idfacturarect) : undefined,
    ctx.hooks.run(fiscalQr, { db, type, doc }),
  ]);
  const serie = ref.series.get(String(doc.codserie));
  const decimals = ref.settings.decimals;

  const subjectParty: ExportParty = {
    code: code || null,
    name: text(doc[type.subjectName]) || text(subject.nombre),
    legalName: text(subject.razonsocial) || text(doc[type.subjectName]) || text(subject.nombre),
    taxId: text(doc.cifnif) || text(subject.cifnif),
    taxIdType: orNull(subject.tipoidfiscal),
    naturalPerson: dbBoolean(subject.personafisica),
    address: {
      street: text(doc.direccion), postcode: text(doc.codpostal), city: text(doc.ciudad), province: text(doc.provincia),
      country: orNull(doc.codpais), countryIso2: orNull(subjectCountry?.codiso), countryName: orNull(subjectCountry?.nombre),
    },
    email: text(subject.email),
    phone: text(subject.telefono1),
    web: text(subject.web),
  };
  const company: Record<string, unknown> = companyRow ?? {};
  const companyParty: ExportParty = {
    code: null,
    name: text(company.nombrecorto) || text(company.nombre),
    legalName: text(company.nombre),
    taxId: text(company.cifnif),
    taxIdType: orNull(company.tipoidfiscal),
    naturalPerson: company.personafisica === true,
    address: {
      street: text(company.direccion), postcode: text(company.codpostal), city: text(company.ciudad), province: text(company.provincia),
      country: orNull(company.codpais), countryIso2: orNull(companyCountry?.codiso), countryName: orNull(companyCountry?.nombre),
    },
    email: text(company.email),
    phone: text(company.telefono1),
    web: text(company.web),
  };
  const paymentMethod: ExportPaymentMethod | null = method
    ? {
      code: String(method.codpago), description: text(method.descripcion), directDebit: method.domiciliado === true,
      iban: orNull(account?.iban), swift: orNull(account?.swift), debitIban: debit?.iban ?? null, mandate: debit?.mandato ?? null,
    }
    : null;
  const printFormat: ExportFormat | null = format ? { id: Number(format.id), title: orNull(format.titulo), text: orNull(format.texto) } : null;
  const logoFile = format?.idlogo ?? company.idlogo;

  const kind = KINDS[type.name.replace(/(Cliente|Proveedor)$/, '') as keyof typeof KINDS];
  const receiptRows = receipts.map((receipt) => ({
    number: num(receipt.numero), amount: num(receipt.importe), dueDate: text(receipt.vencimiento || receipt.fecha),
    paid: receipt.pagado === true, paymentDate: orNull(receipt.fechapago),
  }));
  const view: ExportView = {
    type: type.name as ExportDocumentType,
    kind,
    side: type.side,
    id: Number(doc[type.key]),
    code: text(doc.codigo),
    number: text(doc.numero),
    series: text(doc.codserie),
    seriesType: serie?.tipo ?? null,
    date: text(doc.fecha),
    time: orNull(doc.hora),
    dueDate: type.invoice ? receiptRows.map((receipt) => receipt.dueDate).sort().at(-1) ?? text(doc.fecha) : null,
    taxPointDate: type.invoice && doc.fechadevengo && doc.fechadevengo !== doc.fecha ? String(doc.fechadevengo) : null,
    externalNumber: orNull(type.side === 'sales' ? doc.numero2 : doc.numproveedor),
    currency: { code: text(doc.coddivisa) || 'EUR', symbol: text(currency?.simbolo) || text(doc.coddivisa), decimals },
    editable: doc.editable === true && !qr,
    paid: doc.pagada === true,
    rectifies: rectified ? { code: text(rectified.codigo), date: text(rectified.fecha) } : doc.codigorect ? { code: text(doc.codigorect), date: '' } : null,
    operation: orNull(doc.operacion),
    observations: text(doc.observaciones),
    company: companyParty,
    subject: subjectParty,
    logo: null,
    paymentMethod,
    lines: lines.map((line, index) => ({
      position: index + 1,
      reference: orNull(line.referencia),
      description: text(line.descripcion),
      quantity: num(line.cantidad),
      unitPrice: num(line.pvpunitario),
      discount: num(line.dtopor),
      discount2: num(line.dtopor2),
      grossAmount: num(line.pvpsindto),
      netAmount: num(line.pvptotal),
      taxCode: orNull(line.codimpuesto),
      vatRate: num(line.iva),
      surchargeRate: num(line.recargo),
      irpfRate: num(line.irpf),
      vatException: orNull(line.excepcioniva),
      supplied: line.suplido === true,
      showQuantity: line.mostrar_cantidad !== false,
      showPrice: line.mostrar_precio !== false,
      pageBreakBefore: line.salto_pagina === true,
    })),
    taxes: breakdown.groups.map((group) => ({
      taxCode: group.codimpuesto, vatRate: group.iva, surchargeRate: group.recargo, base: group.neto, vat: group.totaliva, surcharge: group.totalrecargo,
      vatException: group.iva === 0 ? exceptionOf(lines, group.iva, group.recargo) : null,
    })),
    // The stored totals: what was issued, to the cent (the breakdown sums to them).
    totals: {
      lineTotal: num(doc.netosindto), globalDiscount: num(doc.dtopor1), globalDiscount2: num(doc.dtopor2), net: num(doc.neto), vat: num(doc.totaliva),
      surcharge: num(doc.totalrecargo), irpfRate: num(doc.irpf), irpf: num(doc.totalirpf), supplied: num(doc.totalsuplidos), total: num(doc.total),
    },
    receipts: receiptRows,
    format: printFormat,
    lang: chooseLanguage(options.lang, orNull(subject.langcode), ref.settings.langcode),
    fiscalQr: qr ?? null,
  };
  return { view, logoFile: logoFile === null || logoFile === undefined ? null : Number(logoFile) };
}

/** The exemption cause of a 0 % group: the first of its lines that states one. */
function exceptionOf(lines: Row[], iva: number, recargo: number): string | null {
  const found = lines.find((line) => Number(line.iva) === iva && Number(line.recargo) === recargo && line.excepcioniva && !line.suplido);
  return found ? String(found.excepcioniva) : null;
}
