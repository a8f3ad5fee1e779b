import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { AppError } from '../../errors.ts';
import { hookPoint } from '../../hooks.ts';
import type { DocumentType } from '../documents/index.ts';
import type { DocumentFile } from './document-file.ts';
import type { ExportView } from './export-view.ts';

/**
 * What a later module adds to an e-invoice before it leaves (src/hooks.ts): the public body's DIR3
 * centres in a Facturae, and its XAdES signature when `sign` is asked (FACe). A handler changes
 * `document.xml` in place, in module order; one that signed answers `'signed'`, and nothing may
 * change the document after a signature.
 */
export interface EinvoiceFinishing {
  db: DbExecutor;
  type: DocumentType;
  view: ExportView;
  /** The canonical export type (`FACTURAE`, `UBL`, `CII`). */
  exportType: string;
  document: { xml: string };
  sign: boolean;
}

export const einvoiceFinishing = hookPoint<EinvoiceFinishing, 'signed'>('export.einvoiceFinishing');

/** The e-invoice types a module may finish, and those it may sign. */
const FINISHED = new Set(['FACTURAE', 'UBL', 'CII']);
const SIGNABLE = new Set(['FACTURAE']);

/**
 * A rendered e-invoice finished by the modules that take part (unchanged for other types, and when
 * none does). Signed (`.xsig`, the name FACe asks for) when `sign`: 400 `export-type-unavailable`
 * for a type or a document nothing signs; a signer's own refusal (422, no certificate) as it is.
 */
export async function finishedFile(ctx: AppContext, type: DocumentType, view: ExportView, exportType: string, file: DocumentFile, sign: boolean): Promise<DocumentFile> {
  if (sign && !SIGNABLE.has(exportType)) throw new AppError('export-type-unavailable', { type: exportType, signed: [...SIGNABLE] });
  if (!FINISHED.has(exportType)) return file;
  const document = { xml: file.content.toString('utf8') };
  const answers = await ctx.hooks.run(einvoiceFinishing, { db: ctx.database.kysely, type, view, exportType, document, sign });
  if (sign && !answers.includes('signed')) throw new AppError('export-type-unavailable', { type: exportType, signed: [] });
  return {
    filename: sign ? file.filename.replace(/\.xml$/, '.xsig') : file.filename,
    contentType: file.contentType,
    content: Buffer.from(document.xml, 'utf8'),
  };
}
