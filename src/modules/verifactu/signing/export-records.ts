import type { AppContext } from '../../../app-context.ts';
import { rowReader } from '../../../db/row-codec.ts';
import { generatedIn } from '../period.ts';
import { registroVerifactuModel } from '../record-models.ts';
import type { RecordRow } from '../record-reads.ts';
import { suministroXml, withoutDeclaration, type StoredRecord } from '../xml-document.ts';
import type { XmlTree } from '../xml-tree.ts';

const PAGE = 1000;
const read = rowReader(registroVerifactuModel);

/**
 * `verifactuExportar`: every record of a company generated in a period, in generation order, in their
 * XML structure (RD 1007/2023 art. 8: readable and exportable for the limitation period), written a
 * page at a time: an `Exportacion` element saying what was asked for, holding one
 * `RegFactuSistemaFacturacion` per 1,000 records, each record as kept (signed, in NO VERI*FACTU
 * mode). `seen` is told of each record as it goes (the export's event).
 */
export async function* exportRecords(ctx: AppContext, idempresa: number, desde: string, hasta: string, period: { count: number; last: number }, seen: (record: RecordRow) => void): AsyncGenerator<string> {
  const db = ctx.database.kysely;
  yield `<?xml version="1.0" encoding="UTF-8"?>\n<Exportacion xmlns="urn:invoicing-api:verifactu:exportacion" idempresa="${idempresa}" desde="${desde}" hasta="${hasta}" registros="${period.count}">\n`;
  for (let after = 0; ;) {
    const page = (await generatedIn(db, 'registros_verifactu', idempresa, desde, hasta).selectAll().where('id', '>', after).where('id', '<=', period.last).orderBy('id').limit(PAGE).execute()).map(read);
    if (page.length) {
      page.forEach(seen);
      const first = page.find((record) => record.tipo === 'alta')?.registro as XmlTree | undefined;
      const records: StoredRecord[] = page.map((record) => ({ tipo: record.tipo as 'alta' | 'anulacion', content: record.registro as XmlTree, signed: record.firmado ? String(record.firmado) : undefined }));
      yield `${withoutDeclaration(suministroXml({ NombreRazon: String(first?.NombreRazonEmisor ?? ''), NIF: String(page[0]!.nifemisor) }, records))}\n`;
    }
    if (page.length < PAGE) break;
    after = Number(page[page.length - 1]!.id);
  }
  yield '</Exportacion>\n';
}
