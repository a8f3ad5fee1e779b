import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { coreModules } from '../src/modules/index.ts';

/**
 * The module rules of docs/architecture.md, read from the imports of every source file:
 * - a module imports the layers and other modules' `index.ts`, never another module's inner files;
 * - a module imports only modules listed before it in `coreModules()` (no cycles);
 * - the layers never import a module; only the composition roots (app, main, CLI, the
 *   installation's module list with its plugins) do.
 */
const src = path.resolve(import.meta.dirname, '../src');
const modulesDir = path.join(src, 'modules');
const COMPOSITION_ROOTS = [path.join(src, 'app.ts'), path.join(src, 'main.ts'), path.join(src, 'serve.ts'), path.join(src, 'cli'), path.join(src, 'plugins', 'installation-modules.ts')];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(full) : entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Every relative module a file names: static imports and re-exports, side-effect imports, dynamic imports. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const patterns = [/\bfrom\s+['"](\.[^'"]+)['"]/g, /\bimport\s+['"](\.[^'"]+)['"]/g, /\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g];
  return patterns.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => path.resolve(path.dirname(file), match[1]!)));
}

/** `customers` for src/modules/customers/..., undefined for a file outside a module folder. */
function moduleOf(file: string): string | undefined {
  const relative = path.relative(modulesDir, file);
  if (relative.startsWith('..') || !relative.includes(path.sep)) return undefined;
  return relative.split(path.sep)[0];
}

it('keeps every module behind its index.ts and the module graph acyclic, in coreModules() order', () => {
  const order = coreModules().map((module) => module.name);
  const folders = fs.readdirSync(modulesDir, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  assert.deepEqual([...folders].sort(), [...order].sort(), 'every module folder is a module of coreModules(), named after it');
  const violations: string[] = [];
  for (const file of sourceFiles(modulesDir)) {
    const own = moduleOf(file);
    for (const target of importsOf(file)) {
      const other = moduleOf(target);
      const name = path.relative(src, file);
      if (target === path.join(modulesDir, 'index.ts') && file !== target) violations.push(`${name} imports the module list`);
      if (!other || other === own) continue;
      if (target !== path.join(modulesDir, other, 'index.ts')) violations.push(`${name} reaches into ${path.relative(src, target)}`);
      if (own && order.indexOf(other) > order.indexOf(own)) violations.push(`${name} imports ${other}, listed after ${own}`);
    }
  }
  assert.deepEqual(violations, []);
});

it('keeps the layers free of modules: only the composition roots compose them', () => {
  const violations: string[] = [];
  for (const file of sourceFiles(src)) {
    if (file.startsWith(modulesDir + path.sep) || COMPOSITION_ROOTS.some((root) => file === root || file.startsWith(root + path.sep))) continue;
    for (const target of importsOf(file)) {
      if (target.startsWith(modulesDir + path.sep)) violations.push(`${path.relative(src, file)} imports ${path.relative(src, target)}`);
    }
  }
  assert.deepEqual(violations, []);
});

/**
 * Tables a module reads or writes by name although another module owns them: each is a documented
 * read (or, for numbering, a write) of this list; any other is a violation. Through the other
 * module's functions is the way; a new entry here needs a reason.
 */
const TABLE_ACCESS: Record<string, Record<string, string>> = {
  documents: {
    series: 'numbering locks the serie row; a serie missing from the cache is read',
    empresas: 'a new fiscal year locks its company; a company missing from the cache is read',
    ejercicios: 'the fiscal year of a document, created on demand',
    secuencias_documentos: 'numbering',
    almacenes: 'a warehouse missing from the cache is read',
    divisas: 'a currency missing from the cache is read',
    productos: 'the product type the margin schemes read',
  },
  installation: {},
  migration: {
    work_events: 'how many of the queued work events an import copied the source had not processed: one count for its report',
    attached_files: 'the files an import copied the records of, whose bytes it copies into the files module\'s store',
  },
  recurring: {
    series: 'a template\'s serie, checked when it is written so that a refusal names the field',
    formaspago: 'a template\'s payment method, checked the same way',
    divisas: 'a template\'s currency, checked the same way',
    almacenes: 'a template\'s warehouse, checked the same way',
  },
  banking: {
    recibospagoscli: 'the unpaid direct-debit receipts a remittance gathers, with their payment method, customer and main bank account: one query',
    recibospagosprov: 'the unpaid supplier receipts a transfer order gathers, with their payment method, supplier and main bank account: one query',
  },
  taxforms: {
    empresas: 'the company\'s row, locked first by a VAT settlement and its undoing: they take turns, and invoices being written for the company finish first',
    partidas: 'the balances of the VAT sub-accounts over the period\'s entries, which the settlement entry clears: one aggregate',
    subcuentas: 'the same aggregate\'s sub-accounts, and the tax authority\'s payable or receivable sub-account (IVAACR, IVADEU)',
  },
  mail: {
    recibospagoscli: 'the unpaid receipts due for a reminder, with their customer\'s e-mail, opt-out and the levels sent: one query of the reminders job',
  },
  verifactu: {
    empresas: 'whether the installation holds more than one taxpayer (an event\'s IndicadorMultiplesOT), read in the event\'s transaction where the cached reference may not load',
  },
  accounting: {
    ejercicios: 'the fiscal year an import or an entry goes into: its state and sub-account length (locked while its chart is imported)',
    impuestos: 'the taxes\' sub-account codes an import fills in (written through the store)',
  },
  posting: {
    subcuentas: 'the sub-accounts an entry posts to, and the customer or supplier sub-account it creates',
    cuentas: 'the account of a role (CLIENT, PROVEE ...) a new sub-account goes under',
    ejercicios: 'the sub-account length of the year an invoice posts to',
    impuestos: 'the taxes\' sub-account codes',
    retenciones: 'the retention\'s sub-account codes',
    productos: 'the products\' sales and purchases sub-account codes',
    familias: 'the families\' sub-account codes, walking up the tree',
    formaspago: 'the bank account of a payment method',
    gruposclientes: 'a customer group\'s sub-account',
  },
};

function tablesNamed(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const pattern = /\b(?:selectFrom|insertInto|updateTable|deleteFrom)\(\s*['"]([a-z_]+)(?:\s+as\s+\w+)?['"]|sql\.table\(\s*['"]([a-z_]+)['"]/g;
  return [...text.matchAll(pattern)].map((match) => match[1] ?? match[2]!);
}

it('names only its own tables in SQL, but for the documented reads of other modules', () => {
  const owner = new Map<string, string>();
  for (const module of coreModules()) for (const model of module.models ?? []) owner.set(model.table, module.name);
  const violations: string[] = [];
  for (const file of sourceFiles(modulesDir)) {
    const own = moduleOf(file);
    if (!own || own === 'installation') continue; // default data goes through every module's models by design
    for (const table of new Set(tablesNamed(file))) {
      const of = owner.get(table);
      if (!of || of === own || Object.hasOwn(TABLE_ACCESS[own] ?? {}, table)) continue;
      violations.push(`${path.relative(src, file)} names ${table} (module ${of})`);
    }
  }
  assert.deepEqual(violations, []);
});
