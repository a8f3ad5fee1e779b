/**
 * The URL of an invoice's QR code (AEAT, "Características del QR y especificaciones del servicio de
 * cotejo", v0.5.0): the validation service of the environment and mode, with exactly `nif`,
 * `numserie`, `fecha` (dd-mm-yyyy) and `importe` (the record's ImporteTotal), in that order, each
 * value URL-encoded as UTF-8.
 */
export type Environment = 'pruebas' | 'produccion';
export type RecordMode = 'verifactu' | 'noverifactu';

const HOSTS: Record<Environment, string> = { pruebas: 'https://prewww2.aeat.es', produccion: 'https://www2.agenciatributaria.gob.es' };
const SERVICES: Record<RecordMode, string> = { verifactu: 'ValidarQR', noverifactu: 'ValidarQRNoVerifactu' };

export function qrUrl(invoice: { nif: string; numserie: string; fecha: string; importe: string }, where: { entorno: Environment; modo: RecordMode }): string {
  const query = [['nif', invoice.nif], ['numserie', invoice.numserie], ['fecha', invoice.fecha], ['importe', invoice.importe]]
    .map(([name, value]) => `${name}=${encodeURIComponent(value!)}`)
    .join('&');
  return `${HOSTS[where.entorno]}/wlpl/TIKE-CONT/${SERVICES[where.modo]}?${query}`;
}
