import type { Config } from '../config.ts';
import type { Module } from '../module.ts';
import { coreModules } from '../modules/index.ts';
import { loadPlugins, SHIPPED_PLUGINS_DIR } from './load-plugins.ts';
import { pluginsModules } from './plugins-module.ts';

/** What an installation is made of: the core's modules, then the plugins resource and every installed plugin. */
export async function installationModules(config: Config): Promise<Module[]> {
  const dirs = [SHIPPED_PLUGINS_DIR, ...(config.pluginsDir ? [config.pluginsDir] : [])];
  return [...coreModules(), ...pluginsModules(await loadPlugins(dirs))];
}
