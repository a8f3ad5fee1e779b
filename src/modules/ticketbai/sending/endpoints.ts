import type { TicketbaiConfig } from '../../../config.ts';
import { TERRITORY, type Entorno, type Operation, type Territorio } from '../territories.ts';

/**
 * Where a file goes. TICKETBAI_ENDPOINT_<TERRITORIO> (checked by config.ts) replaces the treasury:
 * an origin gets the treasury's paths; a URL ending in the alta service's path is that service,
 * the others beside it as the treasury places them; any other path is a prefix (a proxy) the
 * treasury's paths are added to. Undefined for an operation the territory has not (Zuzendu in Bizkaia).
 */
export function endpointOf(config: TicketbaiConfig, territorio: Territorio, entorno: Entorno, operation: Operation): string | undefined {
  const { paths, origin } = TERRITORY[territorio];
  const path = paths[operation];
  if (!path) return undefined;
  const given = config.endpoints[territorio];
  if (!given) return `${origin[entorno]}${path}`;
  const alta = paths.alta!;
  const bare = alta.replace(/\/$/, '');
  if (given.endsWith(bare) || given.endsWith(alta)) return `${given.slice(0, given.lastIndexOf(bare))}${path}`;
  return `${given.replace(/\/$/, '')}${path}`;
}
