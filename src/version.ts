import fs from 'node:fs';

/** The package's version: the API's version (OpenAPI description) and the invoicing system's (VERI*FACTU records). */
export const PACKAGE_VERSION = String((JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version);
