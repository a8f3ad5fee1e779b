import type { AppContext } from '../../app-context.ts';
import { outsideGate } from '../../db/commit-gate.ts';
import { markWritten, type ClaimedKey } from '../../db/idempotency-keys.ts';
import { inOneTransaction } from '../../db/transaction.ts';
import { AppError } from '../../errors.ts';
import { coerceValue, type InputSource } from '../../models/coerce.ts';
import type { Model } from '../../models/define-model.ts';
import type { FieldValue } from '../../models/fields.ts';
import { writerOf } from '../../http/record-writer.ts';
import type { SheetColumns, SheetRow } from './spreadsheet-rows.ts';

/** What a row does with the record its key names (`modo`): create it, update it, or either. */
export type SheetMode = 'crear' | 'actualizar' | 'ambos';

export const SHEET_MODES: readonly SheetMode[] = ['crear', 'actualizar', 'ambos'];

/** A problem of a row: its number in the sheet, the column (field) and the reason, as the API names reasons. */
export interface SheetProblem {
  fila: number;
  campo: string | null;
  error: string;
}

export interface SheetResult {
  resource: string;
  modo: SheetMode;
  dryrun: boolean;
  filas: number;
  creados: number;
  actualizados: number;
  /** Columns read past: fields the service computes (an export's `riesgoalcanzado`). */
  ignoradas: string[];
}

/** What a spreadsheet import needs to know of its resource: the model, and the column that names a record (its key, or a product's `referencia`). */
export interface SheetTarget {
  model: Model;
  code: string;
}

/** A dry run's or a refused import's way out of its transaction. */
class Undo extends Error {
  readonly problems: SheetProblem[];
  constructor(problems: SheetProblem[]) {
    super('undo');
    this.problems = problems;
  }
}

/**
 * Imports rows as the API's own writes would make them (the model's writer: its rules, hooks,
 * references, generated codes), all in one transaction (pinned-transaction.ts: each row's write a
 * savepoint of it): a row refused is undone alone and its problems noted, and the rows after it go
 * on, so that the answer lists every problem; then, if there was any (or on a dry run), everything
 * is rolled back. A refused import is 422 `import-rows-refused` with `problemas: [{fila, campo, error}]`.
 * `rows` may be a stream (a file): only the row being written is held.
 */
export async function importSheet(ctx: AppContext, target: SheetTarget, rows: AsyncIterable<SheetRow> | Iterable<SheetRow>, options: {
  modo: SheetMode; dryrun: boolean; source: InputSource; columns: SheetColumns;
  /** The request's idempotency key, marked written in the import's transaction (as an atomic batch does). */
  claim?: ClaimedKey;
}): Promise<SheetResult> {
  const { model, code } = target;
  const writer = writerOf(ctx, model);
  const result: SheetResult = { resource: model.resource, modo: options.modo, dryrun: options.dryrun, filas: 0, creados: 0, actualizados: 0, ignoradas: [] };
  try {
    // Outside the request's own commit gate: the rows' writes are savepoints of this one transaction,
    // which marks the request's idempotency key written itself (docs/writes.md).
    await outsideGate(() => inOneTransaction(ctx.database, async () => {
      // Headers naming no field: a problem of row 1 each.
      const problems: SheetProblem[] = options.columns.unknown.map((header) => ({ fila: 1, campo: header, error: 'unknown-field' }));
      for await (const row of rows) {
        result.filas++;
        const given = row.values[code];
        // The key as its column takes it: a key that is none (`abc` for a number) is the row's problem, never a failed read.
        const coerced = given === undefined || given === null ? undefined : coerceValue(model.fields[code]!, given, options.source);
        if (coerced && !coerced.ok) {
          problems.push({ fila: row.fila, campo: code, error: coerced.reason });
          continue;
        }
        const key = coerced?.value;
        const id = key === undefined || key === null ? undefined : await idOf(ctx, model, code, key);
        const creating = options.modo === 'crear' || (options.modo === 'ambos' && id === undefined);
        if (creating && id !== undefined) {
          problems.push({ fila: row.fila, campo: code, error: 'already-exists' });
          continue;
        }
        if (!creating && (key === undefined || key === null)) {
          problems.push({ fila: row.fila, campo: code, error: 'required' });
          continue;
        }
        if (!creating && id === undefined) {
          problems.push({ fila: row.fila, campo: code, error: 'not-found' });
          continue;
        }
        try {
          if (creating) {
            await writer.create(row.values, options.source);
            result.creados++;
          } else {
            await writer.update(id!, row.values, options.source);
            result.actualizados++;
          }
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          problems.push(...problemsOf(row.fila, error));
        }
      }
      if (problems.length || options.dryrun) throw new Undo(problems);
      if (options.claim) await markWritten(ctx.database.kysely, options.claim);
    }));
  } catch (error) {
    if (!(error instanceof Undo)) throw error;
    if (error.problems.length) throw new AppError('import-rows-refused', { resource: model.resource, filas: result.filas, problemas: error.problems });
  }
  result.ignoradas = options.columns.ignored;
  return result;
}

/** The problems an API refusal names: one per field it names, else the refusal's code. */
function problemsOf(fila: number, error: AppError): SheetProblem[] {
  const fields = (error.details?.fields ?? {}) as Record<string, string>;
  const named = Object.entries(fields).map(([campo, reason]) => ({ fila, campo, error: String(reason) }));
  return named.length ? named : [{ fila, campo: null, error: error.code }];
}

/** The key of the record a row names by its code, in the import's transaction (earlier rows included). */
async function idOf(ctx: AppContext, model: Model, code: string, value: unknown): Promise<FieldValue | undefined> {
  const found = await ctx.database.kysely.selectFrom(model.table).select(model.primaryKey).where(code, '=', value as never).executeTakeFirst();
  return found ? (found[model.primaryKey] as FieldValue) : undefined;
}
