import type { AppContext } from '../../app-context.ts';
import { apiKeyModel } from './auth-models.ts';

/**
 * A new installation gets one full-access key so that its first user can call the API at once;
 * the token is returned here and nowhere else (only its digest is stored).
 */
export async function createInitialKey(ctx: AppContext): Promise<{ id: number; token: string }> {
  const { record, reveal } = await ctx.store.create(apiKeyModel, {
    description: 'Initial full-access key (created on first start)',
    fullaccess: true,
  });
  return { id: Number(record.id), token: String(reveal.apikey) };
}
