import type { AppContext } from '../../app-context.ts';
import { huella, type AltaHashFields, type AnulacionHashFields } from './huella.ts';
import { hashFieldsOf } from './record-content.ts';
import { chainPage, type RecordRow } from './record-reads.ts';
import type { XmlTree } from './xml-tree.ts';
import { recordXml } from './xml-document.ts';
import { checkSigned } from './signing/sign-record.ts';

export interface ChainCheck {
  valid: boolean;
  records: number;
  /** The first record whose hash or link does not hold: its id, the hash it should have, the one it has. */
  firstBroken: null | { id: number; expected: string; stored: string };
  /**
   * NO VERI*FACTU records' signatures: how many verify, how many were kept unsigned (no usable
   * certificate when they were made), and the first whose signature fails or signs something else
   * than the record kept (the chain is then not valid).
   */
  signatures: { signed: number; unsigned: number; firstInvalid: null | { id: number; reason: string } };
}

const PAGE = 500;

/** The hash fields of a record as its columns keep them. */
function columnsOf(record: RecordRow): AltaHashFields | AnulacionHashFields {
  const common = { Huella: String(record.huellaanterior ?? ''), FechaHoraHusoGenRegistro: String(record.fechahorahuso) };
  if (record.tipo === 'anulacion') {
    return { IDEmisorFacturaAnulada: String(record.nifemisor), NumSerieFacturaAnulada: String(record.numserie), FechaExpedicionFacturaAnulada: String(record.fechaexpedicion), ...common };
  }
  return {
    IDEmisorFactura: String(record.nifemisor), NumSerieFactura: String(record.numserie), FechaExpedicionFactura: String(record.fechaexpedicion),
    TipoFactura: String(record.tipofactura), CuotaTotal: String(record.cuotatotal), ImporteTotal: String(record.importetotal), ...common,
  };
}

const same = (a: object, b: object) => JSON.stringify(a) === JSON.stringify(b);

/**
 * `verifactuCadena`: the company's chain walked in generation order, every Huella computed again
 * from the record's fields (its columns and the XML it keeps, which must agree), and every link
 * checked: a record names the one generated just before it, by id and by Huella, and the first names
 * none. Read page by page; nothing is written.
 */
export async function verifyChain(ctx: AppContext, idempresa: number): Promise<ChainCheck> {
  const db = ctx.database.kysely;
  let previous: RecordRow | undefined;
  let records = 0;
  const signatures: ChainCheck['signatures'] = { signed: 0, unsigned: 0, firstInvalid: null };
  for (let after = 0; ;) {
    const page = await chainPage(db, idempresa, after, PAGE);
    for (const record of page) {
      records++;
      const columns = columnsOf(record);
      // The hash the record must have: its fields chained to the record actually before it.
      const expected = huella({ ...columns, Huella: previous ? String(previous.huella) : '' });
      const linked = previous ? Number(record.idanterior) === Number(previous.id) : (record.idanterior ?? null) === null;
      const content = record.registro as XmlTree;
      const kept = same(hashFieldsOf(record.tipo as 'alta' | 'anulacion', content), columns) && content.Huella === record.huella;
      if (expected !== record.huella || !linked || !kept) {
        return { valid: false, records, firstBroken: { id: Number(record.id), expected, stored: String(record.huella) }, signatures };
      }
      if (record.firmado) {
        const reason = await checkSigned(String(record.firmado), recordXml({ tipo: record.tipo as 'alta' | 'anulacion', content }));
        if (reason) return { valid: false, records, firstBroken: null, signatures: { ...signatures, firstInvalid: { id: Number(record.id), reason } } };
        signatures.signed++;
      } else if (record.modo === 'noverifactu') {
        signatures.unsigned++;
      }
      previous = record;
    }
    if (page.length < PAGE) return { valid: true, records, firstBroken: null, signatures };
    after = Number(page[page.length - 1]!.id);
  }
}
