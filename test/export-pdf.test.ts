import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import zlib from 'node:zlib';
import { extractText, extractTextItems, getDocumentProxy } from 'unpdf';
import type { ExportView } from '../src/modules/export/export-view.ts';
import { labelsFor } from '../src/modules/export/labels/labels.ts';
import { localeFormat } from '../src/modules/export/locale-format.ts';
import { renderPdf } from '../src/modules/export/pdf/render-pdf.ts';
import { handmadePng } from './helpers/png.ts';
import { exampleInvoiceView, line, manyLinesView, party, sampleView, withLines } from './helpers/export-views.ts';

/**
 * The PDF renderer on built views (no database): the text is read back from the PDF with a real
 * extractor, so every check is on what a reader (or a screen reader, or a search) gets.
 */

interface Extracted {
  pages: string[];
  /** All pages, whitespace collapsed to single spaces (wrapped lines joined). */
  all: string;
  bytes: Buffer;
  /** `all` contains `expected` (whitespace squashed alike). */
  has(expected: string): boolean;
}

/**
 * Collapses whitespace runs to one space. The extractor (pdf.js) itself turns the no-break spaces
 * numbers are grouped with (U+00A0, U+202F) into plain spaces, so expected strings go through this
 * too; that those characters are real glyphs of the embedded font is checked on the font's map.
 */
const squash = (text: string) => text.replace(/\s+/g, ' ').trim();

async function render(view: ExportView): Promise<Extracted> {
  const bytes = await renderPdf(view);
  assert.equal(bytes.subarray(0, 5).toString('latin1'), '%PDF-');
  const { text } = await extractText(new Uint8Array(bytes), { mergePages: false });
  const pages = text.map(squash);
  return { pages, all: pages.join(' '), bytes, has: (expected: string) => pages.join(' ').includes(squash(expected)) };
}

/** The text of every compressed stream of a PDF (content streams, fonts' ToUnicode maps ...). */
function streams(bytes: Buffer): string {
  const found: string[] = [];
  const source = bytes.toString('latin1');
  for (let at = source.indexOf('stream\n'); at !== -1; at = source.indexOf('stream\n', at + 7)) {
    const end = source.indexOf('\nendstream', at);
    if (end === -1) break;
    try {
      found.push(zlib.inflateSync(bytes.subarray(at + 7, end)).toString('latin1'));
    } catch {
      // not deflated (or not a stream start): skipped
    }
    at = end;
  }
  return found.join('\n');
}

function count(haystack: string, needle: string): number {
  let found = 0;
  for (let at = haystack.indexOf(needle); at !== -1; at = haystack.indexOf(needle, at + needle.length)) found += 1;
  return found;
}

/** A view whose total is over a thousand (so its amounts have a grouping separator). */
function bigInvoice(lang: string): ExportView {
  return withLines(sampleView({ lang }), [
    line(1, { description: 'Caldera de condensación 24 kW', quantity: 3, unitPrice: 1249.9 }),
    line(2, { description: 'Kit de evacuación de humos', quantity: 3, unitPrice: 86.25, discount: 5 }),
    line(3, { reference: null, description: 'Puesta en marcha y legalización', quantity: 1, unitPrice: 180, taxCode: 'IVA10', vatRate: 10 }),
  ]);
}

/** A valid PNG of `width` x `height` pixels, RGB (colour type 2) or RGBA (6). */
function png(width: number, height: number, colorType: 2 | 6, claimed = { width, height }): Buffer {
  return handmadePng(width, height, { alpha: colorType === 6, claimed });
}

describe('PDF export', () => {
  it('prints the code, the customer, every line and the totals in Spanish number format', async () => {
    const view = bigInvoice('es');
    const fmt = localeFormat(labelsFor('es'), view.currency);
    assert.ok(view.totals.total > 1000);
    const { all, has } = await render(view);
    assert.ok(has(view.code));
    assert.ok(has(view.subject.name));
    assert.ok(has(view.subject.taxId));
    assert.ok(has(view.company.name));
    for (const item of view.lines) assert.ok(has(item.description), item.description);
    for (const amount of [view.totals.total, view.totals.net, view.totals.vat]) assert.ok(has(fmt.money(amount)), fmt.money(amount));
    for (const group of view.taxes) assert.ok(has(fmt.money(group.base)) && has(fmt.money(group.vat)));
    assert.match(all, /\d\.\d{3},\d{2} €/, 'Spanish amounts: dot groups, comma decimals');
    assert.ok(has(fmt.date(view.date)) && has(fmt.date(view.dueDate!)));
  });

  it('writes English labels and English number format for an English view', async () => {
    const es = labelsFor('es');
    const en = labelsFor('en');
    const [spanish, english] = await Promise.all([render(bigInvoice('es')), render(bigInvoice('en'))]);
    for (const key of ['dueDate', 'customer', 'taxBase', 'paymentMethod'] as const) assert.notEqual(es[key], en[key]);
    assert.ok(english.has(en.titles.invoice) && !english.has(es.titles.invoice));
    assert.ok(spanish.has(es.titles.invoice) && !spanish.has(en.titles.invoice));
    assert.ok(english.has(en.dueDate) && !english.has(es.dueDate));
    assert.ok(spanish.has(es.dueDate) && !spanish.has(en.dueDate));
    const total = bigInvoice('en').totals.total;
    assert.ok(english.has(localeFormat(en, { code: 'EUR', decimals: 2 }).money(total)));
    assert.match(english.all, /€\d,\d{3}\.\d{2}/, 'English amounts: comma groups, point decimals');
    assert.doesNotMatch(english.all, /\d\.\d{3},\d{2}/);
  });

  it('prints French amounts with their narrow no-break space, and non-Latin names, as extractable text', async () => {
    const name = 'Ελληνικά Ω ЖЁ';
    const view = withLines(sampleView({ lang: 'fr', subject: party({ name, legalName: `${name} ΑΕ` }) }), bigInvoice('fr').lines);
    const money = localeFormat(labelsFor('fr'), view.currency).money(view.totals.total);
    assert.ok(money.includes('\u202f'), 'the French format groups with U+202F');
    const { all, has, bytes } = await render(view);
    assert.ok(has(name));
    assert.ok(has(money));
    assert.ok(!all.includes('\u0000') && !all.includes('\ufffd'), 'no glyph is missing from the fonts');
    // The embedded font maps a glyph of its own to U+202F (a missing one would map to glyph 0).
    assert.match(streams(bytes), /<202f>/i);
  });

  it('spreads 300 lines over pages: each line once, header and "page X of N" on every page', async () => {
    const view = manyLinesView(300);
    const labels = labelsFor(view.lang);
    const fmt = localeFormat(labels, view.currency);
    const { pages, all } = await render(view);
    assert.ok(pages.length >= 4, `${pages.length} pages`);
    for (const item of view.lines) assert.equal(count(all, item.description), 1, item.description);
    const header = labels.description.toLocaleUpperCase(labels.locale);
    for (const [index, page] of pages.entries()) {
      const pageOf = labels.pageOf.replace('{page}', String(index + 1)).replace('{pages}', String(pages.length));
      assert.ok(page.includes(pageOf), `page ${index + 1}: ${pageOf}`);
      assert.ok(page.includes(header), `table header on page ${index + 1}`);
      assert.ok(page.includes(view.code), `the code on page ${index + 1}`);
    }
    // Lines keep their order across pages, and the totals come after the last one.
    const positions = view.lines.map((item) => all.indexOf(item.description));
    assert.deepEqual(positions, [...positions].sort((a, b) => a - b));
    assert.ok(pages.at(-1)!.includes(squash(fmt.money(view.totals.total))));
    assert.ok(all.indexOf(squash(fmt.money(view.totals.total))) > positions.at(-1)!);
  });

  it('wraps long descriptions and never splits a row across pages', async () => {
    const long = (position: number) =>
      position % 4 === 0
        ? `Item ${String(position).padStart(4, '0')} ${'with a description long enough to need several printed lines in its cell '.repeat(2)}end`
        : `Item ${String(position).padStart(4, '0')}`;
    const view = manyLinesView(160, {}, long);
    const { pages } = await render(view);
    assert.ok(pages.length > 2);
    for (const item of view.lines) {
      const whole = pages.filter((page) => page.includes(item.description)).length;
      assert.equal(whole, 1, `${item.description.slice(0, 9)} printed whole on exactly one page`);
    }
  });

  it('keeps all text on the page and out of the footer, but for the footer itself', async () => {
    const labels = labelsFor('es');
    const long = (position: number) => (position % 5 === 0 ? `Item ${position} ${'with a description that wraps over several lines '.repeat(3)}` : `Item ${position}`);
    const view = manyLinesView(200, { editable: true, observations: 'Observación larga. '.repeat(200) }, long);
    const bytes = await renderPdf(view);
    const { items, totalPages } = await extractTextItems(new Uint8Array(bytes));
    assert.ok(totalPages > 3);
    const footer = `${view.company.legalName} · ${labels.taxId}: ${view.company.taxId}`;
    const A4 = { width: 595.28, height: 841.89 };
    for (const [index, page] of items.entries()) {
      for (const item of page) {
        if (item.str.trim() === '' || item.str === labels.draft) continue; // the diagonal draft mark
        assert.ok(item.x >= 0 && item.x + item.width <= A4.width && item.y > 0 && item.y < A4.height, `page ${index + 1}: "${item.str}" off the page`);
        // Baselines below 40 pt from the bottom edge are the footer's: nothing else may reach it.
        const pageOf = labels.pageOf.replace('{page}', String(index + 1)).replace('{pages}', String(totalPages));
        if (item.y < 40) assert.ok(item.str === pageOf || squash(footer).includes(squash(item.str)), `page ${index + 1}: "${item.str}" in the footer`);
      }
    }
  });

  it('splits only a row taller than a page, and loses none of its words', async () => {
    const words = Array.from({ length: 900 }, (_, index) => `w${String(index).padStart(4, '0')}`);
    const view = withLines(sampleView(), [line(1, { description: 'Before' }), line(2, { description: words.join(' ') }), line(3, { description: 'After' })]);
    const { pages, all } = await render(view);
    assert.ok(pages.length >= 2);
    for (const word of words) assert.equal(count(all, word), 1, word);
    assert.ok(all.indexOf('Before') < all.indexOf(words[0]!) && all.indexOf(words.at(-1)!) < all.indexOf('After'));
  });

  it('starts a new page before a line marked so', async () => {
    const view = manyLinesView(6);
    view.lines[3]!.pageBreakBefore = true;
    const { pages } = await render(view);
    assert.equal(pages.length, 2);
    assert.ok(pages[0]!.includes('Item 0003') && !pages[0]!.includes('Item 0004'));
    assert.ok(pages[1]!.includes('Item 0004') && pages[1]!.includes('Item 0006'));
  });

  it('marks an editable invoice as a draft on every page, and nothing else', async () => {
    const labels = labelsFor('es');
    const draft = await render(manyLinesView(120, { editable: true }));
    assert.ok(draft.pages.length > 1);
    for (const page of draft.pages) assert.ok(page.includes(labels.draft));
    assert.ok(!(await render(sampleView({ editable: false }))).all.includes(labels.draft));
    const quote = sampleView({ type: 'PresupuestoCliente', kind: 'quote', editable: true, dueDate: null, receipts: [] });
    const quoteText = (await render(quote)).all;
    assert.ok(!quoteText.includes(labels.draft));
    assert.ok(quoteText.includes(labels.titles.quote));
  });

  it('titles a refund as a credit note with the invoice it rectifies, and a simplified invoice as such', async () => {
    const labels = labelsFor('es');
    const fmt = localeFormat(labels, { code: 'EUR', decimals: 2 });
    const refund = (await render(sampleView({ code: 'FAC2026R3', seriesType: 'R', rectifies: { code: 'FAC2026A17', date: '2026-02-10' } }))).all;
    assert.ok(refund.includes(labels.creditNote));
    assert.ok(refund.includes('FAC2026A17') && refund.includes(fmt.date('2026-02-10')) && refund.includes(labels.rectifies));
    const simplified = (await render(sampleView({ seriesType: 'S' }))).all;
    assert.ok(simplified.includes(labels.simplifiedInvoice));
  });

  it('uses the print format title and closing text', async () => {
    const format = { id: 4, title: 'Factura proforma', text: 'Inscrita en el Registro Mercantil de Madrid, tomo 1234, folio 56, hoja M-7890.' };
    const { has, bytes } = await render(sampleView({ format }));
    assert.ok(has(format.title));
    assert.ok(has(format.text));
    const pdf = await getDocumentProxy(new Uint8Array(bytes));
    const { info } = (await pdf.getMetadata()) as { info: { Title?: string } };
    assert.equal(info.Title, `${format.title} FAC2026A1`);
  });

  it('leaves the cells of a hidden quantity or price blank', async () => {
    const fmt = localeFormat(labelsFor('es'), { code: 'EUR', decimals: 2 });
    const view = withLines(sampleView(), [
      line(1, { description: 'Visible', quantity: 3, unitPrice: 10 }),
      line(2, { description: 'Secret price', quantity: 5, unitPrice: 777.77, showPrice: false }),
      line(3, { description: 'Secret quantity', quantity: 4321, unitPrice: 0.01, showQuantity: false }),
    ]);
    const { all, has } = await render(view);
    const token = (text: string) => new RegExp(`(?<![\\d.,])${text.replace(/[.,]/g, '\\$&')}(?![\\d.,])`);
    assert.ok(has('Secret price') && has('Secret quantity'));
    assert.doesNotMatch(all, token(fmt.amount(777.77)));
    assert.doesNotMatch(all, token(fmt.amount(5 * 777.77)));
    assert.doesNotMatch(all, token(fmt.number(4321)));
    assert.match(all, token(fmt.amount(43.21)), 'the hidden quantity line still prints its amount');
    assert.match(all, token(fmt.number(5)), 'the hidden price line still prints its quantity');
  });

  it('prints IRPF, supplied amounts, surcharge and global discounts when the document has them', async () => {
    const labels = labelsFor('es');
    const fmt = localeFormat(labels, { code: 'EUR', decimals: 2 });
    const view = withLines(sampleView(), [
      line(1, { description: 'Asesoría', quantity: 1, unitPrice: 500, irpfRate: 15 }),
      line(2, { description: 'Material con recargo', quantity: 2, unitPrice: 40, surchargeRate: 5.2 }),
      line(3, { description: 'Tasas pagadas por cuenta del cliente', quantity: 1, unitPrice: 60, vatRate: 0, taxCode: null, supplied: true }),
    ], 10);
    const { has } = await render(view);
    for (const word of [labels.irpf, labels.supplied, labels.surcharge, labels.globalDiscount, labels.lineTotal]) assert.ok(has(word), word);
    for (const amount of [-view.totals.irpf, view.totals.supplied, view.totals.surcharge, view.totals.net - view.totals.lineTotal, view.totals.total]) {
      assert.ok(has(fmt.money(amount)), fmt.money(amount));
    }
    const plain = (await render(sampleView())).all;
    for (const word of [labels.irpf, labels.supplied, labels.surcharge, labels.globalDiscount]) assert.ok(!plain.includes(word), word);
  });

  it('prints the payment method, its IBAN and the receipts with their due dates and state', async () => {
    const labels = labelsFor('es');
    const fmt = localeFormat(labels, { code: 'EUR', decimals: 2 });
    const view = sampleView({
      receipts: [
        { number: 1, amount: 50, dueDate: '2026-04-14', paid: true, paymentDate: '2026-04-10' },
        { number: 2, amount: 63.92, dueDate: '2026-05-14', paid: false, paymentDate: null },
      ],
    });
    const { has } = await render(view);
    assert.ok(has(view.paymentMethod!.description));
    assert.ok(has('ES91 2100 0418 4502 0005 1332'));
    assert.ok(has(fmt.date('2026-05-14')) && has(fmt.money(63.92)));
    assert.ok(has(`${labels.paid} ${fmt.date('2026-04-10')}`) && has(labels.pending));
    assert.ok(has(view.observations));
  });

  it('names the supplier on a purchase and prints the external number', async () => {
    const labels = labelsFor('en');
    const view = sampleView({ type: 'PedidoProveedor', kind: 'order', side: 'purchase', lang: 'en', dueDate: null, receipts: [], externalNumber: 'SUP-99812' });
    const { has } = await render(view);
    assert.ok(has(labels.supplier.toLocaleUpperCase(labels.locale)));
    assert.ok(has(labels.supplierNumber) && has('SUP-99812'));
    assert.ok(has(labels.titles.order));
  });

  it('draws a PNG logo, with or without alpha, and ignores bytes that are not an image', async () => {
    for (const logo of [png(40, 12, 2), png(300, 90, 6)]) {
      const { has, bytes } = await render(sampleView({ logo }));
      assert.ok(bytes.includes('/Subtype /Image'), 'the logo is embedded');
      assert.ok(has(sampleView().code));
    }
    const corrupt = png(20, 20, 6);
    corrupt.fill(7, 45, 60); // inside the IDAT data: it no longer inflates
    // A bomb (a 10 x 10 header over 20 MB of pixels, about 20 KB compressed) and a giant.
    const bomb = png(2500, 2000, 6, { width: 10, height: 10 });
    const giant = png(4001, 1, 2);
    for (const logo of [corrupt, bomb, giant, Buffer.from('not an image at all'), new Uint8Array(0)]) {
      const { bytes } = await render(sampleView({ logo }));
      assert.ok(!bytes.includes('/Subtype /Image'));
    }
  });

  it('sets the title, author and language of the file', async () => {
    const view = exampleInvoiceView({ lang: 'en' });
    const { bytes } = await render(view);
    const pdf = await getDocumentProxy(new Uint8Array(bytes));
    const { info } = (await pdf.getMetadata()) as { info: { Title?: string; Author?: string } };
    assert.equal(info.Title, `${labelsFor('en').titles.invoice} ${view.code}`);
    assert.equal(info.Author, view.company.legalName);
    assert.ok(bytes.includes(`/Lang (${labelsFor('en').locale})`));
  });

  it('lets the event loop run while a long document renders', async () => {
    let turns = 0;
    let rendering = true;
    const tick = () => {
      turns += 1;
      if (rendering) setImmediate(tick);
    };
    setImmediate(tick);
    const bytes = await renderPdf(manyLinesView(300));
    rendering = false;
    const { totalPages } = await extractText(new Uint8Array(bytes));
    assert.ok(totalPages >= 4);
    assert.ok(turns >= totalPages - 1, `${turns} turns for ${totalPages} pages`);
  });
});
