/** The `default` settings group of a new installation (reference section 4, and enable_api on). */
export const DEFAULT_SETTINGS: Record<string, unknown> = {
  enable_api: true,
  decimals: 2,
  taxcalculationmethod: 'classic',
};
