// FACe (the public sector's invoice hub) on a customer invoice's page: its last send (registry
// number, processing and cancellation states, history), whether it may be sent (again) or its
// cancellation asked for, and FACe's refusals worded with FACe's own code and text.
import { html, useEffect, useState } from '../lib.js';
import { api, apiPath } from '../api.js';
import { t } from '../i18n.js';
import { cell, errorText, TextField } from '../ui.js';

/** Processing states that end an invoice's life at FACe (paid, rejected, cancelled). */
const FINAL = ['2500', '2600', '3100'];
/** What a refused send names that is no field of the page: the customer's DIR3 centres, the company's e-mail and certificate, the attachments. */
const FACE_FIELDS = ['dir3', 'oficinacontable', 'organogestor', 'unidadtramitadora', 'email', 'certificado', 'anexos'];

/** No live send: none, or the last one failed, or FACe rejected or cancelled it (a paid one stays). */
export const canSend = (last) => !last || last.estado === 'fallida' || last.tramitacion === '2600' || last.tramitacion === '3100';
/** Registered, still moving, and no cancellation asked for or granted already. */
const canAskCancellation = (last) => last?.estado === 'registrada' && !FINAL.includes(last.tramitacion) && last.anulacion !== '4200' && last.anulacion !== '4300';

const processing = (code, name) => (code ? t(`face.tramitacion.${code}`, {}, name || code) : '—');
const cancellation = (code, name) => (code ? t(`face.anulacion.${code}`, {}, name || code) : '—');
const historyOf = (send) => (Array.isArray(send.historial) ? send.historial : typeof send.historial === 'string' ? JSON.parse(send.historial) : []);

/** An invoice's last send to FACe (`registroface`, newest first): undefined while read, null where the key may not read it, false for none. */
export function useLastFaceSend(idfactura, enabled, version) {
  // Kept with the invoice it is of: read again after an action, it stays shown meanwhile; another invoice's never shows.
  const [read, setRead] = useState({ idfactura: undefined, last: undefined });
  useEffect(() => {
    if (!enabled) return undefined;
    let live = true;
    const set = (last) => live && setRead({ idfactura, last });
    api('GET', apiPath('registroface', { 'filter[idfactura]': idfactura, 'sort[id]': 'DESC', limit: 1 })).then(({ data }) => set(data[0] ?? false), () => set(null));
    return () => {
      live = false;
    };
  }, [idfactura, enabled, version]);
  return enabled && read.idfactura === idfactura ? read.last : undefined;
}

/**
 * A FACe failure in words: what a send still lacks (the DIR3 centres, the company's e-mail or
 * certificate, the attachments), or FACe's own code and text, or why FACe could not be reached.
 */
export function faceErrorText(error) {
  const body = error?.body || {};
  const missing = Object.entries(error?.fields || {}).filter(([name]) => FACE_FIELDS.includes(name));
  // "Needed first" says what `required` would: other reasons are given.
  if (missing.length) return t('face.not-ready', { list: missing.map(([name, why]) => (why === 'required' ? t(`face.field.${name}`) : `${t(`face.field.${name}`)}: ${t(`reason.${why}`, {}, why)}`)).join('; ') });
  const text = errorText(error);
  if (body.codigo || body.descripcion) return `${text} ${t('face.answer', { codigo: body.codigo ?? '—', descripcion: body.descripcion ?? '' })}`;
  if (typeof body.reason === 'string') return `${text} (${body.reason})`;
  return text;
}

/** The FACe fact of the invoice's facts: not sent, being sent, failed, or its registry number and states. */
export function FaceFact({ last }) {
  if (last === undefined || last === null) return null;
  const state = !last ? t('face.not-sent')
    : last.estado !== 'registrada' ? t(`face.estado.${last.estado}`, {}, last.estado)
    : [processing(last.tramitacion, last.nombretramitacion), last.anulacion && last.anulacion !== '4100' ? cancellation(last.anulacion, last.nombreanulacion) : ''].filter(Boolean).join(' · ');
  return html`<div class="fact"><dt>FACe</dt><dd data-fact="face" data-state=${last ? last.estado : 'none'}>
    ${last?.numeroregistro && html`<code class="identifier">${last.numeroregistro}</code>`}
    <span class="state">${state}</span></dd></div>`;
}

/**
 * The last send in detail (dates, FACe's reasons, the error of a failed one), its history, and the
 * cancellation request: a reason (required, at most 255 characters) and the button, which asks
 * `onAsk('face-cancel', { motivo })` to confirm. `error` is the page's last failure (its `motivo` reason shown beside the field).
 */
export function FaceSection({ last, mayCancel, error, onAsk }) {
  const [motivo, setMotivo] = useState('');
  const [missing, setMissing] = useState(null);
  if (!last) return null;
  const history = historyOf(last);
  const ask = (event) => {
    event.preventDefault();
    const reason = motivo.trim();
    setMissing(reason ? null : 'required');
    if (reason) onAsk('face-cancel', { motivo: reason });
  };
  return html`<section aria-labelledby="face-title">
    <h2 id="face-title">FACe</h2>
    <dl class="facts">
      <div class="fact"><dt>${t('face.fechaenvio')}</dt><dd>${cell(last.fechaenvio)}</dd></div>
      <div class="fact"><dt>${t('face.fecharegistro')}</dt><dd>${cell(last.fecharegistro)}</dd></div>
    </dl>
    ${last.motivotramitacion && html`<p>${t('face.motivotramitacion')}: ${last.motivotramitacion}</p>`}
    ${last.motivoanulacion && html`<p>${t('face.motivoanulacion')}: ${last.motivoanulacion}</p>`}
    ${last.error && html`<p class="error" data-face-error>${t('face.failed', { error: last.error })}</p>`}
    ${history.length > 0 && html`<table>
      <caption>${t('face.history')}</caption>
      <thead><tr><th scope="col">${t('face.fecha')}</th><th scope="col">${t('face.tramitacion')}</th><th scope="col">${t('face.anulacion')}</th><th scope="col">${t('face.motivo')}</th></tr></thead>
      <tbody>${history.map((step) => html`<tr><td>${cell(step.fecha)}</td><td>${processing(step.tramitacion)}</td><td>${cancellation(step.anulacion)}</td><td>${cell(step.motivo)}</td></tr>`)}</tbody>
    </table>`}
    ${mayCancel && canAskCancellation(last) && html`<form class="inline-form" onSubmit=${ask} novalidate aria-label=${t('face.cancel')}>
      <${TextField} id="face-motivo" label=${t('face.cancel-reason')} value=${motivo} reason=${missing || error?.fields?.motivo}
        attributes=${{ maxlength: 255, required: true }} onChange=${setMotivo} />
      <button type="submit" class="danger">${t('face.cancel')}</button>
    </form>`}
  </section>`;
}
