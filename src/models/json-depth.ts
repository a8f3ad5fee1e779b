/**
 * Deepest nesting a JSON value may have anywhere in the service (bodies, JSON fields, `lineas`).
 * Records are flat and settings shallow, so 32 is generous; deeper values are refused before any
 * recursive code (serialisers, merges) could exhaust the stack on them.
 */
export const MAX_JSON_DEPTH = 32;

/** True when `value` nests no deeper than `max` arrays/objects. Iterative: safe on any input. */
export function withinDepth(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth >= max) return false;
    for (const child of Object.values(current)) if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return true;
}
