import { sql, type RawBuilder } from 'kysely';
import type { Row } from '../documents/index.ts';

type Side = 'sales' | 'purchase';

/** The column an invoice's own VAT day is kept in: the accrual date of a sale, the reception of a purchase. */
const OWN: Record<Side, string> = { sales: 'fechadevengo', purchase: 'fecharecepcion' };

/**
 * The day an invoice's VAT falls on (../shared/reference/tax-forms.md 1.1): its own VAT day when
 * it has one, else its date. What puts it in a return's period and a settlement's lock.
 */
export function vatDate(side: Side, header: Row): string | null {
  const own = header[OWN[side]];
  const day = typeof own === 'string' && own !== '' ? own : header.fecha;
  return typeof day === 'string' && day !== '' ? day : null;
}

/** The same as SQL over the invoice header aliased `f`. */
export const vatDateSql = (side: Side): RawBuilder<string> => sql<string>`COALESCE(${sql.ref(`f.${OWN[side]}`)}, f.fecha)`;
