// Overview: the API switch, counts, recent events, version and health, each shown when the key
// may read what it comes from.
import { html, useEffect, useState } from '../lib.js';
import { api, apiDescription, apiPath } from '../api.js';
import { t } from '../i18n.js';
import { DOCUMENT_TYPES } from '../documents.js';
import { cell, ErrorBox } from '../ui.js';

const totalOf = async (resource, query = {}) => (await api('GET', apiPath(resource, { limit: 1, ...query }))).total;

export function Overview({ access }) {
  const [facts, setFacts] = useState({});
  const [error, setError] = useState(null);
  const readable = (resource) => access.readable.has(resource);
  useEffect(() => {
    let live = true;
    const set = (name) => (value) => live && setFacts((previous) => ({ ...previous, [name]: value }));
    const fail = (failure) => live && setError(failure);
    api('GET', '/ready').then(({ data }) => set('health')(data.status), (failure) => set('health')(failure.body?.reason || 'unavailable'));
    if (readable('cliente')) totalOf('cliente').then(set('customers'), fail);
    const documents = DOCUMENT_TYPES.filter((type) => readable(type.resource));
    Promise.all(documents.map((type) => totalOf(type.resource))).then((totals) => set('documents')(documents.length ? totals.reduce((sum, total) => sum + total, 0) : undefined), fail);
    if (readable('facturacliente')) totalOf('facturacliente', { 'filter[pagada]': 'false' }).then(set('unpaid'), fail);
    if (readable('events')) api('GET', apiPath('events', { latest: 10 })).then(({ data }) => set('events')(data.events.reverse()), fail);
    if (readable('openapi')) apiDescription().then((description) => set('version')(description.info?.version), fail);
    return () => {
      live = false;
    };
  }, [access]);
  const fact = (name, value) => html`<div class="fact"><dt>${t(`overview.${name}`)}</dt><dd data-fact=${name}>${value === undefined ? '…' : value}</dd></div>`;
  // The API switch needs no request: switched off, the API would have refused every one of this page's.
  return html`<h1>${t('menu.overview')}</h1>
    <${ErrorBox} error=${error} />
    <dl class="facts">
      ${fact('api', t('overview.api-on'))}
      ${fact('health', facts.health && t(`overview.health-${facts.health}`, {}, facts.health))}
      ${readable('cliente') && fact('customers', facts.customers)}
      ${DOCUMENT_TYPES.some((type) => readable(type.resource)) && fact('documents', facts.documents)}
      ${readable('facturacliente') && fact('unpaid', facts.unpaid)}
      ${readable('openapi') && fact('version', facts.version)}
    </dl>
    ${readable('events') &&
    html`<section aria-labelledby="recent-events">
      <h2 id="recent-events">${t('overview.recent')}</h2>
      ${facts.events && facts.events.length === 0 && html`<p>${t('events.none')}</p>`}
      <ul class="events">
        ${(facts.events || []).map((event) => html`<li><time datetime=${event.created}>${new Date(event.created).toLocaleString(document.documentElement.lang)}</time> <code>${event.type}</code> ${cell(event.resource)} ${event.key ?? ''}</li>`)}
      </ul>
    </section>`}`;
}
