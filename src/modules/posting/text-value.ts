/** A column's text when it holds one; null for null, undefined or empty (codes left blank). */
export const textValue = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);
