import fs from 'node:fs/promises';
import path from 'node:path';

/** The version of the core a plugin's `min_version` is compared with (also `X-Core-Version`). */
export const CORE_VERSION = 1;

/** `plugin.json` of a plugin folder (the reference's `facturascripts.ini`, as JSON). */
export interface PluginManifest {
  name: string;
  description: string;
  version: number;
  min_version: number;
  require: string[];
  /** The entry file, relative to the folder (default `index.ts`). */
  main: string;
}

export class ManifestError extends Error {
  override name = 'ManifestError';
}

/**
 * Reads and checks a plugin folder's manifest: a name of letters, digits and `_`/`-` equal to the
 * folder's name (as the reference requires), numbers where numbers go, and an entry file inside
 * the folder. A bad manifest stops the start with a message naming the folder.
 */
export async function readManifest(folder: string): Promise<PluginManifest> {
  const file = path.join(folder, 'plugin.json');
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(await fs.readFile(file, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new ManifestError(`${file}: ${(error as Error).message}`);
  }
  const fail = (what: string) => {
    throw new ManifestError(`${file}: ${what}`);
  };
  const name = raw.name;
  if (typeof name !== 'string' || !/^[A-Za-z][A-Za-z0-9_-]{0,49}$/.test(name)) fail('name must be letters, digits, _ or -, starting with a letter');
  if (name !== path.basename(folder)) fail(`name "${String(name)}" differs from its folder "${path.basename(folder)}"`);
  const number = (key: string, fallback?: number) => {
    const value = raw[key] ?? fallback;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) fail(`${key} must be a non-negative number`);
    return value as number;
  };
  const require = raw.require ?? [];
  if (!Array.isArray(require) || !require.every((item) => typeof item === 'string')) fail('require must be a list of plugin names');
  const main = raw.main ?? 'index.ts';
  if (typeof main !== 'string' || path.isAbsolute(main) || path.normalize(main).startsWith('..')) fail('main must be a file inside the plugin folder');
  return {
    name: name as string,
    description: typeof raw.description === 'string' ? raw.description : '',
    version: number('version'),
    min_version: number('min_version', 0),
    require: require as string[],
    main: main as string,
  };
}
