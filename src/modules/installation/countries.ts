import worldCountries, { type Countries } from 'world-countries';

// The package is CommonJS with an ES-style `export default` in its types: under NodeNext, TypeScript
// types the default import as the module object, while Node hands over the array itself.
const countries = worldCountries as unknown as Countries;

/**
 * The countries of a new installation (the reference seeds 250, ISO-3 key, ISO-2 `codiso`, Spanish
 * name, coordinates and phone prefix), taken from the maintained world-countries data set.
 */
export function countryRows(): Array<Record<string, string | number | null>> {
  return countries.map((country) => {
    const suffixes = country.idd.suffixes ?? [];
    return {
      codpais: country.cca3,
      codiso: country.cca2,
      nombre: country.translations.spa?.common ?? country.name.common,
      latitude: country.latlng[0] ?? null,
      longitude: country.latlng[1] ?? null,
      // One suffix gives the full prefix (+34); several (+1 201, +1 202...) share the root.
      telephone_prefix: country.idd.root ? (suffixes.length === 1 ? country.idd.root + suffixes[0] : country.idd.root) : null,
    };
  });
}
