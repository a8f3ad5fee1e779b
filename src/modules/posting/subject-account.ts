import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { insertedId } from '../../db/inserted-id.ts';
import { chartLock } from '../accounting/index.ts';
import type { ChartView, Subaccount } from './chart.ts';
import { NotPosted } from './not-posted.ts';
import { textValue } from './text-value.ts';

export type Side = 'sales' | 'purchase';

const SUBJECTS = {
  sales: { table: 'clientes', key: 'codcliente', notFound: 'customer-account-not-found' },
  purchase: { table: 'proveedores', key: 'codproveedor', notFound: 'supplier-account-not-found' },
} as const;

/** The role of a customer's or supplier's sub-accounts: CLIENT, PROVEE, or ACREED for creditors. */
export function subjectRole(side: Side, subject: Record<string, unknown>): string {
  return side === 'sales' ? 'CLIENT' : subject.acreedor === true || subject.acreedor === 1 ? 'ACREED' : 'PROVEE';
}

async function taken(db: DbExecutor, side: Side, codejercicio: string, code: string, own: string): Promise<boolean> {
  const { table, key } = SUBJECTS[side];
  if (await db.selectFrom('subcuentas').select('idsubcuenta').where('codejercicio', '=', codejercicio).where('codsubcuenta', '=', code).executeTakeFirst()) return true;
  return (await db.selectFrom(table).select(key).where('codsubcuenta', '=', code).where(key, '<>', own).executeTakeFirst()) !== undefined;
}

/**
 * The sub-account a customer or supplier posts to in the year (the reference's rules): its own
 * `codsubcuenta` when the year has it; else its own code created in this year; else (a customer)
 * its group's; else a new one under the first account of its role: the account's code, zeros, and
 * the digits of the subject's code (`430` + `0000001` for customer `1`), skipping codes already
 * held, then the account's next free number. A new code is stored back on the subject. Decided
 * under the year's chart lock, reading the subject's code again under it: two postings for one new
 * subject, on any instance, create one sub-account, and two subjects never share one.
 */
export async function subjectAccount(ctx: AppContext, db: DbExecutor, chart: ChartView, side: Side, subject: Record<string, unknown>): Promise<Subaccount> {
  const { dialect } = ctx.database;
  const { table, key, notFound } = SUBJECTS[side];
  const found = chart.byCode(textValue(subject.codsubcuenta));
  if (found) return found;
  const role = subjectRole(side, subject);
  const account = await db.selectFrom('cuentas').select(['idcuenta', 'codcuenta']).where('codejercicio', '=', chart.codejercicio)
    .where('codcuentaesp', '=', role).orderBy('codcuenta').executeTakeFirst();
  const subjectCode = String(subject[key]);
  // Under the year's chart lock, the subject's code as another posting may have just stored it.
  if (account) await chartLock(db, dialect, chart.codejercicio);
  const fresh = await db.selectFrom(table).select('codsubcuenta').where(key, '=', subjectCode).executeTakeFirst();
  const own = textValue(fresh?.codsubcuenta ?? subject.codsubcuenta);
  const stored = own ? await subaccountOf(db, chart.codejercicio, own) : undefined;
  if (stored) return stored;
  const codcuenta = account ? String(account.codcuenta) : '';
  const length = chart.longsubcuenta;
  const fits = (code: string) => /^[0-9]+$/.test(code) && code.length === length && code.startsWith(codcuenta);
  // Its own code, created in this year ...
  if (account && own && fits(own) && !(await taken(db, side, chart.codejercicio, own, subjectCode))) return create(ctx, db, chart, side, subject, account, own, own);
  // ... else (a customer) its group's ...
  if (side === 'sales' && textValue(subject.codgrupo)) {
    const group = await db.selectFrom('gruposclientes').select('codsubcuenta').where('codgrupo', '=', String(subject.codgrupo)).executeTakeFirst();
    const groupAccount = textValue(group?.codsubcuenta) ? await subaccountOf(db, chart.codejercicio, String(group!.codsubcuenta)) : undefined;
    if (groupAccount) return groupAccount;
  }
  if (!account) throw new NotPosted(notFound, { role });
  // ... else a new one: the account, zeros and the subject code's digits, or the account's next number.
  let code: string | undefined;
  const digits = subjectCode.replace(/[^0-9]/g, '').replace(/^0+(?=.)/, '');
  const candidate = digits && codcuenta.length + digits.length <= length ? codcuenta + digits.padStart(length - codcuenta.length, '0') : undefined;
  if (candidate && !(await taken(db, side, chart.codejercicio, candidate, subjectCode))) code = candidate;
  if (!code) {
    const last = await db.selectFrom('subcuentas').select((eb) => eb.fn.max('codsubcuenta').as('code'))
      .where('codejercicio', '=', chart.codejercicio).where('idcuenta', '=', Number(account.idcuenta)).executeTakeFirst();
    let next = BigInt(typeof last?.code === 'string' && fits(last.code) ? last.code.slice(codcuenta.length) : '0') + 1n;
    for (; !code; next++) {
      const attempt = codcuenta + String(next).padStart(length - codcuenta.length, '0');
      if (attempt.length > length) throw new NotPosted(notFound, { role, reason: 'no-free-code' });
      if (!(await taken(db, side, chart.codejercicio, attempt, subjectCode))) code = attempt;
    }
  }
  return create(ctx, db, chart, side, subject, account, code, own);
}

async function subaccountOf(db: DbExecutor, codejercicio: string, code: string): Promise<Subaccount | undefined> {
  const row = await db.selectFrom('subcuentas').select(['idsubcuenta', 'codsubcuenta', 'idcuenta', 'codcuenta'])
    .where('codejercicio', '=', codejercicio).where('codsubcuenta', '=', code).executeTakeFirst();
  return row && { idsubcuenta: Number(row.idsubcuenta), codsubcuenta: String(row.codsubcuenta), idcuenta: Number(row.idcuenta), codcuenta: String(row.codcuenta) };
}

/** Creates the subject's sub-account `code` under `account` and stores it back on the subject when it is new to it. */
async function create(
  ctx: AppContext, db: DbExecutor, chart: ChartView, side: Side, subject: Record<string, unknown>,
  account: { idcuenta: unknown; codcuenta: unknown }, code: string, own: string | null,
): Promise<Subaccount> {
  const { table, key } = SUBJECTS[side];
  const subjectCode = String(subject[key]);
  const descripcion = String(subject.razonsocial || subject.nombre || subjectCode).slice(0, 255);
  const codcuenta = String(account.codcuenta);
  const insert = db.insertInto('subcuentas').values({
    codsubcuenta: code, codejercicio: chart.codejercicio, descripcion, codcuenta, idcuenta: Number(account.idcuenta), codcuentaesp: null, debe: 0, haber: 0, saldo: 0,
  });
  const idsubcuenta = await insertedId(ctx.database.engine, insert, 'idsubcuenta');
  if (code !== own) await db.updateTable(table).set({ codsubcuenta: code }).where(key, '=', subjectCode).execute();
  return { idsubcuenta, codsubcuenta: code, idcuenta: Number(account.idcuenta), codcuenta };
}
