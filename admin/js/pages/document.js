// One document: header, lines, tax totals, receipts; pay/unpay (invoices); PDF and e-invoice downloads;
// sending it by e-mail; a customer invoice's VERI*FACTU record or TicketBAI file, its QR address, and its
// cancellation; a customer invoice's FACe send, its history and cancellation request, and its signed
// Facturae; an invoice's accounting entry with its lines.
import { html, useEffect, useState } from '../lib.js';
import { api, apiPath, download, fileNameOf, listAll, recordOf } from '../api.js';
import { t } from '../i18n.js';
import { documentTypeOf } from '../documents.js';
import { cell, Confirm, ErrorBox, money, Notice } from '../ui.js';
import { SendDocument } from './email.js';
import { canSend, FaceFact, faceErrorText, FaceSection, useLastFaceSend } from './face.js';

const EINVOICES = ['UBL', 'CII', 'FACTURAE'];

/** What an invoice's page asks to confirm first: each fiscal system's cancellation, and FACe's send and cancellation request; its endpoint and its messages. */
const CONFIRMED = {
  verifactu: { resource: 'anularFacturaCliente', title: 'document.cancel-title', label: 'document.cancel', help: 'document.cancel-help', done: 'document.cancelled' },
  ticketbai: { resource: 'anularTicketBAI', title: 'document.cancel-title', label: 'document.tbai-cancel', help: 'document.tbai-cancel-help', done: 'document.tbai-cancelled' },
  'face-send': { resource: 'enviarFACe', title: 'face.send-title', label: 'face.send', help: 'face.send-help', done: 'face.sent' },
  'face-cancel': { resource: 'anularFACe', title: 'face.cancel-title', label: 'face.cancel', help: 'face.cancel-help', done: 'face.cancel-asked' },
};

export function DocumentPage({ type: resource, id, access }) {
  const type = documentTypeOf(resource);
  const [doc, setDoc] = useState(null);
  const [lines, setLines] = useState([]);
  const [receipts, setReceipts] = useState([]);
  const [entry, setEntry] = useState(null);
  // The version shown: a payment is sent with If-Match, so that a change made elsewhere meanwhile is not paid blind (412).
  const [etag, setEtag] = useState(null);
  const [error, setError] = useState(null);
  const [notice, setNotice] = useState('');
  const [version, setVersion] = useState(0);
  // The action to confirm (a key of CONFIRMED), and the last one asked with its body, shown while its dialog closes.
  const [confirming, setConfirming] = useState(null);
  const [asked, setAsked] = useState({ kind: 'verifactu' });
  const face = useLastFaceSend(id, resource === 'facturacliente' && access.listed.has('registroface'), version);
  // Another document's answers, arriving late, must not show under this one (nor be paid from it).
  useEffect(() => setDoc(null), [resource, id]);
  useEffect(() => {
    if (!type) return;
    let live = true;
    const set = (setter) => (value) => live && setter(value);
    api('GET', apiPath([type.resource, id])).then(({ data, response }) => {
      set(setEtag)(response.headers.get('ETag'));
      set(setDoc)(data);
    }, set(setError));
    listAll(type.lines, { [`filter[${type.key}]`]: id, 'sort[idlinea]': 'ASC' }).then(set(setLines), () => set(setLines)(null));
    if (type.receipts) listAll(type.receipts, { 'filter[idfactura]': id, 'sort[numero]': 'ASC' }).then(set(setReceipts), () => set(setReceipts)(null));
    return () => {
      live = false;
    };
  }, [resource, id, version]);
  // The invoice's entry follows the invoice (a change of its total replaces it).
  useEffect(() => {
    setEntry(null);
    if (!doc?.idasiento) return;
    let live = true;
    Promise.all([
      api('GET', apiPath(['asientos', doc.idasiento])).then(({ data }) => data),
      listAll('partidas', { 'filter[idasiento]': doc.idasiento, 'sort[idpartida]': 'ASC' }),
    ]).then(([header, entryLines]) => live && setEntry({ header, lines: entryLines }), () => live && setEntry(false));
    return () => {
      live = false;
    };
  }, [doc?.idasiento]);
  if (!type) return html`<p>${t('documents.unknown-type')}</p>`;
  if (!doc) return html`<h1>${t(`doctype.${resource}`)}</h1><${ErrorBox} error=${error} />`;
  const pay = async (pagada) => {
    setError(null);
    try {
      const { data } = await api('POST', apiPath([type.pay, id]), { pagada }, undefined, etag ? { 'If-Match': etag } : {});
      setDoc(recordOf(data));
      setNotice(t(pagada ? 'document.paid' : 'document.unpaid'));
      setVersion((value) => value + 1);
    } catch (failure) {
      setError(failure);
    }
  };
  // `signed`: the Facturae signed with the company's certificate, as FACe takes it (.xsig).
  const exportAs = async (kind, signed = false) => {
    setError(null);
    try {
      const { data, response } = await api('GET', apiPath([type.export, id], { type: kind, firmada: signed ? 1 : undefined }));
      download(data, fileNameOf(response, `${doc.codigo}.${signed ? 'xsig' : kind === 'PDF' ? 'pdf' : 'xml'}`));
      setNotice(t(signed ? 'document.signed-downloaded' : 'document.downloaded', { kind }));
    } catch (failure) {
      setError(failure);
    }
  };
  const ask = (kind, body) => {
    setAsked({ kind, body });
    setConfirming(kind);
  };
  const confirmed = async () => {
    const action = CONFIRMED[confirming];
    setConfirming(null);
    setError(null);
    setNotice('');
    try {
      const { data } = await api('POST', apiPath([action.resource, id]), asked.body);
      const record = recordOf(data);
      setNotice(t(action.done, record && typeof record === 'object' ? record : {}));
    } catch (failure) {
      setError(failure);
    } finally {
      // A refused send may still have left its record (failed): shown either way.
      setVersion((value) => value + 1);
    }
  };
  const record = doc.verifactu;
  const file = doc.ticketbai;
  const qr = record?.qr || file?.qr;
  const party = doc[type.party];
  const canExport = access.listed.has(type.export);
  return html`<h1>${t(`doctype.${resource}`)} ${doc.codigo}</h1>
    <p><a href=${`#/documents/${resource}`}>${t('document.back')}</a></p>
    <${ErrorBox} error=${error} explain=${faceErrorText} />
    <${Notice} text=${notice} />
    <dl class="facts">
      <div class="fact"><dt>${t('documents.fecha')}</dt><dd>${cell(doc.fecha)} ${cell(doc.hora)}</dd></div>
      <div class="fact"><dt>${t(`documents.${type.party}`)}</dt><dd>${type.party === 'codcliente' && party ? html`<a href=${`#/customer/${encodeURIComponent(party)}`}>${party}</a>` : cell(party)} ${cell(doc[type.partyName])}</dd></div>
      <div class="fact"><dt>${t('document.cifnif')}</dt><dd>${cell(doc.cifnif)}</dd></div>
      <div class="fact"><dt>${t('document.serie')}</dt><dd>${cell(doc.codserie)}</dd></div>
      ${type.invoice && html`<div class="fact"><dt>${t('documents.pagada')}</dt><dd data-fact="pagada">${cell(doc.pagada)}</dd></div>`}
      ${record && html`<div class="fact"><dt>VERI*FACTU</dt><dd data-fact="verifactu">${t(record.anulada ? 'document.vf-cancelled' : 'document.vf-recorded')}</dd></div>`}
      ${file && html`<div class="fact"><dt>TicketBAI</dt><dd data-fact="ticketbai"><code class="identifier">${file.identificador}</code>
        <span class="state">${t(`ticketbai.state.${file.estado}`, {}, file.estado)}${file.anulada ? ` · ${t('document.vf-cancelled')}` : ''}</span></dd></div>`}
      <${FaceFact} last=${face} />
    </dl>
    ${qr && html`<p>${t('document.vf-qr')}: <a href=${qr} rel="noopener noreferrer" target="_blank">${qr}</a></p>`}
    <div class="actions">
      ${type.invoice && (doc.pagada
        ? html`<button type="button" onClick=${() => pay(false)}>${t('document.mark-unpaid')}</button>`
        : html`<button type="button" onClick=${() => pay(true)}>${t('document.mark-paid')}</button>`)}
      ${canExport && html`<button type="button" onClick=${() => exportAs('PDF')}>${t('document.pdf')}</button>`}
      ${access.listed.has(type.send) && html`<${SendDocument} type=${type} doc=${doc} id=${id} onError=${setError} onNotice=${setNotice} />`}
      ${canExport && type.invoice && EINVOICES.map((kind) => html`<button type="button" onClick=${() => exportAs(kind)}>${t('document.einvoice', { kind })}</button>`)}
      ${canExport && resource === 'facturacliente' && access.listed.has('enviarFACe') && html`<button type="button" onClick=${() => exportAs('FACTURAE', true)}>${t('document.signed-facturae')}</button>`}
      ${record && !record.anulada && access.listed.has('anularFacturaCliente') && html`<button type="button" class="danger" onClick=${() => ask('verifactu')}>${t('document.cancel')}</button>`}
      ${file && !file.anulada && access.listed.has('anularTicketBAI') && html`<button type="button" class="danger" onClick=${() => ask('ticketbai')}>${t('document.tbai-cancel')}</button>`}
      ${face !== undefined && face !== null && canSend(face) && access.listed.has('enviarFACe') && html`<button type="button" onClick=${() => ask('face-send')}>${t('face.send')}</button>`}
    </div>
    <${Confirm} open=${Boolean(confirming)} title=${t(CONFIRMED[asked.kind].title, { code: doc.codigo })} confirmLabel=${t(CONFIRMED[asked.kind].label)} onConfirm=${confirmed} onCancel=${() => setConfirming(null)}>
      <p>${t(CONFIRMED[asked.kind].help)}</p>
    <//>
    <${FaceSection} last=${face} mayCancel=${access.listed.has('anularFACe')} error=${error} onAsk=${ask} />
    <section aria-labelledby="lines-title">
      <h2 id="lines-title">${t('document.lines')}</h2>
      ${lines === null ? html`<p>${t('common.not-allowed')}</p>` : html`<table>
        <caption>${t('document.lines')}</caption>
        <thead><tr><th scope="col">${t('document.referencia')}</th><th scope="col">${t('document.descripcion')}</th><th scope="col" class="number">${t('document.cantidad')}</th>
          <th scope="col" class="number">${t('document.pvpunitario')}</th><th scope="col" class="number">${t('document.dtopor')}</th><th scope="col" class="number">${t('document.iva')}</th><th scope="col" class="number">${t('document.pvptotal')}</th></tr></thead>
        <tbody>${lines.map((line) => html`<tr><td>${cell(line.referencia)}</td><td>${cell(line.descripcion)}</td><td class="number">${cell(line.cantidad)}</td>
          <td class="number">${money(line.pvpunitario)}</td><td class="number">${cell(line.dtopor)}</td><td class="number">${cell(line.iva)}</td><td class="number">${money(line.pvptotal)}</td></tr>`)}</tbody>
      </table>`}
    </section>
    <section aria-labelledby="taxes-title">
      <h2 id="taxes-title">${t('document.taxes')}</h2>
      <dl class="facts totals">
        ${['neto', 'totaliva', 'totalrecargo', 'totalirpf', 'totalsuplidos', 'total'].map((name) => html`<div class="fact"><dt>${t(`document.${name}`)}</dt><dd>${money(doc[name])} ${doc.coddivisa}</dd></div>`)}
      </dl>
    </section>
    ${type.receipts && html`<section aria-labelledby="receipts-title">
      <h2 id="receipts-title">${t('document.receipts')}</h2>
      ${receipts === null ? html`<p>${t('common.not-allowed')}</p>` : html`<table>
        <caption>${t('document.receipts')}</caption>
        <thead><tr><th scope="col">${t('document.numero')}</th><th scope="col" class="number">${t('document.importe')}</th><th scope="col">${t('document.vencimiento')}</th><th scope="col">${t('document.pagado')}</th><th scope="col">${t('document.fechapago')}</th></tr></thead>
        <tbody>${receipts.map((receipt) => html`<tr><td>${receipt.numero}</td><td class="number">${money(receipt.importe)}</td><td>${cell(receipt.vencimiento)}</td><td>${cell(receipt.pagado)}</td><td>${cell(receipt.fechapago)}</td></tr>`)}</tbody>
      </table>`}
    </section>`}
    ${type.invoice && html`<section aria-labelledby="entry-title">
      <h2 id="entry-title">${t('document.entry')}</h2>
      ${!doc.idasiento ? html`<p data-entry="none">${t('document.no-entry')}</p>`
        : entry === false ? html`<p>${t('common.not-allowed')}</p>`
        : entry && html`<p data-entry=${entry.header.numero}>${t('document.entry-number', { numero: entry.header.numero, fecha: entry.header.fecha })}: ${entry.header.concepto}</p>
        <table>
          <caption>${t('document.entry')}</caption>
          <thead><tr><th scope="col">${t('document.subaccount')}</th><th scope="col" class="number">${t('document.debit')}</th><th scope="col" class="number">${t('document.credit')}</th></tr></thead>
          <tbody>${entry.lines.map((line) => html`<tr><td>${line.codsubcuenta}</td><td class="number">${money(line.debe)}</td><td class="number">${money(line.haber)}</td></tr>`)}</tbody>
        </table>`}
    </section>`}`;
}
