import type { AppContext } from '../../app-context.ts';
import type { ExerciseFacts } from './exercise-reads.ts';

/** A fiscal year as the cache keeps it: its facts and its dates. */
export interface CachedExercise extends ExerciseFacts {
  fechainicio: string;
  fechafin: string;
}

const CACHE = 'exercises';

/** Declares the cache of fiscal years (read on every document, changed a few times a year). */
export function declareExerciseReference(ctx: AppContext): void {
  ctx.shared.cache<readonly CachedExercise[]>(CACHE, ['ejercicio'], async () => {
    const rows = await ctx.database.kysely.selectFrom('ejercicios')
      .select(['codejercicio', 'estado', 'idempresa', 'longsubcuenta', 'fechainicio', 'fechafin']).orderBy('codejercicio', 'desc').execute();
    return rows.map((row) => ({
      codejercicio: String(row.codejercicio),
      estado: String(row.estado),
      idempresa: row.idempresa === null || row.idempresa === undefined ? null : Number(row.idempresa),
      longsubcuenta: Number(row.longsubcuenta ?? 10),
      fechainicio: String(row.fechainicio),
      fechafin: String(row.fechafin),
    }));
  });
}

/**
 * The fiscal years as this instance last read them (outside a transaction). A change made on
 * another instance is seen within STATE_REFRESH_MS: what must hold exactly (a year closed a moment
 * ago) is checked again by the writer under the lock the closing takes.
 */
export function exerciseReference(ctx: AppContext): Promise<readonly CachedExercise[]> {
  return ctx.shared.named<readonly CachedExercise[]>(CACHE).read();
}

/** The year of company `idempresa` covering `fecha`, as `exerciseCovering` picks it (the highest code). */
export function cachedExerciseCovering(exercises: readonly CachedExercise[], idempresa: number, fecha: string): CachedExercise | undefined {
  return exercises.find((year) => year.idempresa === idempresa && year.fechainicio <= fecha && year.fechafin >= fecha);
}
