/** The 52 provinces of Spain with their ISO 3166-2 codes (the reference's `provincias` rows for ESP). */
export const SPANISH_PROVINCES: Array<[string, string]> = [
  ['A Coruña', 'ES-C'], ['Álava', 'ES-VI'], ['Albacete', 'ES-AB'], ['Alicante', 'ES-A'], ['Almería', 'ES-AL'],
  ['Asturias', 'ES-O'], ['Ávila', 'ES-AV'], ['Badajoz', 'ES-BA'], ['Barcelona', 'ES-B'], ['Bizkaia', 'ES-BI'],
  ['Burgos', 'ES-BU'], ['Cáceres', 'ES-CC'], ['Cádiz', 'ES-CA'], ['Cantabria', 'ES-S'], ['Castellón', 'ES-CS'],
  ['Ceuta', 'ES-CE'], ['Ciudad Real', 'ES-CR'], ['Córdoba', 'ES-CO'], ['Cuenca', 'ES-CU'], ['Gipuzkoa', 'ES-SS'],
  ['Girona', 'ES-GI'], ['Granada', 'ES-GR'], ['Guadalajara', 'ES-GU'], ['Huelva', 'ES-H'], ['Huesca', 'ES-HU'],
  ['Illes Balears', 'ES-PM'], ['Jaén', 'ES-J'], ['La Rioja', 'ES-LO'], ['Las Palmas', 'ES-GC'], ['León', 'ES-LE'],
  ['Lleida', 'ES-L'], ['Lugo', 'ES-LU'], ['Madrid', 'ES-M'], ['Málaga', 'ES-MA'], ['Melilla', 'ES-ML'],
  ['Murcia', 'ES-MU'], ['Navarra', 'ES-NA'], ['Ourense', 'ES-OR'], ['Palencia', 'ES-P'], ['Pontevedra', 'ES-PO'],
  ['Salamanca', 'ES-SA'], ['Santa Cruz de Tenerife', 'ES-TF'], ['Segovia', 'ES-SG'], ['Sevilla', 'ES-SE'], ['Soria', 'ES-SO'],
  ['Tarragona', 'ES-T'], ['Teruel', 'ES-TE'], ['Toledo', 'ES-TO'], ['Valencia', 'ES-V'], ['Valladolid', 'ES-VA'],
  ['Zamora', 'ES-ZA'], ['Zaragoza', 'ES-Z'],
];
