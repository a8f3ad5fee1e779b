// Documents: the eight types with the usual filters (code, party, dates, paid), a sort and paging.
import { html, useState } from '../lib.js';
import { useListPage } from '../list-page.js';
import { t } from '../i18n.js';
import { DOCUMENT_TYPES, documentTypeOf } from '../documents.js';
import { cell, ErrorBox, money, Pager } from '../ui.js';

const PAGE = 25;
const SORTS = ['fecha:DESC', 'fecha:ASC', 'codigo:ASC', 'codigo:DESC', 'total:DESC', 'total:ASC'];

export function Documents({ type: requested, access }) {
  const types = DOCUMENT_TYPES.filter((type) => access.readable.has(type.resource));
  const type = documentTypeOf(requested) && access.readable.has(requested) ? documentTypeOf(requested) : types[0];
  const [filters, setFilters] = useState({ codigo: '', party: '', from: '', to: '', pagada: '' });
  const [applied, setApplied] = useState(filters);
  const [sort, setSort] = useState(SORTS[0]);
  const [offset, setOffset] = useState(0);
  const [field, direction] = sort.split(':');
  const query = { limit: PAGE, offset, [`sort[${field}]`]: direction };
  if (applied.codigo) query['filter[codigo_like]'] = applied.codigo;
  if (type && applied.party) query[`filter[${type.party}]`] = applied.party;
  if (applied.from) query['filter[fecha_gte]'] = applied.from;
  if (applied.to) query['filter[fecha_lte]'] = applied.to;
  if (type?.invoice && applied.pagada) query['filter[pagada]'] = applied.pagada;
  const { rows, total, error } = useListPage(type?.resource, query);
  if (!type) return html`<h1>${t('menu.documents')}</h1><p>${t('documents.none-readable')}</p>`;
  const edit = (name) => (event) => setFilters({ ...filters, [name]: event.target.value });
  const apply = (event) => {
    event.preventDefault();
    setOffset(0);
    setApplied(filters);
  };
  return html`<h1>${t('menu.documents')}</h1>
    <div class="field">
      <label for="document-type">${t('documents.type')}</label>
      <select id="document-type" value=${type.resource} onChange=${(event) => { setOffset(0); location.hash = `#/documents/${event.target.value}`; }}>
        ${types.map((option) => html`<option value=${option.resource}>${t(`doctype.${option.resource}`)}</option>`)}
      </select>
    </div>
    <form class="filters" onSubmit=${apply} aria-label=${t('documents.filters')}>
      <div class="field"><label for="filter-codigo">${t('documents.codigo')}</label><input id="filter-codigo" value=${filters.codigo} onInput=${edit('codigo')} /></div>
      <div class="field"><label for="filter-party">${t(`documents.${type.party}`)}</label><input id="filter-party" value=${filters.party} onInput=${edit('party')} /></div>
      <div class="field"><label for="filter-from">${t('documents.from')}</label><input id="filter-from" type="date" value=${filters.from} onInput=${edit('from')} /></div>
      <div class="field"><label for="filter-to">${t('documents.to')}</label><input id="filter-to" type="date" value=${filters.to} onInput=${edit('to')} /></div>
      ${type.invoice && html`<div class="field"><label for="filter-pagada">${t('documents.pagada')}</label>
        <select id="filter-pagada" value=${filters.pagada} onChange=${edit('pagada')}>
          <option value="">${t('documents.any')}</option><option value="true">${t('common.yes')}</option><option value="false">${t('common.no')}</option>
        </select></div>`}
      <div class="field"><label for="document-sort">${t('documents.sort')}</label>
        <select id="document-sort" value=${sort} onChange=${(event) => { setOffset(0); setSort(event.target.value); }}>
          ${SORTS.map((option) => html`<option value=${option}>${t(`sort.${option}`)}</option>`)}
        </select></div>
      <button type="submit">${t('documents.apply')}</button>
    </form>
    <${ErrorBox} error=${error} />
    <table>
      <caption>${t(`doctype.${type.resource}`)}</caption>
      <thead><tr>
        <th scope="col">${t('documents.codigo')}</th><th scope="col">${t('documents.fecha')}</th><th scope="col">${t(`documents.${type.party}`)}</th>
        <th scope="col">${t('documents.name')}</th><th scope="col" class="number">${t('documents.total')}</th>
        ${type.invoice && html`<th scope="col">${t('documents.pagada')}</th>`}
      </tr></thead>
      <tbody>
        ${rows.map((row) => html`<tr data-document=${row[type.key]}>
          <td><a href=${`#/documents/${type.resource}/${encodeURIComponent(row[type.key])}`}>${cell(row.codigo)}</a></td>
          <td>${cell(row.fecha)}</td><td>${cell(row[type.party])}</td><td>${cell(row[type.partyName])}</td>
          <td class="number">${money(row.total)} ${row.coddivisa || ''}</td>
          ${type.invoice && html`<td>${cell(row.pagada)}</td>`}
        </tr>`)}
      </tbody>
    </table>
    <${Pager} offset=${offset} limit=${PAGE} total=${total} onChange=${setOffset} />`;
}
