import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError, validationError } from '../../errors.ts';
import { documentIdOf, headerOf, type DocumentType, type Row } from '../documents/index.ts';
import { documentTitleOf, documentView, finishedFile, renderDocumentFile } from '../export/index.ts';
import { linkedFiles } from '../files/index.ts';
import { addressesOf, MAX_RECIPIENTS, type Address } from './addresses.ts';
import { DEFAULT_TEXTS, documentTemplateName } from './default-templates.ts';
import { fillTemplate, localValue, templateFor } from './fill-template.ts';
import { emailSentModel } from './mail-models.ts';
import { mailSettingsOf, requireConfigured } from './mail-settings.ts';
import type { SendRequest } from './mail-request.ts';
import { queueMessage } from './outbox.ts';

const AMOUNTS = new Set(['total', 'neto', 'netosindto', 'totaliva', 'totalirpf', 'totalrecargo', 'totalsuplidos', 'totaleuros']);
const DATES = new Set(['fecha', 'fechadevengo', 'femail', 'finoferta', 'fechasalida', 'fechaentrega']);

/** A stored row's values as text for placeholders: amounts and dates as the language writes them. */
export function placeholderValues(row: Row, lang: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(row)) {
    values[key] = localValue(value, lang, AMOUNTS.has(key) || key === 'importe' ? 'amount' : DATES.has(key) || key === 'vencimiento' ? 'date' : 'text');
  }
  return values;
}

/** The request's Bcc and the settings' standing copy (the company keeping every message it sends), once each. */
export function withCopy(bcc: Address[], copy: Address[]): Address[] {
  return [...bcc, ...copy.filter((extra) => !bcc.some((address) => address.address.toLowerCase() === extra.address.toLowerCase()))];
}

/** The files linked to the document that the request asks for; each must be linked, and all together within the limit. */
async function filesToAttach(ctx: AppContext, type: DocumentType, id: number, asked: SendRequest['files']): Promise<number[]> {
  if (asked === false) return [];
  const sizes = new Map((await linkedFiles(ctx.database.kysely, type.name, id)).map((file) => [file.idfile, file.size]));
  const ids = asked === true ? [...sizes.keys()] : asked;
  if (ids.some((file) => !sizes.has(file))) throw validationError({ attachfiles: 'file-not-linked' });
  if (ids.reduce((sum, file) => sum + sizes.get(file)!, 0) > ctx.config.mail.maxAttachmentBytes) throw validationError({ attachfiles: 'too-large' });
  return ids;
}

/**
 * `enviar<Doc>/{code or id}`: checks everything that can be checked now (recipients, settings,
 * attachments), fills the subject and body, and writes the message to the outbox: 202 with its
 * record. The sender job renders the attachments from the document as it is then and sends it.
 * `claim` runs first in the queueing transaction: false, and nothing is queued (undefined).
 */
export async function sendDocument(ctx: AppContext, type: DocumentType, idOrCode: string, request: SendRequest, nick: string | null, claim?: (db: DbExecutor) => Promise<boolean>): Promise<Record<string, unknown> | undefined> {
  const db = ctx.database.kysely;
  const id = await documentIdOf(db, type, idOrCode);
  const header = id === undefined ? undefined : await headerOf(db, type, id);
  const view = id === undefined || !header ? undefined : await documentView(ctx, type, id, request.lang);
  if (!header || !view || id === undefined) throw new AppError('record-not-found');
  const idempresa = Number(header.idempresa);
  const settings = await mailSettingsOf(ctx, idempresa);
  requireConfigured(settings);
  let to: Address[] = request.to;
  if (!to.length) {
    to = addressesOf(view.subject.email).map((address) => ({ ...address, name: address.name || view.subject.name }));
    if (!to.length) throw validationError({ to: 'no-recipient' });
  }
  const bcc = withCopy(request.bcc, settings.bcc);
  if (to.length + request.cc.length + bcc.length > MAX_RECIPIENTS) throw validationError({ to: 'too-many-recipients' });
  const files = await filesToAttach(ctx, type, id, request.files);
  // A signed e-invoice is made once now, so that what cannot be signed (no certificate, no signer for this document) is refused here, not retried by the sender.
  if (request.signed) await finishedFile(ctx, type, view, 'FACTURAE', await renderDocumentFile(view, 'FACTURAE'), true);
  const lang = view.lang;
  const template = await templateFor(db, documentTemplateName(type.name, lang), { subject: DEFAULT_TEXTS[lang]!.documentSubject, body: DEFAULT_TEXTS[lang]!.documentBody });
  const values = { ...placeholderValues(header, lang), documento: documentTitleOf(view), destinatario: view.subject.name, empresa: view.company.name };
  const text = fillTemplate(request.subject ?? template.subject, request.body ?? template.body, values);
  return inTransaction(ctx.database, async (trx) => {
    // A caller's mark made with the message (a recurring invoice's): when it was made already, nothing is queued.
    if (claim && !(await claim(trx))) return undefined;
    const queued = await queueMessage(ctx, trx, {
      tipo: 'documento', idempresa, from: settings.from!, to, cc: request.cc, bcc, replyTo: settings.replyTo, text, lang,
      document: { modelo: type.name, modeloid: id, codigo: String(header.codigo ?? '') }, attach: { exports: request.exports, files, ...(request.signed ? { signed: true } : {}) }, nick,
    });
    return (await ctx.store.get(emailSentModel, queued, trx))!;
  });
}
