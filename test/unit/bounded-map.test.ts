import assert from 'node:assert/strict';
import { it } from 'node:test';
import { BoundedMap } from '../../src/db/bounded-map.ts';

it('holds at most its capacity, dropping the least recently used (read or written) first', () => {
  const map = new BoundedMap<string, number | null>(3);
  map.set('a', 1);
  map.set('b', null);
  map.set('c', 3);
  assert.equal(map.get('a'), 1, 'a read makes "a" the most recent');
  map.set('d', 4);
  assert.equal(map.size, 3);
  assert.equal(map.has('b'), false, '"b" was the least recently used');
  map.set('c', 30);
  map.set('e', 5);
  assert.equal(map.has('a'), false, 'then "a": "c" was written after it');
  assert.deepEqual(['c', 'd', 'e'].map((key) => map.get(key)), [30, 4, 5]);
});

it('keeps a null value apart from an absent key, and a read of it counts as a use', () => {
  const map = new BoundedMap<string, number | null>(2);
  map.set('none', null);
  map.set('x', 1);
  assert.equal(map.get('none'), null);
  assert.equal(map.get('missing'), undefined);
  map.set('y', 2);
  assert.equal(map.has('none'), true, 'the null entry was read last but one, "x" before it');
  assert.equal(map.has('x'), false);
});
