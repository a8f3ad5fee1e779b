/**
 * Whether two field values are the same as stored: equal, or the same text (a number written as a
 * string, a date as the driver returned it); null and undefined are the same only as each other.
 */
export function sameValue(a: unknown, b: unknown): boolean {
  return a === b || ((a ?? null) !== null && (b ?? null) !== null && String(a) === String(b));
}
