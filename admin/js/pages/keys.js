// API keys: the list with last activity and address; create (the token shown once), enable,
// disable, delete; and each restricted key's access rules as a grid.
import { html, useEffect, useRef, useState } from '../lib.js';
import { api, apiPath, recordOf } from '../api.js';
import { useListPage } from '../list-page.js';
import { t } from '../i18n.js';
import { cell, Confirm, ErrorBox, FieldError, Notice, Pager } from '../ui.js';
import { RulesGrid } from './rules-grid.js';

const PAGE = 25;

function NewKeyForm({ onCreated }) {
  const [description, setDescription] = useState('');
  const [fullaccess, setFullaccess] = useState(false);
  const [profile, setProfile] = useState('spec');
  const [ratelimit, setRatelimit] = useState('');
  const [error, setError] = useState(null);
  const submit = async (event) => {
    event.preventDefault();
    setError(null);
    try {
      const { data } = await api('POST', apiPath('apikey'), { description, fullaccess, profile, ratelimit: ratelimit === '' ? null : Number(ratelimit) });
      setDescription('');
      setFullaccess(false);
      setRatelimit('');
      onCreated(recordOf(data));
    } catch (failure) {
      setError(failure);
    }
  };
  return html`<form class="inline-form" onSubmit=${submit} aria-labelledby="new-key-title">
    <h2 id="new-key-title">${t('keys.new')}</h2>
    <div class="field">
      <label for="key-description">${t('keys.description')}</label>
      <input id="key-description" value=${description} maxlength="100" aria-describedby="key-description-error" onInput=${(event) => setDescription(event.target.value)} />
      <${FieldError} id="key-description-error" reason=${error?.fields?.description} />
    </div>
    <div class="field check">
      <input id="key-fullaccess" type="checkbox" checked=${fullaccess} onChange=${(event) => setFullaccess(event.target.checked)} />
      <label for="key-fullaccess">${t('keys.fullaccess')}</label>
    </div>
    <div class="field">
      <label for="key-profile">${t('keys.profile')}</label>
      <select id="key-profile" value=${profile} onChange=${(event) => setProfile(event.target.value)}>
        <option value="spec">spec</option>
        <option value="facturascripts">facturascripts</option>
      </select>
    </div>
    <div class="field">
      <label for="key-ratelimit">${t('keys.ratelimit')}</label>
      <input id="key-ratelimit" type="number" min="0" step="1" value=${ratelimit} placeholder=${t('keys.ratelimit-default')} aria-describedby="key-ratelimit-error" onInput=${(event) => setRatelimit(event.target.value)} />
      <${FieldError} id="key-ratelimit-error" reason=${error?.fields?.ratelimit} />
    </div>
    <button type="submit">${t('keys.create')}</button>
    <${ErrorBox} error=${error} />
  </form>`;
}

/** A key's requests per minute, changed in place (empty: the installation's RATE_LIMIT_PER_MINUTE; 0: none). */
function RateLimitCell({ apiKey, onSaved, onError }) {
  const [value, setValue] = useState(apiKey.ratelimit ?? '');
  const id = `key-ratelimit-${apiKey.id}`;
  const save = (event) => {
    event.preventDefault();
    api('PATCH', apiPath(['apikey', apiKey.id]), { ratelimit: value === '' ? null : Number(value) }).then(onSaved, onError);
  };
  return html`<form class="cell-form" onSubmit=${save}>
    <label class="hidden-label" for=${id}>${t('keys.ratelimit-n', { id: apiKey.id })}</label>
    <input id=${id} type="number" min="0" step="1" size="6" value=${value} placeholder=${t('keys.ratelimit-default')} onInput=${(event) => setValue(event.target.value)} />
    <button type="submit" aria-label=${t('keys.ratelimit-save-n', { id: apiKey.id })}>${t('common.save')}</button>
  </form>`;
}

/** The token of a key just created: shown here once, with a copy button, and never again. */
function NewToken({ record, onDone }) {
  const [copied, setCopied] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(record.apikey);
      setCopied(t('keys.copied'));
    } catch {
      // No clipboard outside a secure context: the text is selectable instead.
      document.getElementById('new-token')?.focus();
      setCopied(t('keys.copy-manually'));
    }
  };
  const heading = useRef(null);
  useEffect(() => heading.current?.focus(), []);
  return html`<section class="token" aria-labelledby="token-title">
    <h2 id="token-title" tabindex="-1" ref=${heading}>${t('keys.token-title', { id: record.id })}</h2>
    <p>${t('keys.token-once')}</p>
    <label for="new-token">${t('keys.token')}</label>
    <input id="new-token" class="token-value" readonly value=${record.apikey} onFocus=${(event) => event.target.select()} />
    <button type="button" onClick=${copy}>${t('keys.copy')}</button>
    <button type="button" onClick=${onDone}>${t('keys.token-done')}</button>
    <${Notice} text=${copied} />
  </section>`;
}

export function Keys({ access }) {
  const [offset, setOffset] = useState(0);
  const [created, setCreated] = useState(null);
  const [deleting, setDeleting] = useState(null);
  const [rulesOf, setRulesOf] = useState(null);
  const [version, setVersion] = useState(0);
  const reload = () => setVersion((value) => value + 1);
  // When a panel closes, focus goes back to the page's heading rather than to nowhere.
  const backToPage = () => document.getElementById('keys-title')?.focus();
  const { rows, total, error, setError } = useListPage('apikey', { 'sort[id]': 'ASC', limit: PAGE, offset }, version);
  const act = (promise) => promise.then(reload, setError);
  const toggle = (key) => act(api('PUT', apiPath(['apikey', key.id]), { enabled: !key.enabled }));
  const remove = () => {
    const key = deleting;
    setDeleting(null);
    backToPage();
    act(api('DELETE', apiPath(['apikey', key.id])));
  };
  return html`<h1 id="keys-title" tabindex="-1">${t('menu.keys')}</h1>
    <${ErrorBox} error=${error} />
    ${created && html`<${NewToken} record=${created} onDone=${() => { setCreated(null); backToPage(); }} />`}
    <table>
      <caption>${t('keys.caption')}</caption>
      <thead><tr>
        <th scope="col">${t('keys.id')}</th><th scope="col">${t('keys.description')}</th><th scope="col">${t('keys.enabled')}</th>
        <th scope="col">${t('keys.fullaccess')}</th><th scope="col">${t('keys.profile')}</th><th scope="col">${t('keys.ratelimit')}</th><th scope="col">${t('keys.lastactivity')}</th>
        <th scope="col">${t('keys.lastip')}</th><th scope="col">${t('common.actions')}</th>
      </tr></thead>
      <tbody>
        ${rows.map((key) => html`<tr data-key=${key.id}>
          <td>${key.id}</td><td>${cell(key.description)}</td><td>${cell(key.enabled)}</td><td>${cell(key.fullaccess)}</td>
          <td>${cell(key.profile)}</td><td><${RateLimitCell} key=${`${key.id}:${key.ratelimit}`} apiKey=${key} onSaved=${reload} onError=${setError} /></td>
          <td>${cell(key.lastactivity)}</td><td>${cell(key.lastip)}</td>
          <td class="actions">
            <button type="button" onClick=${() => toggle(key)} aria-label=${t(key.enabled ? 'keys.disable-n' : 'keys.enable-n', { id: key.id })}>${t(key.enabled ? 'keys.disable' : 'keys.enable')}</button>
            ${!key.fullaccess && html`<button type="button" onClick=${() => setRulesOf(key)} aria-label=${t('keys.rules-n', { id: key.id })}>${t('keys.rules')}</button>`}
            <button type="button" class="danger" onClick=${() => setDeleting(key)} aria-label=${t('keys.delete-n', { id: key.id })}>${t('common.delete')}</button>
          </td>
        </tr>`)}
      </tbody>
    </table>
    <${Pager} offset=${offset} limit=${PAGE} total=${total} onChange=${setOffset} />
    ${rulesOf && html`<${RulesGrid} key=${rulesOf.id} apiKey=${rulesOf} resources=${[...access.listed]} onClose=${() => { setRulesOf(null); backToPage(); }} />`}
    <${NewKeyForm} onCreated=${(record) => { setCreated(record); reload(); }} />
    <${Confirm} open=${Boolean(deleting)} title=${t('keys.delete-title', { id: deleting?.id })} confirmLabel=${t('common.delete')} onConfirm=${remove} onCancel=${() => setDeleting(null)}>
      <p>${t('keys.delete-text')}</p>
    <//>`;
}
