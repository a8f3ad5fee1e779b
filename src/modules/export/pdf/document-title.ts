import type { ExportView } from '../export-view.ts';
import type { Labels } from '../labels/labels.ts';

/**
 * The document's printed title: the print format's own title when it has one, else for an
 * invoice "credit note" when it is a refund (rectifying series or a rectified invoice) and
 * "simplified invoice" on a simplified series, else the kind's title.
 */
export function documentTitle(view: Pick<ExportView, 'kind' | 'seriesType' | 'rectifies' | 'format'>, labels: Labels): string {
  const custom = view.format?.title?.trim();
  if (custom) return custom;
  if (view.kind === 'invoice') {
    if (view.seriesType === 'R' || view.rectifies) return labels.creditNote;
    if (view.seriesType === 'S') return labels.simplifiedInvoice;
  }
  return labels.titles[view.kind];
}
