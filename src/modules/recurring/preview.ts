import type { AppContext } from '../../app-context.ts';
import { validationError } from '../../errors.ts';
import { documentType, previewDocument } from '../documents/index.ts';
import { invoiceInput, noLines, templateLines } from './bill-due.ts';
import { periodEnd, periodStart } from './schedule.ts';
import { resumedFrom, scheduleOf, templateState } from './template-state.ts';

const INVOICE = documentType('FacturaCliente');

/** At most this many invoices ahead. */
export const MAX_PREVIEW = 36;

/**
 * `GET facturarecurrente/{id}/proximas?n=12`: the next `n` invoices the template would issue
 * (none once finished; a paused one's from where resuming would start; 422 `lineas: required`
 * for one without lines, which the billing job refuses alike),
 * each with its period, the day it would be dated (the period's first day, or today for one
 * already due) and its lines and totals computed as its creation will compute them (the
 * products' prices of today). Reads only.
 */
export async function previewInvoices(ctx: AppContext, template: Record<string, unknown>, count: unknown): Promise<Array<Record<string, unknown>>> {
  const n = count === undefined || count === '' ? 12 : Number(count);
  if (!Number.isInteger(n) || n < 1 || n > MAX_PREVIEW) throw validationError({ n: 'out-of-range' });
  const db = ctx.database.kysely;
  const state = await templateState(db, template);
  const lines = await templateLines(db, Number(template.idrecurrente));
  const schedule = scheduleOf(template);
  const today = ctx.clock.today().date;
  const ahead: Array<Record<string, unknown>> = [];
  const byYear = new Map<string, Awaited<ReturnType<typeof previewDocument>>>();
  if (template.estado === 'finalizada' || state.finished) return ahead;
  if (!lines.length) throw noLines();
  // A paused template's missed periods are not billed once it is resumed: its preview starts where resuming would.
  const first = template.estado === 'pausada' ? Math.max(state.next, resumedFrom(template, today)) : state.next;
  for (let i = 0; i < n; i++) {
    const periodo = first + i;
    const desde = periodStart(schedule, periodo);
    const hasta = periodEnd(schedule, periodo);
    if (template.fechafin && desde > String(template.fechafin).slice(0, 10)) break;
    if (template.maxfacturas !== null && template.maxfacturas !== undefined && state.generadas + i >= Number(template.maxfacturas)) break;
    // Dated the period's first day, or today for one already due.
    const fecha = desde > today ? desde : today;
    const input = invoiceInput(template, lines, { desde, hasta }, fecha);
    // The same lines and prices give the same amounts on every date of a fiscal year: computed once per year.
    const year = fecha.slice(0, 4);
    const computed = byYear.get(year) ?? byYear.set(year, await previewDocument(ctx, INVOICE, input)).get(year)!;
    ahead.push({ periodo, desde, hasta, fecha, doc: { ...computed.doc, fecha, observaciones: input.header.observaciones }, lineas: computed.lines });
  }
  return ahead;
}
