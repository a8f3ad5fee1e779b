import type { Module } from '../../module.ts';
import { declareExerciseReference } from './exercise-reference.ts';
import { declareSerieReference } from './serie-reference.ts';
import { serieModel, ejercicioModel } from './fiscal-models.ts';

export { serieModel, ejercicioModel };

/** Series and fiscal years. */
export function fiscalModule(): Module {
  return {
    name: 'fiscal',
    models: [serieModel, ejercicioModel],
    setup(ctx) {
      declareSerieReference(ctx);
      declareExerciseReference(ctx);
    },
  };
}
export { loadSerieReference, serieIn, serieReference, type SerieInfo } from './serie-reference.ts';
export { overlappingExercise } from './exercise-overlap.ts';
export { exerciseCovering, exerciseOf, type ExerciseFacts } from './exercise-reads.ts';
export { cachedExerciseCovering, exerciseReference, type CachedExercise } from './exercise-reference.ts';
export { normalizeTaxId, spanishTaxId } from './spanish-tax-id.ts';
