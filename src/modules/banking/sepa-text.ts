/**
 * Text as SEPA messages may carry it (../shared/reference/sepa.md section 5): the Latin subset
 * only (letters, digits, `/ - ? : ( ) . , ' +` and space), national letters transliterated
 * (á -> a, ñ -> n, ç -> c), the EPC's few replacements (`&` -> `+`, `@` -> `(at)`, `_` -> `-`),
 * anything else dropped; then cut to `max`, after transliterating.
 */
export function sepaText(text: string, max: number): string {
  const latin = text.normalize('NFD').replace(/[\u0300-\u036f]/g, '')
    .replace(/&/g, '+').replace(/@/g, '(at)').replace(/_/g, '-').replace(/€/g, 'E')
    .replace(/[^A-Za-z0-9/\-?:().,'+ ]+/g, ' ').replace(/\s+/g, ' ').trim();
  return latin.slice(0, max).trim();
}

/**
 * An identifier (MsgId, PmtInfId, EndToEndId, MndtId): the SEPA text, no spaces, never starting
 * or ending with `/` nor holding `//`; `fallback` when nothing is left.
 */
export function sepaIdentifier(text: string, max = 35, fallback = 'NOTPROVIDED'): string {
  const id = sepaText(text, 200).replace(/\s+/g, '').replace(/\/{2,}/g, '/').replace(/^\/+|\/+$/g, '').slice(0, max).replace(/\/+$/, '');
  return id || fallback;
}
