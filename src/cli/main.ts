#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { loadProcessConfig } from '../config.ts';
import { createCore, type Core } from '../core.ts';
import { AppError } from '../errors.ts';
import { installationModules } from '../plugins/installation-modules.ts';
import type { FieldValue } from '../models/fields.ts';
import { importCommand, type ProgressOutput } from './import-command.ts';

const USAGE = `Usage: npm run cli -- <command>

  migrate                                   create or upgrade the database schema
  apikey create [--description D] [--nick N] [--full-access] [--profile spec|facturascripts]
                                            create a key and print its token (shown once)
  apikey profile <id> <spec|facturascripts> how the API answers the key (docs/compatibility.md)
  apikey list                               list keys (never their tokens)
  apikey disable <id> | apikey enable <id>  switch a key off or on
  apikey allow <id> <resource> <methods>    grant methods (comma list of get,post,put,delete;
                                            "none" revokes) on a resource
  settings get [<key>]                      print the default settings (or one key)
  settings set <key> <value>                set a default setting (value parsed as JSON when possible)
  import facturascripts --from <url> [--files <MyFiles dir>] [--dry-run] [--json]
                                            bring a whole installation of the established system
                                            (mysql://... or postgres://...) into this new one
                                            (docs/migration.md)

The database is the one of DATABASE_URL (default sqlite:./data/invoicing.sqlite). Running
servers pick up changes within STATE_REFRESH_MS.`;

type Print = (line: string) => void;

function parseValue(raw: string): FieldValue {
  try {
    return JSON.parse(raw) as FieldValue;
  } catch {
    return raw;
  }
}

/** Runs one CLI command against a core; returns the exit code. Exported for tests. */
export async function runCommand(core: Core, argv: string[], print: Print, progress: ProgressOutput = { tty: Boolean(process.stderr.isTTY), write: (text) => void process.stderr.write(text) }): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      description: { type: 'string' },
      nick: { type: 'string' },
      'full-access': { type: 'boolean' },
      profile: { type: 'string' },
      from: { type: 'string' },
      files: { type: 'string' },
      'dry-run': { type: 'boolean' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [group, action, ...rest] = positionals;
  const { store, registry } = core.ctx;
  const apikey = registry.get('apikey')!;
  const apiaccess = registry.get('apiaccess')!;
  const settings = registry.get('settings')!;
  if (values.help || !group) {
    print(USAGE);
    return values.help ? 0 : 1;
  }
  if (group === 'import') return importCommand(core, action, { from: values.from, files: values.files, dryRun: values['dry-run'], json: values.json }, print, progress);
  if (group === 'migrate') {
    print(JSON.stringify(core.schema));
    return 0;
  }
  if (group === 'apikey' && action === 'create') {
    const { record, reveal } = await store.create(apikey, {
      description: values.description ?? 'Created from the command line',
      nick: values.nick ?? null,
      fullaccess: values['full-access'] ?? false,
      ...(values.profile ? { profile: values.profile } : {}),
    });
    print(`id ${record.id}${record.fullaccess ? ' (full access)' : ''}${record.profile !== 'spec' ? ` (profile ${record.profile})` : ''}`);
    print(`token ${reveal.apikey}`);
    return 0;
  }
  if (group === 'apikey' && action === 'list') {
    const { rows } = await store.list(apikey, { where: [], sort: [{ field: 'id', direction: 'asc' }], limit: 1_000_000, offset: 0 });
    for (const row of rows) {
      print(`${row.id}\t${row.enabled ? 'enabled ' : 'disabled'}\t${row.fullaccess ? 'full' : 'rules'}\t${row.lastactivity ?? '-'}\t${row.description}`);
    }
    return 0;
  }
  if (group === 'apikey' && action === 'profile' && rest.length === 2) {
    await store.update(apikey, Number(rest[0]), { profile: rest[1]! });
    print(`key ${rest[0]} answers with the ${rest[1]} profile`);
    return 0;
  }
  if (group === 'apikey' && (action === 'disable' || action === 'enable') && rest[0]) {
    await store.update(apikey, Number(rest[0]), { enabled: action === 'enable' });
    print(`key ${rest[0]} ${action}d`);
    return 0;
  }
  if (group === 'apikey' && action === 'allow' && rest.length === 3) {
    const [id, resource, methods] = rest as [string, string, string];
    const wanted = new Set(methods === 'none' ? [] : methods.toLowerCase().split(','));
    for (const method of wanted) if (!['get', 'post', 'put', 'delete'].includes(method)) throw new Error(`unknown method ${method}`);
    const canonical = registry.canonical(resource);
    const flags = {
      allowget: wanted.has('get'),
      allowpost: wanted.has('post'),
      allowput: wanted.has('put'),
      allowdelete: wanted.has('delete'),
    };
    const existing = await store.list(apiaccess, {
      where: [[{ field: 'idapikey', op: 'eq', value: Number(id) }, { field: 'resource', op: 'eq', value: canonical }]],
      sort: [{ field: 'id', direction: 'asc' }],
      limit: 1,
      offset: 0,
    });
    if (existing.rows[0]) await store.update(apiaccess, existing.rows[0].id!, flags);
    else await store.create(apiaccess, { idapikey: Number(id), resource: canonical, ...flags });
    print(`key ${id} on ${canonical}: ${[...wanted].join(',') || 'none'}`);
    return 0;
  }
  if (group === 'settings' && action === 'get') {
    const properties = ((await store.get(settings, 'default'))?.properties ?? {}) as Record<string, unknown>;
    print(JSON.stringify(rest[0] ? (properties[rest[0]] ?? null) : properties, null, 2));
    return 0;
  }
  if (group === 'settings' && action === 'set' && rest.length === 2) {
    await store.update(settings, 'default', { properties: { [rest[0]!]: parseValue(rest[1]!) } });
    print(`${rest[0]} = ${JSON.stringify(parseValue(rest[1]!))}`);
    return 0;
  }
  print(USAGE);
  return 1;
}

export async function main(): Promise<void> {
  const config = loadProcessConfig();
  const log = {
    info: () => {},
    warn: (object: object, message?: string) => console.error(message ?? '', object),
    error: (object: object, message?: string) => console.error(message ?? '', object),
  };
  const core = await createCore({ config: { ...config, stateRefreshMs: 0 }, modules: await installationModules(config), log });
  try {
    process.exitCode = await runCommand(core, process.argv.slice(2), (line) => console.log(line));
  } catch (error) {
    if (error instanceof AppError) {
      console.error(`error: ${error.code}${error.details ? ` ${JSON.stringify(error.details)}` : ''}`);
      process.exitCode = 1;
    } else throw error;
  } finally {
    await core.close();
  }
}

if (import.meta.main) await main();
