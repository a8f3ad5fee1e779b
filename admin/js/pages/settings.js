// Settings: a form built from the `default` group's schema (the OpenAPI component
// `settings.default`), with the API's field errors beside their fields; and the API switch.
import { html, useEffect, useState } from '../lib.js';
import { api, apiDescription, apiPath } from '../api.js';
import { useSettingsGroup } from '../settings-group.js';
import { t } from '../i18n.js';
import { Confirm, ErrorBox, FieldError, Notice } from '../ui.js';

/** Without the OpenAPI document (no rule for it), the form follows the values' own types. */
function schemaFromValues(values) {
  const properties = {};
  for (const [name, value] of Object.entries(values)) properties[name] = { type: [typeof value === 'boolean' ? 'boolean' : Number.isInteger(value) ? 'integer' : 'string', 'null'] };
  return { properties };
}

const typeOf = (schema) => [].concat(schema.type).find((type) => type !== 'null');

function SettingField({ name, schema, value, reason, onChange }) {
  const id = `setting-${name}`;
  const errorId = `${id}-error`;
  const label = t(`setting.${name}`, {}, name);
  const type = typeOf(schema);
  const described = reason ? errorId : undefined;
  let control;
  if (type === 'boolean') {
    control = html`<input id=${id} type="checkbox" checked=${value === true} aria-describedby=${described} aria-invalid=${reason ? 'true' : undefined} onChange=${(event) => onChange(event.target.checked)} />`;
    return html`<div class="field check">${control}<label for=${id}>${label} <code>${name}</code></label><${FieldError} id=${errorId} reason=${reason} /></div>`;
  }
  if (schema.enum) {
    control = html`<select id=${id} value=${value ?? ''} aria-describedby=${described} aria-invalid=${reason ? 'true' : undefined} onChange=${(event) => onChange(event.target.value)}>
      ${schema.enum.filter((option) => option !== null).map((option) => html`<option value=${option}>${option}</option>`)}
    </select>`;
  } else {
    control = html`<input id=${id} type=${type === 'integer' ? 'number' : 'text'} value=${value ?? ''} maxlength=${schema.maxLength} min=${schema.minimum} max=${schema.maximum}
      aria-describedby=${described} aria-invalid=${reason ? 'true' : undefined} onInput=${(event) => onChange(type === 'integer' && event.target.value !== '' && /^-?\d+$/.test(event.target.value) ? Number(event.target.value) : event.target.value)} />`;
  }
  return html`<div class="field"><label for=${id}>${label} <code>${name}</code></label>${control}<${FieldError} id=${errorId} reason=${reason} /></div>`;
}

export function Settings({ access }) {
  const { stored, edits, value, edit, save, error, setError, notice } = useSettingsGroup('default');
  const [schema, setSchema] = useState(null);
  const [confirmOff, setConfirmOff] = useState(false);
  const [switchedOff, setSwitchedOff] = useState(false);
  useEffect(() => {
    if (access.readable.has('openapi')) apiDescription().then((description) => setSchema(description.components?.schemas?.['settings.default'] || null), () => setSchema(null));
  }, []);
  if (!stored) return html`<h1>${t('menu.settings')}</h1><${ErrorBox} error=${error} />`;
  const form = schema || schemaFromValues(stored);
  const names = Object.keys(form.properties).filter((name) => name !== 'enable_api');
  const switchOff = async () => {
    setConfirmOff(false);
    try {
      await api('PUT', apiPath(['settings', 'default']), { properties: { enable_api: false } });
      setSwitchedOff(true);
    } catch (failure) {
      setError(failure);
    }
  };
  const reasonOf = (name) => error?.fields?.[`properties.${name}`];
  return html`<h1>${t('menu.settings')}</h1>
    <section aria-labelledby="switch-title" class="switch">
      <h2 id="switch-title">${t('settings.switch')}</h2>
      ${switchedOff
        ? html`<p role="alert">${t('settings.switched-off')}</p><pre><code>npm run cli -- settings set enable_api true</code></pre>`
        : html`<p>${t('settings.switch-on')}</p><button type="button" class="danger" onClick=${() => setConfirmOff(true)}>${t('settings.turn-off')}</button>`}
    </section>
    <form onSubmit=${save} aria-labelledby="settings-title" novalidate>
      <h2 id="settings-title">${t('settings.form')}</h2>
      ${names.map((name) => html`<${SettingField} name=${name} schema=${form.properties[name]} value=${value(name)} reason=${reasonOf(name)} onChange=${(next) => edit(name, next)} />`)}
      <${ErrorBox} error=${error} />
      <button type="submit" disabled=${!Object.keys(edits).length}>${t('common.save')}</button>
      <${Notice} text=${notice} />
    </form>
    <${Confirm} open=${confirmOff} title=${t('settings.off-title')} confirmLabel=${t('settings.turn-off')} onConfirm=${switchOff} onCancel=${() => setConfirmOff(false)}>
      <p>${t('settings.off-text')}</p>
      <pre><code>npm run cli -- settings set enable_api true</code></pre>
    <//>`;
}
