import assert from 'node:assert/strict';
import { after, before, describe, it, type TestContext } from 'node:test';
import { renderCii } from '../src/modules/export/einvoice/cii-invoice.ts';
import { renderFacturae } from '../src/modules/export/einvoice/facturae-invoice.ts';
import { renderUbl } from '../src/modules/export/einvoice/ubl-invoice.ts';
import { partiesOf, type ExportView } from '../src/modules/export/export-view.ts';
import { describeResults, parseXml, prepareEn16931, validateEn16931, xpath, type Syntax } from './helpers/en16931.ts';
import {
  discountedView, exampleInvoiceView, intraCommunityView, line, multiRateView, notSubjectView, purchaseView, refundView, sampleView, suppliedView, surchargeView, withLines,
} from './helpers/export-views.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * E-invoices (docs/export-einvoice.md): UBL 2.1 and CII D16B run through the European
 * Commission's EN 16931 validation artefacts (test/vendor/en16931/, compiled once and cached by
 * test/helpers/en16931.ts), which must report no fatal rule; Facturae 3.2.2 is parsed and its
 * totals checked. Every export's totals must be the document's to the cent: first on built views
 * (test/helpers/export-views.ts, totals computed as the document engine does), then on real
 * documents created through the API and exported by the endpoint.
 */

const NS = {
  cbc: 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2',
  cac: 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2',
  rsm: 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100',
  ram: 'urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100',
};
const UBL_INVOICE = 'urn:oasis:names:specification:ubl:schema:xsd:Invoice-2';
const UBL_CREDIT_NOTE = 'urn:oasis:names:specification:ubl:schema:xsd:CreditNote-2';
const FACTURAE = 'http://www.facturae.gob.es/formato/Versiones/Facturaev3_2_2.xml';
const EN16931 = 'urn:cen.eu:en16931:2017';

/** What an export must state, from the document (amounts in cents, signed as stored: a refund's are negative). */
interface Expected {
  credit: boolean;
  /** BT-1: the code, or the supplier's own number on a purchase. */
  number: string;
  /** The rectified invoice's code (BG-3), for a refund. */
  rectifies: string | null;
  /** BT-31 and BT-48: the VAT ids of seller and buyer. */
  sellerVat: string;
  buyerVat: string;
  net: number;
  vat: number;
  surcharge: number;
  irpf: number;
  supplied: number;
  total: number;
}

const cents = (value: number | string) => Math.round(Number(value) * 100);

/** Lines not subject to VAT (`O`): an invoice of only those names no VAT identifiers (BR-O-02). */
const NOT_SUBJECT = new Set(['ES_7', 'ES_14', 'ES_OTHER_NOT_SUBJECT']);

function expectedOf(view: ExportView): Expected {
  const { seller, buyer } = partiesOf(view);
  const vatIds = !view.lines.every((item) => item.vatException !== null && NOT_SUBJECT.has(item.vatException));
  return {
    credit: view.seriesType === 'R' || view.rectifies !== null,
    number: view.side === 'purchase' && view.externalNumber ? view.externalNumber : view.code,
    rectifies: view.rectifies?.code ?? null,
    sellerVat: vatIds ? `ES${seller.taxId}` : '',
    buyerVat: !vatIds ? '' : buyer.taxId.startsWith(buyer.address.countryIso2 ?? 'ES') ? buyer.taxId : `ES${buyer.taxId}`,
    net: cents(view.totals.net),
    vat: cents(view.totals.vat),
    surcharge: cents(view.totals.surcharge),
    irpf: cents(view.totals.irpf),
    supplied: cents(view.totals.supplied),
    total: cents(view.totals.total),
  };
}

/** One string value of an XPath (`''` when nothing matches). */
function value(context: unknown, expression: string): string {
  return xpath<string[]>(`string((${expression})[1])`, context, NS)[0] ?? '';
}
/** An amount element in cents, or null when it is absent. */
function amount(context: unknown, expression: string): number | null {
  const text = value(context, expression);
  return text === '' ? null : cents(text);
}
/** The sum of amount elements in cents. */
function total(context: unknown, expression: string): number {
  return xpath<string[]>(`(${expression}) ! string()`, context, NS).reduce((sum, text) => sum + cents(text), 0);
}

/** Validates with the EN 16931 rules: fails on any fatal rule (id and text), reports warnings as diagnostics. */
async function assertValid(t: TestContext, syntax: Syntax, xml: string): Promise<void> {
  const { fatal, warnings } = await validateEn16931(syntax, xml);
  if (warnings.length) t.diagnostic(`EN 16931 warnings (${syntax}):\n${describeResults(warnings)}`);
  if (fatal.length) assert.fail(`EN 16931 fatal rules broken (${syntax}):\n${describeResults(fatal)}`);
}

/**
 * UBL: root and customization, then the totals (BG-22). The mapping (docs/export-einvoice.md):
 * the surcharge is a document-level charge and supplied amounts an exempt line, so both are in
 * the tax-exclusive amount; IRPF is the paid amount (BT-113), so that BT-115 is the total.
 */
async function checkUbl(t: TestContext, xml: string, expected: Expected): Promise<void> {
  await assertValid(t, 'ubl', xml);
  const doc = await parseXml(xml);
  const sign = expected.credit ? -1 : 1;
  assert.deepEqual([value(doc, '/*/local-name()'), value(doc, '/*/namespace-uri()')], expected.credit ? ['CreditNote', UBL_CREDIT_NOTE] : ['Invoice', UBL_INVOICE]);
  assert.equal(value(doc, '/*/cbc:CustomizationID'), EN16931);
  assert.equal(value(doc, expected.credit ? '/*/cbc:CreditNoteTypeCode' : '/*/cbc:InvoiceTypeCode'), expected.credit ? '381' : '380');
  assert.equal(value(doc, '/*/cbc:ID'), expected.number);
  assert.equal(value(doc, '/*/cac:BillingReference/cac:InvoiceDocumentReference/cbc:ID'), expected.rectifies ?? '');
  assert.equal(value(doc, '/*/cac:AccountingSupplierParty/cac:Party/cac:PartyTaxScheme/cbc:CompanyID'), expected.sellerVat);
  assert.equal(value(doc, '/*/cac:AccountingCustomerParty/cac:Party/cac:PartyTaxScheme/cbc:CompanyID'), expected.buyerVat);

  const totals = '/*/cac:LegalMonetaryTotal';
  const exclusive = sign * (expected.net + expected.surcharge + expected.supplied);
  assert.deepEqual({
    taxExclusive: amount(doc, `${totals}/cbc:TaxExclusiveAmount`),
    vat: amount(doc, '/*/cac:TaxTotal/cbc:TaxAmount'),
    taxInclusive: amount(doc, `${totals}/cbc:TaxInclusiveAmount`),
    prepaid: amount(doc, `${totals}/cbc:PrepaidAmount`),
    rounding: amount(doc, `${totals}/cbc:PayableRoundingAmount`),
    payable: amount(doc, `${totals}/cbc:PayableAmount`),
  }, {
    taxExclusive: exclusive,
    vat: sign * expected.vat,
    taxInclusive: exclusive + sign * expected.vat,
    prepaid: expected.irpf === 0 ? null : sign * expected.irpf,
    rounding: null,
    payable: sign * expected.total,
  });
  assert.equal(total(doc, '/*/cac:TaxTotal/cac:TaxSubtotal/cbc:TaxableAmount'), exclusive, 'the breakdown sums to BT-109');
  assert.equal(total(doc, '/*/cac:TaxTotal/cac:TaxSubtotal/cbc:TaxAmount'), sign * expected.vat, 'the breakdown sums to BT-110');
}

/** CII: the same checks on its binding (type code 381 for a refund). */
async function checkCii(t: TestContext, xml: string, expected: Expected): Promise<void> {
  await assertValid(t, 'cii', xml);
  const doc = await parseXml(xml);
  const sign = expected.credit ? -1 : 1;
  assert.deepEqual([value(doc, '/*/local-name()'), value(doc, '/*/namespace-uri()')], ['CrossIndustryInvoice', NS.rsm]);
  assert.equal(value(doc, '/*/rsm:ExchangedDocumentContext/ram:GuidelineSpecifiedDocumentContextParameter/ram:ID'), EN16931);
  assert.equal(value(doc, '/*/rsm:ExchangedDocument/ram:TypeCode'), expected.credit ? '381' : '380');
  assert.equal(value(doc, '/*/rsm:ExchangedDocument/ram:ID'), expected.number);
  const transaction = '/*/rsm:SupplyChainTradeTransaction';
  const settlement = `${transaction}/ram:ApplicableHeaderTradeSettlement`;
  assert.equal(value(doc, `${settlement}/ram:InvoiceReferencedDocument/ram:IssuerAssignedID`), expected.rectifies ?? '');
  assert.equal(value(doc, `${transaction}/ram:ApplicableHeaderTradeAgreement/ram:SellerTradeParty/ram:SpecifiedTaxRegistration/ram:ID`), expected.sellerVat);
  assert.equal(value(doc, `${transaction}/ram:ApplicableHeaderTradeAgreement/ram:BuyerTradeParty/ram:SpecifiedTaxRegistration/ram:ID`), expected.buyerVat);

  const summation = `${settlement}/ram:SpecifiedTradeSettlementHeaderMonetarySummation`;
  const exclusive = sign * (expected.net + expected.surcharge + expected.supplied);
  assert.deepEqual({
    taxExclusive: amount(doc, `${summation}/ram:TaxBasisTotalAmount`),
    vat: amount(doc, `${summation}/ram:TaxTotalAmount`),
    taxInclusive: amount(doc, `${summation}/ram:GrandTotalAmount`),
    prepaid: amount(doc, `${summation}/ram:TotalPrepaidAmount`),
    rounding: amount(doc, `${summation}/ram:RoundingAmount`),
    payable: amount(doc, `${summation}/ram:DuePayableAmount`),
  }, {
    taxExclusive: exclusive,
    vat: sign * expected.vat,
    taxInclusive: exclusive + sign * expected.vat,
    prepaid: expected.irpf === 0 ? null : sign * expected.irpf,
    rounding: null,
    payable: sign * expected.total,
  });
  assert.equal(total(doc, `${settlement}/ram:ApplicableTradeTax/ram:BasisAmount`), exclusive, 'the breakdown sums to BT-109');
  assert.equal(total(doc, `${settlement}/ram:ApplicableTradeTax/ram:CalculatedAmount`), sign * expected.vat, 'the breakdown sums to BT-110');
}

/**
 * Facturae: well-formed, its namespace, the totals' chain (base + outputs - withheld = invoice
 * total; + reimbursable = executable), each tax's amount its base times its rate, the taxes
 * adding up to the totals, and the installments to the executable amount. Amounts keep the
 * document's sign.
 */
async function checkFacturae(xml: string, expected: Expected, taxes?: ExportView['taxes']): Promise<void> {
  const doc = await parseXml(xml);
  assert.deepEqual([value(doc, '/*/local-name()'), value(doc, '/*/namespace-uri()')], ['Facturae', FACTURAE]);
  assert.equal(value(doc, '/*/FileHeader/SchemaVersion'), '3.2.2');
  for (const date of xpath<string[]>('//*[ends-with(local-name(), "Date")] ! string()', doc)) assert.match(date, /^\d{4}-\d{2}-\d{2}$/, 'a date');
  const invoice = '/*/Invoices/Invoice';
  assert.equal(value(doc, `${invoice}/InvoiceHeader/InvoiceNumber`), expected.number);
  assert.equal(value(doc, `${invoice}/InvoiceHeader/InvoiceClass`), expected.credit ? 'OR' : 'OO');
  assert.equal(value(doc, `${invoice}/InvoiceHeader/Corrective/InvoiceNumber`), expected.rectifies ?? '');
  const totals = `${invoice}/InvoiceTotals`;
  const invoiceTotal = expected.net + expected.vat + expected.surcharge - expected.irpf;
  assert.deepEqual({
    beforeTaxes: amount(doc, `${totals}/TotalGrossAmountBeforeTaxes`),
    outputs: amount(doc, `${totals}/TotalTaxOutputs`),
    withheld: amount(doc, `${totals}/TotalTaxesWithheld`),
    invoiceTotal: amount(doc, `${totals}/InvoiceTotal`),
    outstanding: amount(doc, `${totals}/TotalOutstandingAmount`),
    reimbursable: amount(doc, `${totals}/TotalReimbursableExpenses`),
    executable: amount(doc, `${totals}/TotalExecutableAmount`),
    batchTotal: amount(doc, '/*/FileHeader/Batch/TotalInvoicesAmount/TotalAmount'),
    batchExecutable: amount(doc, '/*/FileHeader/Batch/TotalExecutableAmount/TotalAmount'),
  }, {
    beforeTaxes: expected.net,
    outputs: expected.vat + expected.surcharge,
    withheld: expected.irpf,
    invoiceTotal,
    outstanding: invoiceTotal,
    reimbursable: expected.supplied === 0 ? null : expected.supplied,
    executable: expected.total,
    batchTotal: invoiceTotal,
    batchExecutable: expected.total,
  });
  assert.equal(invoiceTotal + expected.supplied, expected.total, 'InvoiceTotal + reimbursable expenses = the document total');

  const outputs = `${invoice}/TaxesOutputs/Tax`;
  assert.equal(total(doc, `${outputs}/TaxableBase/TotalAmount`), expected.net, 'the taxes\' bases sum to the base');
  assert.equal(total(doc, `${outputs}/TaxAmount/TotalAmount`), expected.vat, 'the taxes sum to the VAT');
  assert.equal(total(doc, `${outputs}/EquivalenceSurchargeAmount/TotalAmount`), expected.surcharge, 'the surcharges sum to the surcharge');
  assert.equal(total(doc, `${invoice}/TaxesWithheld/Tax/TaxAmount/TotalAmount`), expected.irpf, 'the withheld taxes sum to the IRPF');
  assert.equal(total(doc, `${invoice}/InvoiceTotals/ReimbursableExpenses/ReimbursableExpenses/ReimbursableExpensesAmount`), expected.supplied);
  assert.equal(total(doc, `${invoice}/PaymentDetails/Installment/InstallmentAmount`), expected.total, 'the installments sum to the executable amount');
  const rows = xpath<unknown[]>(`${outputs}`, doc);
  for (const row of rows) {
    const base = amount(row, 'TaxableBase/TotalAmount')!;
    const rate = Number(value(row, 'TaxRate'));
    const vat = amount(row, 'TaxAmount/TotalAmount')!;
    assert.ok(Math.abs(vat - (base * rate) / 100) <= 1, `VAT ${vat} of ${base} at ${rate} %`);
    const surchargeRate = value(row, 'EquivalenceSurcharge');
    if (surchargeRate) assert.ok(Math.abs(amount(row, 'EquivalenceSurchargeAmount/TotalAmount')! - (base * Number(surchargeRate)) / 100) <= 1, `surcharge of ${base} at ${surchargeRate} %`);
  }
  if (taxes?.length) {
    // One Tax per stored group, in the same order: rate, base, VAT and surcharge as stored.
    assert.deepEqual(rows.map((row) => [Number(value(row, 'TaxRate')), amount(row, 'TaxableBase/TotalAmount'), amount(row, 'TaxAmount/TotalAmount'), amount(row, 'EquivalenceSurchargeAmount/TotalAmount') ?? 0]),
      taxes.map((tax) => [tax.vatRate, cents(tax.base), cents(tax.vat), cents(tax.surcharge)]));
  }
}

/** A plain invoice: one rate (21 %), no discounts. */
function plainView(): ExportView {
  const view = withLines(sampleView(), [
    line(1, { description: 'Tornillos de acero 4x40', quantity: 100, unitPrice: 0.12 }),
    line(2, { description: 'Taladro percutor', quantity: 1, unitPrice: 89.9 }),
  ]);
  return { ...view, receipts: [{ number: 1, amount: view.totals.total, dueDate: view.dueDate!, paid: false, paymentDate: null }] };
}

/** Canary Islands' IGIC, its zero rate (`IGIC0`, zero rated: the CII rules want an IGIC rate above 0) included. */
function igicView(): ExportView {
  const view = withLines(sampleView(), [
    line(1, { description: 'Herramienta', quantity: 3, unitPrice: 24.95, taxCode: 'IGIC7', vatRate: 7 }),
    line(2, { description: 'Pan', quantity: 12, unitPrice: 1.15, discount: 5, taxCode: 'IGIC0', vatRate: 0 }),
  ], 3);
  return { ...view, receipts: [{ number: 1, amount: view.totals.total, dueDate: view.dueDate!, paid: false, paymentDate: null }] };
}

const CASES: ReadonlyArray<[string, () => ExportView]> = [
  ['a plain invoice at one rate', plainView],
  ['line discounts and cascaded global discounts (dtopor1, dtopor2)', discountedView],
  ['the equivalence surcharge and IRPF withheld', surchargeView],
  ['several rates with an exempt 0 % line', multiRateView],
  ['a refund (a credit note of the rectified invoice)', refundView],
  ['a refund of an invoice known only by its code (no date)', () => ({ ...refundView(), rectifies: { code: 'FAC2025A9', date: '' } })],
  ['a purchase invoice (the supplier sells)', purchaseView],
  ['supplied amounts (suplidos) with a direct debit', suppliedView],
  ['an intra-community supply', intraCommunityView],
  ['operations not subject to VAT only', notSubjectView],
  ['the Canary Islands\' IGIC at 7 % and 0 %', igicView],
  ['the documentation\'s example invoice', exampleInvoiceView],
];

describe('e-invoices of built views', () => {
  // Compiles the artefacts on a clean clone (about 10 s each), else loads the cache.
  before(prepareEn16931);

  for (const [title, build] of CASES) {
    it(`UBL: ${title}`, async (t) => {
      const view = build();
      await checkUbl(t, renderUbl(view), expectedOf(view));
    });
    it(`CII: ${title}`, async (t) => {
      const view = build();
      await checkCii(t, renderCii(view), expectedOf(view));
    });
    it(`Facturae: ${title}`, async () => {
      const view = build();
      await checkFacturae(renderFacturae(view), expectedOf(view), view.taxes);
    });
  }

  it('maps the surcharge to a charge, IRPF to the paid amount and supplied amounts to an exempt group', async () => {
    const surcharge = await parseXml(renderUbl(surchargeView()));
    const charges = xpath<unknown[]>('/*/cac:AllowanceCharge[cbc:ChargeIndicator = "true"]', surcharge, NS);
    assert.deepEqual(charges.map((charge) => [value(charge, 'cbc:AllowanceChargeReason'), value(charge, 'cac:TaxCategory/cbc:ID')]), [
      ['Recargo de equivalencia 5,2 % sobre la base al 21 %', 'Z'],
      ['Recargo de equivalencia 1,4 % sobre la base al 10 %', 'Z'],
    ]);
    assert.match(value(surcharge, '/*/cbc:Note[contains(., "IRPF")]'), /^Retención IRPF 15 %: \d+\.\d{2} EUR/);
    const supplied = await parseXml(renderCii(suppliedView()));
    const group = '/*/rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeSettlement/ram:ApplicableTradeTax[ram:CategoryCode = "E"]';
    assert.equal(amount(supplied, `${group}/ram:BasisAmount`), cents(suppliedView().totals.supplied));
    assert.match(value(supplied, `${group}/ram:ExemptionReason`), /^Suplidos/);
    assert.equal(value(supplied, '/*/rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeSettlement/ram:SpecifiedTradeSettlementPaymentMeans/ram:TypeCode'), '59');
    assert.equal(value(supplied, '/*/rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeSettlement/ram:SpecifiedTradePaymentTerms/ram:DirectDebitMandateID'), 'MANDATO-BETA-1');
  });

  it('fails on a broken invoice, naming the rule (the artefacts are really applied)', async () => {
    const xml = renderUbl(plainView()).replace(/<cbc:PayableAmount currencyID="EUR">[^<]+</, '<cbc:PayableAmount currencyID="EUR">1.00<');
    const { fatal } = await validateEn16931('ubl', xml);
    assert.deepEqual(fatal.map((rule) => rule.id), ['BR-CO-16']);
    const cii = renderCii(plainView()).replace('<ram:TypeCode>380</ram:TypeCode>', '<ram:TypeCode>999</ram:TypeCode>');
    assert.ok((await validateEn16931('cii', cii)).fatal.some((rule) => rule.id === 'BR-CL-01'), 'an unknown type code');
  });
});

/** The stored document's totals as an export must state them. */
function expectedOfDocument(doc: Record<string, any>, options: { number?: string; rectifies?: string; sellerVat: string; buyerVat: string }): Expected {
  return {
    credit: Boolean(doc.codigorect) || doc.codserie === 'R',
    number: options.number ?? doc.codigo,
    rectifies: options.rectifies ?? null,
    sellerVat: options.sellerVat,
    buyerVat: options.buyerVat,
    net: cents(doc.neto),
    vat: cents(doc.totaliva),
    surcharge: cents(doc.totalrecargo),
    irpf: cents(doc.totalirpf),
    supplied: cents(doc.totalsuplidos),
    total: cents(doc.total),
  };
}

describe('e-invoices of real documents through the API [sqlite]', () => {
  let t: TestApp;
  const COMPANY_VAT = 'ES00000014Z';
  const invoices: Array<{ title: string; side: 'Cliente' | 'Proveedor'; id: number; expected: Expected }> = [];

  async function create(url: string, body: Record<string, unknown>) {
    const response = await t.call('POST', url, body);
    assert.equal(response.status, url.startsWith('/api/3/crear') ? 200 : 201, `${url}: ${JSON.stringify(response.body)}`);
    return response.body;
  }

  before(async () => {
    [t] = await Promise.all([startTestApp('sqlite'), prepareEn16931()]) as [TestApp, void];
    await create('/api/3/cliente', { codcliente: 'EIN', nombre: 'Beta Distribuciones', razonsocial: 'Beta Distribuciones SA', cifnif: 'A58818501' });
    await create('/api/3/cliente', { codcliente: 'EINR', nombre: 'Droguería Luna', cifnif: 'B12345674', regimeniva: 'Recargo', codretencion: 'IRPF15' });
    await create('/api/3/proveedor', { codproveedor: 'EINP', nombre: 'Suministros Norte SL', cifnif: 'B95123456' });
    const sale = (title: string, body: Record<string, unknown>, buyerVat = 'ESA58818501') => create('/api/3/crearFacturaCliente', { codcliente: 'EIN', ...body })
      .then((made) => {
        invoices.push({ title, side: 'Cliente', id: made.doc.idfactura, expected: expectedOfDocument(made.doc, { sellerVat: COMPANY_VAT, buyerVat }) });
        return made;
      });

    await sale('a plain invoice at one rate', { lineas: [{ descripcion: 'Tornillos', cantidad: 100, pvpunitario: 0.12 }, { descripcion: 'Taladro', cantidad: 1, pvpunitario: 89.9 }] });
    const discounted = await sale('line discounts and cascaded global discounts (dtopor1, dtopor2)', {
      dtopor1: 5, dtopor2: 2, lineas: [
        { descripcion: 'Tornillos', cantidad: 333, pvpunitario: 0.137, dtopor: 7.5 },
        { descripcion: 'Taladro', cantidad: 3, pvpunitario: 89.99, dtopor: 10, dtopor2: 5 },
        { descripcion: 'Manual', cantidad: 7, pvpunitario: 1.333, dtopor: 12.5, codimpuesto: 'IVA10' },
      ],
    });
    await sale('the equivalence surcharge and IRPF withheld', {
      codcliente: 'EINR', lineas: [
        { descripcion: 'Servicio de instalación', cantidad: 3, pvpunitario: 45.55 },
        { descripcion: 'Material eléctrico', cantidad: 12, pvpunitario: 3.19, dtopor: 3 },
        { descripcion: 'Revista técnica', cantidad: 2, pvpunitario: 6.35, codimpuesto: 'IVA10' },
      ],
    }, 'ESB12345674');
    await sale('several rates with an exempt 0 % line', {
      lineas: [
        { descripcion: 'Herramienta', cantidad: 2, pvpunitario: 24.95 },
        { descripcion: 'Hostelería', pvpunitario: 18.6, codimpuesto: 'IVA10' },
        { descripcion: 'Libro técnico', cantidad: 3, pvpunitario: 12.4, codimpuesto: 'IVA4' },
        { descripcion: 'Curso de formación reglada', pvpunitario: 150, codimpuesto: 'IVA0', excepcioniva: 'ES_20' },
      ],
    });
    await sale('supplied amounts (suplidos)', {
      lineas: [{ descripcion: 'Gestión de trámite', pvpunitario: 60 }, { descripcion: 'Tasa registral', pvpunitario: 25.37, suplido: true }, { descripcion: 'Notaría', pvpunitario: 41.1, suplido: true }],
    });
    await sale('an intra-community supply', { operacion: 'intracomunitaria', lineas: [{ descripcion: 'Taladro', cantidad: 4, pvpunitario: 89.9, dtopor: 5 }] });

    const refund = await t.call('PUT', '/api/3/crearFacturaRectificativaCliente', { idfactura: discounted.doc.idfactura, fecha: discounted.doc.fecha, codserie: 'R' });
    assert.equal(refund.status, 200, JSON.stringify(refund.body));
    assert.ok(refund.body.doc.total < 0);
    invoices.push({
      title: 'a refund (a credit note of the rectified invoice)', side: 'Cliente', id: refund.body.doc.idfactura,
      expected: expectedOfDocument(refund.body.doc, { rectifies: discounted.doc.codigo, sellerVat: COMPANY_VAT, buyerVat: 'ESA58818501' }),
    });

    const purchase = (title: string, body: Record<string, unknown>) => create('/api/3/crearFacturaProveedor', { codproveedor: 'EINP', ...body }).then((made) => {
      invoices.push({ title, side: 'Proveedor', id: made.doc.idfactura, expected: expectedOfDocument(made.doc, { number: String(body.numproveedor), sellerVat: 'ESB95123456', buyerVat: COMPANY_VAT }) });
    });
    await purchase('a purchase invoice (the supplier sells)', {
      numproveedor: 'PROV-2026/0042', lineas: [{ descripcion: 'Cable de cobre', cantidad: 10, pvpunitario: 38.4, dtopor: 2 }, { descripcion: 'Portes', pvpunitario: 12 }],
    });
    await purchase('an intra-community purchase (VAT self-assessed by the buyer)', {
      numproveedor: 'EU-77', operacion: 'intracomunitaria', lineas: [{ descripcion: 'Componentes', cantidad: 5, pvpunitario: 19.99 }],
    });
  });
  after(async () => {
    await t?.close();
  });

  it('exports each invoice as UBL, CII and Facturae with the document\'s totals to the cent', async (context) => {
    // The cases exercise what their titles say.
    const of = (start: string) => invoices.find((invoice) => invoice.title.startsWith(start))!.expected;
    assert.equal(invoices.length, 9);
    assert.ok(of('the equivalence surcharge').surcharge > 0 && of('the equivalence surcharge').irpf > 0);
    assert.ok(of('supplied').supplied > 0);
    assert.ok(of('a refund').credit && of('a refund').total < 0);
    assert.ok(of('an intra-community purchase').vat === 0 && of('an intra-community purchase').net > 0);
    for (const { title, side, id, expected } of invoices) {
      const exported = async (type: string) => {
        const response = await t.request({ method: 'GET', url: `/api/3/exportarFactura${side}/${id}?type=${type}` });
        assert.equal(response.statusCode, 200, `${title} ${type}: ${response.body.slice(0, 300)}`);
        return response.body;
      };
      await context.test(title, async (sub) => {
        await checkUbl(sub, await exported('UBL'), expected);
        await checkCii(sub, await exported('CII'), expected);
        await checkFacturae(await exported('FACTURAE'), expected);
      });
    }
  });
});
