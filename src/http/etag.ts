import { hash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { DbExecutor } from '../db/database.ts';
import type { Model } from '../models/define-model.ts';
import { profileOf } from './profile.ts';

/**
 * A record's strong ETag: a hash of its visible fields as stored, of what else its version depends
 * on (a document's lines: `versionParts`), and of the response profile (another profile is another
 * representation). Any change of the record gives another tag.
 */
export async function etagOf(db: DbExecutor, model: Model, record: Record<string, unknown>, request: FastifyRequest, view = ''): Promise<string> {
  const parts = model.versionParts ? await model.versionParts(db, record) : null;
  const digest = hash('sha256', JSON.stringify([profileOf(request), model.visibleFields.map((name) => record[name] ?? null), parts]), 'base64url');
  // A read with chosen fields or embedded records (`view`, read-view.ts) is another representation:
  // the record's tag and a suffix. `If-Match` compares the record's part (recordPartOf).
  const suffix = view ? `.${hash('sha256', view, 'base64url').slice(0, 12)}` : '';
  return `"${digest.slice(0, 27)}${suffix}"`;
}

/**
 * The entity tags of an `If-Match` / `If-None-Match` header (`*` matches any). `If-None-Match`
 * compares weakly (a `W/` tag matches its strong twin); `If-Match` strongly (a weak tag never matches).
 */
export function tagsOf(header: string | string[] | undefined, weak: boolean): string[] | undefined {
  if (header === undefined) return undefined;
  const tags = [header].flat().join(',').split(',').map((tag) => tag.trim()).filter(Boolean).map((tag) => (weak ? tag.replace(/^W\//, '') : tag));
  // An empty header names no tag: as if it were absent.
  return tags.length ? tags : undefined;
}

/** A tag without the suffix of a chosen representation: the record's own tag, which writes compare. */
export const recordPartOf = (tag: string): string => tag.replace(/^"([^".]+)\.[^"]*"$/, '"$1"');

export function matches(tags: string[], etag: string): boolean {
  return tags.includes('*') || tags.includes(etag);
}
