import type { DbExecutor } from '../../db/database.ts';
import { dbBoolean } from '../../db/row-codec.ts';

export interface FilledText {
  subject: string;
  text: string;
  html: string;
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Amounts and dates as the recipient's language writes them (`1.234,50`, `31/01/2026`). */
export function localValue(value: unknown, lang: string, kind: 'amount' | 'date' | 'text'): string {
  if (value === null || value === undefined) return '';
  // English as written in Europe (31/01/2026), where this installation's customers are.
  const locale = lang === 'en' ? 'en-GB' : lang;
  if (kind === 'amount' && value !== '' && Number.isFinite(Number(value))) {
    return new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(Number(value));
  }
  if (kind === 'date' && /^\d{4}-\d{2}-\d{2}$/.test(String(value))) {
    return new Intl.DateTimeFormat(locale, { day: '2-digit', month: '2-digit', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${String(value)}T00:00:00Z`));
  }
  return String(value);
}

/**
 * `{name}` placeholders replaced by the values (unknown names stay as written). The subject loses
 * control characters (a customer's name with a line break cannot add a header); the HTML part is
 * the text escaped, its blank lines paragraphs and its line breaks `<br>`.
 */
export function fillTemplate(subject: string, body: string, values: Record<string, string>): FilledText {
  const fill = (template: string) => template.replace(/\{([a-z_][a-z0-9_]*)\}/gi, (whole, name: string) => (Object.hasOwn(values, name) ? values[name]! : whole));
  const text = fill(body).replace(/\r\n?/g, '\n');
  const html = text.split(/\n{2,}/).map((paragraph) => `<p>${escapeHtml(paragraph).replace(/\n/g, '<br>')}</p>`).join('\n');
  return {
    subject: fill(subject).replace(/[\u0000-\u001f\u007f]+/g, ' ').trim().slice(0, 300),
    text,
    html: `<!doctype html><html><body style="font-family:sans-serif">${html}</body></html>`,
  };
}

/** The template of that name from `emails_notifications` unless it is switched off (`enabled` false), else the built-in one given. */
export async function templateFor(db: DbExecutor, name: string, builtIn: { subject: string; body: string }): Promise<{ subject: string; body: string }> {
  const row = await db.selectFrom('emails_notifications').select(['subject', 'body', 'enabled']).where('name', '=', name).executeTakeFirst();
  if (!row || (row.enabled !== null && row.enabled !== undefined && !dbBoolean(row.enabled))) return builtIn;
  return { subject: String(row.subject ?? ''), body: String(row.body ?? '') };
}
