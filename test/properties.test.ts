import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import {
  DummyDriver, Kysely, MysqlAdapter, MysqlIntrospector, MysqlQueryCompiler, PostgresAdapter, PostgresIntrospector,
  PostgresQueryCompiler, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, type Dialect,
} from 'kysely';
import { AppError } from '../src/errors.ts';
import type { Database, Engine } from '../src/db/database.ts';
import { QueryCache } from '../src/db/query-cache.ts';
import { WriteTracker } from '../src/db/write-tracker.ts';
import { dialectFor } from '../src/db/dialect.ts';
import { coerceValue, isStorableText } from '../src/models/coerce.ts';
import { MAX_DOUBLE_INPUT, type FieldDef, type FieldType } from '../src/models/fields.ts';
import { readInput } from '../src/models/read-input.ts';
import { parseListQuery } from '../src/query/list-query.ts';
import { customerModel } from '../src/modules/customers/customer-model.ts';
import { readDocumentInput } from '../src/modules/documents/document-input.ts';
import { documentType } from '../src/modules/documents/document-types.ts';
import { calculateDocument } from '../src/modules/documents/calculation/calculate.ts';
import { dec, round } from '../src/models/round.ts';
import type { CalcContext, CalcLine, TaxInfo } from '../src/modules/documents/calculation/types.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

/**
 * Properties over generated inputs (fast-check): whatever a client sends, the readers answer with
 * a value or a 4xx, never a crash, and nothing unvetted reaches SQL; the calculation core keeps
 * its totals finite and equal to the sum of their parts. `RUNS` scales every property.
 */
const RUNS = Number(process.env.PROPERTY_RUNS ?? 300);
const model = customerModel;
const INVOICE = documentType('FacturaCliente');

/** Any UTF-16 text: NUL, lone surrogates and control characters included. */
const anyText = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)), maxLength: 12 });
const prototypeNames = fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', '__defineGetter__');
const fieldNames = fc.constantFrom(...Object.keys(model.fields));
const numericText = fc.constantFrom('0', '-0', '1e308', '-1e308', '1e999', 'NaN', 'Infinity', '0x10', '1_000', '99999999999999999999', '2147483648', '.5', '5.', ' 7 ', '1e-400');
const anyValue = fc.oneof(
  anyText, numericText,
  fc.constantFrom('', 'null', 'true', 'ASC', 'desc', 'OR', 'and', "' OR 1=1 --", '%', '_', '2026-11-23', '23-11-2026', '12:30:00'),
  fc.integer().map(String), fc.double().map(String),
);

/** Keys a hostile list query may use: known fields with every suffix (most often), prototype names, noise. */
const filterKey = fc.tuple(fieldNames, fc.constantFrom('', '_gt', '_gte', '_lt', '_lte', '_neq', '_like', '_null', '_notnull', '_is', '_isnot', '_constructor', '__proto__')).map(([f, s]) => f + s);
const queryKey = fc.oneof(
  { weight: 6, arbitrary: filterKey.map((key) => `filter[${key}]`) },
  { weight: 3, arbitrary: fc.oneof(fieldNames, prototypeNames).map((key) => `sort[${key}]`) },
  { weight: 1, arbitrary: filterKey.map((key) => `operation[${key}]`) },
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom('filter', 'sort', 'operation'), fc.oneof(prototypeNames, anyText)).map(([kind, key]) => `${kind}[${key}]`) },
  { weight: 1, arbitrary: fc.constantFrom('limit', 'offset', 'filter', 'sort[', 'filter[nombre', 'sort]') },
  { weight: 1, arbitrary: anyText },
);

function compilerDialect(engine: Engine): Dialect {
  const parts = {
    sqlite: [SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler],
    postgres: [PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler],
    mysql: [MysqlAdapter, MysqlIntrospector, MysqlQueryCompiler],
  } as const;
  const [Adapter, Introspector, Compiler] = parts[engine];
  return {
    createAdapter: () => new Adapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new Introspector(db),
    createQueryCompiler: () => new Compiler(),
  };
}

const compilers = (['sqlite', 'postgres', 'mysql'] as const).map((engine) => {
  const database: Database = { engine, dialect: dialectFor(engine), kysely: new Kysely({ dialect: compilerDialect(engine) }), close: async () => {}, maintain: async () => {}, reportError: () => {}, counter: { statements: 0, roundTrips: 0, retries: 0 }, writes: new WriteTracker(), groupCommit: false };
  return { engine, cache: new QueryCache(database) };
});

/** The identifiers a compiled statement names: quoted with "..." or `...`. */
function identifiers(sqlText: string): string[] {
  return [...sqlText.matchAll(/"([^"]*)"|`([^`]*)`/g)].map((m) => m[1] ?? m[2]!);
}

function expectClientError(error: unknown): true {
  assert.ok(error instanceof AppError, `not an AppError: ${String(error)}`);
  assert.ok(error.status >= 400 && error.status < 500, `${error.code} is ${error.status}`);
  return true;
}

describe('properties of the list-query parser', () => {
  it('answers a checked query or a 400, and compiles to SQL naming only the model and binding every value', () => {
    const value = fc.oneof({ weight: 12, arbitrary: anyValue }, { weight: 1, arbitrary: fc.array(anyValue, { maxLength: 2 }) });
    fc.assert(fc.property(fc.dictionary(queryKey, value, { maxKeys: 5 }), fc.boolean(), (query, lenient) => {
      let parsed;
      try {
        parsed = parseListQuery(model, query, { defaultLimit: 50, maxLimit: 1000, lenient });
      } catch (error) {
        return expectClientError(error) && (error as AppError).status === 400;
      }
      // The lenient (facturascripts) reading has no maximum and may ask for every row.
      if (lenient) assert.ok(parsed.limit === null || (Number.isSafeInteger(parsed.limit) && parsed.limit >= 1));
      else assert.ok(parsed.limit !== null && Number.isInteger(parsed.limit) && parsed.limit >= 1 && parsed.limit <= 1000);
      assert.ok(Number.isSafeInteger(parsed.offset) && parsed.offset >= 0);
      const allowed = new Set([...model.visibleFields, model.table, 'total']);
      for (const condition of parsed.where.flat()) {
        assert.ok(model.visibleFields.includes(condition.field), condition.field);
        if (typeof condition.value === 'number') assert.ok(Number.isFinite(condition.value));
        if (typeof condition.value === 'string') assert.ok(isStorableText(condition.value));
      }
      for (const { field } of parsed.sort) assert.ok(model.visibleFields.includes(field), field);
      for (const { cache } of compilers) {
        const { select, count } = cache.list(model, parsed);
        for (const statement of [select, count]) {
          for (const name of identifiers(statement.query.sql)) assert.ok(allowed.has(name), `unexpected identifier ${name}`);
          const placeholders = (statement.query.sql.match(/\?|\$\d+/g) ?? []).length;
          assert.equal(placeholders, statement.parameters.length);
        }
      }
      return true;
    }), { numRuns: RUNS });
  });
});

describe('properties of the body readers and the coercion', () => {
  const bodyKey = fc.oneof(fieldNames, prototypeNames, anyText, fc.constantFrom('lineas', 'fecha', 'hora', 'pagada', 'codcliente', 'dtopor1', 'irpf'));
  const bodyValue = fc.oneof(
    anyValue,
    fc.double(),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom(1e308, -1e308, Number.MAX_SAFE_INTEGER, 2 ** 31, -0),
    fc.anything({ maxDepth: 3 }),
    fc.array(fc.dictionary(fc.oneof(fc.constantFrom('descripcion', 'cantidad', 'pvpunitario', 'dtopor', 'iva', 'idlinea', '__proto__'), anyText), fc.oneof(anyValue, fc.double())), { maxLength: 3 }),
  );
  const body = fc.oneof(fc.dictionary(bodyKey, bodyValue, { maxKeys: 6 }), fc.anything({ maxDepth: 2 }));

  it('reads a model body into writable, typed, storable values, or refuses it with a 4xx', () => {
    fc.assert(fc.property(body, fc.constantFrom('json', 'form') as fc.Arbitrary<'json' | 'form'>, fc.constantFrom('create', 'update') as fc.Arbitrary<'create' | 'update'>, (input, source, mode) => {
      let values;
      try {
        values = readInput(model, input, source, mode, 'X1');
      } catch (error) {
        return expectClientError(error);
      }
      for (const [name, value] of Object.entries(values)) {
        const field = model.fields[name];
        assert.ok(field && !field.readOnly, name);
        if (typeof value === 'number') assert.ok(Number.isFinite(value) && Math.abs(value) <= MAX_DOUBLE_INPUT, `${name}=${value}`);
        if (typeof value === 'string') assert.ok(isStorableText(value), name);
      }
      return true;
    }), { numRuns: RUNS });
  });

  it('reads a document request into typed header and lines within the declared ranges, or refuses it with a 4xx', () => {
    fc.assert(fc.property(body, fc.constantFrom('json', 'form') as fc.Arbitrary<'json' | 'form'>, fc.boolean(), (input, source, editing) => {
      let read;
      try {
        read = readDocumentInput(INVOICE, input, source, editing);
      } catch (error) {
        return expectClientError(error);
      }
      const check = (fields: Record<string, FieldDef>, values: Record<string, unknown>) => {
        for (const [name, value] of Object.entries(values)) {
          const field = fields[name]!;
          if (typeof value === 'number') {
            assert.ok(Number.isFinite(value), name);
            assert.ok(value >= (field.min ?? -MAX_DOUBLE_INPUT) && value <= (field.max ?? MAX_DOUBLE_INPUT), `${name}=${value}`);
          }
          if (typeof value === 'string') assert.ok(isStorableText(value), name);
        }
      };
      check(INVOICE.header.fields, read.header);
      for (const line of read.lines ?? []) check(INVOICE.line.fields, line);
      return true;
    }), { numRuns: RUNS });
  });

  it('coerces any value for any field type without throwing, into that type', () => {
    const types: FieldType[] = ['serial', 'integer', 'double', 'boolean', 'string', 'text', 'date', 'time', 'timestamp', 'json', 'binary'];
    fc.assert(fc.property(fc.constantFrom(...types), fc.boolean(), fc.oneof(bodyValue, fc.anything({ maxDepth: 40 })), fc.constantFrom('json', 'form') as fc.Arbitrary<'json' | 'form'>, (type, nullable, raw, source) => {
      const field: FieldDef = { type, nullable, ...(type === 'string' ? { length: 10 } : {}) };
      const result = coerceValue(field, raw, source);
      if (!result.ok) return typeof result.reason === 'string';
      const { value } = result;
      if (value === null) return nullable || raw === null || raw === 'null';
      const expected: Record<FieldType, (v: unknown) => boolean> = {
        serial: (v) => Number.isInteger(v) && (v as number) >= 1,
        integer: (v) => Number.isInteger(v),
        double: (v) => typeof v === 'number' && Number.isFinite(v),
        boolean: (v) => typeof v === 'boolean',
        string: (v) => typeof v === 'string' && [...v].length <= 10 && isStorableText(v),
        text: (v) => typeof v === 'string' && isStorableText(v),
        date: (v) => typeof v === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(v),
        time: (v) => typeof v === 'string' && /^\d{2}:\d{2}:\d{2}$/.test(v),
        timestamp: (v) => typeof v === 'string' && /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(v),
        json: (v) => typeof v === 'object' && JSON.stringify(v) !== undefined,
        binary: () => false,
      };
      assert.ok(expected[type](value), `${type}: ${JSON.stringify(raw)} -> ${JSON.stringify(value)}`);
      return true;
    }), { numRuns: RUNS * 3 });
  });
});

describe('properties of HTTP bodies (SQLite)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp('sqlite');
  });
  after(async () => t.close());

  it('never answers 5xx, whatever the method, path, content type and bytes', async () => {
    const contentType = fc.constantFrom(
      'application/json', 'application/json; charset=utf-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=XYZ',
      'multipart/form-data', 'text/plain', 'application/xml', 'application/octet-stream', '', 'application/json; boundary=x', '*/*',
    );
    const payload = fc.oneof(
      fc.string(),
      anyText,
      fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
      fc.json({ depthSize: 'medium' }),
      fc.constantFrom('--XYZ\r\nContent-Disposition: form-data; name="nombre"\r\n\r\nA\r\n--XYZ--\r\n', '--XYZ\r\nContent-Disposition: form-data; name="x"', 'nombre=%ZZ&x', '{"nombre":"\\u0000"}', '{"__proto__":{"x":1}}', '[[[[[[]]]]]]'),
    );
    const target = fc.constantFrom('/api/3/cliente', '/api/3/cliente/1', '/api/3/crearFacturaCliente', '/api/3/settings/default', '/api/3/lineafacturacliente', '/api/3/pagarFacturaCliente/1', '/api/3/producto', '/api/3/editarFacturaCliente/1');
    await fc.assert(fc.asyncProperty(fc.constantFrom('POST', 'PUT', 'PATCH', 'DELETE', 'GET'), target, contentType, payload, fc.boolean(), async (method, url, type, body, gzip) => {
      const headers: Record<string, string> = type ? { 'content-type': type } : {};
      if (gzip) headers['content-encoding'] = 'gzip';
      const response = await t.request({ method: method as 'POST', url, headers, payload: method === 'GET' ? undefined : body });
      assert.ok(response.statusCode < 500, `${method} ${url} ${type}: ${response.statusCode} ${response.body}`);
      return true;
    }), { numRuns: RUNS });
  });
});

describe('properties of the calculation core', () => {
  const taxes: TaxInfo[] = [
    { codimpuesto: 'IVA0', iva: 0, recargo: 0, tipo: 1 },
    { codimpuesto: 'IVA4', iva: 4, recargo: 0.5, tipo: 1 },
    { codimpuesto: 'IVA10', iva: 10, recargo: 1.4, tipo: 1 },
    { codimpuesto: 'IVA21', iva: 21, recargo: 5.2, tipo: 1 },
  ];
  const amount = fc.oneof(fc.double({ min: -1e12, max: 1e12, noNaN: true }), fc.integer({ min: -1000, max: 1000 }), fc.constantFrom(0.005, 0.015, 1.005, 0.285, 0.1, 1e12, -1e12));
  const percent = fc.oneof(fc.double({ min: 0, max: 100, noNaN: true }), fc.constantFrom(0, 10, 15, 50, 100));
  const lineArb = fc.record({
    cantidad: amount, pvpunitario: amount, dtopor: percent, dtopor2: percent, tax: fc.constantFrom(...taxes), irpf: percent,
    suplido: fc.boolean(), coste: amount,
  }).map(({ tax, ...rest }): CalcLine => ({ ...rest, codimpuesto: tax.codimpuesto, iva: tax.iva, recargo: tax.recargo, excepcioniva: null, productType: null }));

  it('keeps every total finite and equal to the rounded sum of its parts', () => {
    fc.assert(fc.property(fc.array(lineArb, { maxLength: 8 }), percent, percent, fc.integer({ min: 0, max: 6 }), fc.constantFrom('General', 'Recargo'), (lines, dtopor1, dtopor2, decimals, regime) => {
      const ctx: CalcContext = {
        decimals, method: 'classic', serie: { siniva: false, tipo: null }, company: { codpais: 'ESP', regimeniva: 'General' },
        subject: { regimeniva: regime, excepcioniva: null }, taxes: new Map(taxes.map((tax) => [tax.codimpuesto, tax])), zones: [],
      };
      const { totals, groups, lines: computed } = calculateDocument({ side: 'sales', dtopor1, dtopor2, operacion: null, codpais: 'ESP', provincia: null }, lines, ctx);
      for (const [name, value] of Object.entries(totals)) assert.ok(Number.isFinite(value), `${name} is ${value}`);
      for (const line of computed) assert.ok(Number.isFinite(line.pvptotal) && Number.isFinite(line.pvpsindto));
      const sum = (pick: (g: (typeof groups)[number]) => number) => round(groups.reduce((acc, g) => acc.plus(dec(pick(g))), dec(0)), decimals);
      assert.ok(sum((g) => g.neto).eq(dec(totals.neto)), 'neto = sum of the groups');
      assert.ok(sum((g) => g.totaliva).eq(dec(totals.totaliva)), 'totaliva = sum of the groups');
      const parts = dec(totals.neto).plus(totals.totalsuplidos).plus(totals.totaliva).plus(totals.totalrecargo).minus(totals.totalirpf);
      assert.ok(round(parts, decimals).eq(dec(totals.total)), `total ${totals.total} = ${parts.toString()}`);
      // Each group's VAT is its base at its rate, to within the rounding of that group: half a unit
      // of the last decimal for the base and for the tax, plus the reference's pre-rounding to 15
      // significant digits, which only shows on amounts beyond 1e13.
      for (const group of groups) {
        const expected = dec(group.neto).times(group.iva).div(100);
        const tolerance = dec(10).pow(-decimals).times(dec(group.iva).div(100).plus(1)).plus(expected.abs().times(1e-14));
        assert.ok(expected.minus(group.totaliva).abs().lte(tolerance), `group ${group.key}: ${group.totaliva} vs ${expected.toString()}`);
      }
      return true;
    }), { numRuns: RUNS });
  });
});
