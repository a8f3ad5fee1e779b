import type { SignaturePolicy } from '../verifactu/index.ts';

/** The three Basque treasuries (haciendas forales), each with its own services, QR address and signature policy. */
export const TERRITORIES = ['araba', 'bizkaia', 'gipuzkoa'] as const;
export type Territorio = (typeof TERRITORIES)[number];
export const ENVIRONMENTS = ['pruebas', 'produccion'] as const;
export type Entorno = (typeof ENVIRONMENTS)[number];

/** What is sent: an invoice's file, a cancellation's, or a Zuzendu correction of either (Araba and Gipuzkoa). */
export type Operation = 'alta' | 'anulacion' | 'zuzendu-alta' | 'zuzendu-baja';

export interface TerritoryFacts {
  /** The signature policy its files are signed under (identifier = SPURI, SHA-256 of the policy document). */
  policy: SignaturePolicy;
  /** The QR's base address (the CRC covers it as written, trailing slash included). */
  qr: Record<Entorno, string>;
  /** The services' host. */
  origin: Record<Entorno, string>;
  /** Each operation's path; Bizkaia takes every file through Batuz's LROE entry and has no Zuzendu. */
  paths: Partial<Record<Operation, string>>;
  /** Its files are sent as each is made (Araba, Gipuzkoa: a synchronous service); Bizkaia's LROE takes them in batches, by the sending job. */
  atIssuance: boolean;
  /** The software data its test service accepts, where the treasury publishes one (used in `pruebas` while TICKETBAI_LICENCIA is unset). */
  testSoftware?: { licence: string; developerNif: string; name: string; version: string };
}

/**
 * The treasuries' published data (../shared/reference/ticketbai.md §2.3, §4, §6; confidence noted
 * there: Araba's policy digest and QR address are what every current implementation uses).
 */
export const TERRITORY: Readonly<Record<Territorio, TerritoryFacts>> = {
  araba: {
    policy: { identifier: 'https://ticketbai.araba.eus/tbai/sinadura/', hash: 'SHA-256', digest: '4Vk3uExj7tGn9DyUCPDsV9HRmK6KZfYdRiW3StOjcQA=', url: 'https://ticketbai.araba.eus/tbai/sinadura/' },
    qr: { produccion: 'https://ticketbai.araba.eus/tbai/qrtbai/', pruebas: 'https://pruebas-ticketbai.araba.eus/tbai/qrtbai/' },
    origin: { produccion: 'https://ticketbai.araba.eus', pruebas: 'https://pruebas-ticketbai.araba.eus' },
    atIssuance: true,
    paths: { alta: '/TicketBAI/v1/facturas/', anulacion: '/TicketBAI/v1/anulaciones/', 'zuzendu-alta': '/TicketBAI/v1/facturas/subsanarmodificar', 'zuzendu-baja': '/TicketBAI/v1/anulaciones/baja' },
    // Araba issues test licences per developer: TICKETBAI_LICENCIA and the rest are needed there even to test.
  },
  bizkaia: {
    policy: {
      identifier: 'https://www.batuz.eus/fitxategiak/batuz/ticketbai/sinadura_elektronikoaren_zehaztapenak_especificaciones_de_la_firma_electronica_v1_0.pdf',
      hash: 'SHA-256',
      digest: 'Quzn98x3PMbSHwbUzaj5f5KOpiH0u8bvmwbbbNkO9Es=',
      url: 'https://www.batuz.eus/fitxategiak/batuz/ticketbai/sinadura_elektronikoaren_zehaztapenak_especificaciones_de_la_firma_electronica_v1_0.pdf',
    },
    qr: { produccion: 'https://batuz.eus/QRTBAI/', pruebas: 'https://batuz.eus/QRTBAI/' },
    origin: { produccion: 'https://sarrerak.bizkaia.eus', pruebas: 'https://pruesarrerak.bizkaia.eus' },
    atIssuance: false,
    paths: { alta: '/N3B4000M/aurkezpena', anulacion: '/N3B4000M/aurkezpena' },
    testSoftware: { licence: 'TBAIBI00000000PRUEBA', developerNif: 'A99800005', name: 'SOFTWARE GARANTE TICKETBAI PRUEBA', version: '1.0' },
  },
  gipuzkoa: {
    policy: { identifier: 'https://www.gipuzkoa.eus/ticketbai/sinadura', hash: 'SHA-256', digest: 'vSe1CH7eAFVkGN0X2Y7Nl9XGUoBnziDA5BGUSsyt8mg=', url: 'https://www.gipuzkoa.eus/ticketbai/sinadura' },
    qr: { produccion: 'https://tbai.egoitza.gipuzkoa.eus/qr/', pruebas: 'https://tbai.prep.gipuzkoa.eus/qr/' },
    origin: { produccion: 'https://tbai-z.egoitza.gipuzkoa.eus', pruebas: 'https://tbai-z.prep.gipuzkoa.eus' },
    atIssuance: true,
    paths: { alta: '/sarrerak/alta', anulacion: '/sarrerak/baja', 'zuzendu-alta': '/sarrerak/zuzendu-alta', 'zuzendu-baja': '/sarrerak/zuzendu-baja' },
    testSoftware: { licence: 'TBAIGIPRE00000000501', developerNif: 'P2000000F', name: 'FAKTURABAI', version: '1.0' },
  },
};
