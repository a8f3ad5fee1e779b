// Recurring invoices: the templates with their schedule, next and last dates, invoices issued and
// last error; pause and resume, skip a period that cannot be billed, bill now, and a preview of
// the next invoices (computed by the API without writing anything).
import { html, useState } from '../lib.js';
import { api, apiPath } from '../api.js';
import { useListPage } from '../list-page.js';
import { t } from '../i18n.js';
import { cell, ErrorBox, money, Notice, Pager } from '../ui.js';

const PAGE = 25;

function Preview({ id, onError }) {
  const [rows, setRows] = useState(null);
  if (!rows) {
    const load = () => api('GET', apiPath(['facturarecurrente', id, 'proximas'], { n: 6 })).then(({ data }) => setRows(data), onError);
    return html`<button type="button" aria-label=${t('recurring.preview-n', { id })} onClick=${load}>${t('recurring.preview')}</button>`;
  }
  return html`<table class="preview">
    <caption>${t('recurring.preview-title', { id })}</caption>
    <thead><tr><th scope="col">${t('recurring.period')}</th><th scope="col">${t('documents.fecha')}</th><th scope="col" class="number">${t('document.total')}</th></tr></thead>
    <tbody>${rows.map((row) => html`<tr><td>${row.desde} – ${row.hasta}</td><td>${row.fecha}</td><td class="number">${money(row.doc.total)} ${row.doc.coddivisa}</td></tr>`)}</tbody>
  </table>`;
}

export function Recurring() {
  const [offset, setOffset] = useState(0);
  const [version, setVersion] = useState(0);
  const [notice, setNotice] = useState('');
  const { rows, total, error, setError } = useListPage('facturarecurrente', { 'sort[idrecurrente]': 'DESC', limit: PAGE, offset }, version);
  const act = async (request, message) => {
    setError(null);
    setNotice('');
    try {
      const { data } = await request();
      setNotice(message(data));
      setVersion((value) => value + 1);
    } catch (failure) {
      setError(failure);
    }
  };
  const setState = (row, estado) => act(
    () => (estado === 'activa' ? api('POST', apiPath(['reanudarFacturaRecurrente', row.idrecurrente])) : api('PATCH', apiPath(['facturarecurrente', row.idrecurrente]), { estado })),
    () => t(estado === 'activa' ? 'recurring.resumed' : 'recurring.paused', { id: row.idrecurrente }),
  );
  const skip = (row) => act(() => api('POST', apiPath(['omitirPeriodoRecurrente', row.idrecurrente]), { desde: row.proximafecha }), () => t('recurring.skipped', { id: row.idrecurrente }));
  const billNow = () => act(() => api('POST', apiPath(['generarFacturasRecurrentes'])), (data) => t('recurring.billed', { created: data.created.length, failed: data.failed.length }));
  return html`<h1>${t('menu.recurring')}</h1>
    <${ErrorBox} error=${error} />
    <${Notice} text=${notice} />
    <p><button type="button" onClick=${billNow}>${t('recurring.bill-now')}</button></p>
    <table>
      <caption>${t('recurring.templates')}</caption>
      <thead><tr><th scope="col">${t('keys.id')}</th><th scope="col">${t('documents.codcliente')}</th><th scope="col">${t('keys.description')}</th><th scope="col">${t('recurring.schedule')}</th>
        <th scope="col">${t('recurring.state')}</th><th scope="col">${t('recurring.next')}</th><th scope="col">${t('recurring.last')}</th><th scope="col" class="number">${t('recurring.issued')}</th>
        <th scope="col">${t('recurring.error')}</th><th scope="col">${t('common.actions')}</th></tr></thead>
      <tbody>${rows.map((row) => html`<tr data-recurring=${row.idrecurrente}>
        <td>${row.idrecurrente}</td><td>${row.codcliente}</td><td>${cell(row.descripcion)}</td>
        <td>${t(`recurring.every-${row.periodicidad}`, { n: row.intervalo })}</td><td>${t(`recurring.state-${row.estado}`, {}, row.estado)}</td>
        <td>${cell(row.proximafecha)}</td><td>${cell(row.ultimafecha)}</td><td class="number">${row.generadas}</td><td>${row.ultimoerror ? html`<span class="muted">${row.ultimoerror}</span>` : '—'}</td>
        <td>
          ${row.estado === 'activa' && html`<button type="button" aria-label=${t('recurring.pause-n', { id: row.idrecurrente })} onClick=${() => setState(row, 'pausada')}>${t('recurring.pause')}</button>`}
          ${row.estado === 'pausada' && html`<button type="button" aria-label=${t('recurring.resume-n', { id: row.idrecurrente })} onClick=${() => setState(row, 'activa')}>${t('recurring.resume')}</button>`}
          ${row.ultimoerror && html`<button type="button" aria-label=${t('recurring.skip-n', { id: row.idrecurrente })} onClick=${() => skip(row)}>${t('recurring.skip')}</button>`}
          ${row.estado !== 'finalizada' && html`<${Preview} id=${row.idrecurrente} onError=${setError} />`}
        </td>
      </tr>`)}</tbody>
    </table>
    <${Pager} offset=${offset} limit=${PAGE} total=${total} onChange=${setOffset} />`;
}
