import { z } from 'zod';
import { DOCUMENT_TYPES } from '../documents/index.ts';

type Json = Record<string, unknown>;

/** The document types the business tools take, as the API names their endpoints (`crear<Type>`, `exportar<Type>` ...). */
export const DOCUMENTS = DOCUMENT_TYPES.map((type) => type.name) as [string, ...string[]];

/**
 * A tool's answer: the API's status and body as structured content; a refusal (4xx, 5xx) is a tool
 * error carrying the API's error code and fields, never a protocol failure.
 */
export function result(answer: { status: number; body: unknown }) {
  const structuredContent: Json = { status: answer.status, body: answer.body as Json };
  return { content: [{ type: 'text' as const, text: JSON.stringify(answer.body) }], structuredContent, isError: answer.status >= 400 };
}

export const writeHint = { idempotencyKey: z.string().max(100).optional().describe('Makes a retried call write once (the API\'s Idempotency-Key)') };

export const idempotencyHeader = (key: string | undefined): Record<string, string> => (key ? { 'idempotency-key': key } : {});
