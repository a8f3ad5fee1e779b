// The eight document types as the API names them: resource, key, party, lines, receipts and the
// custom endpoints that export, send and pay them.

const sales = { party: 'codcliente', partyName: 'nombrecliente' };
const purchases = { party: 'codproveedor', partyName: 'nombre' };

function documentType(resource, key, side, exportName, invoice) {
  const supplier = side === purchases;
  return {
    resource,
    key,
    ...side,
    lines: `linea${resource}`,
    export: exportName,
    send: exportName.replace(/^exportar/, 'enviar'),
    invoice,
    receipts: invoice ? (supplier ? 'reciboproveedor' : 'recibocliente') : undefined,
    pay: invoice ? (supplier ? 'pagarFacturaProveedor' : 'pagarFacturaCliente') : undefined,
  };
}

export const DOCUMENT_TYPES = [
  documentType('facturacliente', 'idfactura', sales, 'exportarFacturaCliente', true),
  documentType('albarancliente', 'idalbaran', sales, 'exportarAlbaranCliente', false),
  documentType('pedidocliente', 'idpedido', sales, 'exportarPedidoCliente', false),
  documentType('presupuestocliente', 'idpresupuesto', sales, 'exportarPresupuestoCliente', false),
  documentType('facturaproveedor', 'idfactura', purchases, 'exportarFacturaProveedor', true),
  documentType('albaranproveedor', 'idalbaran', purchases, 'exportarAlbaranProveedor', false),
  documentType('pedidoproveedor', 'idpedido', purchases, 'exportarPedidoProveedor', false),
  documentType('presupuestoproveedor', 'idpresupuesto', purchases, 'exportarPresupuestoProveedor', false),
];

export const documentTypeOf = (resource) => DOCUMENT_TYPES.find((type) => type.resource === resource);
