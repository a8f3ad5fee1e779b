import type { DbExecutor } from '../../db/database.ts';
import { firstPeriodFrom, periodEnd, periodStart, type Periodicity, type Schedule } from './schedule.ts';

type Row = Record<string, unknown>;

/** A date column's value (the drivers give `YYYY-MM-DD` text on every engine: db/database.ts). */
const dateText = (value: unknown): string => String(value).slice(0, 10);

export function scheduleOf(template: Row): Schedule {
  return { periodicidad: String(template.periodicidad) as Periodicity, intervalo: Number(template.intervalo), fechainicio: dateText(template.fechainicio) };
}

/** Where a template stands: the next period to bill and its dates, or that it is over; what it billed so far. */
export interface TemplateState {
  next: number;
  desde: string;
  hasta: string;
  finished: boolean;
  generadas: number;
  ultimafecha: string | null;
}

/**
 * Read from the periods recorded (the truth: they are written with their invoices), never from
 * the template's own counters, which only mirror them for reading and may lag after a crash.
 */
export async function templateState(db: DbExecutor, template: Row): Promise<TemplateState> {
  const id = Number(template.idrecurrente);
  const [last, billed] = await Promise.all([
    db.selectFrom('facturasrecurrentes_periodos').select((eb) => eb.fn.max('periodo').as('periodo')).where('idrecurrente', '=', id).executeTakeFirst(),
    db.selectFrom('facturasrecurrentes_periodos').select((eb) => [eb.fn.countAll().as('count'), eb.fn.max('desde').as('desde')])
      .where('idrecurrente', '=', id).where('estado', '=', 'facturado').executeTakeFirst(),
  ]);
  const schedule = scheduleOf(template);
  const next = Math.max(Number(template.desdeperiodo ?? 0), last?.periodo === null || last?.periodo === undefined ? 0 : Number(last.periodo) + 1);
  const generadas = Number(billed?.count ?? 0);
  const desde = periodStart(schedule, next);
  const byCount = template.maxfacturas !== null && template.maxfacturas !== undefined && generadas >= Number(template.maxfacturas);
  const byDate = template.fechafin !== null && template.fechafin !== undefined && desde > dateText(template.fechafin);
  return { next, desde, hasta: periodEnd(schedule, next), finished: byCount || byDate, generadas, ultimafecha: billed?.desde ? dateText(billed.desde) : null };
}

/** The template's mirrored fields as its periods say (`finalizada` once it is over). */
function mirroredFields(template: Row, state: TemplateState): Row {
  return {
    proximafecha: state.finished ? null : state.desde,
    generadas: state.generadas,
    ultimafecha: state.ultimafecha,
    ...(state.finished && template.estado !== 'finalizada' ? { estado: 'finalizada' } : {}),
  };
}

/** The mirrored fields that differ from the template's stored ones; undefined when none does (nothing to write). */
export function changedMirror(template: Row, state: TemplateState): Row | undefined {
  const fields = mirroredFields(template, state);
  const changed = Object.entries(fields).filter(([name, value]) => String(value ?? '') !== String(template[name] ?? ''));
  return changed.length ? Object.fromEntries(changed) : undefined;
}

/** Writes the mirrored fields of one template where they changed; returns them all. */
export async function refreshTemplate(db: DbExecutor, template: Row): Promise<Row> {
  const state = await templateState(db, template);
  const changed = changedMirror(template, state);
  if (changed) await db.updateTable('facturasrecurrentes').set(changed).where('idrecurrente', '=', Number(template.idrecurrente)).execute();
  return mirroredFields(template, state);
}

/** A resumed template's first period: the first starting today or later (the ones missed while paused are not billed). */
export const resumedFrom = (template: Row, today: string): number => firstPeriodFrom(scheduleOf(template), today);
