import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { pluralize } from '../../src/models/pluralize.ts';
import { apiVersionOf } from '../../src/http/pipeline.ts';

it('derives the reference plural aliases', () => {
  const cases: Record<string, string> = {
    Cliente: 'clientes', Almacen: 'almacenes', ApiKey: 'apikeyes', Pais: 'pais', Settings: 'settings',
    User: 'users', DocTransformation: 'doctransformations', CronJob: 'cronjobes', FacturaCliente: 'facturaclientes',
    FacturaProveedor: 'facturaproveedores', GrupoClientes: 'grupoclientes', ApiAccess: 'apiaccess', Retencion: 'retenciones',
  };
  for (const [model, alias] of Object.entries(cases)) assert.equal(pluralize(model), alias, model);
});

it('validates configuration with clear messages', () => {
  const config = loadConfig({});
  assert.equal(config.port, 8080);
  assert.equal(config.host, '127.0.0.1');
  assert.match(config.databaseUrl, /^sqlite:.*data\/invoicing\.sqlite$/);
  assert.equal(config.trustProxy, false);
  assert.equal(loadConfig({ TRUST_PROXY: 'true' }).trustProxy, true);
  assert.equal(loadConfig({ TRUST_PROXY: '2' }).trustProxy, 2);
  assert.equal(config.groupCommit, 'auto');
  assert.equal(loadConfig({ GROUP_COMMIT: 'ON' }).groupCommit, 'on');
  const bad: Array<[Record<string, string>, RegExp]> = [
    [{ PORT: 'abc' }, /PORT must be an integer/],
    [{ PORT: '70000' }, /PORT must be between/],
    [{ DATABASE_URL: 'oracle://x' }, /DATABASE_URL must start with/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL must be one of/],
    [{ API_KEY: 'short' }, /API_KEY must be at least 16/],
    [{ MAX_LIST_LIMIT: '0' }, /MAX_LIST_LIMIT must be between/],
    [{ GROUP_COMMIT: 'yes' }, /GROUP_COMMIT must be auto, on or off/],
  ];
  for (const [env, message] of bad) assert.throws(() => loadConfig(env), (e: unknown) => e instanceof ConfigError && message.test(e.message));
});

it('reads the version segment of API paths', () => {
  assert.equal(apiVersionOf('/api/3/cliente'), '3');
  assert.equal(apiVersionOf('/api/3'), '3');
  assert.equal(apiVersionOf('/api'), '');
  assert.equal(apiVersionOf('/api/'), '');
  assert.equal(apiVersionOf('/api/4/x?y=1'), '4');
  assert.equal(apiVersionOf('/other'), undefined);
});
