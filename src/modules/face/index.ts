import type { Module } from '../../module.ts';
import { dir3ClienteModel } from './dir3-model.ts';
import { registroFaceModel } from './face-models.ts';
import { registerFaceRoutes } from './face-routes.ts';
import { pollFaceStates } from './face-states.ts';
import { finishFacturae } from './finish-facturae.ts';
import { presentFaceState } from './invoice-presenter.ts';

export { dir3ClienteModel, registroFaceModel };
export { FACTURAE_POLICY } from './facturae-signing.ts';

/**
 * Public-sector invoicing (Ley 25/2013): a public body's DIR3 centres on its customer record and in
 * its invoices' Facturae, the Facturae signed XAdES-EPES with the "Facturae v3.1" policy
 * (`exportarFacturaCliente/{id}?type=FACTURAE&firmada=1`), and FACe: sending (SOAP with
 * WS-Security), the states polled, cancellation requests. docs/facturae-face.md.
 */
export function faceModule(): Module {
  return {
    name: 'face',
    models: [dir3ClienteModel, registroFaceModel],
    setup(ctx) {
      finishFacturae(ctx);
      presentFaceState(ctx);
    },
    register: registerFaceRoutes,
    jobs: [{ name: 'face-poll', intervalMs: (ctx) => ctx.config.face.pollMs, run: pollFaceStates }],
  };
}
