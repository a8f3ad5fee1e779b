import type { DbExecutor } from '../../db/database.ts';
import type { SwitchMode } from './company-switch-model.ts';
import type { Environment, RecordMode } from './qr-url.ts';

/** A company's switch as a record is generated under it. */
export interface CompanySwitch {
  idempresa: number;
  modo: RecordMode;
  entorno: Environment;
  numeroinstalacion: string;
}

/** A company's switch (verifactuempresa) as stored, in the caller's transaction; undefined when it has none. */
export async function storedSwitchOf(db: DbExecutor, idempresa: number): Promise<(Omit<CompanySwitch, 'modo'> & { modo: SwitchMode }) | undefined> {
  const row = await db.selectFrom('verifactu_empresas').select(['modo', 'entorno', 'numeroinstalacion']).where('idempresa', '=', idempresa).executeTakeFirst();
  return row ? { idempresa, modo: String(row.modo) as SwitchMode, entorno: String(row.entorno) as Environment, numeroinstalacion: String(row.numeroinstalacion) } : undefined;
}

/** The switch of a company that keeps records now; undefined when it is off (or has none). */
export async function activeSwitchOf(db: DbExecutor, idempresa: number): Promise<CompanySwitch | undefined> {
  const found = await storedSwitchOf(db, idempresa);
  return found && found.modo !== 'off' ? { ...found, modo: found.modo as RecordMode } : undefined;
}
