import { AppError } from '../errors.ts';
import { CORE_VERSION } from './plugin-manifest.ts';
import type { InstalledPlugin } from './plugin-module.ts';

/** A plugin as `GET /api/3/plugins` shows it (the reference's keys, alphabetical). */
export interface PluginRecord {
  compatible: boolean;
  description: string;
  enabled: boolean;
  folder: string;
  min_version: number;
  name: string;
  require: string[];
  version: number;
}

export function pluginRecord(plugin: InstalledPlugin, installed: ReadonlySet<string>, enabled: ReadonlySet<string>): PluginRecord {
  const { manifest } = plugin;
  return {
    compatible: manifest.min_version <= CORE_VERSION && manifest.require.every((name) => installed.has(name)),
    description: manifest.description,
    enabled: enabled.has(manifest.name),
    folder: manifest.name,
    min_version: manifest.min_version,
    name: manifest.name,
    require: [...manifest.require],
    version: manifest.version,
  };
}

const FIELDS = new Set(['compatible', 'description', 'enabled', 'folder', 'min_version', 'name', 'require', 'version']);
const OPERATORS = ['gte', 'lte', 'neq', 'gt', 'lt', 'like', 'null', 'notnull'] as const;

type Value = PluginRecord[keyof PluginRecord];

/** A query value read as the property's type: booleans as true/1/false/0, numbers as numbers. */
function typed(sample: Value, raw: string, parameter: string): string | number | boolean {
  if (typeof sample === 'boolean') {
    if (/^(1|true)$/i.test(raw)) return true;
    if (/^(0|false)$/i.test(raw)) return false;
    throw new AppError('invalid-filter-value', { parameter });
  }
  if (typeof sample === 'number') {
    const number = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(number)) throw new AppError('invalid-filter-value', { parameter });
    return number;
  }
  return raw;
}

function matches(value: Value, operator: string, raw: string, parameter: string): boolean {
  if (operator === 'null') return value === null || value === '' || (Array.isArray(value) && value.length === 0);
  if (operator === 'notnull') return !(value === null || value === '' || (Array.isArray(value) && value.length === 0));
  if (Array.isArray(value)) {
    // A list (require) holds the value, or for _like one item containing it.
    if (operator === 'like') return value.some((item) => item.toLowerCase().includes(raw.toLowerCase()));
    if (operator === '' || operator === 'neq') return value.includes(raw) === (operator === '');
    throw new AppError('invalid-filter-operator', { parameter });
  }
  if (operator === 'like') return String(value).toLowerCase().includes(raw.toLowerCase());
  const wanted = typed(value, raw, parameter);
  switch (operator) {
    case '':
      return value === wanted;
    case 'neq':
      return value !== wanted;
    case 'gt':
      return value > wanted;
    case 'gte':
      return value >= wanted;
    case 'lt':
      return value < wanted;
    default:
      return value <= wanted;
  }
}

/**
 * `filter[<property>[_<op>]]` (ANDed) and `sort[<property>]=ASC|DESC` over plugin records, the
 * reference's operators, the properties checked (400 for an unknown one, as on models); default
 * order: name, case-insensitively.
 */
export function queryPlugins(records: PluginRecord[], query: Record<string, unknown>): PluginRecord[] {
  let rows = [...records].sort((a, b) => a.name.toLowerCase().localeCompare(b.name.toLowerCase()));
  for (const [key, raw] of Object.entries(query)) {
    const filter = /^filter\[([^\]]+)\]$/.exec(key);
    const sort = /^sort\[([^\]]+)\]$/.exec(key);
    if (filter) {
      const name = filter[1]!;
      const operator = OPERATORS.find((op) => name.endsWith(`_${op}`) && FIELDS.has(name.slice(0, -(op.length + 1))));
      const field = (operator ? name.slice(0, -(operator.length + 1)) : name) as keyof PluginRecord;
      if (!FIELDS.has(field)) throw new AppError('invalid-filter-field', { parameter: key });
      if (typeof raw !== 'string') throw new AppError('invalid-filter-value', { parameter: key });
      rows = rows.filter((row) => matches(row[field], operator ?? '', raw, key));
    } else if (sort) {
      const field = sort[1]! as keyof PluginRecord;
      if (!FIELDS.has(field)) throw new AppError('invalid-sort-field', { parameter: key });
      if (typeof raw !== 'string' || !/^(ASC|DESC)$/i.test(raw)) throw new AppError('invalid-sort-direction', { parameter: key });
      const direction = /^DESC$/i.test(raw) ? -1 : 1;
      const text = (value: Value) => (Array.isArray(value) ? value.join(',') : value);
      rows.sort((a, b) => {
        const [x, y] = [text(a[field]), text(b[field])];
        return (x < y ? -1 : x > y ? 1 : 0) * direction;
      });
    }
  }
  return rows;
}
