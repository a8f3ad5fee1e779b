// TicketBAI: each company's switch (its treasury, environment, Bizkaia's LROE model and its own
// signing certificate), and the files (newest first) with their XML, each sent again or corrected
// through Zuzendu where its treasury allows. Everything through the public API (docs/ticketbai.md).
import { html, useEffect, useRef, useState } from '../lib.js';
import { api, apiPath } from '../api.js';
import { CompanyFilter, downloadXml, SelectField, useCompanySwitches, useSwitchForm } from '../company-switches.js';
import { useListPage } from '../list-page.js';
import { t } from '../i18n.js';
import { attempt, cell, ErrorBox, errorText, FieldError, money, Notice, Pager } from '../ui.js';

const TERRITORIES = ['araba', 'bizkaia', 'gipuzkoa'];
const ENVIRONMENTS = ['pruebas', 'produccion'];
const LROE_MODELS = ['240', '140'];
const LIMIT = 50;

const formOf = (stored) => ({
  activo: stored?.activo ?? false,
  territorio: stored?.territorio ?? 'araba',
  entorno: stored?.entorno ?? 'pruebas',
  modelolroe: stored?.modelolroe ?? '240',
  epigrafe: stored?.epigrafe ?? '',
});

/** A file's bytes as base64: FileReader's data: address without its prefix. */
function base64Of(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const text = String(reader.result);
      resolve(text.slice(text.indexOf(',') + 1));
    };
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

/** What Bizkaia's LROE and Araba's and Gipuzkoa's services let be done with a file (the API refuses the rest, with its reason). */
const canResend = (file) => file.estado !== 'aceptado' && !(file.estado === 'rechazado' && file.territorio !== 'bizkaia' && (file.tipo === 'alta' || file.tipo === 'anulacion'));
const canCorrect = (file) => file.territorio !== 'bizkaia' && (file.estado === 'rechazado' ? file.tipo === 'alta' || file.tipo === 'anulacion' : file.estado === 'aceptado' && file.tipo === 'alta');

/** One company's switch: its form, the API's reasons beside the fields, and what is stored of its certificate. */
function CompanySwitch({ company, stored, onSaved }) {
  const id = company.idempresa;
  const { form, latest, change } = useSwitchForm(stored, formOf);
  const [certificate, setCertificate] = useState(null);
  const [password, setPassword] = useState('');
  const fileInput = useRef(null);
  const [error, setError] = useState(null);
  const [notice, setNotice] = useState('');
  const run = attempt(setError, setNotice);
  const save = (event) => {
    event.preventDefault();
    return run(async () => {
      const values = { ...latest.current, epigrafe: latest.current.epigrafe.trim() || null };
      // The certificate and its password are written, never read back: sent only when given.
      if (certificate) Object.assign(values, { certificado: await base64Of(certificate), certificadoclave: password });
      else if (password) values.certificadoclave = password;
      if (stored) await api('PATCH', apiPath(['ticketbaiempresa', id]), values);
      else await api('POST', apiPath('ticketbaiempresa'), { idempresa: id, ...values });
      setCertificate(null);
      setPassword('');
      if (fileInput.current) fileInput.current.value = '';
      setNotice(t('ticketbai.saved', { name: company.nombre }));
      onSaved();
    });
  };
  const reason = (name) => error?.fields?.[name];
  const described = (name, ...more) => [reason(name) && `tb-${name}-${id}-error`, ...more].filter(Boolean).join(' ') || undefined;
  const select = (name, values) => html`<${SelectField} id=${`tb-${name}-${id}`} label=${t(`ticketbai.${name}`)} value=${form[name]} values=${values}
    labelOf=${(value) => t(`ticketbai.${name}.${value}`)} reason=${reason(name)} onChange=${(value) => change(name, value)} />`;
  const bizkaia = form.territorio === 'bizkaia';
  // Reasons for what is no field of this form (the company's NIF, the software's registration): shown below it.
  const beside = new Set(['activo', 'territorio', 'entorno', 'certificado', 'certificadoclave', ...(bizkaia ? ['modelolroe', 'epigrafe'] : [])]);
  const others = Object.entries(error?.fields ?? {}).filter(([name]) => !beside.has(name));
  return html`<form class="inline-form" data-company=${id} onSubmit=${save} novalidate>
    <h2>${company.nombre} <span class="muted">(${cell(company.cifnif)})</span></h2>
    <div class="field check">
      <input id=${`tb-activo-${id}`} type="checkbox" checked=${form.activo} aria-describedby=${described('activo')} onChange=${(event) => change('activo', event.target.checked)} />
      <label for=${`tb-activo-${id}`}>${t('ticketbai.activo')}</label>
      <${FieldError} id=${`tb-activo-${id}-error`} reason=${reason('activo')} />
    </div>
    ${select('territorio', TERRITORIES)}
    ${select('entorno', ENVIRONMENTS)}
    ${bizkaia && select('modelolroe', LROE_MODELS)}
    ${bizkaia && html`<div class="field">
      <label for=${`tb-epigrafe-${id}`}>${t('ticketbai.epigrafe')}</label>
      <input id=${`tb-epigrafe-${id}`} inputmode="numeric" maxlength="7" value=${form.epigrafe} aria-describedby=${described('epigrafe')} onInput=${(event) => change('epigrafe', event.target.value)} />
      <${FieldError} id=${`tb-epigrafe-${id}-error`} reason=${reason('epigrafe')} />
    </div>`}
    <div class="field">
      <label for=${`tb-certificado-${id}`}>${t('ticketbai.certificado')}</label>
      <input id=${`tb-certificado-${id}`} ref=${fileInput} type="file" accept=".p12,.pfx,application/x-pkcs12" aria-describedby=${described('certificado', `tb-certificado-${id}-help`)}
        onChange=${(event) => setCertificate(event.target.files[0] || null)} />
      <span class="muted" id=${`tb-certificado-${id}-help`}>${t(stored?.certificadotitular ? 'ticketbai.certificado-kept' : 'ticketbai.certificado-help')}</span>
      <${FieldError} id=${`tb-certificado-${id}-error`} reason=${reason('certificado')} />
    </div>
    <div class="field">
      <label for=${`tb-certificadoclave-${id}`}>${t('ticketbai.certificadoclave')}</label>
      <input id=${`tb-certificadoclave-${id}`} type="password" autocomplete="new-password" value=${password} aria-describedby=${described('certificadoclave')}
        onInput=${(event) => setPassword(event.target.value)} />
      <${FieldError} id=${`tb-certificadoclave-${id}-error`} reason=${reason('certificadoclave')} />
    </div>
    <button type="submit">${t('common.save')}</button>
    <${ErrorBox} error=${error} />
    ${others.map(([name, why]) => html`<p class="error" data-reason=${name}>${name === 'cifnif'
      ? t('ticketbai.company-nif', { reason: t(`reason.${why}`, {}, why) })
      : t(`reason.${why}`, {}, `${name}: ${why}`)}</p>`)}
    <${Notice} text=${notice} />
    ${stored && html`<dl class="facts">
      <div class="fact"><dt>${t('ticketbai.certificadotitular')}</dt><dd data-fact="holder">${cell(stored.certificadotitular)}</dd></div>
      <div class="fact"><dt>${t('ticketbai.certificadocaduca')}</dt><dd>${cell(stored.certificadocaduca)}</dd></div>
      <div class="fact"><dt>${t('ticketbai.fechaactivacion')}</dt><dd>${cell(stored.fechaactivacion)}</dd></div>
    </dl>`}
  </form>`;
}

/** An action's failure, with why the API refused it (its `reason`) when the console knows that reason. */
function ActionError({ error }) {
  if (!error) return null;
  const reason = error.body?.reason;
  const why = reason ? t(`reason.${reason}`, {}, '') : '';
  return html`<p class="error" role="alert">${errorText(error)}${why ? ` ${why}.` : ''}</p>`;
}

function Files({ companies, version }) {
  const [offset, setOffset] = useState(0);
  const [company, setCompany] = useState('');
  const [error, setError] = useState(null);
  const [notice, setNotice] = useState('');
  const [changes, setChanges] = useState(0);
  const run = attempt(setError, setNotice);
  const query = { 'sort[id]': 'DESC', limit: LIMIT, offset, 'filter[idempresa]': company || undefined };
  const page = useListPage('registroticketbai', query, `${version}|${changes}`);
  const names = new Map(companies.map((row) => [String(row.idempresa), row.nombre]));
  const xml = (file) => run(() => downloadXml('registroticketbai', file.id, `ticketbai-${file.id}.xml`));
  const act = (resource, file, message) => run(async () => {
    try {
      const { data } = await api('POST', apiPath([resource, file.id]));
      setNotice(t(message, { id: file.id, nuevo: data.id, estado: t(`ticketbai.state.${data.estado}`, {}, data.estado) }));
    } finally {
      setChanges((value) => value + 1);
    }
  });
  return html`<section aria-labelledby="tb-files-title">
    <h2 id="tb-files-title">${t('ticketbai.files')}</h2>
    <${CompanyFilter} id="tb-company" label=${t('ticketbai.company')} allLabel=${t('ticketbai.all')} companies=${companies} value=${company}
      onChange=${(value) => { setCompany(value); setOffset(0); }} />
    <${ActionError} error=${page.error || error} />
    <${Notice} text=${notice} />
    <table class="files">
      <caption>${t('ticketbai.files-caption')}</caption>
      <thead><tr><th scope="col">${t('ticketbai.id')}</th><th scope="col">${t('ticketbai.company')}</th><th scope="col">${t('ticketbai.tipo')}</th>
        <th scope="col">${t('ticketbai.invoice')}</th><th scope="col">${t('ticketbai.fecha')}</th><th scope="col" class="number">${t('ticketbai.importe')}</th>
        <th scope="col">${t('ticketbai.identificador')}</th><th scope="col">${t('ticketbai.estado')}</th><th scope="col">${t('ticketbai.answer')}</th>
        <th scope="col" class="number">${t('ticketbai.intentos')}</th><th scope="col">${t('common.actions')}</th></tr></thead>
      <tbody>${page.rows.map((file) => html`<tr data-file=${file.id} data-state=${file.estado}>
        <td>${file.id}</td><td>${cell(names.get(String(file.idempresa)) ?? file.idempresa)}</td>
        <td>${t(`ticketbai.tipo.${file.tipo}`, {}, file.tipo)}${file.accion ? html` <span class="muted">${file.accion}</span>` : ''}</td>
        <td><a href=${`#/documents/facturacliente/${file.idfactura}`}>${[file.serie, file.numero].filter(Boolean).join(' ')}</a></td>
        <td>${file.fecha}</td><td class="number">${file.importe === null ? '—' : money(file.importe)}</td>
        <td>${file.identificador ? html`<code class="identifier">${file.identificador}</code>` : '—'}</td>
        <td>${t(`ticketbai.state.${file.estado}`, {}, file.estado)}</td>
        <td>${cell(file.codigo)}${file.descripcion ? html` <span class="muted">${file.descripcion}</span>` : ''}</td>
        <td class="number">${file.intentos}</td>
        <td>
          <button type="button" aria-label=${t('ticketbai.xml-n', { id: file.id })} onClick=${() => xml(file)}>${t('ticketbai.xml')}</button>
          ${canResend(file) && html`<button type="button" aria-label=${t('ticketbai.resend-n', { id: file.id })} onClick=${() => act('reenviarTicketBAI', file, 'ticketbai.resent')}>${t('ticketbai.resend')}</button>`}
          ${canCorrect(file) && html`<button type="button" aria-label=${t('ticketbai.correct-n', { id: file.id })} onClick=${() => act('zuzenduTicketBAI', file, 'ticketbai.corrected')}>${t('ticketbai.correct')}</button>`}
        </td>
      </tr>`)}</tbody>
    </table>
    <${Pager} offset=${offset} limit=${LIMIT} total=${page.total} onChange=${setOffset} />
  </section>`;
}

/** The inspection screen (TicketBAI specification 1.2 §5): the developer, the software and its version, as every file names them. */
function Software() {
  const [data, setData] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    api('GET', apiPath('ticketbaiSoftware')).then(({ data: answer }) => setData(answer), setError);
  }, []);
  if (error) return html`<${ErrorBox} error=${error} />`;
  if (!data) return null;
  return html`<section class="software" aria-labelledby="tbai-software-title" data-software>
    <h2 id="tbai-software-title">${t('ticketbai.software')}</h2>
    <dl class="facts">
      <div class="fact"><dt>${t('ticketbai.developer')}</dt><dd>${cell(data.desarrollador.nombre)} (${cell(data.desarrollador.nif)})</dd></div>
      <div class="fact"><dt>${t('ticketbai.program')}</dt><dd>${cell(data.programa.nombre)}, ${data.programa.version}</dd></div>
    </dl>
    <table>
      <caption>${t('ticketbai.software-caption')}</caption>
      <thead><tr><th scope="col">${t('ticketbai.territorio')}</th><th scope="col">${t('ticketbai.entorno')}</th><th scope="col">${t('ticketbai.licence')}</th>
        <th scope="col">${t('ticketbai.developer')}</th><th scope="col">${t('ticketbai.program')}</th></tr></thead>
      <tbody>${data.ficheros.map((row) => html`<tr data-software-row=${`${row.territorio}-${row.entorno}`}>
        <td>${t(`ticketbai.territorio.${row.territorio}`)}</td><td>${t(`ticketbai.entorno.${row.entorno}`)}</td>
        <td>${row.licencia ?? t('ticketbai.not-registered')}</td><td>${cell(row.desarrolladornif)}</td><td>${row.nombre ? `${row.nombre} ${row.version}` : '—'}</td>
      </tr>`)}</tbody>
    </table>
  </section>`;
}

export function Ticketbai() {
  const { companies, switches, error, version, reload } = useCompanySwitches('ticketbaiempresa');
  return html`<h1>${t('menu.ticketbai')}</h1>
    <p class="muted">${t('ticketbai.intro')}</p>
    <${ErrorBox} error=${error} />
    ${(companies || []).map((company) => html`<${CompanySwitch} key=${company.idempresa} company=${company} stored=${switches.get(company.idempresa)} onSaved=${reload} />`)}
    ${companies && html`<${Files} companies=${companies} version=${version} />`}
    <${Software} />`;
}
