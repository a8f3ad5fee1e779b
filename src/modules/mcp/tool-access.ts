import type { Model } from '../../models/define-model.ts';
import { DOCUMENTS } from './tool-results.ts';

/** Whether the caller's key may use a resource with a method (the access-control step's answer). */
export type MayUse = (resource: string, method: string) => boolean;

const eachDocument = (prefix: string, method: string): Array<[string, string]> => DOCUMENTS.map((type) => [`${prefix}${type}`, method]);

/**
 * The endpoints each tool calls, as (resource, method): a key is offered a tool when its rules allow
 * at least one of them (the call itself is checked again by the API). `describe_resources` needs
 * nothing: every key may read the root.
 */
export function toolNeeds(models: readonly Model[]): Record<string, Array<[string, string]>> {
  const onModels = (method: string) => models.filter((model) => method === 'GET' || !model.readOnlyResource).map((model): [string, string] => [model.resource, method]);
  return {
    describe_resources: [['', 'GET']],
    list_records: onModels('GET'), get_record: onModels('GET'),
    create_record: onModels('POST'), update_record: onModels('PATCH'), delete_record: onModels('DELETE'),
    create_document: eachDocument('crear', 'POST'),
    pay_invoice: [['pagarFacturaCliente', 'POST'], ['pagarFacturaProveedor', 'POST']],
    refund_invoice: [['crearFacturaRectificativaCliente', 'POST']],
    trial_balance: [['balanceSumasSaldos', 'GET']],
    vat_return: [['modelo303', 'GET']],
    verifactu_status: [['verifactuEstado', 'GET'], ['registroverifactu', 'GET']],
    export_document: eachDocument('exportar', 'GET'),
    send_document: eachDocument('enviar', 'POST'),
  };
}
