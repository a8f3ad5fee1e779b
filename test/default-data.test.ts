import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { enabledEngines, scratchDatabase } from './helpers/engines.ts';
import { startTestApp, type TestApp } from './helpers/test-app.ts';

const year = new Date().getUTCFullYear();

async function all(t: TestApp, resource: string, query = '') {
  const response = await t.call('GET', `/api/3/${resource}?limit=1000${query}`);
  assert.equal(response.status, 200, resource);
  return response.body as Array<Record<string, any>>;
}

for (const engine of enabledEngines()) {
  describe(`default data [${engine}]`, () => {
    let drop: (() => Promise<void>) | undefined;
    after(async () => drop?.());

    it('gives a new installation the reference numbers, once', async () => {
      const scratch = await scratchDatabase(engine);
      drop = scratch.drop;
      const first = await startTestApp(engine, { url: scratch.url });
      let counts: Record<string, number> = {};
      try {
        assert.equal(first.app.firstRun, true);
        const taxes = Object.fromEntries((await all(first, 'impuesto')).map((tax) => [tax.codimpuesto, [tax.iva, tax.recargo, tax.operacion]]));
        assert.equal(Object.keys(taxes).length, 18);
        assert.deepEqual(taxes.IVA21, [21, 5.2, 'ES_01']);
        assert.deepEqual(taxes.IVA10, [10, 1.4, 'ES_01']);
        assert.deepEqual(taxes.IVA4, [4, 0.5, 'ES_01']);
        assert.deepEqual(taxes.IVA0, [0, 0, 'ES_01']);
        assert.deepEqual(taxes['IGIC6.5'], [6.5, 0, 'ES_03']);
        assert.deepEqual(taxes['IPSI0.5'], [0.5, 0, 'ES_04']);
        assert.deepEqual((await all(first, 'retencion')).map((r) => [r.codretencion, r.porcentaje]), [
          ['IRPF15', 15], ['IRPF19', 19], ['IRPF2', 2], ['IRPF21', 21], ['IRPF7', 7],
        ]);
        const currencies = Object.fromEntries((await all(first, 'divisa')).map((d) => [d.coddivisa, d.tasaconv]));
        // The original's Spanish installation: 25 currencies, rates against the euro.
        assert.equal(Object.keys(currencies).length, 25);
        assert.deepEqual({ EUR: currencies.EUR, GBP: currencies.GBP, USD: currencies.USD }, { EUR: 1, GBP: 0.865, USD: 1.129 });
        for (const rate of Object.values(currencies)) assert.ok(typeof rate === 'number' && rate > 0, `rate ${rate}`);
        assert.deepEqual((await all(first, 'serie')).map((s) => [s.codserie, s.tipo, s.siniva]), [['A', null, false], ['R', 'R', false], ['S', 'S', false]]);
        const payments = Object.fromEntries((await all(first, 'formapago')).map((p) => [p.codpago, [p.plazovencimiento, p.tipovencimiento]]));
        assert.deepEqual(payments, { CONT: [0, 'days'], PAYPAL: [0, 'days'], TARJETA: [0, 'days'], TRANS: [1, 'months'] });
        const [company] = await all(first, 'empresa');
        assert.equal(company!.idempresa, 1);
        assert.equal(company!.codpais, 'ESP');
        assert.deepEqual((await all(first, 'almacen')).map((a) => [a.codalmacen, a.idempresa]), [['ALG', 1]]);
        const [exercise] = await all(first, 'ejercicio');
        assert.deepEqual([exercise!.codejercicio, exercise!.fechainicio, exercise!.fechafin, exercise!.estado], [String(year), `${year}-01-01`, `${year}-12-31`, 'ABIERTO']);
        const countries = await all(first, 'pais');
        assert.equal(countries.length, 250);
        const spain = countries.find((c) => c.codpais === 'ESP')!;
        assert.deepEqual([spain.codiso, spain.nombre, spain.telephone_prefix], ['ES', 'España', '+34']);
        assert.equal((await all(first, 'provincia', '&filter[codpais]=ESP')).length, 52);
        const statuses = await all(first, 'estadodocumento');
        assert.equal(statuses.length, 27);
        const defaults = statuses.filter((s) => s.predeterminado).map((s) => [s.tipodoc, s.actualizastock]);
        assert.deepEqual(defaults, [
          ['PresupuestoCliente', 0], ['PedidoCliente', -2], ['AlbaranCliente', -1], ['FacturaCliente', -1],
          ['PresupuestoProveedor', 0], ['PedidoProveedor', 2], ['AlbaranProveedor', 1], ['FacturaProveedor', 1],
        ]);
        assert.deepEqual(statuses.filter((s) => s.generadoc).map((s) => s.idestado), [2, 5, 8, 13, 16, 19, 24, 25, 26, 27]);
        assert.equal(statuses.find((s) => s.idestado === 11)!.editable, false);
        const products = await all(first, 'producto', '&filter[codfamilia]=CONTA');
        assert.equal(products.length, 9);
        assert.ok(products.every((p) => p.nostock && p.secompra && !p.sevende && p.codimpuesto === 'IVA21'));
        const settings = (await first.call('GET', '/api/3/settings/default')).body.properties;
        for (const [key, value] of Object.entries({ coddivisa: 'EUR', codimpuesto: 'IVA21', codpago: 'CONT', codserie: 'A', codalmacen: 'ALG', idempresa: 1, decimals: 2, enable_api: true })) {
          assert.deepEqual(settings[key], value, key);
        }
        for (const resource of ['impuesto', 'pais', 'provincia', 'estadodocumento', 'producto', 'variante', 'user', 'agenciatransporte']) {
          counts[resource] = (await all(first, resource)).length;
        }
        // A row the user deletes stays deleted across restarts.
        assert.equal((await first.call('DELETE', '/api/3/agenciatransporte/DHL')).status, 200);
        counts.agenciatransporte -= 1;
      } finally {
        await first.close();
      }
      const second = await startTestApp(engine, { url: scratch.url });
      try {
        assert.equal(second.app.firstRun, false);
        assert.deepEqual(second.app.seeded, []);
        for (const [resource, count] of Object.entries(counts)) assert.equal((await all(second, resource)).length, count, resource);
      } finally {
        await second.close();
      }
    });
  });
}
