import { after, before, describe } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { createApp, type App, type CreateAppOptions } from '../../src/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import type { Engine } from '../../src/db/database.ts';
import type { Model } from '../../src/models/define-model.ts';
import { enabledEngines, scratchDatabase, type ScratchDatabase } from './engines.ts';

/** The global key every test app is configured with (tests of keys use their own). */
export const GLOBAL_KEY = 'test-global-key-0123456789';

export interface TestApp {
  engine: Engine;
  app: App;
  /** `inject` with the global key unless the options carry their own headers. */
  request(options: InjectOptions & { key?: string | null }): Promise<LightMyRequestResponse>;
  /** Shorthand: JSON request, returns status and parsed body. */
  call(method: string, url: string, body?: unknown, key?: string | null): Promise<{ status: number; body: any; headers: Record<string, unknown> }>;
  /** The database it runs on: another instance started on it shares its data, as a deployment's servers do. */
  databaseUrl: string;
  close(): Promise<void>;
}

export type TestAppOptions = Partial<Omit<CreateAppOptions, 'config'>> & {
  config?: Partial<Config>;
  /** Shorthand for an app of just these models: one module holding them. */
  models?: Model[];
  url?: string;
  /** Only these of the enabled engines (a suite about connections has nothing to test on SQLite). */
  engines?: Engine[];
};

export async function startTestApp(engine: Engine, options: TestAppOptions = {}): Promise<TestApp & { scratch?: ScratchDatabase }> {
  const scratch = options.url ? undefined : await scratchDatabase(engine);
  const config: Config = {
    ...loadConfig({}),
    databaseUrl: options.url ?? scratch!.url,
    apiKey: GLOBAL_KEY,
    logLevel: 'silent',
    ...options.config,
  };
  let app: App;
  const { models, ...rest } = options;
  try {
    app = await createApp({ logger: false, ...rest, ...(models ? { modules: [{ name: 'test-models', models }] } : {}), config });
  } catch (error) {
    await scratch?.drop();
    throw error;
  }
  const request: TestApp['request'] = ({ key, headers, ...rest }) => {
    const auth = key === null ? {} : { 'x-auth-token': key ?? GLOBAL_KEY };
    return app.server.inject({ ...rest, headers: { ...auth, ...headers } });
  };
  return {
    engine,
    app,
    scratch,
    databaseUrl: config.databaseUrl,
    request,
    async call(method, url, body, key) {
      const response = await request({
        method: method as InjectOptions['method'],
        url,
        key,
        ...(body === undefined ? {} : { payload: body as InjectOptions['payload'], headers: { 'content-type': 'application/json' } }),
      });
      let parsed: unknown = undefined;
      try {
        parsed = response.body ? JSON.parse(response.body) : undefined;
      } catch {
        parsed = response.body;
      }
      return { status: response.statusCode, body: parsed, headers: response.headers };
    },
    async close() {
      await app.close();
      await scratch?.drop();
    },
  };
}

/**
 * Runs `fn` with a second instance of the service on `current`'s database (another server of the
 * same deployment), closed afterwards: before the suite drops its database, which may then have no
 * other session.
 */
export async function withOtherInstance<T>(current: TestApp, fn: (other: TestApp) => Promise<T>, options: Omit<TestAppOptions, 'url'> = {}): Promise<T> {
  const other = await startTestApp(current.engine, { ...options, url: current.databaseUrl });
  try {
    return await fn(other);
  } finally {
    await other.close();
  }
}

/**
 * Runs the same suite once per enabled engine, each on a fresh database:
 * `forEachEngine('customers', (t) => { it('...', async () => { await t().call(...) }) })`.
 */
export function forEachEngine(title: string, suite: (current: () => TestApp) => void, options: TestAppOptions = {}): void {
  for (const engine of enabledEngines().filter((candidate) => !options.engines || options.engines.includes(candidate))) {
    describe(`${title} [${engine}]`, () => {
      let testApp: TestApp | undefined;
      before(async () => {
        testApp = await startTestApp(engine, options);
      });
      after(async () => {
        await testApp?.close();
      });
      suite(() => testApp!);
    });
  }
}

/** A multipart/form-data body of plain fields (and optional files) for `inject`. */
export function multipart(fields: Record<string, string>, files: Array<{ field: string; name: string; type: string; content: Buffer | string }> = []) {
  const boundary = `----test${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  for (const file of files) {
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${file.field}"; filename="${file.name}"\r\nContent-Type: ${file.type}\r\n\r\n`),
      Buffer.isBuffer(file.content) ? file.content : Buffer.from(file.content),
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}
