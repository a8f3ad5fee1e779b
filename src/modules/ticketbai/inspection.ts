import type { AppContext } from '../../app-context.ts';
import { PACKAGE_VERSION } from '../../version.ts';
import type { XmlTree } from '../verifactu/index.ts';
import { softwareOf } from './software.ts';
import { ENVIRONMENTS, TERRITORIES } from './territories.ts';

/** What one treasury's files name as their software, in one environment; null where none is registered. */
interface Named {
  territorio: string;
  entorno: string;
  licencia: string | null;
  desarrolladornif: string | null;
  nombre: string | null;
  version: string | null;
}

/**
 * The inspection screen's data (TicketBAI specification 1.2 §5): the developer's NIF and name, the
 * software's name and version, as the registry lists them and as every file names them, for each
 * treasury and environment (`ticketbaiSoftware`, shown by the admin console).
 */
export function inspectionData(ctx: AppContext): { desarrollador: { nif: string | null; nombre: string | null }; programa: { nombre: string | null; version: string }; ficheros: Named[] } {
  const { software } = ctx.config.ticketbai;
  const ficheros = TERRITORIES.flatMap((territorio) => ENVIRONMENTS.map((entorno): Named => {
    const named = softwareOf(ctx.config.ticketbai, territorio, entorno);
    const developer = named?.EntidadDesarrolladora as XmlTree | undefined;
    return {
      territorio, entorno, licencia: (named?.LicenciaTBAI as string | undefined) ?? null, desarrolladornif: (developer?.NIF as string | undefined) ?? null,
      nombre: (named?.Nombre as string | undefined) ?? null, version: (named?.Version as string | undefined) ?? null,
    };
  }));
  return {
    desarrollador: { nif: software.developerNif ?? null, nombre: software.developerName ?? null },
    programa: { nombre: software.name ?? null, version: software.version ?? PACKAGE_VERSION },
    ficheros,
  };
}
