import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

/**
 * The European Commission's EN 16931 validation artefacts (test/vendor/en16931/, EUPL-1.2) run
 * in-process with SaxonJS. Each XSLT is compiled once to SaxonJS's SEF format by the `xslt3`
 * command (about 10 s per syntax) and cached under `node_modules/.cache/en16931/`, keyed by the
 * XSLT's SHA-256 and the SaxonJS / xslt3 versions, so a clean clone compiles on its first run and
 * later runs only load the cached file. See docs/export-einvoice.md.
 */

export type Syntax = 'ubl' | 'cii';

/** One `svrl:failed-assert` (or `svrl:successful-report`) of the validation report. */
export interface RuleResult {
  /** The rule's id (`BR-CO-15`). */
  id: string;
  /** `fatal` (the document breaks EN 16931) or `warning`. */
  flag: string;
  /** The XPath of the node the rule fired on, and the rule's test. */
  location: string;
  test: string;
  text: string;
}

export interface Validation {
  fatal: RuleResult[];
  warnings: RuleResult[];
}

interface SaxonApi {
  transform(options: Record<string, unknown>, mode: 'sync'): { principalResult: unknown };
  getProcessorInfo(): { productVersion: string };
  XPath: { evaluate(xpath: string, context: unknown, options?: Record<string, unknown>): unknown };
  getResource(options: { text: string; type: 'xml' }, mode?: 'async'): Promise<unknown>;
}

const require = createRequire(import.meta.url);
/** SaxonJS 2 (no type declarations of its own): only what these tests call. */
export const SaxonJS = require('saxon-js') as SaxonApi;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const VENDOR = path.join(ROOT, 'test', 'vendor', 'en16931');
const CACHE = path.join(ROOT, 'node_modules', '.cache', 'en16931');
const XSLT3 = require.resolve('xslt3/xslt3.js');
const XSLT: Record<Syntax, string> = {
  ubl: path.join(VENDOR, 'ubl', 'EN16931-UBL-validation.xslt'),
  cii: path.join(VENDOR, 'cii', 'EN16931-CII-validation.xslt'),
};

const SVRL = 'http://purl.oclc.org/dsdl/svrl';

/** The cached SEF of a syntax's XSLT, compiled first when missing. */
async function compiled(syntax: Syntax): Promise<string> {
  const source = XSLT[syntax];
  const digest = createHash('sha256').update(fs.readFileSync(source)).digest('hex');
  const versions = `saxonjs-${SaxonJS.getProcessorInfo().productVersion}-xslt3-${(require('xslt3/package.json') as { version: string }).version}`;
  const target = path.join(CACHE, `${syntax}-${digest}-${versions}.sef.json`);
  if (fs.existsSync(target)) return target;
  fs.mkdirSync(CACHE, { recursive: true });
  // Compiled to a private name, then renamed: a concurrent run never reads half a file.
  const partial = `${target}.${process.pid}.${Date.now()}.tmp`;
  try {
    await promisify(execFile)(process.execPath, [XSLT3, `-xsl:${source}`, `-export:${partial}`, '-nogo', '-relocate:on'], {
      maxBuffer: 16 * 1024 * 1024, timeout: 300_000,
    });
    fs.renameSync(partial, target);
  } finally {
    fs.rmSync(partial, { force: true });
  }
  return target;
}

const stylesheets = new Map<Syntax, Promise<unknown>>();

/** The compiled stylesheet, parsed once per process (the SEF files are several megabytes). */
function stylesheet(syntax: Syntax): Promise<unknown> {
  let loaded = stylesheets.get(syntax);
  if (!loaded) {
    loaded = compiled(syntax).then((file) => JSON.parse(fs.readFileSync(file, 'utf8')));
    stylesheets.set(syntax, loaded);
  }
  return loaded;
}

/** Compiles (when not cached) and loads both syntaxes' rules: a test's `before` hook, so that its time is not the first case's. */
export async function prepareEn16931(): Promise<void> {
  await Promise.all([stylesheet('ubl'), stylesheet('cii')]);
}

/** An XPath over a SaxonJS document, with the namespaces given. */
export function xpath<T = unknown>(expression: string, context: unknown, namespaces: Record<string, string> = {}): T {
  return SaxonJS.XPath.evaluate(expression, context, { namespaceContext: namespaces, resultForm: 'array' }) as T;
}

/** Parses XML with SaxonJS's parser: throws when it is not well-formed. */
export function parseXml(text: string): Promise<unknown> {
  return SaxonJS.getResource({ text, type: 'xml' }, 'async');
}

/** Runs a syntax's EN 16931 rules on the XML and returns the rules that fired, by flag. */
export async function validateEn16931(syntax: Syntax, xml: string): Promise<Validation> {
  const stylesheetInternal = await stylesheet(syntax);
  const report = SaxonJS.transform({ stylesheetInternal, sourceText: xml, destination: 'document' }, 'sync').principalResult;
  const fired = xpath<unknown[]>('//(svrl:failed-assert | svrl:successful-report)', report, { svrl: SVRL });
  const results = fired.map((node): RuleResult => ({
    id: xpath<string[]>('string(@id)', node)[0] ?? '',
    flag: xpath<string[]>('string(@flag)', node)[0] ?? '',
    location: xpath<string[]>('string(@location)', node)[0] ?? '',
    test: xpath<string[]>('string(@test)', node)[0] ?? '',
    text: (xpath<string[]>('normalize-space(svrl:text)', node, { svrl: SVRL })[0] ?? '').trim(),
  }));
  return { fatal: results.filter((item) => item.flag === 'fatal'), warnings: results.filter((item) => item.flag !== 'fatal') };
}

/** The fired rules as lines for an assertion message: `[BR-CO-15] text (at location)`. */
export function describeResults(results: readonly RuleResult[]): string {
  return results.map((item) => `[${item.id}] ${item.text}\n    at ${item.location}\n    test: ${item.test}`).join('\n');
}
