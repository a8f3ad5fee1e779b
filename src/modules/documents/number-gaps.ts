import type { DbExecutor } from '../../db/database.ts';
import type { SqlDialect } from '../../db/dialect.ts';
import { defineModel } from '../../models/define-model.ts';
import { f } from '../../models/fields.ts';

/**
 * The free numbers below the top of a sequence that fills gaps (`usarhuecos`): a document deleted
 * below the highest one, or a number left behind when a document moved to another serie or
 * exercise. Numbering takes the highest of them in O(1) instead of scanning the serie
 * (numbering.ts); deleting the highest document lowers the sequence instead, so every recorded
 * gap has a document above it.
 */
export const numberGapModel = defineModel({
  name: 'HuecoSecuencia',
  table: 'secuencias_huecos',
  internal: true,
  fields: {
    id: f.serial(),
    idsecuencia: f.integer({ notNull: true, references: f.ref('secuencias_documentos', 'idsecuencia', 'CASCADE') }),
    numero: f.integer({ notNull: true }),
  },
  unique: [['idsecuencia', 'numero']],
});

/** Records free numbers of a sequence (a number already recorded is left as it is). */
export async function recordGaps(db: DbExecutor, dialect: SqlDialect, idsecuencia: number, numbers: number[]): Promise<void> {
  for (let start = 0; start < numbers.length; start += 500) {
    const rows = numbers.slice(start, start + 500).map((numero) => ({ idsecuencia, numero }));
    await dialect.insertIgnore(db.insertInto(numberGapModel.table).values(rows), ['idsecuencia', 'numero']).execute();
  }
}

/** The highest recorded free number of a sequence within [from, below), if any. */
export async function highestGap(db: DbExecutor, idsecuencia: number, from: number, below: number): Promise<number | undefined> {
  const row = await db.selectFrom(numberGapModel.table).select('numero')
    .where('idsecuencia', '=', idsecuencia).where('numero', '>=', from).where('numero', '<', below)
    .orderBy('numero', 'desc').limit(1).executeTakeFirst();
  return row ? Number(row.numero) : undefined;
}

export async function forgetGap(db: DbExecutor, idsecuencia: number, numero: number): Promise<void> {
  await db.deleteFrom(numberGapModel.table).where('idsecuencia', '=', idsecuencia).where('numero', '=', numero).execute();
}

/**
 * The next number of a sequence once its highest document, `numero`, is gone: lowered past the
 * free numbers right below it (they are no gaps any more, just the end of the range).
 */
export async function lowerTop(db: DbExecutor, idsecuencia: number, numero: number, inicio: number): Promise<number> {
  let top = numero;
  while (top > inicio && (await highestGap(db, idsecuencia, top - 1, top)) !== undefined) {
    await forgetGap(db, idsecuencia, top - 1);
    top -= 1;
  }
  return top;
}
