import type { AppContext } from '../../app-context.ts';
import { addDays } from '../../clock.ts';
import type { DbExecutor } from '../../db/database.ts';
import { dbBoolean } from '../../db/row-codec.ts';
import { inTransaction } from '../../db/transaction.ts';
import { allCompanies } from '../company/index.ts';
import { chooseLanguage } from '../export/index.ts';
import { addressesOf } from './addresses.ts';
import { DEFAULT_TEXTS, reminderTemplateName } from './default-templates.ts';
import { fillTemplate, templateFor } from './fill-template.ts';
import { mailSettingsOf, unconfigured } from './mail-settings.ts';
import { queueMessage } from './outbox.ts';
import { placeholderValues, withCopy } from './send-document.ts';

type Row = Record<string, unknown>;


/** The highest of `days` reached by a receipt due on `due`, today; undefined when none is. */
export function levelReached(due: string, today: string, days: readonly number[]): number | undefined {
  const reached = days.filter((day) => addDays(due, day) <= today);
  return reached.length ? Math.max(...reached) : undefined;
}

/**
 * Queues one reminder: the level's row first, under its unique key, so that of two instances
 * only one goes on; the levels below it that never went are recorded as passed (a receipt found
 * 40 days late gets the 30-day reminder, not the 7-day one too). False when another had it.
 */
async function queueReminder(ctx: AppContext, receipt: Row, level: number, days: readonly number[], message: Parameters<typeof queueMessage>[2]): Promise<boolean> {
  const { dialect } = ctx.database;
  return inTransaction(ctx.database, async (db) => {
    const idrecibo = Number(receipt.idrecibo);
    const created = ctx.clock.timestamp();
    const inserted = await dialect.insertIgnore(db.insertInto('emails_reminders').values({ idrecibo, nivel: level, creado: created }), ['idrecibo', 'nivel']).executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) !== 1) return false;
    const below = days.filter((day) => day < level).map((nivel) => ({ idrecibo, nivel, creado: created }));
    if (below.length) await dialect.insertIgnore(db.insertInto('emails_reminders').values(below), ['idrecibo', 'nivel']).execute();
    const id = await queueMessage(ctx, db, message);
    await db.updateTable('emails_reminders').set({ idemail: id }).where('idrecibo', '=', idrecibo).where('nivel', '=', level).execute();
    return true;
  });
}

/**
 * The reminders job: for each company whose settings list `reminderdays`, every unpaid customer
 * receipt of an invoice whose due date lies that many days back, of a customer with an e-mail and
 * no opt-out (`emailoptout`), gets the highest level it has reached, once. The message names the
 * receipt, its amount and due date and the invoice, and carries the invoice's PDF.
 */
export async function queueReminders(ctx: AppContext): Promise<number> {
  const db = ctx.database.kysely;
  const { dialect } = ctx.database;
  const today = ctx.clock.today().date;
  const installationLang = (await ctx.settings()).langcode;
  // One read of each language's template per run, however many reminders go in it.
  const templates = new Map<string, ReturnType<typeof templateFor>>();
  let queued = 0;
  for (const company of await allCompanies(db)) {
    const idempresa = Number(company.idempresa);
    const settings = await mailSettingsOf(ctx, idempresa);
    if (!settings.reminderDays.length || unconfigured(settings)) continue;
    const cutoff = addDays(today, -Math.min(...settings.reminderDays));
    const receipts = await db.selectFrom('recibospagoscli as r').innerJoin('clientes as c', 'c.codcliente', 'r.codcliente')
      .leftJoin('emails_optouts as o', 'o.codcliente', 'r.codcliente')
      .select(['r.idrecibo', 'r.idfactura', 'r.numero', 'r.importe', 'r.vencimiento', 'r.coddivisa', 'r.codigofactura', 'c.email', 'c.nombre', 'c.langcode'])
      .select((eb) => eb.selectFrom('emails_reminders as e').select((inner) => inner.fn.max('e.nivel').as('nivel')).whereRef('e.idrecibo', '=', 'r.idrecibo').as('sent'))
      .where('r.idempresa', '=', idempresa).where('r.pagado', '=', dialect.boolean(false) as never).where('r.vencimiento', '<=', cutoff)
      .where('r.idfactura', 'is not', null).where('o.codcliente', 'is', null).where('c.email', 'is not', null).where('c.email', '<>', '')
      .orderBy('r.idrecibo').execute();
    for (const receipt of receipts) {
      const level = levelReached(String(receipt.vencimiento), today, settings.reminderDays);
      if (level === undefined || (receipt.sent !== null && Number(receipt.sent) >= level)) continue;
      const to = addressesOf(receipt.email);
      if (!to.length) continue;
      const lang = chooseLanguage(receipt.langcode as string | null, installationLang);
      const template = await (templates.get(lang) ?? templates.set(lang, templateFor(db, reminderTemplateName(lang), { subject: DEFAULT_TEXTS[lang]!.reminderSubject, body: DEFAULT_TEXTS[lang]!.reminderBody })).get(lang)!);
      const values = {
        ...placeholderValues({ ...receipt, vencimiento: String(receipt.vencimiento) }, lang),
        destinatario: String(receipt.nombre ?? ''), empresa: String(company.nombre ?? ''), dias: String(level),
      };
      const sent = await queueReminder(ctx, receipt, level, settings.reminderDays, {
        tipo: 'recordatorio', idempresa, from: settings.from!, to: to.map((address) => ({ ...address, name: address.name || String(receipt.nombre ?? '') })), cc: [],
        bcc: withCopy([], settings.bcc), replyTo: settings.replyTo, text: fillTemplate(template.subject, template.body, values), lang,
        document: { modelo: 'FacturaCliente', modeloid: Number(receipt.idfactura), codigo: String(receipt.codigofactura ?? '') }, idrecibo: Number(receipt.idrecibo),
        attach: { exports: ['PDF'], files: [] },
      });
      if (sent) queued++;
    }
  }
  return queued;
}

/**
 * Why a queued reminder should no longer go (checked again just before it is sent): its receipt
 * paid or gone, or its customer opted out meanwhile; undefined while it is still due.
 */
export async function reminderObsolete(db: DbExecutor, idrecibo: number): Promise<string | undefined> {
  const receipt = await db.selectFrom('recibospagoscli as r').leftJoin('emails_optouts as o', 'o.codcliente', 'r.codcliente')
    .select(['r.pagado', 'o.codcliente as optedout']).where('r.idrecibo', '=', idrecibo).executeTakeFirst();
  if (!receipt) return 'receipt-gone';
  if (dbBoolean(receipt.pagado)) return 'receipt-paid';
  return receipt.optedout ? 'customer-opted-out' : undefined;
}
