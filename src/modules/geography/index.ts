import type { Module } from '../../module.ts';
import { ciudadModel, codigoPostalModel, puntoInteresCiudadModel } from './city-models.ts';
import { paisModel, provinciaModel } from './geography-models.ts';

export { ciudadModel, codigoPostalModel, paisModel, provinciaModel, puntoInteresCiudadModel };

/** Countries, provinces, cities, postal codes and points of interest. */
export function geographyModule(): Module {
  return { name: 'geography', models: [paisModel, provinciaModel, ciudadModel, codigoPostalModel, puntoInteresCiudadModel] };
}
export { provinceNames } from './province-names.ts';
