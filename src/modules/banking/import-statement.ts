import { createHash } from 'node:crypto';
import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { rowReader } from '../../db/row-codec.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError, validationError } from '../../errors.ts';
import { bodyFields } from '../../http/body.ts';
import { compactIban, textOf } from '../../models/record-rules.ts';
import { cuentaBancoModel } from '../finance/index.ts';
import { loadCandidates, proposalsFor } from './matching.ts';
import { bankMovementModel } from './statement-models.ts';
import { parseStatement } from './parse-statement.ts';
import { StatementError, type StatementAccount, type StatementMovement } from './statement-file.ts';

type Row = Record<string, unknown>;

/** The file of a request: multipart `file` (bytes) or JSON `contenido` (its text); 422 naming the member otherwise. */
function fileOf(body: unknown): { content: Buffer | string; field: 'file' | 'contenido' } {
  const { fields, errors } = bodyFields(body, ['file', 'contenido']);
  if (Object.keys(errors).length) throw validationError(errors);
  if (Buffer.isBuffer(fields.file)) return { content: fields.file, field: 'file' };
  if (typeof fields.file === 'string' && fields.file.trim()) return { content: fields.file, field: 'file' };
  if (fields.contenido !== undefined && typeof fields.contenido !== 'string') throw validationError({ contenido: 'invalid-text' });
  if (typeof fields.contenido === 'string' && fields.contenido.trim()) return { content: fields.contenido, field: 'contenido' };
  throw validationError({ [fields.contenido === undefined ? 'file' : 'contenido']: 'required' });
}

/**
 * A movement's identity (`huella`): the bank's own reference when the file has one; otherwise all
 * it says (dates, signed cents, concept, references, text) and its rank among the identical ones of
 * its account in this file, so that two equal movements of one day stay two, and the same file (or
 * a later one holding the same day) imported again finds them stored.
 */
function identities(account: StatementAccount): string[] {
  const seen = new Map<string, number>();
  return account.movimientos.map((movement) => {
    const said = movement.referenciabanco
      ? `ref|${movement.referenciabanco}|${movement.fecha}`
      : [movement.fecha, movement.fechavalor, Math.round(movement.importe * 100), movement.concepto, movement.conceptopropio, movement.documento, movement.referencia1, movement.referencia2, movement.texto].join('|');
    const rank = seen.get(said) ?? 0;
    seen.set(said, rank + 1);
    return createHash('sha256').update(`${said}|${rank}`).digest('hex');
  });
}

function rowOf(movement: StatementMovement, codcuenta: string, idempresa: number, formato: string, huella: string): Row {
  return {
    codcuenta, idempresa, fecha: movement.fecha, fechavalor: movement.fechavalor, importe: movement.importe, concepto: movement.concepto.slice(0, 2), conceptopropio: movement.conceptopropio.slice(0, 3),
    documento: movement.documento.slice(0, 10), referencia1: movement.referencia1.slice(0, 12), referencia2: movement.referencia2.slice(0, 16), texto: movement.texto,
    endtoend: movement.endtoend.join(' ') || null, mandato: movement.mandato?.slice(0, 35) ?? null, acreedor: movement.acreedor?.slice(0, 35) ?? null,
    contraparte: movement.contraparte?.slice(0, 140) ?? null, ibancontraparte: movement.ibancontraparte?.slice(0, 34) ?? null, referenciabanco: movement.referenciabanco?.slice(0, 35) ?? null,
    formato, huella,
  };
}

/** The company bank account of each of the file's accounts, by IBAN; a file naming any other is refused whole. */
async function accountsOf(ctx: AppContext, db: DbExecutor, cuentas: StatementAccount[], field: string): Promise<Array<{ codcuenta: string; idempresa: number }>> {
  const known = await db.selectFrom(cuentaBancoModel.table).select(['codcuenta', 'iban', 'idempresa']).execute();
  const { idempresa } = await ctx.settings();
  return cuentas.map((cuenta) => {
    const account = known.find((row) => row.iban && compactIban(textOf(row.iban)) === cuenta.iban);
    if (!account) throw new AppError('validation-failed', { fields: { [field]: 'unknown-account' }, cuenta: cuenta.iban, linea: cuenta.linea });
    return { codcuenta: textOf(account.codcuenta), idempresa: account.idempresa === null ? idempresa : Number(account.idempresa) };
  });
}

/**
 * `POST /api/3/importarExtractoBancario`: a Norma 43 or camt.053 file (multipart `file`, or JSON
 * `contenido`). Refused whole (422 naming the member, with `linea` and `cuenta`) when it does not
 * read, does not add up, or names an account that is not the company's. Otherwise its movements
 * not stored yet are stored with their proposals, in one transaction. Answers `movimientos` (the
 * file's movements as stored), `nuevos` and `repetidos`.
 */
export async function importStatement(ctx: AppContext, body: unknown): Promise<Row> {
  const { content, field } = fileOf(body);
  let parsed: ReturnType<typeof parseStatement>;
  try {
    parsed = parseStatement(content);
  } catch (error) {
    if (error instanceof StatementError) throw new AppError('validation-failed', { fields: { [field]: error.motivo }, linea: error.linea, cuenta: error.cuenta });
    throw error;
  }
  const accounts = await accountsOf(ctx, ctx.database.kysely, parsed.cuentas, field);
  const read = rowReader(bankMovementModel);
  return inTransaction(ctx.database, async (trx) => {
    // One import per account at a time: a second import of the same file waits, then finds every movement stored.
    const codes = [...new Set(accounts.map((account) => account.codcuenta))].sort();
    await ctx.database.dialect.locking(trx.selectFrom(cuentaBancoModel.table).select('codcuenta').where('codcuenta', 'in', codes).orderBy('codcuenta')).execute();
    const movimientos: Row[] = [];
    let nuevos = 0;
    for (const [index, cuenta] of parsed.cuentas.entries()) {
      const { codcuenta, idempresa } = accounts[index]!;
      const huellas = identities(cuenta);
      const stored = new Set<string>();
      for (let start = 0; start < huellas.length; start += 500) {
        const slice = huellas.slice(start, start + 500);
        for (const row of await trx.selectFrom(bankMovementModel.table).select('huella').where('codcuenta', '=', codcuenta).where('huella', 'in', slice).execute()) stored.add(textOf(row.huella));
      }
      const fresh = cuenta.movimientos.map((movement, i) => ({ movement, huella: huellas[i]! })).filter(({ huella }) => !stored.has(huella));
      const candidates = await loadCandidates(ctx, trx, codcuenta, idempresa, fresh.map(({ movement }) => movement));
      if (fresh.length) {
        await ctx.store.insertMany(bankMovementModel, fresh.map(({ movement, huella }) => ({ ...rowOf(movement, codcuenta, idempresa, parsed.formato, huella), propuestas: proposalsFor(movement, candidates) })), trx);
      }
      nuevos += fresh.length;
      for (let start = 0; start < huellas.length; start += 500) {
        const rows = await trx.selectFrom(bankMovementModel.table).selectAll().where('codcuenta', '=', codcuenta).where('huella', 'in', huellas.slice(start, start + 500)).execute();
        const byHuella = new Map(rows.map((row) => [textOf(row.huella), read(row)]));
        for (const huella of huellas.slice(start, start + 500)) movimientos.push(byHuella.get(huella)!);
      }
    }
    return { formato: parsed.formato, movimientos, nuevos, repetidos: movimientos.length - nuevos };
  });
}
