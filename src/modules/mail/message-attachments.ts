import type { AppContext } from '../../app-context.ts';
import { DOCUMENT_TYPES } from '../documents/index.ts';
import { documentView, finishedFile, renderDocumentFile } from '../export/index.ts';
import { attachedFileContent } from '../files/index.ts';

/** An attachment that can no longer be made (the document or a file is gone, or all together are too large): the message fails. */
export class MissingAttachment extends Error {}

export interface Attachment {
  filename: string;
  content: Buffer;
  contentType: string;
}

/**
 * The attachments of an outbox row (`adjuntar`), made now: the document's exports in the message's
 * language (a Facturae signed when `signed`), then its linked files. Together at most MAIL_MAX_ATTACHMENT_BYTES.
 */
export async function attachmentsOf(ctx: AppContext, row: Record<string, unknown>): Promise<Attachment[]> {
  const raw = row.adjuntar;
  const wanted = (typeof raw === 'string' ? JSON.parse(raw) : raw ?? {}) as { exports?: string[]; files?: number[]; signed?: boolean };
  const exports = wanted.exports ?? [];
  const files = wanted.files ?? [];
  if (!exports.length && !files.length) return [];
  const limit = ctx.config.mail.maxAttachmentBytes;
  const attachments: Attachment[] = [];
  if (exports.length) {
    const type = DOCUMENT_TYPES.find((candidate) => candidate.name === row.modelo);
    const view = type ? await documentView(ctx, type, Number(row.modeloid), String(row.idioma ?? '') || undefined) : undefined;
    if (!view) throw new MissingAttachment('document-not-found');
    // E-invoices finished as their download is (a public body's DIR3 centres; signed when asked).
    for (const exportType of exports) attachments.push(await finishedFile(ctx, type!, view, exportType, await renderDocumentFile(view, exportType), Boolean(wanted.signed) && exportType === 'FACTURAE'));
  }
  for (const idfile of files) {
    const file = await attachedFileContent(ctx, ctx.database.kysely, idfile, limit);
    if (!file) throw new MissingAttachment(`attached-file-missing: ${idfile}`);
    attachments.push(file);
  }
  if (attachments.reduce((sum, file) => sum + file.content.length, 0) > limit) throw new MissingAttachment('attachments-too-large');
  return attachments;
}
