import { dec, Dec } from '../../models/round.ts';
import { validationError } from '../../errors.ts';
import { xmlAmount, type XmlTree } from '../verifactu/index.ts';

/** Not-subject qualifications as TicketBAI's causes: N1 (arts. 7, 14 LIVA, others) OT; N2 (location rules) RL. */
const NOT_SUBJECT: Readonly<Record<string, string>> = { N1: 'OT', N2: 'RL' };
/** VERI*FACTU regime keys as TicketBAI's: the general regime, exports and travel agencies are the same codes; a surcharge sale is general. */
const KEYS: Readonly<Record<string, string>> = { '01': '01', '02': '02', '05': '05', '18': '01' };

/**
 * TicketBAI's breakdown (`Sujeta` {`Exenta`, `NoExenta`}, `NoSujeta`) from the invoice's VERI*FACTU
 * details (verifactu/desglose.ts: one per qualification, exemption and rate, summing to the
 * invoice exactly): subject lines by rate under S1 or S2, exempt amounts by cause, not-subject
 * amounts by cause. Answers it with the total as written and the regime keys.
 */
export function desgloseOf(details: XmlTree[]): { desglose: XmlTree; importe: string; claves: string[] } {
  const exempt = new Map<string, Dec>();
  const notSubject = new Map<string, Dec>();
  const subject = new Map<'S1' | 'S2', XmlTree[]>();
  const claves: string[] = [];
  let total = new Dec(0);
  for (const detail of details) {
    if (detail.Impuesto === '02' || detail.Impuesto === '03') throw validationError({ lineas: 'tax-not-in-ticketbai' });
    claves.push(KEYS[String(detail.ClaveRegimen ?? '01')] ?? '01');
    const base = dec(String(detail.BaseImponibleOimporteNoSujeto));
    total = total.plus(base).plus(dec(String(detail.CuotaRepercutida ?? 0))).plus(dec(String(detail.CuotaRecargoEquivalencia ?? 0)));
    const qualification = String(detail.CalificacionOperacion ?? '');
    if (detail.OperacionExenta) {
      const cause = String(detail.OperacionExenta);
      exempt.set(cause, (exempt.get(cause) ?? new Dec(0)).plus(base));
    } else if (NOT_SUBJECT[qualification]) {
      const cause = NOT_SUBJECT[qualification]!;
      notSubject.set(cause, (notSubject.get(cause) ?? new Dec(0)).plus(base));
    } else {
      const kind = qualification === 'S2' ? 'S2' : 'S1';
      const iva: XmlTree = { BaseImponible: String(detail.BaseImponibleOimporteNoSujeto), TipoImpositivo: String(detail.TipoImpositivo ?? '0.00'), CuotaImpuesto: String(detail.CuotaRepercutida ?? '0.00') };
      if (detail.TipoRecargoEquivalencia) Object.assign(iva, { TipoRecargoEquivalencia: String(detail.TipoRecargoEquivalencia), CuotaRecargoEquivalencia: String(detail.CuotaRecargoEquivalencia) });
      subject.set(kind, [...(subject.get(kind) ?? []), iva]);
    }
  }
  if ([...subject.values()].some((list) => list.length > 12)) throw validationError({ lineas: 'too-many-tax-details' });
  const sujeta: XmlTree = {};
  if (exempt.size) sujeta.Exenta = { DetalleExenta: [...exempt].map(([cause, base]) => ({ CausaExencion: cause, BaseImponible: xmlAmount(base) })) };
  if (subject.size) sujeta.NoExenta = { DetalleNoExenta: (['S1', 'S2'] as const).filter((kind) => subject.has(kind)).map((kind) => ({ TipoNoExenta: kind, DesgloseIVA: { DetalleIVA: subject.get(kind)! } })) };
  const desglose: XmlTree = {};
  if (Object.keys(sujeta).length) desglose.Sujeta = sujeta;
  if (notSubject.size) desglose.NoSujeta = { DetalleNoSujeta: [...notSubject].map(([cause, amount]) => ({ Causa: cause, Importe: xmlAmount(amount) })) };
  return { desglose, importe: xmlAmount(total), claves };
}
