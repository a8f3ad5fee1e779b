import type { TicketbaiConfig } from '../../config.ts';
import { PACKAGE_VERSION } from '../../version.ts';
import type { XmlTree } from '../verifactu/index.ts';
import { TERRITORY, type Entorno, type Territorio } from './territories.ts';

/**
 * The `Software` block of every file: the licence the TicketBAI registry gave this software, its
 * developer's NIF, its name and version, exactly as registered (Bizkaia refuses a mismatch:
 * B4_2000063-066). From configuration; without it, a treasury's published test data in its test
 * environment; else none, and the company cannot issue (`software-not-registered`).
 */
export function softwareOf(config: TicketbaiConfig, territorio: Territorio, entorno: Entorno): XmlTree | undefined {
  const { licence, developerNif, name, version } = config.software;
  if (licence && developerNif && name) return software(licence, developerNif, name, version ?? PACKAGE_VERSION.slice(0, 20));
  const test = TERRITORY[territorio].testSoftware;
  if (entorno === 'pruebas' && test && !licence) return software(test.licence, test.developerNif, test.name, test.version);
  return undefined;
}

function software(licence: string, nif: string, name: string, version: string): XmlTree {
  return { LicenciaTBAI: licence, EntidadDesarrolladora: { NIF: nif }, Nombre: name, Version: version };
}
