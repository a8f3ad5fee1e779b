/**
 * The `default` settings group as every module reads it: known keys typed, defaults applied.
 * Core vocabulary (the context serves it); the settings module owns its rules, defaults and cache.
 */
export interface Settings {
  enable_api: boolean;
  decimals: number;
  taxcalculationmethod: 'classic' | 'price-adjusted';
  idempresa: number;
  codalmacen: string;
  codpais: string;
  coddivisa: string;
  codimpuesto: string | null;
  codpago: string;
  codserie: string;
  codserierec: string;
  /** Retention new customers and suppliers get (none by default). */
  codretencion: string | null;
  tipoidfiscal: string;
  regimeniva: string;
  updatesupplierprices: boolean;
  validate_iban: boolean;
  ventasinstock: boolean;
  /** The installation's time zone (business dates); TIME_ZONE overrides it. */
  timezone: string;
  /** The installation's language (`es_ES`): exported documents use it when their customer or supplier has none. */
  langcode: string;
  /** The response profile of the global key (`spec` or `facturascripts`; stored keys have their own). */
  api_profile: 'spec' | 'facturascripts';
  /**
   * Import the country's default chart of accounts into every new fiscal year (the reference's
   * first-run wizard option `defaultplan`): on for new installations, off for those installed before it.
   */
  defaultplan: boolean;
  /** Keys the service does not read (the reference keeps many more: homepage, codrole ...). */
  [other: string]: unknown;
}

