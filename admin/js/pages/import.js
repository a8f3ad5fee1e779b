// Spreadsheet import: customers, suppliers, products or contacts from a CSV or XLSX file. The file
// is checked first (a dry run: nothing written), its problems shown beside the rows they are on;
// once it checks clean, confirming imports it, all or nothing.
import { html, useState } from '../lib.js';
import { api, apiPath } from '../api.js';
import { t } from '../i18n.js';
import { attempt, ErrorBox, Notice } from '../ui.js';

const RESOURCES = ['cliente', 'proveedor', 'producto', 'contacto'];
const MODES = ['crear', 'actualizar', 'ambos'];

/** The problems of a refused file, row by row: each row's number, then its column and reason. */
function Problems({ problems }) {
  const byRow = new Map();
  for (const problem of problems) byRow.set(problem.fila, [...(byRow.get(problem.fila) || []), problem]);
  return html`<table data-problems>
    <caption>${t('import.problems', { count: problems.length })}</caption>
    <thead><tr><th scope="col">${t('import.row')}</th><th scope="col">${t('import.column')}</th><th scope="col">${t('import.reason')}</th></tr></thead>
    <tbody>${[...byRow].flatMap(([fila, list]) => list.map((problem, index) => html`<tr data-row=${fila}>
      ${index === 0 && html`<th scope="row" rowspan=${list.length}>${fila === 1 ? t('import.header-row') : fila}</th>`}
      <td>${problem.campo ?? '—'}</td><td>${t(`reason.${problem.error}`, {}, problem.error)}</td>
    </tr>`))}</tbody>
  </table>`;
}

export function Import() {
  const [resource, setResource] = useState('cliente');
  const [modo, setModo] = useState('crear');
  const [file, setFile] = useState(null);
  const [checked, setChecked] = useState(null);
  const [problems, setProblems] = useState(null);
  const [error, setError] = useState(null);
  const [notice, setNotice] = useState('');
  const run = attempt(setError, setNotice);
  const send = (dryrun) => {
    const form = new FormData();
    form.append('modo', modo);
    if (dryrun) form.append('dryrun', '1');
    if (file) form.append('file', file, file.name);
    return api('POST', apiPath(['importar', resource]), form);
  };
  const reset = () => {
    setChecked(null);
    setProblems(null);
  };
  const check = (event) => {
    event.preventDefault();
    reset();
    return run(async () => {
      const { data } = await send(true);
      setChecked(data);
      setNotice(t('import.checked', { filas: data.filas, creados: data.creados, actualizados: data.actualizados }));
    }, (failure) => {
      if (failure.code === 'import-rows-refused') setProblems(failure.body.problemas || []);
    });
  };
  const confirm = () => run(async () => {
    const { data } = await send(false);
    reset();
    setNotice(t('import.done', { creados: data.creados, actualizados: data.actualizados }));
  }, (failure) => {
    if (failure.code === 'import-rows-refused') setProblems(failure.body.problemas || []);
  });
  return html`<h1>${t('menu.import')}</h1>
    <form onSubmit=${check} aria-labelledby="sheet-title" novalidate>
      <h2 id="sheet-title">${t('import.title')}</h2>
      <p class="muted">${t('import.help')}</p>
      <div class="field"><label for="sheet-resource">${t('import.resource')}</label>
        <select id="sheet-resource" value=${resource} onChange=${(event) => { setResource(event.target.value); reset(); }}>
          ${RESOURCES.map((name) => html`<option value=${name}>${t(`import.resource-${name}`)}</option>`)}
        </select></div>
      <div class="field"><label for="sheet-mode">${t('import.mode')}</label>
        <select id="sheet-mode" value=${modo} onChange=${(event) => { setModo(event.target.value); reset(); }}>
          ${MODES.map((name) => html`<option value=${name}>${t(`import.mode-${name}`)}</option>`)}
        </select></div>
      <div class="field"><label for="sheet-file">${t('import.file')}</label>
        <input id="sheet-file" type="file" accept=".csv,.xlsx,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" onChange=${(event) => { setFile(event.target.files[0] || null); reset(); }} /></div>
      <button type="submit">${t('import.check')}</button>
      ${checked && html` <button type="button" onClick=${confirm}>${t('import.confirm', { filas: checked.filas })}</button>`}
    </form>
    <${ErrorBox} error=${problems ? null : error} />
    <${Notice} text=${notice} />
    ${checked && checked.ignoradas.length > 0 && html`<p class="muted">${t('import.ignored', { columns: checked.ignoradas.join(', ') })}</p>`}
    ${problems && html`<${Problems} problems=${problems} />`}`;
}
