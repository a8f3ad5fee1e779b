// What the fiscal systems' pages (VERI*FACTU, TicketBAI) share: every company with its stored
// switch, a switch's form that follows what is stored, a choice shown with the API's reason beside
// it, the records' company filter, and a record's XML downloaded as the API gives it.
import { html, useEffect, useRef, useState } from './lib.js';
import { api, apiPath, download, fileNameOf, listAll } from './api.js';
import { FieldError } from './ui.js';

/** Every company (by id) and its stored switch of `resource` (a Map by idempresa), read again on `reload`. */
export function useCompanySwitches(resource) {
  const [companies, setCompanies] = useState(null);
  const [switches, setSwitches] = useState(new Map());
  const [error, setError] = useState(null);
  const [version, setVersion] = useState(0);
  useEffect(() => {
    let live = true;
    Promise.all([listAll('empresa', { 'sort[idempresa]': 'ASC' }), listAll(resource)]).then(
      ([rows, stored]) => {
        if (!live) return;
        setCompanies(rows);
        setSwitches(new Map(stored.map((row) => [row.idempresa, row])));
      },
      (failure) => live && setError(failure),
    );
    return () => {
      live = false;
    };
  }, [resource, version]);
  return { companies, switches, error, version, reload: () => setVersion((value) => value + 1) };
}

/**
 * A switch's form: the values `formOf(stored)` gives, the latest of them kept for a save clicked
 * before the next render (`latest.current`), following the stored switch when it changes (saved,
 * or loaded). Not on mount, where the form already holds it: an effect runs after paint and would
 * undo a choice made meanwhile. `storedKey` changes with what is stored.
 */
export function useSwitchForm(stored, formOf) {
  const [form, setFormState] = useState(() => formOf(stored));
  const latest = useRef(form);
  const setForm = (next) => {
    latest.current = next;
    setFormState(next);
  };
  const storedKey = JSON.stringify(formOf(stored));
  const shown = useRef(storedKey);
  useEffect(() => {
    if (shown.current === storedKey) return;
    shown.current = storedKey;
    setForm(formOf(stored));
  }, [storedKey]);
  return { form, latest, storedKey, change: (name, value) => setForm({ ...latest.current, [name]: value }) };
}

/** A choice among fixed values (each shown as `labelOf` says), with the API's reason beside it, tied by aria-describedby. */
export function SelectField({ id, label, value, values, labelOf, reason, onChange }) {
  return html`<div class="field">
    <label for=${id}>${label}</label>
    <select id=${id} value=${value} aria-describedby=${reason ? `${id}-error` : undefined} onChange=${(event) => onChange(event.target.value)}>
      ${values.map((option) => html`<option value=${option}>${labelOf(option)}</option>`)}
    </select>
    <${FieldError} id=${`${id}-error`} reason=${reason} />
  </div>`;
}

/** The records' filter by company: every company, or one. */
export function CompanyFilter({ id, label, allLabel, companies, value, onChange }) {
  return html`<div class="filters">
    <div class="field">
      <label for=${id}>${label}</label>
      <select id=${id} value=${value} onChange=${(event) => onChange(event.target.value)}>
        <option value="">${allLabel}</option>
        ${companies.map((row) => html`<option value=${row.idempresa}>${row.nombre}</option>`)}
      </select>
    </div>
  </div>`;
}

/** A record's XML (`GET /api/3/{resource}/{id}/xml`), downloaded under the name the API gives it. */
export async function downloadXml(resource, id, fallback) {
  const { data, response } = await api('GET', apiPath([resource, id, 'xml']));
  download(data, fileNameOf(response, fallback));
}
