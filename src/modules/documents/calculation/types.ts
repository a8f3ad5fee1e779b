/** Inputs and outputs of the calculation core (facturascripts-model.md 3.4 and 3.5). */
import type { TaxRate, TaxZoneRule } from '../../taxes/index.ts';

export type Side = 'sales' | 'purchase';

/** A tax (`tipo` 1 a percentage, 2 a fixed amount per unit) and a tax zone rule, as the taxes module keeps them. */
export type TaxInfo = TaxRate;
export type TaxZone = TaxZoneRule;

export interface CalcLine {
  cantidad: number;
  pvpunitario: number;
  dtopor: number;
  dtopor2: number;
  codimpuesto: string | null;
  iva: number;
  recargo: number;
  irpf: number;
  suplido: boolean;
  /** Sales lines only. */
  coste: number;
  excepcioniva: string | null;
  /** The product's `tipo` (e.g. `Segunda mano`), when the line is for a product. */
  productType?: string | null;
}

export interface CalcDocument {
  side: Side;
  dtopor1: number;
  dtopor2: number;
  operacion: string | null;
  codpais: string | null;
  provincia: string | null;
}

/** Everything besides the document and its lines that the rules read. */
export interface CalcContext {
  decimals: number;
  method: 'classic' | 'price-adjusted';
  /** The document's serie: tax-free (`siniva`) and its `tipo` (R = rectifying). */
  serie: { siniva: boolean; tipo: string | null };
  company: { codpais: string | null; regimeniva: string | null };
  subject: { regimeniva: string | null; excepcioniva: string | null };
  taxes: ReadonlyMap<string, TaxInfo>;
  zones: readonly TaxZone[];
}

export interface LineAmounts {
  codimpuesto: string | null;
  iva: number;
  recargo: number;
  excepcioniva: string | null;
  pvpsindto: number;
  pvptotal: number;
}

export interface TaxGroup {
  key: string;
  codimpuesto: string | null;
  iva: number;
  recargo: number;
  neto: number;
  netosindto: number;
  totaliva: number;
  totalrecargo: number;
}

export interface DocumentTotals {
  irpf: number;
  neto: number;
  netosindto: number;
  totaliva: number;
  totalrecargo: number;
  totalirpf: number;
  totalsuplidos: number;
  total: number;
  /** Sales documents only. */
  totalcoste: number;
  totalbeneficio: number;
}

export interface Calculation {
  lines: LineAmounts[];
  groups: TaxGroup[];
  totals: DocumentTotals;
}
