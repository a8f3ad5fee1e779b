/**
 * `npm run declaracion`: writes docs/verifactu-declaracion.md, the producer's declaración
 * responsable of this version, from the same code that serves `GET /api/3/verifactuDeclaracion`
 * (src/modules/verifactu/declaration.ts). test/verifactu-declaration.test.ts fails when the file is stale.
 */
import fs from 'node:fs';
import { declarationMarkdown } from '../src/modules/verifactu/index.ts';

export const DECLARATION_FILE = new URL('../docs/verifactu-declaracion.md', import.meta.url);

if (import.meta.main) {
  fs.writeFileSync(DECLARATION_FILE, declarationMarkdown());
  console.log(`wrote ${DECLARATION_FILE.pathname}`);
}
