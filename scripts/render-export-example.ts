/**
 * `node scripts/render-export-example.ts`: renders the example invoice (eight lines at 21 % and
 * 10 %, a pending receipt, observations; `exampleInvoiceView` of the test fixtures) to
 * `docs/images/invoice-example.pdf`, then its first page to `docs/images/invoice-example.png`, the
 * picture docs/export.md shows of what customers receive. Run it again after a layout change.
 *
 * Needs `pdftoppm` (Debian/Ubuntu: `apt-get install poppler-utils`). The PNG is rendered at 80 dpi
 * (about 660 x 940 pixels), which keeps it readable and well under 150 KB.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { renderPdf } from '../src/modules/export/pdf/render-pdf.ts';
import { exampleInvoiceView } from '../test/helpers/export-views.ts';

const dir = path.join(import.meta.dirname, '..', 'docs', 'images');
const pdfPath = path.join(dir, 'invoice-example.pdf');
const pngBase = path.join(dir, 'invoice-example');

fs.mkdirSync(dir, { recursive: true });
fs.writeFileSync(pdfPath, await renderPdf(exampleInvoiceView()));
try {
  execFileSync('pdftoppm', ['-png', '-r', '80', '-f', '1', '-l', '1', '-singlefile', pdfPath, pngBase], { stdio: 'inherit' });
} catch (error) {
  const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
  console.error(missing ? 'pdftoppm not found: install poppler-utils (apt-get install poppler-utils)' : String(error));
  process.exit(1);
}
const size = (file: string) => `${(fs.statSync(file).size / 1024).toFixed(0)} KiB`;
console.log(`${path.relative(process.cwd(), pdfPath)} (${size(pdfPath)}), ${path.relative(process.cwd(), `${pngBase}.png`)} (${size(`${pngBase}.png`)})`);
