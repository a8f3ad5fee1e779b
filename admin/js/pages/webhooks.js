// Webhooks (the `webhooks` plugin): endpoints, and deliveries with their status and attempts,
// each failed one sent again on demand.
import { html, useEffect, useState } from '../lib.js';
import { api, apiPath, listAll } from '../api.js';
import { useListPage } from '../list-page.js';
import { t } from '../i18n.js';
import { cell, ErrorBox, Notice, Pager } from '../ui.js';

const PAGE = 25;

export function Webhooks() {
  const [hooks, setHooks] = useState([]);
  const [offset, setOffset] = useState(0);
  const [notice, setNotice] = useState('');
  const [version, setVersion] = useState(0);
  const { rows: deliveries, total, error, setError } = useListPage('webhookdelivery', { 'sort[id]': 'DESC', limit: PAGE, offset }, version);
  useEffect(() => {
    let live = true;
    listAll('webhook', { 'sort[id]': 'ASC' }).then((rows) => live && setHooks(rows), (failure) => live && setError(failure));
    return () => {
      live = false;
    };
  }, [version]);
  const resend = async (delivery) => {
    setError(null);
    try {
      await api('POST', apiPath(['webhookdelivery', delivery.id, 'resend']));
      setNotice(t('webhooks.resent', { id: delivery.id }));
      setVersion((value) => value + 1);
    } catch (failure) {
      setError(failure);
    }
  };
  return html`<h1>${t('menu.webhooks')}</h1>
    <${ErrorBox} error=${error} />
    <${Notice} text=${notice} />
    <table>
      <caption>${t('webhooks.endpoints')}</caption>
      <thead><tr><th scope="col">${t('keys.id')}</th><th scope="col">${t('webhooks.url')}</th><th scope="col">${t('webhooks.events')}</th><th scope="col">${t('keys.enabled')}</th><th scope="col">${t('keys.description')}</th></tr></thead>
      <tbody>${hooks.map((hook) => html`<tr><td>${hook.id}</td><td><code>${hook.url}</code></td><td>${cell(hook.events)}</td><td>${cell(hook.enabled)}</td><td>${cell(hook.description)}</td></tr>`)}</tbody>
    </table>
    <table>
      <caption>${t('webhooks.deliveries')}</caption>
      <thead><tr><th scope="col">${t('keys.id')}</th><th scope="col">${t('webhooks.webhook')}</th><th scope="col">${t('webhooks.event')}</th><th scope="col">${t('webhooks.status')}</th>
        <th scope="col" class="number">${t('webhooks.attempts')}</th><th scope="col">${t('webhooks.response')}</th><th scope="col">${t('webhooks.nexttry')}</th><th scope="col">${t('common.actions')}</th></tr></thead>
      <tbody>${deliveries.map((delivery) => html`<tr>
        <td>${delivery.id}</td><td>${delivery.idwebhook}</td><td><code>${delivery.eventtype}</code> #${delivery.eventid}</td><td>${t(`webhooks.status-${delivery.status}`, {}, delivery.status)}</td>
        <td class="number">${delivery.attempts}</td><td>${cell(delivery.responsecode)} ${delivery.lasterror ? html`<span class="muted">${delivery.lasterror}</span>` : ''}</td><td>${cell(delivery.nexttry)}</td>
        <td><button type="button" aria-label=${t('webhooks.resend-n', { id: delivery.id })} onClick=${() => resend(delivery)}>${t('webhooks.resend')}</button></td>
      </tr>`)}</tbody>
    </table>
    <${Pager} offset=${offset} limit=${PAGE} total=${total} onChange=${setOffset} />`;
}
