// One customer (reached from its documents): its name, tax id and e-mail, and, for a public body,
// its DIR3 centres (`dir3cliente`, the customer's own record: no address), which its invoices'
// Facturae carry and FACe needs; saved and removed here with the API's reasons beside the fields.
import { html, useEffect, useState } from '../lib.js';
import { api, apiPath, listAll, recordOf } from '../api.js';
import { useSwitchForm } from '../company-switches.js';
import { t } from '../i18n.js';
import { attempt, cell, Confirm, ErrorBox, Notice, TextField } from '../ui.js';

/** The centres, in their Facturae roles' order (01-04); FACe needs the first three. */
const CENTRES = ['oficinacontable', 'organogestor', 'unidadtramitadora', 'organoproponente'];
const NAMES = CENTRES.map((centre) => `nombre${centre}`);
const formOf = (stored) => Object.fromEntries([...CENTRES, ...NAMES].map((name) => [name, stored?.[name] ?? '']));

/** The customer's DIR3 record (undefined while read, null for none): its form, save (POST or PATCH) and removal. */
function PublicBody({ codcliente }) {
  const [stored, setStored] = useState(undefined);
  const [error, setError] = useState(null);
  const [notice, setNotice] = useState('');
  const [removing, setRemoving] = useState(false);
  const { form, latest, change } = useSwitchForm(stored, formOf);
  const run = attempt(setError, setNotice);
  useEffect(() => {
    let live = true;
    listAll('dir3cliente', { 'filter[codcliente]': codcliente }).then(
      (rows) => live && setStored(rows.find((row) => row.idcontacto === null || row.idcontacto === undefined) ?? null),
      (failure) => live && setError(failure),
    );
    return () => {
      live = false;
    };
  }, [codcliente]);
  const save = (event) => {
    event.preventDefault();
    return run(async () => {
      const values = Object.fromEntries(Object.entries(latest.current).map(([name, value]) => [name, value.trim() || null]));
      const { data } = stored
        ? await api('PATCH', apiPath(['dir3cliente', stored.id]), values)
        : await api('POST', apiPath('dir3cliente'), { codcliente, idcontacto: null, ...values });
      setStored(recordOf(data));
      setNotice(t('customer.dir3-saved'));
    });
  };
  const remove = () => {
    setRemoving(false);
    return run(async () => {
      await api('DELETE', apiPath(['dir3cliente', stored.id]));
      setStored(null);
      setNotice(t('customer.dir3-removed'));
    });
  };
  const field = (name, label, attributes) => html`<${TextField} id=${`dir3-${name}`} label=${label} value=${form[name]} reason=${error?.fields?.[name]}
    attributes=${attributes} onChange=${(value) => change(name, value)} />`;
  return html`<section aria-labelledby="dir3-title">
    <h2 id="dir3-title">${t('customer.dir3')}</h2>
    <p class="muted">${t('customer.dir3-help')}</p>
    ${stored !== undefined && html`<form onSubmit=${save} novalidate aria-labelledby="dir3-title">
      ${CENTRES.map((centre) => html`<fieldset class="centre" data-centre=${centre}>
        <legend>${t(`customer.${centre}`)}</legend>
        ${field(centre, t('customer.dir3-code'), { maxlength: 10, autocomplete: 'off', spellcheck: 'false' })}
        ${field(`nombre${centre}`, t('customer.dir3-name'), { maxlength: 120 })}
      </fieldset>`)}
      <div class="actions">
        <button type="submit">${t('common.save')}</button>
        ${stored && html`<button type="button" class="danger" onClick=${() => setRemoving(true)}>${t('customer.dir3-remove')}</button>`}
      </div>
    </form>`}
    <${ErrorBox} error=${error} />
    <${Notice} text=${notice} />
    <${Confirm} open=${removing} title=${t('customer.dir3-remove-title', { code: codcliente })} confirmLabel=${t('customer.dir3-remove')} onConfirm=${remove} onCancel=${() => setRemoving(false)}>
      <p>${t('customer.dir3-remove-help')}</p>
    <//>
  </section>`;
}

export function CustomerPage({ code, access }) {
  const [customer, setCustomer] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    setCustomer(null);
    setError(null);
    let live = true;
    api('GET', apiPath(['cliente', code])).then(({ data }) => live && setCustomer(data), (failure) => live && setError(failure));
    return () => {
      live = false;
    };
  }, [code]);
  if (!customer) return html`<h1>${t('customer.title', { code })}</h1><${ErrorBox} error=${error} />`;
  return html`<h1>${t('customer.title', { code: customer.codcliente })}</h1>
    <dl class="facts">
      <div class="fact"><dt>${t('documents.name')}</dt><dd>${cell(customer.nombre)}</dd></div>
      <div class="fact"><dt>${t('document.cifnif')}</dt><dd>${cell(customer.cifnif)}</dd></div>
      <div class="fact"><dt>${t('customer.email')}</dt><dd>${cell(customer.email)}</dd></div>
    </dl>
    ${access.listed.has('dir3cliente') && html`<${PublicBody} key=${customer.codcliente} codcliente=${customer.codcliente} />`}`;
}
