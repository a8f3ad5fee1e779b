import type { AppContext } from '../../app-context.ts';
import { dbBoolean } from '../../db/row-codec.ts';

/** What the tax rules read of a serie: tax-free (`siniva`) and its type (`R` rectifies). */
export interface SerieInfo {
  siniva: boolean;
  tipo: string | null;
}

const CACHE = 'series';

export function declareSerieReference(ctx: AppContext): void {
  ctx.shared.cache<ReadonlyMap<string, SerieInfo>>(CACHE, ['serie'], async () => {
    const rows = await ctx.database.kysely.selectFrom('series').select(['codserie', 'siniva', 'tipo']).execute();
    return new Map(rows.map((row) => [String(row.codserie), { siniva: dbBoolean(row.siniva), tipo: (row.tipo as string | null) ?? null }]));
  });
}

/** The current series (outside a transaction). */
export function serieReference(ctx: AppContext): Promise<ReadonlyMap<string, SerieInfo>> {
  return ctx.shared.named<ReadonlyMap<string, SerieInfo>>(CACHE).read();
}
