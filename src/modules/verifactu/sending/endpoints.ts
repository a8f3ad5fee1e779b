import type { VerifactuConfig } from '../../../config.ts';
import type { Environment } from '../qr-url.ts';

/** SistemaFacturacion.wsdl: the AEAT's hosts by environment and kind of certificate (a seal certificate has its own). */
const HOSTS: Record<Environment, Record<'personal' | 'sello', string>> = {
  pruebas: { personal: 'https://prewww1.aeat.es', sello: 'https://prewww10.aeat.es' },
  produccion: { personal: 'https://www1.agenciatributaria.gob.es', sello: 'https://www10.agenciatributaria.gob.es' },
};

/** `VerifactuSOAP` takes VERI*FACTU records; `RequerimientoSOAP` the records the AEAT asked a NO VERI*FACTU system for. */
export type Service = 'VerifactuSOAP' | 'RequerimientoSOAP';

/** The services' path under the AEAT's hosts. */
const SERVICE_PATH = '/wlpl/TIKE-CONT/ws/SistemaFacturacion/';
const SERVICE_AT_END = /(VerifactuSOAP|RequerimientoSOAP)$/;

/**
 * Where a company's messages go. VERIFACTU_ENDPOINT (checked by config.ts) replaces the AEAT's
 * host: an origin gets the AEAT's path; a service's full URL is used as given for that service,
 * and the other service is its sibling (the last segment swapped), as the WSDL places them.
 */
export function endpointOf(config: VerifactuConfig, entorno: Environment, certificate: 'personal' | 'sello', service: Service): string {
  const given = config.endpoint;
  if (given && SERVICE_AT_END.test(given)) return given.replace(SERVICE_AT_END, service);
  return `${given ?? HOSTS[entorno][certificate]}${SERVICE_PATH}${service}`;
}
