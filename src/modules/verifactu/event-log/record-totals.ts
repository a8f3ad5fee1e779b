import { Decimal } from 'decimal.js';
import { xmlAmount, type XmlTree } from '../xml-tree.ts';

type Row = Record<string, unknown>;

/** A record as an event names it (IDFacturaExpedidaHuellaType). */
export function recordReference(record: Row): XmlTree {
  return { IDEmisorFactura: String(record.nifemisor), NumSerieFactura: String(record.numserie), FechaExpedicionFactura: String(record.fechaexpedicion), Huella: String(record.huella) };
}

/**
 * What a summary (10) or an export (08) says of the records it covers, gathered one record at a
 * time (a period may hold more records than are worth keeping in memory): the first and the last,
 * how many altas and anulaciones, and the altas' CuotaTotal and ImporteTotal summed exactly.
 */
export class RecordTotals {
  first: Row | undefined;
  last: Row | undefined;
  altas = 0;
  anulaciones = 0;
  #cuota = new Decimal(0);
  #importe = new Decimal(0);

  add(record: Row): void {
    this.first ??= record;
    this.last = record;
    if (record.tipo !== 'alta') {
      this.anulaciones++;
      return;
    }
    this.altas++;
    this.#cuota = this.#cuota.plus(String(record.cuotatotal));
    this.#importe = this.#importe.plus(String(record.importetotal));
  }

  get cuota(): string {
    return xmlAmount(this.#cuota);
  }

  get importe(): string {
    return xmlAmount(this.#importe);
  }
}
