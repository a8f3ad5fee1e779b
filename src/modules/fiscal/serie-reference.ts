import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { dbBoolean } from '../../db/row-codec.ts';

/** What the tax rules read of a serie: tax-free (`siniva`) and its type (`R` rectifies). */
export interface SerieInfo {
  siniva: boolean;
  tipo: string | null;
  /** The journal and channel its documents' accounting entries take (none by default). */
  iddiario: number | null;
  canal: number | null;
}

const CACHE = 'series';

const number = (value: unknown) => (value === null || value === undefined ? null : Number(value));
const infoOf = (row: Record<string, unknown> | undefined): SerieInfo => ({
  siniva: dbBoolean(row?.siniva), tipo: (row?.tipo as string | null | undefined) ?? null, iddiario: number(row?.iddiario), canal: number(row?.canal),
});
const COLUMNS = ['siniva', 'tipo', 'iddiario', 'canal'] as const;

/** A serie read in the caller's transaction (one the cached snapshot does not know yet); an unknown one reads as a plain serie. */
export async function serieIn(db: DbExecutor, codserie: string): Promise<SerieInfo> {
  return infoOf(await db.selectFrom('series').select([...COLUMNS]).where('codserie', '=', codserie).executeTakeFirst());
}

export function declareSerieReference(ctx: AppContext): void {
  ctx.shared.cache<ReadonlyMap<string, SerieInfo>>(CACHE, ['serie'], () => loadSerieReference(ctx.database.kysely));
}

/** The series as `db` sees them (the cache's load; a transaction's own view). */
export async function loadSerieReference(db: DbExecutor): Promise<ReadonlyMap<string, SerieInfo>> {
  const rows = await db.selectFrom('series').select(['codserie', ...COLUMNS]).execute();
  return new Map(rows.map((row) => [String(row.codserie), infoOf(row)]));
}

/** The current series (outside a transaction). */
export function serieReference(ctx: AppContext): Promise<ReadonlyMap<string, SerieInfo>> {
  return ctx.shared.named<ReadonlyMap<string, SerieInfo>>(CACHE).read();
}
