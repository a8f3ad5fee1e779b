import type { VerifactuConfig } from '../../../config.ts';
import type { Environment } from '../qr-url.ts';

/** SistemaFacturacion.wsdl: the AEAT's hosts by environment and kind of certificate (a seal certificate has its own). */
const HOSTS: Record<Environment, Record<'personal' | 'sello', string>> = {
  pruebas: { personal: 'https://prewww1.aeat.es', sello: 'https://prewww10.aeat.es' },
  produccion: { personal: 'https://www1.agenciatributaria.gob.es', sello: 'https://www10.agenciatributaria.gob.es' },
};

/** `VerifactuSOAP` takes VERI*FACTU records; `RequerimientoSOAP` the records the AEAT asked a NO VERI*FACTU system for. */
export type Service = 'VerifactuSOAP' | 'RequerimientoSOAP';

/** Where a company's messages go; VERIFACTU_ENDPOINT replaces scheme, host and port (a local stand-in). */
export function endpointOf(config: VerifactuConfig, entorno: Environment, certificate: 'personal' | 'sello', service: Service): string {
  return `${config.endpoint ?? HOSTS[entorno][certificate]}/wlpl/TIKE-CONT/ws/SistemaFacturacion/${service}`;
}
