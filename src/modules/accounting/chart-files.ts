import fs from 'node:fs';
import { parse } from 'csv-parse/sync';

/**
 * The countries' default accounting data (charts/<codpais>/, the established system's files with
 * their origin and licence note): the chart, the special-account roles and the taxes' sub-accounts.
 */
export interface ChartEntry {
  code: string;
  descripcion: string;
  /** The special-account role the entry is tagged with (accounts only). */
  codcuentaesp: string | null;
}

export interface TaxAccounts {
  codimpuesto: string;
  codsubcuentarep: string | null;
  codsubcuentarepintra: string | null;
  codsubcuentasop: string | null;
  codsubcuentasopintra: string | null;
}

export interface CountryChart {
  codpais: string;
  entries: ChartEntry[];
  roles: Array<{ codcuentaesp: string; descripcion: string }>;
  taxes: TaxAccounts[];
}

const CHARTS_DIR = new URL('./charts/', import.meta.url);

function rowsOf(file: URL): Array<Record<string, string>> {
  return parse(fs.readFileSync(file, 'utf8'), { delimiter: ';', columns: true, skip_empty_lines: true, trim: true, bom: true }) as Array<Record<string, string>>;
}

const orNull = (value: string | undefined) => (value === undefined || value === '' ? null : value);

/** Read once per process: the files ship with the code and never change under it. */
const loaded = new Map<string, CountryChart | undefined>();

/** The default data of a country (`ESP`), or undefined when none ships. */
export function countryChart(codpais: string): CountryChart | undefined {
  if (!/^[A-Z]{3}$/.test(codpais)) return undefined;
  if (loaded.has(codpais)) return loaded.get(codpais);
  const dir = new URL(`${codpais}/`, CHARTS_DIR);
  let chart: CountryChart | undefined;
  if (fs.existsSync(new URL('defaultPlan.csv', dir))) {
    const optional = (name: string) => (fs.existsSync(new URL(name, dir)) ? rowsOf(new URL(name, dir)) : []);
    chart = {
      codpais,
      entries: rowsOf(new URL('defaultPlan.csv', dir)).map((row) => ({ code: row.cuenta!, descripcion: row.descripcion!, codcuentaesp: orNull(row.cuentaesp) })),
      roles: optional('cuentasesp.csv').map((row) => ({ codcuentaesp: row.codcuentaesp!, descripcion: row.descripcion! })),
      taxes: optional('impuestos.csv').map((row) => ({
        codimpuesto: row.codimpuesto!,
        codsubcuentarep: orNull(row.codsubcuentarep),
        codsubcuentarepintra: orNull(row.codsubcuentarepintra),
        codsubcuentasop: orNull(row.codsubcuentasop),
        codsubcuentasopintra: orNull(row.codsubcuentasopintra),
      })),
    };
  }
  loaded.set(codpais, chart);
  return chart;
}

/** A chart's code lengths: sub-accounts are its longest codes, accounts all the shorter ones. */
export function chartShape(chart: CountryChart): { subLength: number; accountLength: number } {
  const subLength = Math.max(...chart.entries.map((entry) => entry.code.length));
  return { subLength, accountLength: Math.max(...chart.entries.filter((entry) => entry.code.length < subLength).map((entry) => entry.code.length)) };
}

/**
 * A sub-account code brought to `length` digits by widening or narrowing its longest run of zeros
 * (`4300000001` -> `43000001` for 8); undefined when it cannot be (too few zeros to drop).
 */
export function resizeCode(code: string, length: number): string | undefined {
  if (code.length === length) return code;
  let best = { start: -1, size: 0 };
  for (const match of code.matchAll(/0+/g)) if (match[0].length > best.size) best = { start: match.index, size: match[0].length };
  const change = length - code.length;
  if (best.start < 0 || best.size + change < 0) return undefined;
  return code.slice(0, best.start) + '0'.repeat(best.size + change) + code.slice(best.start + best.size);
}
