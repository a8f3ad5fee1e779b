import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { validationError } from '../../errors.ts';
import { openCertificate, signingKey, type SigningKey } from '../verifactu/index.ts';
import { ticketbaiEmpresaModel } from './switch-model.ts';
import type { Entorno, Territorio } from './territories.ts';

/** A company's switch as its files are made under it. */
export interface CompanySwitch {
  idempresa: number;
  activo: boolean;
  territorio: Territorio;
  entorno: Entorno;
  modelolroe: '240' | '140';
  epigrafe: string | null;
  /** The kept PKCS#12 (base64) and its password, read with the rest: what its files are signed with. */
  certificate: { file: string; password: string } | null;
}

const on = (value: unknown) => value === true || Number(value) === 1;

/** The company's switch as stored, in the caller's transaction; undefined when it has none. */
export async function switchOf(db: DbExecutor, idempresa: number): Promise<CompanySwitch | undefined> {
  const row = await db.selectFrom(ticketbaiEmpresaModel.table).select(['activo', 'territorio', 'entorno', 'modelolroe', 'epigrafe', 'certificado', 'certificadoclave']).where('idempresa', '=', idempresa).executeTakeFirst();
  if (!row) return undefined;
  return {
    idempresa, activo: on(row.activo), territorio: String(row.territorio) as Territorio, entorno: String(row.entorno) as Entorno,
    modelolroe: String(row.modelolroe) === '140' ? '140' : '240', epigrafe: (row.epigrafe as string | null) ?? null,
    certificate: row.certificado ? { file: String(row.certificado), password: String(row.certificadoclave ?? '') } : null,
  };
}

/** Whether a value read by SQL (`ticketbai_empresas.activo`) is on, whatever the engine answers for a boolean. */
export const isOn = on;

/** The company's certificate (its own, set through `ticketbaiempresa`), opened once per file and password; undefined when none is kept. */
export async function certificateOf(ctx: AppContext, db: DbExecutor, idempresa: number) {
  const kept = (await switchOf(db, idempresa))?.certificate;
  return kept ? openCertificate(ctx, kept.file, kept.password) : undefined;
}

/** The key a company's files are signed with: without one no file can be made, so no invoice issued (422). */
export function signerOf(ctx: AppContext, company: CompanySwitch): Promise<SigningKey> {
  if (!company.certificate) throw validationError({ certificado: 'required' });
  return signingKey(openCertificate(ctx, company.certificate.file, company.certificate.password));
}
