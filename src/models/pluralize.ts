/**
 * The reference system's plural resource name for a model class name (facturascripts-api.md 1.1),
 * accepted as an alias of the canonical lower-case name: ends in s -> unchanged; ends in ser or
 * tion -> +s; ends in a vowel or k -> +s; otherwise +es. Result lower-cased.
 */
export function pluralize(className: string): string {
  const lower = className.toLowerCase();
  if (className.endsWith('s')) return lower;
  if (className.endsWith('ser') || className.endsWith('tion')) return `${lower}s`;
  if (/[aeiouk]$/.test(className)) return `${lower}s`;
  return `${lower}es`;
}
