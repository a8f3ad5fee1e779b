/** An entry's header as a posting module builds it (the number is given here). */
export interface NewEntry {
  codejercicio: string;
  idempresa: number | null;
  fecha: string;
  concepto: string;
  documento: string | null;
  importe: number;
  canal: number | null;
  iddiario: number | null;
}

/** One line of a new entry: its sub-account resolved, its amounts rounded. */
export interface NewEntryLine {
  idsubcuenta: number;
  codsubcuenta: string;
  debe: number;
  haber: number;
  concepto: string;
  documento: string | null;
  baseimponible?: number;
  iva?: number;
  recargo?: number;
  cifnif?: string | null;
  codserie?: string | null;
  factura?: string | null;
  idcontrapartida?: number | null;
  codcontrapartida?: string | null;
}
