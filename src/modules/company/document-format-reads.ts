import type { DbExecutor } from '../../db/database.ts';
import { rowReader } from '../../db/row-codec.ts';
import { formatoDocumentoModel } from './document-format-model.ts';

const read = rowReader(formatoDocumentoModel);

/**
 * The print format a document gets without asking (the reference's `autoaplicar` formats): of its
 * document type (or any type), its serie (or any serie) and its company (or any company), the
 * most specific first; ties go to the lowest id. Undefined when none applies.
 */
export async function automaticFormat(db: DbExecutor, document: { tipodoc: string; codserie: string; idempresa: number | null }): Promise<Record<string, unknown> | undefined> {
  const rows = (await db.selectFrom('formatos_documentos').selectAll().execute()).map(read);
  const fits = (value: unknown, wanted: unknown) => value === null || value === undefined || value === '' || value === wanted;
  const specificity = (row: Record<string, unknown>) => [row.tipodoc, row.codserie, row.idempresa].filter((value) => value !== null && value !== undefined && value !== '').length;
  return rows
    .filter((row) => row.autoaplicar === true && fits(row.tipodoc, document.tipodoc) && fits(row.codserie, document.codserie) && fits(row.idempresa, document.idempresa))
    .sort((a, b) => specificity(b) - specificity(a) || Number(a.id) - Number(b.id))[0];
}
