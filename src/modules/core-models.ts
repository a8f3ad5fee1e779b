import type { Model } from '../models/define-model.ts';
import { apiAccessModel, apiKeyModel } from './auth/auth-models.ts';
import { incidentModel, stateVersionModel } from './auth/internal-models.ts';
import { customerModel } from './customers/customer-model.ts';
import { productModel } from './products/product-model.ts';
import { settingsModel } from './settings/settings-model.ts';

/** Every model of the core installation, in dependency order (referenced tables first). */
export function coreModels(): Model[] {
  return [settingsModel, apiKeyModel, apiAccessModel, incidentModel, stateVersionModel, customerModel, productModel];
}
