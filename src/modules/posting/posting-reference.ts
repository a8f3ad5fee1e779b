import type { AppContext } from '../../app-context.ts';
import type { LineProduct } from '../catalogue/index.ts';
import { textValue } from './text-value.ts';

type Row = Record<string, unknown>;

/** What postings read of taxes, retentions and families: changed rarely, kept per instance. */
export interface PostingReference {
  /** Taxes with their sub-account fields, by code. */
  taxes: ReadonlyMap<string, Row>;
  /** Retentions in code order (the first of a rate is the one posted to). */
  retentions: readonly Row[];
  /** Families: their parent and their own sub-accounts, by code. */
  families: ReadonlyMap<string, { madre: string | null; codsubcuentaven: string | null; codsubcuentacom: string | null }>;
  /** The bank sub-accounts (the account's and its fees') of each payment method with a bank account. */
  banks: ReadonlyMap<string, { codsubcuenta: string | null; codsubcuentagasto: string | null }>;
}

const CACHE = 'posting';

export function declarePostingReference(ctx: AppContext): void {
  ctx.shared.cache<PostingReference>(CACHE, ['impuesto', 'retencion', 'familia', 'formapago', 'cuentabanco'], async () => {
    const db = ctx.database.kysely;
    const [taxes, retentions, families, banks] = await Promise.all([
      db.selectFrom('impuestos').selectAll().execute(),
      db.selectFrom('retenciones').selectAll().orderBy('codretencion').execute(),
      db.selectFrom('familias').select(['codfamilia', 'madre', 'codsubcuentaven', 'codsubcuentacom']).execute(),
      db.selectFrom('formaspago as f').innerJoin('cuentasbanco as b', 'b.codcuenta', 'f.codcuentabanco').select(['f.codpago', 'b.codsubcuenta', 'b.codsubcuentagasto']).execute(),
    ]);
    return {
      taxes: new Map(taxes.map((row) => [String(row.codimpuesto), row as Row])),
      retentions: retentions as Row[],
      families: new Map(families.map((row) => [String(row.codfamilia), {
        madre: textValue(row.madre), codsubcuentaven: textValue(row.codsubcuentaven), codsubcuentacom: textValue(row.codsubcuentacom),
      }])),
      banks: new Map(banks.map((row) => [String(row.codpago), { codsubcuenta: textValue(row.codsubcuenta), codsubcuentagasto: textValue(row.codsubcuentagasto) }])),
    };
  });
}

/** The current taxes, retentions and families for postings (outside a transaction). */
export function postingReference(ctx: AppContext): Promise<PostingReference> {
  return ctx.shared.named<PostingReference>(CACHE).read();
}

/** The retention posted for an IRPF rate: the first of that rate by code (as `postInvoice` reads it). */
export function retentionOfRate(reference: PostingReference, irpf: number): Row | undefined {
  return reference.retentions.find((row) => Number(row.porcentaje) === irpf);
}

/**
 * The goods sub-account codes of an invoice's lines, by product id: the product's own, else its
 * family's, walking up (a tree made circular by hand stops after ten), as `goodsCodes` reads them.
 */
export function cachedGoodsCodes(reference: PostingReference, field: 'codsubcuentaven' | 'codsubcuentacom', products: Iterable<LineProduct>): Map<number, string> {
  const codes = new Map<number, string>();
  for (const product of products) {
    let code = product[field];
    let family = product.codfamilia;
    for (let depth = 0; !code && family && depth < 10; depth++) {
      const found = reference.families.get(family);
      code = found?.[field] ?? null;
      family = found?.madre ?? null;
    }
    if (code) codes.set(product.idproducto, code);
  }
  return codes;
}
