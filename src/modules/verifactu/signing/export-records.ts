import type { AppContext } from '../../../app-context.ts';
import { chainPage, type RecordRow } from '../record-reads.ts';
import { suministroXml, type StoredRecord } from '../xml-document.ts';
import type { XmlTree } from '../xml-tree.ts';

const PAGE = 1000;

/**
 * `verifactuExportar`: every record of a company generated between two days (inclusive, by the date
 * of `FechaHoraHusoGenRegistro`, the issuing territory's), in generation order, in their XML structure
 * (RD 1007/2023 art. 8: readable and exportable for the limitation period): one
 * `RegFactuSistemaFacturacion` per 1,000 records, each record as kept (signed, in NO VERI*FACTU
 * mode), inside an `Exportacion` element that says what was asked for.
 */
export async function exportRecords(ctx: AppContext, idempresa: number, desde: string, hasta: string): Promise<{ xml: string; records: RecordRow[] }> {
  const db = ctx.database.kysely;
  const messages: string[] = [];
  const exported: RecordRow[] = [];
  for (let after = 0; ;) {
    const page = await chainPage(db, idempresa, after, PAGE);
    const inPeriod = page.filter((record) => {
      const day = String(record.fechahorahuso).slice(0, 10);
      return day >= desde && day <= hasta;
    });
    if (inPeriod.length) {
      const first = inPeriod.find((record) => record.tipo === 'alta')?.registro as XmlTree | undefined;
      const records: StoredRecord[] = inPeriod.map((record) => ({ tipo: record.tipo as 'alta' | 'anulacion', content: record.registro as XmlTree, signed: record.firmado ? String(record.firmado) : undefined }));
      messages.push(suministroXml({ NombreRazon: String(first?.NombreRazonEmisor ?? ''), NIF: String(inPeriod[0]!.nifemisor) }, records).replace(/^<\?xml[^>]*\?>\s*/, ''));
      exported.push(...inPeriod);
    }
    if (page.length < PAGE) break;
    after = Number(page[page.length - 1]!.id);
  }
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Exportacion xmlns="urn:invoicing-api:verifactu:exportacion" idempresa="${idempresa}" desde="${desde}" hasta="${hasta}" registros="${exported.length}">\n${messages.join('\n')}\n</Exportacion>\n`;
  return { xml, records: exported };
}

