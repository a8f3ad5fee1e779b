/**
 * Rows of the reference's Spanish installation that the first default data left out, as published
 * in its data files (Core/Data/Lang/ES/*.csv of the established system): facts, not code.
 */

/** The 22 currencies beyond EUR, GBP and USD: code, name, rate per euro (sale = purchase), ISO number, symbol. */
export const MORE_CURRENCIES: Array<[string, string, number, string, string]> = [
  ['ARS', 'PESO ARGENTINO', 16.684, '32', 'AR$'],
  ['BOB', 'BOLIVIANO', 8.0465, '068', 'Bs'],
  ['BRL', 'REAL BRASILEÑO', 4.50553, '986', 'R$'],
  ['BTC', 'BITCOIN', 0.0001, '000', '₿'],
  ['CAD', 'DÓLAR CANADIENSE', 1.5385, '124', 'C$'],
  ['CLP', 'PESO CHILENO', 704.0227, '152', 'CLP$'],
  ['COP', 'PESO COLOMBIANO', 3140.6803, '170', 'CO$'],
  ['CRC', 'COLÓN COSTARRICENSE', 659.39, '188', '₡'],
  ['CUP', 'PESO CUBANO', 1.16, '192', 'CU$'],
  ['DOP', 'PESO DOMINICANO', 49.7618, '214', 'RD$'],
  ['FKP', 'LIBRA MALVINENSE', 1.13304, '238', 'FK£'],
  ['GTQ', 'QUETZAL GUATEMALTECO', 8.774, '320', 'Q'],
  ['HNL', 'LEMPIRA HONDUREÑO', 27.909, '340', 'L'],
  ['HTG', 'GOURDE HAITIANO', 72.0869, '332', 'G'],
  ['MXN', 'PESO MEXICANO', 23.3678, '484', 'MX$'],
  ['PAB', 'BALBOA PANAMEÑO', 1.128, '590', 'B'],
  ['PEN', 'SOL PERUANO', 3.736, '604', 'S/'],
  ['PYG', 'GUARANÍ PARAGUAYO', 6647.44318, '600', '₲'],
  ['SVC', 'COLON SALVADOREÑO', 10.17, '222', '₡'],
  ['UYU', 'PESO URUGUAYO', 30.7, '858', '$U'],
  ['VEF', 'BOLIVAR VENEZOLANO', 10.6492, '937', 'Bs'],
  ['XAF', 'FRANCO CFA DE ÁFRICA CENTRAL', 655.957, '950', '₣'],
];

/** The journals (`diarios`). */
export const JOURNALS: Array<[number, string]> = [
  [1, 'Principal'],
  [2, 'Diario de Facturas'],
  [3, 'Cartera de pagos'],
  [4, 'Cartera de cobros'],
];

/** The 38 special-account roles (`cuentasesp`) the automatic entries look accounts up by. */
export const SPECIAL_ACCOUNTS: Array<[string, string]> = [
  ['ACREED', 'Cuentas de acreedores'],
  ['ANTCLI', 'Anticipos de clientes'],
  ['ANTPRO', 'Anticipos a proveedores'],
  ['BANCO', 'Cuentas de bancos'],
  ['CAJA', 'Cuentas de caja'],
  ['CAMNEG', 'Cuentas de diferencias negativas de cambio'],
  ['CAMPOS', 'Cuentas de diferencias positivas de cambio'],
  ['CLIENT', 'Cuentas de clientes'],
  ['COMPRA', 'Cuentas de compras'],
  ['DEVCOM', 'Devoluciones de compras'],
  ['DEVVEN', 'Devoluciones de ventas'],
  ['DIVPOS', 'Cuentas por diferencias positivas en divisa extranjera'],
  ['EURNEG', 'Cuentas por diferencias negativas de conversión a la moneda local'],
  ['EURPOS', 'Cuentas por diferencias positivas de conversión a la moneda local'],
  ['GTOBAN', 'Gastos bancarios'],
  ['GTORF', 'Gastos por recargo financiero'],
  ['INGRF', 'Ingresos por recargo financiero'],
  ['IRPF', 'Cuentas de retenciones IRPF'],
  ['IRPFA', 'IRPF para alquileres'],
  ['IRPFPR', 'Cuentas de retenciones para proveedores IRPF'],
  ['IVAACR', 'Cuentas acreedoras de IVA en la regularización'],
  ['IVADEU', 'Cuentas deudoras de IVA en la regularización'],
  ['IVAEUE', 'IVA en entregas intracomunitarias U.E.'],
  ['IVAREP', 'Cuentas de IVA repercutido'],
  ['IVAREX', 'Cuentas de IVA repercutido para clientes exentos de IVA'],
  ['IVARRE', 'Cuentas de IVA repercutido con recargo de equivalencia'],
  ['IVARUE', 'Cuentas de IVA repercutido UE'],
  ['IVARXP', 'Cuentas de IVA repercutido en exportaciones'],
  ['IVASEX', 'Cuentas de IVA soportado exento'],
  ['IVASIM', 'Cuentas de IVA soportado en importaciones'],
  ['IVASOP', 'Cuentas de IVA soportado'],
  ['IVASUE', 'Cuentas de IVA soportado UE'],
  ['PRENEG', 'Cuentas por diferencias negativas en ejercicio previo'],
  ['PREVIO', 'Cuentas por diferencias positivas en ejercicio previo'],
  ['PROVEE', 'Cuentas de proveedores'],
  ['PYG', 'Pérdidas y ganancias'],
  ['SUPLI', 'Suplidos'],
  ['VENTAS', 'Cuentas de ventas'],
];

/**
 * Print formats (`formatos_documentos`) of company 1: serie, name, document type, title. The
 * proforma's title is not in the published data (only its serie, name and type are), so it has none.
 */
export const DOCUMENT_FORMATS: Array<[string, string, string, string | null]> = [
  ['R', 'Rectificativa', 'FacturaCliente', 'Factura Rectificativa'],
  ['S', 'Simplificada', 'FacturaCliente', 'Factura Simplificada'],
  ['A', 'Proforma', 'PresupuestoCliente', null],
];
