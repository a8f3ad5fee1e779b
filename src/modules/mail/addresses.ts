/**
 * Address lists as clients write them: an array of strings, or one string separated by commas or
 * semicolons; each item `ana@example.com` or `Ana López <ana@example.com>`.
 */

/** At most this many recipients, To, Cc and Bcc together, per message. */
export const MAX_RECIPIENTS = 50;

export interface Address {
  name: string;
  address: string;
}

/** A mailbox: no spaces, quotes, brackets, commas or semicolons; a dotted domain. */
const MAILBOX = /^[^\s@<>(),;:"\\[\]]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/;
const NAMED = /^\s*"?([^"<>]*?)"?\s*<([^<>]+)>\s*$/;

/** CR, LF and other controls would end a header and start another (header injection). */
export const hasControl = (text: string): boolean => /[\u0000-\u001f\u007f]/.test(text);

export type AddressProblem = 'header-injection' | 'invalid-email' | 'invalid-value';

/** The list read, or the problem of its first bad item. An empty or absent list is []. */
export function parseAddresses(value: unknown): Address[] | AddressProblem {
  if (value === undefined || value === null || value === '') return [];
  const items = Array.isArray(value) ? value : [value];
  const found: Address[] = [];
  for (const item of items) {
    if (typeof item !== 'string') return 'invalid-value';
    if (hasControl(item)) return 'header-injection';
    for (const part of item.split(/[,;]/)) {
      if (part.trim() === '') continue;
      const named = NAMED.exec(part);
      const address = (named ? named[2]! : part).trim();
      if (!MAILBOX.test(address) || address.length > 254) return 'invalid-email';
      found.push({ name: named ? named[1]!.trim() : '', address });
    }
  }
  return found;
}

/** A stored list (a customer's e-mail, a settings key, checked when written): [] for anything unreadable. */
export function addressesOf(value: unknown): Address[] {
  const parsed = parseAddresses(value);
  return typeof parsed === 'string' ? [] : parsed;
}

/** One address (a sender, a reply-to): the problem, or undefined when it is fine or empty. */
export function addressProblem(value: unknown): AddressProblem | 'too-many-recipients' | undefined {
  const parsed = parseAddresses(value);
  if (typeof parsed === 'string') return parsed;
  return parsed.length > 1 ? 'too-many-recipients' : undefined;
}

/** As a header writes it: `Ana López <ana@example.com>, bob@example.com`. */
export function formatAddresses(addresses: readonly Address[]): string {
  return addresses.map(({ name, address }) => (name ? `${name.replace(/["\\]/g, '')} <${address}>` : address)).join(', ');
}
