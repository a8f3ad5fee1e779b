import type { Module } from '../../module.ts';
import { paisModel, provinciaModel } from './geography-models.ts';

export { paisModel, provinciaModel };

/** Countries and provinces. */
export function geographyModule(): Module {
  return { name: 'geography', models: [paisModel, provinciaModel] };
}
export { provinceNames } from './province-names.ts';
