// Taxes: a quarter's (or month's) VAT return, its boxes as the agency numbers them, the settlement
// (which locks the period) and its undoing, and the return's files.
import { html, useEffect, useState } from '../lib.js';
import { api, apiPath, download, fileNameOf, listAll } from '../api.js';
import { t } from '../i18n.js';
import { attempt, ErrorBox, FieldError, money, Notice } from '../ui.js';

const PERIODS = ['1T', '2T', '3T', '4T', '01', '02', '03', '04', '05', '06', '07', '08', '09', '10', '11', '12'];
/** The boxes shown, in the return's order: output VAT, deductions, additional information and the result. */
const SHOWN = ['01', '03', '04', '06', '07', '09', '10', '11', '12', '13', '14', '15', '19', '21', '22', '24', '156', '158', '168', '170', '25', '26', '27',
  '28', '29', '36', '37', '40', '41', '45', '46', '59', '60', '120', '122', '110', '78', '87', '71'];

export function Taxes() {
  const [years, setYears] = useState([]);
  const [form, setForm] = useState({ codejercicio: '', periodo: '1T' });
  const [result, setResult] = useState(null);
  const [settlement, setSettlement] = useState(null);
  const [error, setError] = useState(null);
  const [notice, setNotice] = useState('');
  useEffect(() => {
    listAll('ejercicio', { 'sort[codejercicio]': 'DESC' }).then((found) => {
      setYears(found);
      setForm((current) => ({ ...current, codejercicio: current.codejercicio || found[0]?.codejercicio || '' }));
    }, () => setYears([]));
  }, []);
  const change = (name) => (event) => setForm((current) => ({ ...current, [name]: event.target.value }));
  const settled = async (query) => (await api('GET', apiPath(['liquidacioniva'], { 'filter[codejercicio]': query.codejercicio, 'filter[periodo]': query.periodo, limit: 1 }))).data[0] || null;
  // The return and whether it is settled; after a settlement or its undoing the notice stays.
  const load = async () => {
    try {
      const { data } = await api('GET', apiPath(['modelo303'], form));
      setResult(data);
      setSettlement(await settled(form));
    } catch (failure) {
      setResult(null);
      setError(failure);
    }
  };
  const run = attempt(setError);
  const show = async (event) => {
    event.preventDefault();
    setError(null);
    setNotice('');
    await load();
  };
  const settle = () => run(async () => {
    const { data } = await api('POST', apiPath(['liquidarIVA']), form);
    setNotice(t('taxes.settled', { periodo: form.periodo, resultado: money(data.resultado) }));
    await load();
  });
  const undo = () => run(async () => {
    await api('DELETE', apiPath(['liquidarIVA', settlement.idliquidacion]));
    setNotice(t('taxes.undone', { periodo: form.periodo }));
    await load();
  });
  const file = (formato) => run(async () => {
    const { data, response } = await api('GET', apiPath(['modelo303'], { ...form, formato }));
    download(data, fileNameOf(response, `303.${formato === 'aeat' ? 'txt' : formato}`));
  });
  const reason = (name) => error?.fields?.[name];
  return html`<h1>${t('menu.taxes')}</h1>
    <form onSubmit=${show} aria-labelledby="taxes-title" novalidate>
      <h2 id="taxes-title">${t('taxes.return')}</h2>
      <div class="field"><label for="tax-year">${t('taxes.year')}</label>
        <select id="tax-year" value=${form.codejercicio} onChange=${change('codejercicio')}>${years.map((year) => html`<option value=${year.codejercicio}>${year.codejercicio}</option>`)}</select>
        <${FieldError} id="tax-year-error" reason=${reason('codejercicio')} /></div>
      <div class="field"><label for="tax-period">${t('taxes.period')}</label>
        <select id="tax-period" value=${form.periodo} onChange=${change('periodo')}>${PERIODS.map((periodo) => html`<option value=${periodo}>${periodo}</option>`)}</select>
        <${FieldError} id="tax-period-error" reason=${reason('periodo')} /></div>
      <button type="submit">${t('taxes.show')}</button>
    </form>
    <${ErrorBox} error=${error} />
    <${Notice} text=${notice} />
    ${result && html`<section aria-labelledby="boxes-title">
      <h2 id="boxes-title">${t('taxes.boxes', { periodo: result.periodo, desde: result.desde, hasta: result.hasta })}</h2>
      <p>${t(`taxes.type-${result.tipodeclaracion}`)}${settlement ? ` · ${t('taxes.is-settled')}` : ''}</p>
      ${result.avisos.length > 0 && html`<ul>${result.avisos.map((aviso) => html`<li>${t(`taxes.warning-${aviso.motivo}`, {}, aviso.motivo)}: ${money(aviso.base)}</li>`)}</ul>`}
      <table>
        <caption>${t('taxes.boxes-caption')}</caption>
        <thead><tr><th scope="col">${t('taxes.box')}</th><th scope="col" class="number">${t('taxes.amount')}</th></tr></thead>
        <tbody>${SHOWN.map((name) => html`<tr data-box=${name}><th scope="row">[${name}]</th><td class="number">${money(result.casillas[name])}</td></tr>`)}</tbody>
      </table>
      <p>
        ${settlement
          ? html`<button type="button" onClick=${undo}>${t('taxes.undo')}</button>`
          : html`<button type="button" onClick=${settle}>${t('taxes.settle')}</button>`}
        ${['aeat', 'pdf', 'xlsx', 'csv'].map((formato) => html` <button type="button" onClick=${() => file(formato)}>${t(`taxes.file-${formato}`)}</button>`)}
      </p>
    </section>`}`;
}
