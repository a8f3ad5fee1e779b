import fs from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { pluginApi, type PluginEntry } from './plugin-api.ts';
import { ManifestError, readManifest } from './plugin-manifest.ts';
import type { InstalledPlugin } from './plugin-module.ts';

/** The plugins shipped with the service. */
export const SHIPPED_PLUGINS_DIR = path.resolve(import.meta.dirname, '..', '..', 'plugins');

/**
 * The installed plugins: every folder with a `plugin.json` in `dirs` (a missing directory holds
 * none), read, checked and imported; ordered so that a plugin comes after those it requires.
 * Two plugins of one name, or an entry that does not export a plugin, stop the start.
 */
export async function loadPlugins(dirs: string[]): Promise<InstalledPlugin[]> {
  const found = new Map<string, InstalledPlugin>();
  for (const dir of dirs) {
    const names = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of names.filter((candidate) => candidate.isDirectory()).sort((a, b) => a.name.localeCompare(b.name))) {
      const folder = path.join(dir, entry.name);
      if (!(await fs.stat(path.join(folder, 'plugin.json')).catch(() => undefined))) continue;
      const manifest = await readManifest(folder);
      if (found.has(manifest.name)) throw new ManifestError(`two plugins named ${manifest.name}: ${found.get(manifest.name)!.folder} and ${folder}`);
      const imported = (await import(pathToFileURL(path.join(folder, manifest.main)).href)) as { default?: PluginEntry };
      if (typeof imported.default !== 'function') throw new ManifestError(`${folder}/${manifest.main}: the default export must be the plugin's entry function`);
      found.set(manifest.name, { folder, manifest, definition: imported.default(pluginApi) });
    }
  }
  const ordered: InstalledPlugin[] = [];
  const visit = (plugin: InstalledPlugin, trail: string[]) => {
    if (ordered.includes(plugin) || trail.includes(plugin.manifest.name)) return;
    for (const required of plugin.manifest.require) {
      const dependency = found.get(required);
      if (dependency) visit(dependency, [...trail, plugin.manifest.name]);
    }
    ordered.push(plugin);
  };
  for (const plugin of found.values()) visit(plugin, []);
  return ordered;
}
