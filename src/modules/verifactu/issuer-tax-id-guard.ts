import type { AppContext } from '../../app-context.ts';
import { validationError } from '../../errors.ts';
import { chainHeadOf } from './chain-head.ts';
import { storedSwitchOf } from './company-switch.ts';
import { spanishTaxId } from '../fiscal/index.ts';

/**
 * A company's tax id is the issuer of its records: while its records are kept it must be a valid
 * Spanish NIF, and once it has records it no longer changes (a new NIF is a new taxpayer with a
 * chain of its own: a new company).
 */
export function guardIssuerTaxId(ctx: AppContext): void {
  ctx.store.watch(['empresa'], async (db, _model, change) => {
    if (change?.action !== 'update' || String(change.before?.cifnif ?? '') === String(change.record.cifnif ?? '')) return;
    const idempresa = Number(change.record.idempresa);
    if ((await chainHeadOf(db, idempresa)).registros > 0) throw validationError({ cifnif: 'fiscal-records-exist' });
    const current = await storedSwitchOf(db, idempresa);
    if (current && current.modo !== 'off' && !spanishTaxId(change.record.cifnif as string | null)) throw validationError({ cifnif: 'invalid-spanish-tax-id' });
  });
}
