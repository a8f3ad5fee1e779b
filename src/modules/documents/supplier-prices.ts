import type { DbExecutor } from '../../db/database.ts';
import type { SqlDialect } from '../../db/dialect.ts';
import { recordSupplierPrices } from '../catalogue/index.ts';
import type { Settings } from '../../settings.ts';
import type { Row } from './document-repository.ts';
import type { DocumentType } from './document-types.ts';
import type { PartMaker } from './document-parts.ts';

type LineValues = Record<string, unknown>;

/**
 * A purchase document's lines become its supplier's prices (PurchaseDocumentWorker,
 * facturascripts-model.md 3.13) when the setting `updatesupplierprices` is on: every purchase
 * document, whenever it is written (created, generated, edited, its lines changed). Lines of a
 * known product (a variant reference) with `cantidad` > 0 and `pvpunitario` > 0 count; the
 * prices are dated with the document's date and time.
 */
export async function followSupplierPrices(db: DbExecutor, dialect: SqlDialect, settings: Settings, type: DocumentType, doc: Row, lines: LineValues[]): Promise<void> {
  if (type.side !== 'purchase' || !settings.updatesupplierprices) return;
  const prices = lines
    .filter((line) => typeof line.referencia === 'string' && line.referencia !== '' && line.idproducto !== null && line.idproducto !== undefined
      && Number(line.cantidad) > 0 && Number(line.pvpunitario) > 0)
    .map((line) => ({
      referencia: String(line.referencia), idproducto: Number(line.idproducto), precio: Number(line.pvpunitario),
      dtopor: Number(line.dtopor ?? 0), dtopor2: Number(line.dtopor2 ?? 0),
    }));
  await recordSupplierPrices(db, dialect, {
    codproveedor: String(doc.codproveedor), coddivisa: String(doc.coddivisa), rate: Number(doc.tasaconv ?? 1),
    stamp: `${String(doc.fecha)} ${String(doc.hora ?? '00:00:00')}`, prices,
  });
}

/** A new purchase document's part: its lines become the supplier's prices once it is written (a statement at a time). */
export function supplierPricesPart(type: DocumentType, settings: Settings): PartMaker | undefined {
  if (type.side !== 'purchase' || !settings.updatesupplierprices) return undefined;
  return () => ({
    finish: (doc) => followSupplierPrices(doc.db, doc.ctx.database.dialect, settings, type, doc.header, doc.lines),
  });
}
