// VERI*FACTU: each company's switch (mode and environment) with its chain check, the records
// (newest first, with their XML), and the producer's declaration. Everything through the public API.
import { html, useEffect, useState } from '../lib.js';
import { api, apiPath } from '../api.js';
import { CompanyFilter, downloadXml, SelectField, useCompanySwitches, useSwitchForm } from '../company-switches.js';
import { useListPage } from '../list-page.js';
import { t } from '../i18n.js';
import { cell, ErrorBox, money, Notice, Pager } from '../ui.js';

const MODES = ['off', 'verifactu', 'noverifactu'];
const ENVIRONMENTS = ['pruebas', 'produccion'];
const LIMIT = 50;

const STATES = ['pendiente', 'correcto', 'aceptadoconerrores', 'incorrecto'];

const formOf = (stored) => ({ modo: stored?.modo ?? 'off', entorno: stored?.entorno ?? 'pruebas' });

/**
 * What the company's sending to the AEAT stands at (`verifactuEstado`): its records by state, the
 * next message, the last failure, and the records the AEAT rejected or accepted with errors that
 * wait for a correction (corrected with `subsanarRegistroVerifactu`, docs/verifactu.md).
 */
function Sending({ id, version }) {
  const [status, setStatus] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    api('GET', apiPath('verifactuEstado', { idempresa: id })).then(({ data }) => setStatus(data), setError);
  }, [id, version]);
  if (error) return html`<${ErrorBox} error=${error} />`;
  if (!status) return null;
  return html`<section class="sending" data-sending=${id} aria-label=${t('verifactu.sending')}>
    <h3>${t('verifactu.sending')}</h3>
    <dl class="facts">
      ${STATES.map((state) => html`<div class="fact" data-state=${state}><dt>${t(`verifactu.state.${state}`)}</dt><dd>${status.registros[state] ?? 0}</dd></div>`)}
      <div class="fact"><dt>${t('verifactu.next-send')}</dt><dd>${cell(status.siguienteenvio)}</dd></div>
    </dl>
    ${status.ultimoerror && html`<p class="error" data-last-error>${t('verifactu.last-error', { failures: status.fallos, error: status.ultimoerror })}</p>`}
    ${status.porcorregir.length > 0 && html`<table>
      <caption>${t('verifactu.to-correct')}</caption>
      <thead><tr><th scope="col">${t('verifactu.id')}</th><th scope="col">${t('verifactu.numserie')}</th><th scope="col">${t('verifactu.estado')}</th>
        <th scope="col">${t('verifactu.error-code')}</th><th scope="col">${t('verifactu.error-text')}</th></tr></thead>
      <tbody>${status.porcorregir.map((record) => html`<tr data-rejected=${record.id}>
        <td>${record.id}</td><td><a href=${`#/documents/facturacliente/${record.idfactura}`}>${record.numserie}</a></td>
        <td>${t(`verifactu.state.${record.estado}`)}</td><td>${cell(record.codigoerror)}</td><td>${cell(record.descripcionerror)}</td>
      </tr>`)}</tbody>
    </table>`}
  </section>`;
}

/** One company's switch: its form, the API's reasons beside the fields, and the chain check. */
function CompanySwitch({ company, stored, onSaved }) {
  const id = company.idempresa;
  const { form, latest, storedKey, change } = useSwitchForm(stored, formOf);
  const [error, setError] = useState(null);
  const [notice, setNotice] = useState('');
  const [chain, setChain] = useState(null);
  const save = async (event) => {
    event.preventDefault();
    setError(null);
    setNotice('');
    try {
      if (stored) await api('PATCH', apiPath(['verifactuempresa', id]), latest.current);
      else await api('POST', apiPath('verifactuempresa'), { idempresa: id, ...latest.current });
      setNotice(t('verifactu.saved', { name: company.nombre }));
      onSaved();
    } catch (failure) {
      setError(failure);
    }
  };
  const check = async () => {
    setError(null);
    setChain(null);
    try {
      setChain((await api('GET', apiPath('verifactuCadena', { idempresa: id }))).data);
    } catch (failure) {
      setError(failure);
    }
  };
  const reason = (name) => error?.fields?.[name];
  const field = (name, values) => html`<${SelectField} id=${`vf-${name}-${id}`} label=${t(`verifactu.${name}`)} value=${form[name]} values=${values}
    labelOf=${(value) => t(`verifactu.${name}.${value}`)} reason=${reason(name)} onChange=${(value) => change(name, value)} />`;
  return html`<form class="inline-form" data-company=${id} onSubmit=${save}>
    <h2>${company.nombre} <span class="muted">(${cell(company.cifnif)})</span></h2>
    ${field('modo', MODES)}
    ${field('entorno', ENVIRONMENTS)}
    <button type="submit">${t('common.save')}</button>
    <button type="button" onClick=${check} disabled=${!stored}>${t('verifactu.check')}</button>
    <${ErrorBox} error=${error} />
    ${reason('cifnif') && html`<p class="error">${t('verifactu.company-nif', { reason: t(`reason.${reason('cifnif')}`, {}, reason('cifnif')) })}</p>`}
    <${Notice} text=${notice} />
    ${stored && html`<dl class="facts">
      <div class="fact"><dt>${t('verifactu.numeroinstalacion')}</dt><dd>${stored.numeroinstalacion}</dd></div>
      <div class="fact"><dt>${t('verifactu.fechaactivacion')}</dt><dd>${cell(stored.fechaactivacion)}</dd></div>
      <div class="fact"><dt>${t('verifactu.fechamodo')}</dt><dd>${cell(stored.fechamodo)}</dd></div>
    </dl>`}
    ${stored && html`<${Sending} id=${id} version=${storedKey} />`}
    ${chain && html`<p role="status" class=${chain.valid ? 'notice' : 'error'} data-chain=${chain.valid ? 'valid' : 'broken'}>
      ${chain.valid ? t('verifactu.chain-valid', { records: chain.records })
        : t('verifactu.chain-broken', { id: chain.firstBroken.id, expected: chain.firstBroken.expected, stored: chain.firstBroken.stored })}
    </p>`}
  </form>`;
}

function Records({ companies, version }) {
  const [offset, setOffset] = useState(0);
  const [company, setCompany] = useState('');
  const [error, setError] = useState(null);
  const query = { 'sort[id]': 'DESC', limit: LIMIT, offset, 'filter[idempresa]': company || undefined };
  const page = useListPage('registroverifactu', query, version);
  const names = new Map(companies.map((row) => [String(row.idempresa), row.nombre]));
  const xml = async (record) => {
    setError(null);
    try {
      await downloadXml('registroverifactu', record.id, `registro-${record.id}.xml`);
    } catch (failure) {
      setError(failure);
    }
  };
  return html`<section aria-labelledby="vf-records-title">
    <h2 id="vf-records-title">${t('verifactu.records')}</h2>
    <${CompanyFilter} id="vf-company" label=${t('verifactu.company')} allLabel=${t('verifactu.all')} companies=${companies} value=${company}
      onChange=${(value) => { setCompany(value); setOffset(0); }} />
    <${ErrorBox} error=${page.error || error} />
    <table>
      <caption>${t('verifactu.records-caption')}</caption>
      <thead><tr><th scope="col">${t('verifactu.id')}</th><th scope="col">${t('verifactu.company')}</th><th scope="col">${t('verifactu.tipo')}</th>
        <th scope="col">${t('verifactu.numserie')}</th><th scope="col">${t('verifactu.fechaexpedicion')}</th><th scope="col">${t('verifactu.tipofactura')}</th>
        <th scope="col" class="number">${t('verifactu.importetotal')}</th><th scope="col">${t('verifactu.fechahorahuso')}</th><th scope="col">${t('verifactu.estado')}</th>
        <th scope="col">${t('verifactu.huella')}</th><th scope="col">${t('common.actions')}</th></tr></thead>
      <tbody>${page.rows.map((record) => html`<tr data-record=${record.id}>
        <td>${record.id}</td><td>${cell(names.get(String(record.idempresa)) ?? record.idempresa)}</td><td>${t(`verifactu.tipo.${record.tipo}`)}</td>
        <td><a href=${`#/documents/facturacliente/${record.idfactura}`}>${record.numserie}</a></td><td>${record.fechaexpedicion}</td><td>${cell(record.tipofactura)}</td>
        <td class="number">${record.importetotal === null ? '—' : money(record.importetotal)}</td><td>${record.fechahorahuso}</td><td>${record.estado}</td>
        <td><code title=${record.huella}>${record.huella.slice(0, 12)}…</code></td>
        <td><button type="button" aria-label=${t('verifactu.xml-n', { id: record.id })} onClick=${() => xml(record)}>${t('verifactu.xml')}</button></td>
      </tr>`)}</tbody>
    </table>
    <${Pager} offset=${offset} limit=${LIMIT} total=${page.total} onChange=${setOffset} />
  </section>`;
}

/** The producer's declaración responsable, as the API gives it. */
function Declaration() {
  const [declaration, setDeclaration] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    api('GET', apiPath('verifactuDeclaracion')).then(({ data }) => setDeclaration(data), setError);
  }, []);
  if (error) return html`<${ErrorBox} error=${error} />`;
  if (!declaration) return null;
  const yesNo = (value) => t(value ? 'common.yes' : 'common.no');
  return html`<section aria-labelledby="vf-declaration-title" class="declaration">
    <h2 id="vf-declaration-title">${declaration.titulo}</h2>
    <dl>
      <dt>${t('verifactu.decl.system')}</dt><dd>${declaration.sistema.nombre} (${declaration.sistema.id}), ${t('verifactu.decl.version')} ${declaration.sistema.version}</dd>
      <dt>${t('verifactu.decl.components')}</dt><dd>${declaration.componentes}</dd>
      <dt>${t('verifactu.decl.only-verifactu')}</dt><dd>${yesNo(declaration.soloVerifactu)}</dd>
      <dt>${t('verifactu.decl.several')}</dt><dd>${yesNo(declaration.multiplesObligados)}</dd>
      <dt>${t('verifactu.decl.signature')}</dt><dd>${declaration.firma}</dd>
      <dt>${t('verifactu.decl.producer')}</dt><dd>${declaration.productor.nombre}, ${declaration.productor.nif}, ${declaration.productor.direccion}</dd>
    </dl>
    <p>${declaration.cumplimiento}</p>
    <p>${declaration.lugar}, ${declaration.fecha}</p>
  </section>`;
}

export function Verifactu() {
  const { companies, switches, error, version, reload } = useCompanySwitches('verifactuempresa');
  return html`<h1>${t('menu.verifactu')}</h1>
    <p class="muted">${t('verifactu.intro')}</p>
    <${ErrorBox} error=${error} />
    ${(companies || []).map((company) => html`<${CompanySwitch} key=${company.idempresa} company=${company} stored=${switches.get(company.idempresa)} onSaved=${reload} />`)}
    ${companies && html`<${Records} companies=${companies} version=${version} />`}
    <${Declaration} />`;
}
