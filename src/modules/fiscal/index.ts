import type { Module } from '../../module.ts';
import { serieModel, ejercicioModel } from './fiscal-models.ts';

export { serieModel, ejercicioModel };

/** Series and fiscal years. */
export function fiscalModule(): Module {
  return { name: 'fiscal', models: [serieModel, ejercicioModel] };
}
