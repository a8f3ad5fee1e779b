import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { AppError } from '../../errors.ts';
import { DOCUMENT_TYPES } from '../documents/index.ts';
import { filesOf } from '../files/index.ts';
import { exportDocument } from './export-document.ts';
import { readExportRequest } from './export-request.ts';

/** The path a document's export link signs: the document only, so one link opens it in any export type. */
const signedPath = (typeName: string, code: string) => `Exports/${typeName}/${code}`;

/** What the link's query may carry besides its token (export-request.ts reads them). */
const CARRIED = ['type', 'format', 'lang'] as const;

/**
 * A download link to a document's export that needs no API key, valid for a day (the files
 * module's signer and secret, its `download` link's lifetime): `Exports/<Doc>/<code>?myft=...&type=PDF`,
 * relative to the service's root as attached files' links are. Whoever holds it reads that
 * document, in any export type; handing it out is the caller's decision (an MCP tool does, after
 * the caller's key was allowed the export).
 */
export function exportLinkOf(ctx: AppContext, typeName: string, code: string, query: Partial<Record<(typeof CARRIED)[number], string>>): string {
  if (!code || code === '.' || code === '..' || /[/\\]/.test(code)) throw new Error(`no export link for the code "${code}"`);
  const link = filesOf(ctx).links.linksOf(signedPath(typeName, code)).download;
  const extra = CARRIED.filter((name) => query[name]).map((name) => `&${name}=${encodeURIComponent(query[name]!)}`).join('');
  return `${link}${extra}`;
}

/**
 * `GET /Exports/<Doc>/<code>?myft=<token>&type=&format=&lang=`: the export, to whoever holds a
 * valid link; no API key (the signature is the authorisation). Answered as the export endpoint
 * answers, with `nosniff` and a sandboxing CSP as file downloads are.
 */
export function registerExportLinkRoute(app: FastifyInstance, ctx: AppContext): void {
  const types = new Map(DOCUMENT_TYPES.map((type) => [type.name, type]));
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const { doc, code } = request.params as { doc: string; code: string };
    const query = request.query as Record<string, unknown>;
    const type = types.get(doc);
    // Only expiring tokens: nothing signs a permanent export link.
    const expiring = typeof query.myft === 'string' && !query.myft.startsWith('p.');
    const verdict = type && expiring ? filesOf(ctx).links.verify(signedPath(doc, code), query.myft) : 'invalid';
    if (verdict === 'invalid' || !type) throw new AppError('invalid-download-link');
    if (verdict === 'expired') throw new AppError('download-link-expired');
    const file = await exportDocument(ctx, type, code, readExportRequest(query));
    return reply
      .header('Content-Type', file.contentType)
      .header('Content-Disposition', file.disposition)
      .header('X-Content-Type-Options', 'nosniff')
      .header('Content-Security-Policy', "default-src 'none'; sandbox")
      .header('Cache-Control', 'private, no-cache')
      .send(file.body);
  };
  app.route({ method: 'GET', url: '/Exports/:doc/:code', config: { public: true }, handler });
}
