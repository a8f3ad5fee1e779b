// Bank statements: import a Norma 43 or camt.053 file (its movements stored once), see the
// movements not reconciled yet with what each could pay, and confirm the best proposal.
import { html, useState } from '../lib.js';
import { api, apiPath } from '../api.js';
import { useListPage } from '../list-page.js';
import { t } from '../i18n.js';
import { attempt, cell, ErrorBox, FieldError, money, Notice, Pager } from '../ui.js';

const PAGE = 25;

/** What a proposal settles, in words: the remittance, transfer order or receipts, and its score. */
function proposalText(proposal) {
  if (!proposal) return t('statements.no-proposal');
  const what = proposal.idremesa ? t('statements.proposal-remesa', { id: proposal.idremesa })
    : proposal.idtransferencia ? t('statements.proposal-transferencia', { id: proposal.idtransferencia })
      : t(`statements.proposal-${proposal.tipo}`, { ids: (proposal.idrecibos || []).join(', ') });
  return t('statements.proposal', { what, score: proposal.puntuacion });
}

export function Statements() {
  const [file, setFile] = useState(null);
  const [offset, setOffset] = useState(0);
  const [version, setVersion] = useState(0);
  const [notice, setNotice] = useState('');
  const { rows, total, error, setError } = useListPage('movimientobanco', { 'filter[conciliado]': 'false', 'sort[fecha]': 'ASC', 'sort[idmovimiento]': 'ASC', limit: PAGE, offset }, version);
  const run = attempt(setError, setNotice);
  const upload = (event) => {
    event.preventDefault();
    return run(async () => {
      const form = new FormData();
      if (file) form.append('file', file, file.name);
      const { data } = await api('POST', apiPath(['importarExtractoBancario']), form);
      setNotice(t('statements.imported', { nuevos: data.nuevos, repetidos: data.repetidos }));
      setVersion((value) => value + 1);
    });
  };
  const confirm = (row) => run(async () => {
    const { data } = await api('POST', apiPath(['conciliarMovimiento', row.idmovimiento]), {});
    setNotice(t('statements.reconciled', { id: row.idmovimiento, count: (data.recibos || []).length }));
    setVersion((value) => value + 1);
  });
  const reason = error?.fields?.file || error?.fields?.contenido;
  const where = error?.body?.linea ? t('statements.where', { linea: error.body.linea, cuenta: error.body.cuenta || '' }) : '';
  return html`<h1>${t('menu.statements')}</h1>
    <form onSubmit=${upload} aria-labelledby="import-title" novalidate>
      <h2 id="import-title">${t('statements.import')}</h2>
      <div class="field"><label for="statement-file">${t('statements.file')}</label>
        <input id="statement-file" type="file" accept=".n43,.txt,.aeb,.csb,.xml,text/plain,application/xml" onChange=${(event) => setFile(event.target.files[0] || null)} aria-describedby="statement-file-error" />
        <${FieldError} id="statement-file-error" reason=${reason && `${reason}${where ? ` (${where})` : ''}`} /></div>
      <button type="submit">${t('statements.import-now')}</button>
    </form>
    <${ErrorBox} error=${error} />
    <${Notice} text=${notice} />
    <table>
      <caption>${t('statements.pending')}</caption>
      <thead><tr><th scope="col">${t('keys.id')}</th><th scope="col">${t('remittances.account')}</th><th scope="col">${t('statements.date')}</th><th scope="col">${t('statements.text')}</th>
        <th scope="col" class="number">${t('statements.amount')}</th><th scope="col">${t('statements.best')}</th><th scope="col">${t('common.actions')}</th></tr></thead>
      <tbody>${rows.map((row) => html`<tr data-movement=${row.idmovimiento}>
        <td>${row.idmovimiento}</td><td>${row.codcuenta}</td><td>${cell(row.fechavalor)}</td><td>${row.texto}</td><td class="number">${money(row.importe)}</td>
        <td>${proposalText((row.propuestas || [])[0])}</td>
        <td>${(row.propuestas || []).length > 0 && html`<button type="button" aria-label=${t('statements.confirm-n', { id: row.idmovimiento })} onClick=${() => confirm(row)}>${t('statements.confirm')}</button>`}</td>
      </tr>`)}</tbody>
    </table>
    <${Pager} offset=${offset} limit=${PAGE} total=${total} onChange=${setOffset} />`;
}
