/**
 * The `default` settings group of a new installation: the reference's post-wizard Spanish
 * installation (facturascripts-model.md section 4), with the API switched on (issue 3).
 */
export const DEFAULT_SETTINGS: Record<string, unknown> = {
  enable_api: true,
  decimals: 2,
  taxcalculationmethod: 'classic',
  idempresa: 1,
  codalmacen: 'ALG',
  codpais: 'ESP',
  coddivisa: 'EUR',
  codimpuesto: 'IVA21',
  codpago: 'CONT',
  codserie: 'A',
  codserierec: 'R',
  tipoidfiscal: 'NIF',
  regimeniva: 'General',
  updatesupplierprices: true,
  validate_iban: true,
  // The reference's installation sells without stock by default: a new product is invoiceable.
  ventasinstock: true,
  timezone: 'Europe/Madrid',
  langcode: 'es_ES',
  api_profile: 'spec',
  defaultplan: true,
};

/**
 * What a key added after an installation was made reads as while that installation's group lacks
 * it: such an installation did not choose the new behaviour, so it keeps the old one.
 */
export const ABSENT_FROM_OLDER_INSTALLATIONS: Record<string, unknown> = {
  defaultplan: false,
};
