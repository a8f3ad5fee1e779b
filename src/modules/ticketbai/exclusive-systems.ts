import type { AppContext } from '../../app-context.ts';
import { validationError } from '../../errors.ts';
import { lockCompany } from '../company/index.ts';
import { storedSwitchOf, verifactuEmpresaModel } from '../verifactu/index.ts';
import { certificateOf, switchOf } from './company-switch.ts';
import { softwareFor } from './issue-file.ts';
import { ticketbaiEmpresaModel } from './switch-model.ts';

/**
 * A taxpayer under a Basque treasury issues under TicketBAI, everyone else under VERI*FACTU (RD
 * 1007/2023 art. 3.1 leaves the foral territories out): a company never has both on, whichever is
 * switched on second is refused naming the other. Both take turns on the company's row before
 * reading the other switch, so two requests at once cannot both pass. A TicketBAI switch is turned on only when its
 * files can be made: a certificate kept and the software registered for its treasury and
 * environment (configuration), so that no invoice is refused for them later.
 */
export function keepSystemsExclusive(ctx: AppContext): void {
  ctx.store.watch([ticketbaiEmpresaModel.resource], async (db, _model, change) => {
    if (!change || change.action === 'delete') return;
    const idempresa = Number(change.record.idempresa);
    const company = await switchOf(db, idempresa);
    if (!company?.activo) return;
    await lockCompany(db, ctx.database.dialect, idempresa);
    const verifactu = await storedSwitchOf(db, idempresa);
    if (verifactu && verifactu.modo !== 'off') throw validationError({ activo: 'verifactu-active' });
    if (!(await certificateOf(ctx, db, idempresa))) throw validationError({ certificado: 'required' });
    softwareFor(ctx, company);
  });
  ctx.store.watch([verifactuEmpresaModel.resource], async (db, _model, change) => {
    if (!change || change.action === 'delete' || change.record.modo === 'off') return;
    await lockCompany(db, ctx.database.dialect, Number(change.record.idempresa));
    if ((await switchOf(db, Number(change.record.idempresa)))?.activo) throw validationError({ modo: 'ticketbai-active' });
  });
}
