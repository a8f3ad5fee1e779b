import type { TaxGroup } from '../documents/index.ts';
import { SELF_ASSESSED } from '../documents/index.ts';
import { dec, roundNumber } from '../../models/round.ts';

type Row = Record<string, unknown>;

/**
 * The tax rows of an invoice (pure): its groups in euros (the document's amounts over its
 * `tasaconv`), a self-assessed purchase's VAT computed on its base at the group's rate.
 * `side` is the invoice's; `companyCountry` the company's (self-assessment is Spain's rule).
 */
export function taxRows(side: 'sales' | 'purchase', header: Row, groups: readonly TaxGroup[], companyCountry: string | null): Row[] {
  const rate = Number(header.tasaconv) > 0 ? Number(header.tasaconv) : 1;
  const euros = (amount: number) => roundNumber(dec(amount).div(rate), 2);
  const selfAssessed = side === 'purchase' && (companyCountry ?? 'ESP') === 'ESP' && typeof header.operacion === 'string' && SELF_ASSESSED.has(header.operacion);
  return groups.filter((group) => group.neto !== 0 || group.totaliva !== 0 || group.totalrecargo !== 0).map((group) => {
    const base = euros(group.neto);
    return {
      codimpuesto: group.codimpuesto ?? null,
      iva: group.iva,
      recargo: group.recargo,
      base,
      cuota: selfAssessed ? roundNumber(dec(base).times(group.iva).div(100), 2) : euros(group.totaliva),
      cuotarecargo: euros(group.totalrecargo),
      autoliquidada: selfAssessed,
    };
  });
}
