// A key's access rules as a grid of resources x methods, with "all" toggles per row and column,
// saved in one request (PUT /api/3/apikey/{id}/rules, docs/access-control.md).
import { html, useEffect, useMemo, useRef, useState } from '../lib.js';
import { api, apiPath, listAll, recordOf } from '../api.js';
import { t } from '../i18n.js';
import { ErrorBox, Notice } from '../ui.js';

const METHODS = [
  ['allowget', 'GET'],
  ['allowpost', 'POST'],
  ['allowput', 'PUT'],
  ['allowdelete', 'DELETE'],
];
const NONE = { allowget: false, allowpost: false, allowput: false, allowdelete: false };

export function RulesGrid({ apiKey, resources, onClose }) {
  const [grid, setGrid] = useState(null);
  const [filter, setFilter] = useState('');
  const [error, setError] = useState(null);
  const [notice, setNotice] = useState('');
  const [sent, setSent] = useState([]);
  const heading = useRef(null);
  useEffect(() => heading.current?.focus(), []);
  useEffect(() => {
    listAll('apiaccess', { 'filter[idapikey]': apiKey.id, 'sort[id]': 'ASC' }).then((data) => {
      const rules = {};
      for (const resource of resources) rules[resource] = { ...NONE };
      // Rules naming what the listing does not (a plural alias, a disabled plugin's resource) are kept.
      for (const rule of data) rules[rule.resource] = Object.fromEntries(METHODS.map(([flag]) => [flag, Boolean(rule[flag])]));
      setGrid(rules);
    }, setError);
  }, [apiKey.id]);
  const names = useMemo(() => (grid ? Object.keys(grid).sort() : []), [grid]);
  const shown = names.filter((name) => name.toLowerCase().includes(filter.trim().toLowerCase()));
  if (!grid) return html`<section><${ErrorBox} error=${error} /><p>${t('common.loading')}</p></section>`;

  const set = (changes) => {
    setNotice('');
    setGrid((previous) => {
      const next = { ...previous };
      for (const [resource, flag, value] of changes) next[resource] = { ...next[resource], [flag]: value };
      return next;
    });
  };
  // `rules.3.resource` names the fourth rule sent: shown by its resource.
  const ruleOf = (field) => {
    const index = /^rules\.(\d+)/.exec(field)?.[1];
    return index === undefined ? undefined : sent[Number(index)]?.resource;
  };
  const rowAll = (resource) => METHODS.every(([flag]) => grid[resource][flag]);
  const columnAll = (flag) => shown.length > 0 && shown.every((resource) => grid[resource][flag]);
  const save = async () => {
    setError(null);
    const rules = names.filter((resource) => METHODS.some(([flag]) => grid[resource][flag])).map((resource) => ({ resource, ...grid[resource] }));
    setSent(rules);
    try {
      const { data } = await api('PUT', apiPath(['apikey', apiKey.id, 'rules']), { rules });
      setNotice(t('rules.saved', { count: recordOf(data).length }));
    } catch (failure) {
      setError(failure);
    }
  };
  return html`<section class="rules" aria-labelledby="rules-title">
    <h2 id="rules-title" tabindex="-1" ref=${heading}>${t('rules.title', { id: apiKey.id, description: apiKey.description || '' })}</h2>
    <p>${t('rules.help')}</p>
    <div class="field">
      <label for="rules-filter">${t('rules.filter')}</label>
      <input id="rules-filter" type="search" value=${filter} onInput=${(event) => setFilter(event.target.value)} />
    </div>
    <div class="grid-scroll">
      <table class="rules-grid">
        <caption>${t('rules.caption')}</caption>
        <thead>
          <tr>
            <th scope="col">${t('rules.resource')}</th>
            ${METHODS.map(([, method]) => html`<th scope="col">${method}</th>`)}
            <th scope="col">${t('rules.all')}</th>
          </tr>
          <tr>
            <th scope="row">${t('rules.all-rows')}</th>
            ${METHODS.map(([flag, method]) => html`<td><input type="checkbox" aria-label=${t('rules.all-column', { method })} checked=${columnAll(flag)} onChange=${(event) => set(shown.map((resource) => [resource, flag, event.target.checked]))} /></td>`)}
            <td></td>
          </tr>
        </thead>
        <tbody>
          ${shown.map((resource) => html`<tr>
            <th scope="row"><code>${resource}</code></th>
            ${METHODS.map(([flag, method]) => html`<td><input type="checkbox" aria-label=${`${resource} ${method}`} data-rule=${`${resource}:${method}`} checked=${grid[resource][flag]} onChange=${(event) => set([[resource, flag, event.target.checked]])} /></td>`)}
            <td><input type="checkbox" aria-label=${t('rules.all-row', { resource })} checked=${rowAll(resource)} onChange=${(event) => set(METHODS.map(([flag]) => [resource, flag, event.target.checked]))} /></td>
          </tr>`)}
        </tbody>
      </table>
    </div>
    <${ErrorBox} error=${error} />
    ${Object.entries(error?.fields || {}).map(([field, reason]) => html`<p class="field-error">${ruleOf(field) ?? field}: ${t(`reason.${reason}`, {}, reason)}</p>`)}
    <div class="actions">
      <button type="button" onClick=${save}>${t('rules.save')}</button>
      <button type="button" onClick=${onClose}>${t('common.close')}</button>
    </div>
    <${Notice} text=${notice} />
  </section>`;
}
