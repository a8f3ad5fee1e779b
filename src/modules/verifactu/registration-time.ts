import { dayIn } from '../../clock.ts';

/**
 * `FechaHoraHusoGenRegistro`: when a record was generated, to the second, with the UTC offset of
 * the territory the invoice is issued from (RD 1007/2023 art. 9; Orden HAC/1177/2024 art. 12):
 * mainland Spain and the Balearic Islands keep Madrid's time, the Canary Islands their own.
 */
export type Territory = 'Europe/Madrid' | 'Atlantic/Canary';

const CANARY_PROVINCES = ['las palmas', 'santa cruz de tenerife', 'tenerife', 'gran canaria', 'canarias'];

const plain = (text: string) => text.normalize('NFD').replace(/\p{Diacritic}/gu, '').trim().toLowerCase();

/** The issuing territory of a company, from its postcode (35xxx, 38xxx) or its province. */
export function territoryOf(company: { codpostal?: unknown; provincia?: unknown }): Territory {
  const postcode = String(company.codpostal ?? '').trim();
  if (/^(35|38)\d{3}$/.test(postcode)) return 'Atlantic/Canary';
  const province = plain(String(company.provincia ?? ''));
  return CANARY_PROVINCES.some((name) => province === name || province.includes(name)) ? 'Atlantic/Canary' : 'Europe/Madrid';
}

const offsets = new Map<string, Intl.DateTimeFormat>();

/** The zone's UTC offset at instant `ms`, as `+hh:mm`. */
export function utcOffset(ms: number, zone: string): string {
  let format = offsets.get(zone);
  if (!format) offsets.set(zone, (format = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' })));
  const name = format.formatToParts(ms).find((part) => part.type === 'timeZoneName')?.value ?? 'GMT';
  const match = /^GMT([+-]\d{2}):?(\d{2})?$/.exec(name);
  return match ? `${match[1]}:${match[2] ?? '00'}` : '+00:00';
}

/**
 * A wall-clock time of `zone` (`YYYY-MM-DDThh:mm:ss`) with the offset the zone has then, as
 * `FechaHoraHuso` writes it: the offset at the instant itself, which differs from noon's on the days
 * the clocks change.
 */
export function zonedStamp(local: string, zone: string): string {
  const guess = utcOffset(Date.parse(`${local}Z`), zone);
  return `${local}${utcOffset(Date.parse(`${local}${guess}`), zone)}`;
}

/** `YYYY-MM-DDThh:mm:ss±hh:mm` of instant `ms` in `zone`. */
export function registrationTime(ms: number, zone: string): string {
  const instant = Math.floor(ms / 1000) * 1000;
  const { date, time } = dayIn(instant, zone);
  return `${date}T${time}${utcOffset(instant, zone)}`;
}

/** The instant (ms) a `FechaHoraHusoGenRegistro` names. */
export function instantOf(stamp: string): number {
  return Date.parse(stamp);
}
