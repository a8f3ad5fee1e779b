import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import type { BusinessDay } from '../../clock.ts';
import { validationError } from '../../errors.ts';
import type { Settings } from '../../settings.ts';
import { companyReference, loadCompanyReference, type CompanyReference, type DocumentStatus } from '../company/index.ts';
import { financeReference, loadFinanceReference, type FinanceReference } from '../finance/index.ts';
import { loadSerieReference, serieIn, serieReference, type SerieInfo } from '../fiscal/index.ts';
import { settingsIn } from '../settings/index.ts';
import { loadTaxReference, taxReference, type TaxReference } from '../taxes/index.ts';
import type { CalcContext } from './calculation/types.ts';
import type { DocumentType } from './document-types.ts';

type Row = Record<string, unknown>;

/**
 * Everything a document use case reads besides its own rows, taken once before its transaction:
 * settings, the business day, and the reference data other modules keep cached (taxes, companies,
 * warehouses, statuses, series, currencies, payment methods). Inside the transaction nothing waits
 * for another connection, and a document costs no query for any of it.
 */
export interface DocumentReference {
  settings: Settings;
  today: BusinessDay;
  taxes: TaxReference;
  company: CompanyReference;
  series: ReadonlyMap<string, SerieInfo>;
  finance: FinanceReference;
}

export async function loadReference(ctx: AppContext): Promise<DocumentReference> {
  const [settings, taxes, company, series, finance] = await Promise.all([
    ctx.settings(), taxReference(ctx), companyReference(ctx), serieReference(ctx), financeReference(ctx),
  ]);
  // After the settings: the clock's zone follows them.
  return { settings, today: ctx.clock.today(), taxes, company, series, finance };
}

/**
 * The same as `db` sees it, read now rather than from the caches: for work inside a transaction
 * that changed the reference data itself (an import replacing the default data), which the caches
 * and other connections do not see until it commits.
 */
export async function loadReferenceIn(ctx: AppContext, db: DbExecutor): Promise<DocumentReference> {
  const settings = await settingsIn(db);
  const taxes = await loadTaxReference(db);
  const company = await loadCompanyReference(db);
  const series = await loadSerieReference(db);
  const finance = await loadFinanceReference(db);
  return { settings, today: ctx.clock.today(), taxes, company, series, finance };
}

/** A status of the document type: the requested one, or the default (first `predeterminado`). */
export function statusOf(ref: DocumentReference, type: DocumentType, idestado?: unknown): DocumentStatus {
  const statuses = ref.company.statuses.filter((status) => status.tipodoc === type.name);
  const status = idestado !== undefined && idestado !== null
    ? statuses.find((candidate) => candidate.idestado === Number(idestado))
    : statuses.find((candidate) => candidate.predeterminado);
  if (!status) throw validationError({ idestado: idestado === undefined || idestado === null ? 'no-default-status' : 'not-found' });
  return status;
}

/**
 * What the tax rules read besides the document and its lines. A serie or company missing from the
 * snapshot (created a moment ago on another instance) is read from its table, never assumed.
 */
export async function calcContextFor(db: DbExecutor, ref: DocumentReference, doc: Row, subject: { regimeniva?: unknown; excepcioniva?: unknown }): Promise<CalcContext> {
  const serie = ref.series.get(String(doc.codserie)) ?? await serieIn(db, String(doc.codserie));
  let company = ref.company.companies.get(Number(doc.idempresa));
  if (!company) {
    const row = await db.selectFrom('empresas').select(['codpais', 'regimeniva']).where('idempresa', '=', Number(doc.idempresa)).executeTakeFirst();
    company = { codpais: (row?.codpais as string | null | undefined) ?? null, regimeniva: (row?.regimeniva as string | null | undefined) ?? null, nombrecorto: null };
  }
  return {
    decimals: ref.settings.decimals,
    method: ref.settings.taxcalculationmethod,
    serie: { siniva: serie.siniva, tipo: serie.tipo },
    company: { codpais: company.codpais, regimeniva: company.regimeniva },
    subject: { regimeniva: (subject.regimeniva as string | null) ?? null, excepcioniva: (subject.excepcioniva as string | null) ?? null },
    taxes: ref.taxes.taxes,
    zones: ref.taxes.zones,
  };
}
