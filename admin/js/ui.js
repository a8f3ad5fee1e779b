// Shared pieces of the console's pages: field errors beside their fields, a text field with its
// reason, the error banner, the pager, and a confirmation dialog built on <dialog> (keyboard and
// focus handled by the browser).
import { html, useEffect, useRef } from './lib.js';
import { t } from './i18n.js';

/** The text of an API error: its code translated when known, with the status. */
export function errorText(error) {
  if (!error) return '';
  const code = error.code || error.message || String(error);
  const known = t(`error.${code}`, {}, '');
  return known || (error.status ? `${code} (HTTP ${error.status})` : code);
}

/** An error banner read out by screen readers when it appears; `explain` words the error (errorText unless given). */
export function ErrorBox({ error, explain = errorText }) {
  if (!error) return null;
  return html`<p class="error" role="alert">${explain(error)}</p>`;
}

/** A status line read out politely (saved, copied ...). */
export function Notice({ text }) {
  return html`<p class="notice" role="status" aria-live="polite">${text || ''}</p>`;
}

/** A field's reason from a validation error, shown beside it and tied to it by aria-describedby. */
export function FieldError({ id, reason }) {
  if (!reason) return null;
  return html`<span class="field-error" id=${id}>${t(`reason.${reason}`, {}, reason)}</span>`;
}

/** A text field with the API's reason beside it, tied by aria-describedby; `attributes` go on the input (maxlength, autocomplete ...). */
export function TextField({ id, label, value, reason, onChange, attributes = {} }) {
  const errorId = `${id}-error`;
  return html`<div class="field">
    <label for=${id}>${label}</label>
    <input id=${id} value=${value} aria-describedby=${reason ? errorId : undefined} aria-invalid=${reason ? 'true' : undefined}
      onInput=${(event) => onChange(event.target.value)} ...${attributes} />
    <${FieldError} id=${errorId} reason=${reason} />
  </div>`;
}

/** Previous/next paging over X-Total-Count. */
export function Pager({ offset, limit, total, onChange }) {
  const last = Number.isFinite(total) ? total : offset + limit;
  return html`<nav class="pager" aria-label=${t('pager.label')}>
    <button type="button" disabled=${offset === 0} onClick=${() => onChange(Math.max(0, offset - limit))}>${t('pager.previous')}</button>
    <span>${t('pager.range', { from: total === 0 ? 0 : offset + 1, to: Math.min(offset + limit, last), total: Number.isFinite(total) ? total : '?' })}</span>
    <button type="button" disabled=${offset + limit >= last} onClick=${() => onChange(offset + limit)}>${t('pager.next')}</button>
  </nav>`;
}

/** A modal confirmation: open while `open`, answering onConfirm or onCancel (Escape cancels). */
export function Confirm({ open, title, children, confirmLabel, onConfirm, onCancel }) {
  const dialog = useRef(null);
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) element.showModal();
    if (!open && element.open) element.close();
  }, [open]);
  return html`<dialog ref=${dialog} aria-labelledby="confirm-title" onCancel=${(event) => { event.preventDefault(); onCancel(); }}>
    <h2 id="confirm-title">${title}</h2>
    ${children}
    <div class="actions">
      <button type="button" class="danger" onClick=${onConfirm}>${confirmLabel}</button>
      <button type="button" onClick=${onCancel}>${t('common.cancel')}</button>
    </div>
  </dialog>`;
}

/**
 * A page action's runner: clears the error (and the notice, when given), runs the action, and shows
 * its failure in the error banner instead of letting it escape. `onFailure` sees the failure first.
 */
export function attempt(setError, setNotice) {
  return async (action, onFailure) => {
    setError(null);
    setNotice?.('');
    try {
      return await action();
    } catch (failure) {
      onFailure?.(failure);
      setError(failure);
      return undefined;
    }
  };
}

/** A value for a table cell: booleans as yes/no, empty as a dash. */
export function cell(value) {
  if (value === null || value === undefined || value === '') return '—';
  if (value === true) return t('common.yes');
  if (value === false) return t('common.no');
  return String(value);
}

/** An amount as the browser's locale writes it, with two decimals (the API's amounts are already rounded). */
export function money(value) {
  const number = Number(value);
  return Number.isFinite(number) ? number.toLocaleString(document.documentElement.lang, { minimumFractionDigits: 2, maximumFractionDigits: 6 }) : cell(value);
}
