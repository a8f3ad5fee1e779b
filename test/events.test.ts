import assert from 'node:assert/strict';
import { it } from 'node:test';
import { EventBus } from '../src/events.ts';
import { forEachEngine } from './helpers/test-app.ts';

it('delivers events to listeners, isolates failing listeners and unsubscribes', () => {
  const failures: string[] = [];
  const bus = new EventBus((_, event) => failures.push(event));
  const seen: string[] = [];
  bus.on('model.delete', () => {
    throw new Error('boom');
  });
  const off = bus.on('model.delete', (e) => void seen.push(e.model));
  assert.equal(bus.has('model.save'), false);
  bus.emit('model.delete', { model: 'cliente', record: {} });
  off();
  bus.emit('model.delete', { model: 'producto', record: {} });
  assert.deepEqual(seen, ['cliente']);
  assert.deepEqual(failures, ['model.delete', 'model.delete']);
});

forEachEngine('model events', (t) => {
  it('emits save (created/updated), load and delete with the stored record', async () => {
    const events: string[] = [];
    const { events: bus } = t().app.ctx;
    bus.on('model.save', (e) => void events.push(`save:${e.model}:${e.created}:${e.record.nombre}`));
    bus.on('model.load', (e) => void events.push(`load:${e.model}:${e.record.codcliente}`));
    bus.on('model.delete', (e) => void events.push(`delete:${e.model}:${e.record.codcliente}`));
    await t().call('POST', '/api/3/cliente', { codcliente: 'EV', nombre: 'Eve' });
    await t().call('PATCH', '/api/3/cliente/EV', { nombre: 'Eva' });
    events.length = 0;
    await t().call('GET', '/api/3/cliente/EV');
    assert.deepEqual(events, ['load:cliente:EV']);
    events.length = 0;
    await t().call('DELETE', '/api/3/cliente/EV');
    assert.ok(events.includes('delete:cliente:EV'), events.join());
    const failed = await t().call('POST', '/api/3/cliente', { nombre: null });
    assert.equal(failed.status, 422);
    assert.ok(!events.some((e) => e.startsWith('save')), 'no event for a failed write');
  });
});
