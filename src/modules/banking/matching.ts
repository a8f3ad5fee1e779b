import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { compactIban, textOf } from '../../models/record-rules.ts';

/**
 * What a bank movement could pay (docs/banking.md, "Matching"), scored 0-100, best first. Pure but
 * for `loadCandidates`, which reads in a few queries everything a whole statement's movements may
 * match: the account's open remittances and transfer orders, the company's unpaid receipts of the
 * movements' amounts or named in their texts, and the collected receipts their end-to-end ids name.
 *
 * - Money in: a remittance credited as one movement (its total, near its collection day), or
 *   customer receipts: one of the same amount (more when its invoice is named, the payer's IBAN is
 *   the customer's, it was due near the day), or several whose invoices the text names and whose
 *   sum is the amount.
 * - Money out: a transfer order (its total, near its execution day), supplier receipts (the same
 *   rules), or a direct debit of ours returned (`devolucion`: the end-to-end id of a collected
 *   receipt, the amount being the receipt's, perhaps with the bank's fee).
 */

type Row = Record<string, unknown>;

export type ProposalKind = 'remesa' | 'transferencia' | 'recibos' | 'recibosproveedor' | 'devolucion';

export interface Proposal {
  tipo: ProposalKind;
  idrecibos?: number[];
  idremesa?: number;
  idtransferencia?: number;
  puntuacion: number;
  motivos: string[];
}

/** What matching reads of a movement. */
export interface MovementToMatch {
  fecha: string;
  fechavalor: string;
  importe: number;
  concepto: string;
  texto: string;
  endtoend: string[];
  ibancontraparte: string | null;
}

interface Receipt {
  idrecibo: number;
  cents: number;
  codigofactura: string;
  vencimiento: string;
  iban: string | null;
}

export interface Candidates {
  remittances: Array<{ idremesa: number; cents: number; fecha: string }>;
  transfers: Array<{ idtransferencia: number; cents: number; fecha: string }>;
  customerReceipts: Receipt[];
  supplierReceipts: Receipt[];
  /** Collected receipts standing in a remittance, by end-to-end id. */
  collected: Map<string, { idrecibo: number; cents: number }>;
}

const centsOf = (amount: unknown) => Math.round(Number(amount) * 100);
const days = (a: string, b: string) => Math.abs(Date.parse(`${a}T00:00:00Z`) - Date.parse(`${b}T00:00:00Z`)) / 86_400_000;

/** The words of a text that could be document codes (holding a digit): what an invoice named in a concept looks like. */
export function codesIn(text: string): string[] {
  return [...new Set(text.toUpperCase().split(/[^A-Z0-9/_-]+/).filter((word) => word.length >= 3 && word.length <= 20 && /\d/.test(word)))];
}

/** Everything the movements of one account may match, read once for the whole statement. */
export async function loadCandidates(ctx: AppContext, db: DbExecutor, codcuenta: string, idempresa: number, movements: readonly MovementToMatch[]): Promise<Candidates> {
  const { dialect } = ctx.database;
  const amounts = [...new Set(movements.map((movement) => Math.abs(movement.importe)))];
  const codes = [...new Set(movements.flatMap((movement) => codesIn(movement.texto)))];
  const endToEnd = [...new Set(movements.flatMap((movement) => movement.endtoend))];
  const unpaid = async (table: 'recibospagoscli' | 'recibospagosprov', subject: 'codcliente' | 'codproveedor', banks: 'cuentasbcocli' | 'cuentasbcopro') => {
    const query = (column: 'r.importe' | 'r.codigofactura', values: unknown[]) => db.selectFrom(`${table} as r`)
      .leftJoin(`${banks} as b`, (join) => join.onRef(`b.${subject}` as never, '=', `r.${subject}` as never).on('b.principal', '=', dialect.boolean(true) as never))
      .select(['r.idrecibo', 'r.importe', 'r.codigofactura', 'r.vencimiento', 'b.iban'])
      .where('r.pagado', '=', dialect.boolean(false) as never).where('r.idempresa', '=', idempresa).where(column, 'in', values as never)
      .orderBy('r.vencimiento').orderBy('r.idrecibo').limit(5000).execute();
    const found = new Map<number, Row>();
    const lists: Array<['r.importe' | 'r.codigofactura', readonly unknown[]]> = [['r.importe', amounts], ['r.codigofactura', codes]];
    for (const [column, values] of lists) {
      for (const slice of chunks(values)) for (const row of await query(column, slice)) found.set(Number(row.idrecibo), row);
    }
    return [...found.values()];
  };
  const receipt = (row: Row): Receipt => ({
    idrecibo: Number(row.idrecibo), cents: centsOf(row.importe), codigofactura: textOf(row.codigofactura).toUpperCase(), vencimiento: textOf(row.vencimiento), iban: row.iban ? compactIban(textOf(row.iban)) : null,
  });
  const collected: Row[] = [];
  for (const slice of chunks(endToEnd)) {
    collected.push(...await db.selectFrom('remesassepa_recibos as x').innerJoin('remesassepa as m', 'm.idremesa', 'x.idremesa').select(['x.idrecibo', 'x.importe', 'x.endtoend'])
      .where('x.endtoend', 'in', slice).where('x.vigente', '=', dialect.boolean(true) as never).where('m.estado', '=', 'cobrada').where('m.codcuenta', '=', codcuenta).execute());
  }
  const [remittances, transfers, customers, suppliers] = await Promise.all([
    db.selectFrom('remesassepa').select(['idremesa', 'total', 'fechacargo']).where('codcuenta', '=', codcuenta).where('estado', '<>', 'cobrada').execute(),
    db.selectFrom('transferenciassepa').select(['idtransferencia', 'total', 'fechaejecucion']).where('codcuenta', '=', codcuenta).where('estado', '<>', 'pagada').execute(),
    unpaid('recibospagoscli', 'codcliente', 'cuentasbcocli'),
    unpaid('recibospagosprov', 'codproveedor', 'cuentasbcopro'),
  ]);
  return {
    remittances: remittances.map((row) => ({ idremesa: Number(row.idremesa), cents: centsOf(row.total), fecha: textOf(row.fechacargo) })),
    transfers: transfers.map((row) => ({ idtransferencia: Number(row.idtransferencia), cents: centsOf(row.total), fecha: textOf(row.fechaejecucion) })),
    customerReceipts: customers.map(receipt),
    supplierReceipts: suppliers.map(receipt),
    collected: new Map(collected.map((row) => [textOf(row.endtoend), { idrecibo: Number(row.idrecibo), cents: centsOf(row.importe) }])),
  };
}

/** A list in slices small enough for any engine's bound parameters (a statement of thousands of lines names many). */
function chunks<T>(values: readonly T[], size = 500): T[][] {
  const slices: T[][] = [];
  for (let start = 0; start < values.length; start += size) slices.push(values.slice(start, start + size));
  return slices;
}

/** Points for a day near the expected one: the same 30, within 3 days 20, within 10 days 10. */
function nearness(day: string, expected: string): number {
  const apart = days(day, expected);
  return apart === 0 ? 30 : apart <= 3 ? 20 : apart <= 10 ? 10 : 0;
}

/** One batch (remittance or transfer order) of exactly the amount: 60, plus its day's nearness and a text naming a remittance. */
function batchProposals<T extends { cents: number; fecha: string }>(movement: MovementToMatch, cents: number, batches: T[], make: (batch: T, points: number, motivos: string[]) => Proposal): Proposal[] {
  return batches.filter((batch) => batch.cents === cents).map((batch) => {
    const motivos = ['importe'];
    let points = 60;
    const near = nearness(movement.fechavalor, batch.fecha);
    if (near) (points += near, motivos.push('fecha'));
    if (/REMESA|REMES|TRANSF/i.test(movement.texto)) (points += 10, motivos.push('texto'));
    return make(batch, Math.min(points, 100), motivos);
  });
}

/** Receipts of one side: alone when of the amount, together when the text names their invoices and they sum to it. */
function receiptProposals(movement: MovementToMatch, cents: number, receipts: Receipt[], tipo: 'recibos' | 'recibosproveedor'): Proposal[] {
  const codes = new Set(codesIn(movement.texto));
  const iban = movement.ibancontraparte ? compactIban(movement.ibancontraparte) : null;
  const proposals: Proposal[] = [];
  for (const receipt of receipts.filter((row) => row.cents === cents)) {
    const motivos = ['importe'];
    let points = 40;
    if (receipt.codigofactura && codes.has(receipt.codigofactura)) (points += 30, motivos.push('factura'));
    if (iban && receipt.iban === iban) (points += 20, motivos.push('iban'));
    if (receipt.vencimiento && days(movement.fechavalor, receipt.vencimiento) <= 7) (points += 10, motivos.push('fecha'));
    proposals.push({ tipo, idrecibos: [receipt.idrecibo], puntuacion: Math.min(points, 100), motivos });
  }
  const named = receipts.filter((receipt) => receipt.codigofactura && codes.has(receipt.codigofactura));
  if (named.length > 1 && named.reduce((sum, receipt) => sum + receipt.cents, 0) === cents) {
    const sameIban = iban !== null && named.every((receipt) => receipt.iban === iban);
    proposals.push({ tipo, idrecibos: named.map((receipt) => receipt.idrecibo), puntuacion: sameIban ? 90 : 75, motivos: ['factura', 'importe', ...(sameIban ? ['iban'] : [])] });
  }
  return proposals;
}

/** The proposals for one movement, best first (at most five). */
export function proposalsFor(movement: MovementToMatch, candidates: Candidates): Proposal[] {
  const cents = Math.abs(Math.round(movement.importe * 100));
  const proposals: Proposal[] = [];
  if (movement.importe > 0) {
    proposals.push(...batchProposals(movement, cents, candidates.remittances, (batch, puntuacion, motivos) => ({ tipo: 'remesa', idremesa: batch.idremesa, puntuacion, motivos })));
    proposals.push(...receiptProposals(movement, cents, candidates.customerReceipts, 'recibos'));
  } else if (movement.importe < 0) {
    for (const id of movement.endtoend) {
      const returned = candidates.collected.get(id);
      // The bank takes back the receipt, sometimes with its fee in the same movement.
      if (returned && cents >= returned.cents) proposals.push({ tipo: 'devolucion', idrecibos: [returned.idrecibo], puntuacion: cents === returned.cents || movement.concepto === '14' ? 95 : 80, motivos: ['endtoend', ...(cents === returned.cents ? ['importe'] : [])] });
    }
    proposals.push(...batchProposals(movement, cents, candidates.transfers, (batch, puntuacion, motivos) => ({ tipo: 'transferencia', idtransferencia: batch.idtransferencia, puntuacion, motivos })));
    proposals.push(...receiptProposals(movement, cents, candidates.supplierReceipts, 'recibosproveedor'));
  }
  return proposals.sort((a, b) => b.puntuacion - a.puntuacion).slice(0, 5);
}
