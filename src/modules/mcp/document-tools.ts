import { z } from 'zod';
import type { AppContext } from '../../app-context.ts';
import { exportLinkOf } from '../export/index.ts';
import type { DefineTool, ToolDefinition } from './tool-definition.ts';
import { DOCUMENTS, idempotencyHeader, result, writeHint } from './tool-results.ts';

/** The most text of a document a tool answer carries (an agent reads the rest from the link). */
const MAX_TEXT = 100_000;
/** A PDF larger than this is not read for its text (the link still opens it). */
const MAX_PDF_BYTES = 20 * 1_048_576;

/** The text of a PDF, page by page; the reader (pdf.js) is loaded on the first use only. */
async function pdfText(bytes: Buffer): Promise<string | undefined> {
  if (bytes.length > MAX_PDF_BYTES) return undefined;
  const { extractText, getDocumentProxy } = await import('unpdf');
  const pdf = await getDocumentProxy(new Uint8Array(bytes));
  try {
    return (await extractText(pdf, { mergePages: true })).text;
  } finally {
    await pdf.loadingTask.destroy();
  }
}

/**
 * The documents' own tools beyond creation: export (a signed link, and the text of a PDF) and
 * sending by e-mail, where the mail module serves `enviar<Doc>`. Both call the API as the caller's
 * key, as every tool does: the key's rules on `exportar<Doc>` and `enviar<Doc>` decide. Built once
 * per app (mcpTools): whether the mail module serves `enviar<Doc>` is known before the first request.
 */
export function documentTools(ctx: AppContext, tool: DefineTool): ToolDefinition[] {
  const tools = [tool('export_document', {
    description: 'Exports a document (PDF, XLSX, CSV; invoices also UBL, CII, Facturae): answers a download link that works without a key for a day, and for a PDF its text.',
    inputSchema: {
      type: z.enum(DOCUMENTS), id: z.union([z.number().int(), z.string().regex(/^(?!\.{1,2}$)[^/\\]+$/)]).describe('The document\'s id or code'),
      format: z.string().optional().describe('Export type: PDF (default), XLSX, CSV, UBL, CII, FACTURAE'),
      signed: z.boolean().optional().describe('FACTURAE only: signed XAdES with the company\'s certificate (.xsig, as FACe takes it)'),
      lang: z.string().optional(), printFormat: z.number().int().optional().describe('A print format\'s id (formatodocumento)'),
    },
  }, async ({ type, id, format, lang, printFormat, signed }, { inject, request }) => {
    const query = { type: format ?? 'PDF', ...(lang ? { lang } : {}), ...(printFormat ? { format: String(printFormat) } : {}), ...(signed ? { firmada: '1' } : {}) };
    const code = String(id);
    const answer = await inject({ method: 'GET', url: `/api/3/exportar${type}/${encodeURIComponent(code)}?${new URLSearchParams(query)}` });
    if (answer.status >= 400) return result(answer);
    // Only an export's answer (a file, named) is linked.
    if (!answer.headers['content-disposition']) return result({ status: 404, body: { status: 'error', message: 'record-not-found' } });
    const contentType = answer.headers['content-type'] ?? 'application/octet-stream';
    const base = `${request.protocol}://${request.host}/`;
    const text = contentType.startsWith('application/pdf') ? await pdfText(answer.bytes) : typeof answer.body === 'string' ? answer.body : undefined;
    return result({
      status: 200,
      body: {
        link: base + exportLinkOf(ctx, type, code, query), contentType, size: answer.bytes.length,
        ...(text === undefined ? {} : { text: text.slice(0, MAX_TEXT), ...(text.length > MAX_TEXT ? { truncated: true } : {}) }),
      },
    });
  })];

  if (ctx.customResources.has('enviarFacturaCliente')) {
    tools.push(tool('send_document', {
      description: 'E-mails a document to its customer or supplier (or to `to`), with its PDF (or the export types in `attach`) and, optionally, the files linked to it; queued and sent by the mail module.',
      inputSchema: {
        type: z.enum(DOCUMENTS), id: z.union([z.number().int(), z.string()]),
        to: z.array(z.string()).optional().describe('Addresses; empty: the customer\'s or supplier\'s'), cc: z.array(z.string()).optional(), bcc: z.array(z.string()).optional(),
        subject: z.string().optional(), body: z.string().optional(), lang: z.string().optional(),
        attach: z.array(z.string()).optional().describe('Export types to attach (default PDF)'), attachfiles: z.union([z.boolean(), z.array(z.number().int())]).optional(),
        firmada: z.boolean().optional().describe('The attached FACTURAE signed (.xsig)'),
        ...writeHint,
      },
    }, async ({ type, id, idempotencyKey, ...body }, { inject }) =>
      result(await inject({ method: 'POST', url: `/api/3/enviar${type}/${encodeURIComponent(String(id))}`, body, headers: idempotencyHeader(idempotencyKey) }))));
  }
  return tools;
}
