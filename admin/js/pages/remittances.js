// SEPA remittances: build one for a company bank account and a collection date (the receipts left
// out are listed with the reason), download its pain.008 file, move it through its states and
// mark it collected (its receipts paid on the collection date).
import { html, useEffect, useState } from '../lib.js';
import { api, apiPath, download, fileNameOf, listAll } from '../api.js';
import { useListPage } from '../list-page.js';
import { t } from '../i18n.js';
import { attempt, cell, ErrorBox, FieldError, money, Notice, Pager } from '../ui.js';

const PAGE = 25;
const NEXT = { borrador: 'generada', generada: 'enviada' };

export function Remittances() {
  const [accounts, setAccounts] = useState([]);
  const [form, setForm] = useState({ codcuenta: '', fechacargo: '', version: '001.02' });
  const [excluded, setExcluded] = useState([]);
  const [offset, setOffset] = useState(0);
  const [version, setVersion] = useState(0);
  const [notice, setNotice] = useState('');
  const { rows, total, error, setError } = useListPage('remesasepa', { 'sort[idremesa]': 'DESC', limit: PAGE, offset }, version);
  useEffect(() => {
    listAll('cuentabanco', { 'sort[codcuenta]': 'ASC' }).then((found) => {
      setAccounts(found);
      setForm((current) => ({ ...current, codcuenta: current.codcuenta || found[0]?.codcuenta || '' }));
    }, () => setAccounts([]));
  }, []);
  const change = (name) => (event) => setForm((current) => ({ ...current, [name]: event.target.value }));
  const run = attempt(setError);
  const runClearing = attempt(setError, setNotice);
  const build = (event) => {
    event.preventDefault();
    return runClearing(async () => {
      const { data } = await api('POST', apiPath(['remesasepa']), form);
      setExcluded(data.excluidos || []);
      setNotice(t('remittances.built', { id: data.idremesa, count: data.numrecibos, total: money(data.total) }));
      setVersion((value) => value + 1);
    }, (failure) => setExcluded(failure.body?.excluidos || []));
  };
  const fileOf = (row) => run(async () => {
    const { data, response } = await api('GET', apiPath(['remesasepa', row.idremesa, 'xml']));
    download(data, fileNameOf(response, `remesa-${row.idremesa}.xml`));
  });
  const advance = (row) => run(async () => {
    await api('PATCH', apiPath(['remesasepa', row.idremesa]), { estado: NEXT[row.estado] });
    setVersion((value) => value + 1);
  });
  const collect = (row) => runClearing(async () => {
    const { data } = await api('POST', apiPath(['cobrarRemesa', row.idremesa]), {});
    setNotice(t('remittances.collected', { id: row.idremesa, count: data.pagados.length }));
    setVersion((value) => value + 1);
  });
  const reason = (name) => error?.fields?.[name];
  return html`<h1>${t('menu.remittances')}</h1>
    <form onSubmit=${build} aria-labelledby="build-title" novalidate>
      <h2 id="build-title">${t('remittances.build')}</h2>
      <div class="field"><label for="rem-account">${t('remittances.account')}</label>
        <select id="rem-account" value=${form.codcuenta} onChange=${change('codcuenta')}>${accounts.map((account) => html`<option value=${account.codcuenta}>${account.codcuenta} ${account.descripcion}</option>`)}</select>
        <${FieldError} id="rem-account-error" reason=${reason('codcuenta')} /></div>
      <div class="field"><label for="rem-date">${t('remittances.date')}</label><input id="rem-date" type="date" value=${form.fechacargo} onInput=${change('fechacargo')} />
        <${FieldError} id="rem-date-error" reason=${reason('fechacargo') || reason('vencimientohasta')} /></div>
      <div class="field"><label for="rem-version">${t('remittances.version')}</label><select id="rem-version" value=${form.version} onChange=${change('version')}>
        <option value="001.02">pain.008.001.02</option><option value="001.08">pain.008.001.08</option></select></div>
      <button type="submit">${t('remittances.build-now')}</button>
    </form>
    <${ErrorBox} error=${error} />
    <${Notice} text=${notice} />
    ${excluded.length > 0 && html`<table>
      <caption>${t('remittances.excluded')}</caption>
      <thead><tr><th scope="col">${t('remittances.receipt')}</th><th scope="col">${t('documents.codcliente')}</th><th scope="col">${t('remittances.reason')}</th></tr></thead>
      <tbody>${excluded.map((row) => html`<tr><td>${row.idrecibo}</td><td>${row.codcliente}</td><td>${t(`remittances.reason-${row.motivo}`, {}, row.motivo)}</td></tr>`)}</tbody>
    </table>`}
    <table>
      <caption>${t('remittances.list')}</caption>
      <thead><tr><th scope="col">${t('keys.id')}</th><th scope="col">${t('remittances.account')}</th><th scope="col">${t('remittances.date')}</th><th scope="col" class="number">${t('remittances.count')}</th>
        <th scope="col" class="number">${t('document.total')}</th><th scope="col">${t('recurring.state')}</th><th scope="col">${t('common.actions')}</th></tr></thead>
      <tbody>${rows.map((row) => html`<tr data-remittance=${row.idremesa}>
        <td>${row.idremesa}</td><td>${row.codcuenta}</td><td>${cell(row.fechacargo)}</td><td class="number">${row.numrecibos}</td><td class="number">${money(row.total)}</td>
        <td>${t(`remittances.state-${row.estado}`, {}, row.estado)}</td>
        <td><button type="button" aria-label=${t('remittances.file-n', { id: row.idremesa })} onClick=${() => fileOf(row)}>${t('remittances.file')}</button>
          ${NEXT[row.estado] && html`<button type="button" aria-label=${t('remittances.advance-n', { id: row.idremesa, action: t(`remittances.to-${NEXT[row.estado]}`) })} onClick=${() => advance(row)}>${t(`remittances.to-${NEXT[row.estado]}`)}</button>`}
          ${row.estado !== 'cobrada' && html`<button type="button" aria-label=${t('remittances.advance-n', { id: row.idremesa, action: t('remittances.to-cobrada') })} onClick=${() => collect(row)}>${t('remittances.to-cobrada')}</button>`}</td>
      </tr>`)}</tbody>
    </table>
    <${Pager} offset=${offset} limit=${PAGE} total=${total} onChange=${setOffset} />`;
}
