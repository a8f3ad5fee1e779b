// Plugins: the installed ones, enabled or not, switched with the API's requirement errors shown.
import { html, useEffect, useState } from '../lib.js';
import { api, apiPath } from '../api.js';
import { t } from '../i18n.js';
import { cell, ErrorBox, Notice } from '../ui.js';

/** The API's refusal in words: the plugins missing, or the ones that still need this one. */
function refusal(error) {
  const body = error?.body || {};
  if (body.missing?.length) return t('plugins.missing', { names: body.missing.join(', ') });
  if (body.by?.length) return t('plugins.required-by', { names: body.by.join(', ') });
  return '';
}

export function Plugins({ refreshAccess }) {
  const [plugins, setPlugins] = useState(null);
  const [error, setError] = useState(null);
  const [notice, setNotice] = useState('');
  const [version, setVersion] = useState(0);
  useEffect(() => {
    api('GET', apiPath('plugins', { 'sort[name]': 'ASC' })).then(({ data }) => setPlugins(data), setError);
  }, [version]);
  const toggle = async (plugin) => {
    setError(null);
    setNotice('');
    try {
      await api('POST', apiPath(['plugins', plugin.name, plugin.enabled ? 'disable' : 'enable']));
      setNotice(t(plugin.enabled ? 'plugins.disabled' : 'plugins.enabled', { name: plugin.name }));
      setVersion((value) => value + 1);
      // A plugin brings or takes resources (webhooks): the menu follows.
      refreshAccess();
    } catch (failure) {
      setError(failure);
    }
  };
  return html`<h1>${t('menu.plugins')}</h1>
    <${ErrorBox} error=${error} />
    ${error && refusal(error) && html`<p class="error">${refusal(error)}</p>`}
    <${Notice} text=${notice} />
    <table>
      <caption>${t('plugins.caption')}</caption>
      <thead><tr><th scope="col">${t('plugins.name')}</th><th scope="col">${t('plugins.description')}</th><th scope="col">${t('plugins.version')}</th>
        <th scope="col">${t('plugins.require')}</th><th scope="col">${t('plugins.state')}</th><th scope="col">${t('common.actions')}</th></tr></thead>
      <tbody>
        ${(plugins || []).map((plugin) => html`<tr data-plugin=${plugin.name}>
          <td><code>${plugin.name}</code></td><td>${cell(plugin.description)}</td><td>${plugin.version}</td><td>${plugin.require.join(', ') || '—'}</td>
          <td>${plugin.enabled ? t('plugins.on') : t('plugins.off')}${plugin.compatible ? '' : ` (${t('plugins.incompatible')})`}</td>
          <td><button type="button" aria-label=${t(plugin.enabled ? 'plugins.disable-n' : 'plugins.enable-n', { name: plugin.name })} onClick=${() => toggle(plugin)}>${t(plugin.enabled ? 'plugins.disable' : 'plugins.enable')}</button></td>
        </tr>`)}
      </tbody>
    </table>`;
}
