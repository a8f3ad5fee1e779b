import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { Countries } from 'world-countries';

/**
 * About 1.4 MB of JSON that only a new installation's seed reads: read then, and left to the
 * garbage collector afterwards, rather than loaded at every start and kept as a module.
 */
const countries = (): Countries => JSON.parse(fs.readFileSync(createRequire(import.meta.url).resolve('world-countries/countries.json'), 'utf8')) as Countries;

/**
 * The countries of a new installation (the reference seeds 250, ISO-3 key, ISO-2 `codiso`, Spanish
 * name, coordinates and phone prefix), taken from the maintained world-countries data set.
 */
export function countryRows(): Array<Record<string, string | number | null>> {
  return countries().map((country) => {
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
