import type { Module } from '../../module.ts';
import { DEFAULT_DATA } from './default-data.ts';
import { MORE_DEFAULT_DATA } from './more-default-data.ts';

/**
 * The default data of a new installation (the reference's post-wizard Spanish installation),
 * written through the other modules' models by resource name. Listed after every module whose
 * tables it fills; leave it out for an empty installation.
 */
export function installationModule(): Module {
  return { name: 'installation', seeds: [...DEFAULT_DATA, ...MORE_DEFAULT_DATA] };
}
