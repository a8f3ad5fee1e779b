// E-mail: the installation's SMTP settings (the `email` settings group; the password is written,
// never shown) with a test button (`probarEmail`), and the outbox (`emailsent`) with each message's
// state, attempts and the server's answer or the reason it failed.
import { html, useEffect, useState } from '../lib.js';
import { api, apiPath } from '../api.js';
import { useSettingsGroup } from '../settings-group.js';
import { useListPage } from '../list-page.js';
import { t } from '../i18n.js';
import { cell, ErrorBox, FieldError, Notice, Pager } from '../ui.js';

const PAGE = 25;
const FIELDS = [
  ['host', 'text'], ['port', 'number'], ['enc', 'select'], ['user', 'text'], ['password', 'password'], ['lowsecure', 'checkbox'],
  ['email', 'email'], ['fromname', 'text'], ['replyto', 'email'], ['bcc', 'text'], ['reminderdays', 'text'],
];
// `enc` as the API stores it: empty is STARTTLS when the server offers it.
const SECURITY = ['', 'ssl', 'tls', 'none'];

function SmtpField({ name, kind, value, reason, onChange }) {
  const id = `smtp-${name}`;
  const errorId = `${id}-error`;
  const described = reason ? errorId : undefined;
  const label = t(`email.${name}`, {}, name);
  if (kind === 'checkbox') {
    return html`<div class="field check"><input id=${id} type="checkbox" checked=${value === true} aria-describedby=${described} onChange=${(event) => onChange(event.target.checked)} />
      <label for=${id}>${label} <code>${name}</code></label><${FieldError} id=${errorId} reason=${reason} /></div>`;
  }
  const control = kind === 'select'
    ? html`<select id=${id} value=${value ?? ''} aria-describedby=${described} onChange=${(event) => onChange(event.target.value)}>
        ${SECURITY.map((option) => html`<option value=${option}>${t(`email.enc-${option || 'auto'}`)}</option>`)}</select>`
    : html`<input id=${id} type=${kind} value=${value ?? ''} autocomplete=${kind === 'password' ? 'new-password' : 'off'} placeholder=${kind === 'password' ? t('email.password-kept') : ''}
        aria-describedby=${described} aria-invalid=${reason ? 'true' : undefined}
        onInput=${(event) => onChange(kind === 'number' && /^\d+$/.test(event.target.value) ? Number(event.target.value) : event.target.value)} />`;
  return html`<div class="field"><label for=${id}>${label} <code>${name}</code></label>${control}<${FieldError} id=${errorId} reason=${reason} /></div>`;
}

export function Email() {
  const { stored, edits, value, edit, save, error, setError, notice, setNotice } = useSettingsGroup('email', { mailer: 'smtp' });
  const [testTo, setTestTo] = useState('');
  const [offset, setOffset] = useState(0);
  const [version, setVersion] = useState(0);
  const { rows: messages, total, error: listError } = useListPage('emailsent', { 'sort[id]': 'DESC', limit: PAGE, offset }, version);
  if (!stored) return html`<h1>${t('menu.email')}</h1><${ErrorBox} error=${error} />`;
  const probe = async () => {
    setError(null);
    setNotice('');
    try {
      const { data } = await api('POST', apiPath(['probarEmail']), testTo ? { to: testTo } : {});
      setNotice(t('email.test-sent', { to: data.to, response: data.response }));
    } catch (failure) {
      setError(failure);
      if (failure.reason) setNotice(failure.reason);
    }
  };
  return html`<h1>${t('menu.email')}</h1>
    <form onSubmit=${save} aria-labelledby="smtp-title" novalidate>
      <h2 id="smtp-title">${t('email.settings')}</h2>
      ${FIELDS.map(([name, kind]) => html`<${SmtpField} name=${name} kind=${kind} value=${value(name)} reason=${error?.fields?.[`properties.${name}`]}
        onChange=${(next) => edit(name, next)} />`)}
      <${ErrorBox} error=${error} />
      <button type="submit" disabled=${!Object.keys(edits).length}>${t('common.save')}</button>
      <${Notice} text=${notice} />
    </form>
    <section aria-labelledby="probe-title">
      <h2 id="probe-title">${t('email.test')}</h2>
      <div class="field"><label for="probe-to">${t('email.test-to')}</label><input id="probe-to" type="email" value=${testTo} onInput=${(event) => setTestTo(event.target.value)} /></div>
      <button type="button" onClick=${probe}>${t('email.test-send')}</button>
    </section>
    <${ErrorBox} error=${listError} />
    <table>
      <caption>${t('email.outbox')}</caption>
      <thead><tr><th scope="col">${t('keys.id')}</th><th scope="col">${t('email.date')}</th><th scope="col">${t('email.to')}</th><th scope="col">${t('email.subject')}</th>
        <th scope="col">${t('email.state')}</th><th scope="col" class="number">${t('webhooks.attempts')}</th><th scope="col">${t('webhooks.response')}</th><th scope="col">${t('email.sent-at')}</th></tr></thead>
      <tbody>${messages.map((message) => html`<tr data-email=${message.id}>
        <td>${message.id}</td><td>${cell(message.date)}</td><td>${cell(message.destinatarios || message.addressee)}</td><td>${cell(message.subject)}</td>
        <td>${message.estado ? t(`email.state-${message.estado}`, {}, message.estado) : '—'}${message.posibleduplicado ? html` <span class="muted">${t('email.possible-duplicate')}</span>` : ''}</td>
        <td class="number">${cell(message.intentos)}</td><td>${cell(message.respuesta)} ${message.error ? html`<span class="muted">${message.error}</span>` : ''}</td><td>${cell(message.fechaenvio)}</td>
      </tr>`)}</tbody>
    </table>
    <${Pager} offset=${offset} limit=${PAGE} total=${total} onChange=${setOffset} />
    <p><button type="button" onClick=${() => setVersion((current) => current + 1)}>${t('email.refresh')}</button></p>`;
}

/**
 * A document's "send by e-mail" form: the recipient prefilled with the customer's or supplier's
 * address, the language, and what to attach; the message is queued (202) and its state shows on
 * the E-mail page.
 */
export function SendDocument({ type, doc, id, onError, onNotice }) {
  const [open, setOpen] = useState(false);
  const [to, setTo] = useState('');
  const [lang, setLang] = useState('');
  const [attach, setAttach] = useState(['PDF']);
  const [files, setFiles] = useState(false);
  const [reason, setReason] = useState(null);
  useEffect(() => {
    if (!open) return;
    const party = doc[type.party];
    api('GET', apiPath([type.party === 'codcliente' ? 'cliente' : 'proveedor', party])).then(({ data }) => {
      setTo((current) => current || data.email || '');
      setLang((current) => current || (data.langcode || '').slice(0, 2));
    }, () => {});
  }, [open]);
  if (!open) return html`<button type="button" onClick=${() => setOpen(true)}>${t('email.send')}</button>`;
  const kinds = type.invoice ? ['PDF', 'UBL', 'CII', 'FACTURAE'] : ['PDF'];
  const toggle = (kind) => setAttach((current) => (current.includes(kind) ? current.filter((item) => item !== kind) : [...current, kind]));
  const submit = async (event) => {
    event.preventDefault();
    onError(null);
    setReason(null);
    try {
      const { data } = await api('POST', apiPath([type.send, id]), { ...(to ? { to } : {}), ...(lang ? { lang } : {}), attach, attachfiles: files });
      onNotice(t('email.queued', { id: data.id, to: data.destinatarios }));
      setOpen(false);
    } catch (failure) {
      setReason(failure.fields || null);
      onError(failure);
    }
  };
  return html`<form class="send-document" onSubmit=${submit} aria-labelledby="send-title" novalidate>
    <h2 id="send-title">${t('email.send-title', { code: doc.codigo })}</h2>
    <div class="field"><label for="send-to">${t('email.to')}</label><input id="send-to" type="text" value=${to} aria-describedby=${reason?.to ? 'send-to-error' : undefined} onInput=${(event) => setTo(event.target.value)} />
      <${FieldError} id="send-to-error" reason=${reason?.to} /></div>
    <div class="field"><label for="send-lang">${t('email.lang')}</label><select id="send-lang" value=${lang} onChange=${(event) => setLang(event.target.value)}>
      <option value="">${t('email.lang-auto')}</option>${['es', 'en', 'ca', 'fr', 'de', 'it', 'pt'].map((code) => html`<option value=${code}>${code}</option>`)}</select></div>
    <fieldset><legend>${t('email.attach')}</legend>
      ${kinds.map((kind) => html`<div class="field check"><input id=${`send-${kind}`} type="checkbox" checked=${attach.includes(kind)} onChange=${() => toggle(kind)} /><label for=${`send-${kind}`}>${kind}</label></div>`)}
      <div class="field check"><input id="send-files" type="checkbox" checked=${files} onChange=${(event) => setFiles(event.target.checked)} /><label for="send-files">${t('email.attach-files')}</label></div>
    </fieldset>
    <button type="submit">${t('email.send-now')}</button> <button type="button" onClick=${() => setOpen(false)}>${t('common.cancel')}</button>
  </form>`;
}
