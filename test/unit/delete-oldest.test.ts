import { expect, it } from 'vitest';
import { deleteOldest } from '../../src/main/service/memory';

/**
 * deleteOldest keeps a cache at its bound exactly as deleting the first key in insertion order
 * did (written-rows, unchangedEntity, jsonBody's bodies): the same entries left after any mix of
 * inserts, updates in place, deletes, deletes and sets again (the entry moves to the end), clears,
 * and a map emptied by it and filled again.
 */
it('leaves the same entries as deleting the first key in insertion order', () => {
  let seed = 7;
  const random = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
  for (const bound of [1, 3, 50]) {
    const map = new Map<number, number>();
    const want = new Map<number, number>();
    for (let step = 0; step < 5000; step++) {
      const key = random(bound * 3);
      const op = random(20);
      for (const m of [map, want]) {
        if (op === 0) m.clear();
        else if (op < 3) m.delete(key);
        else if (op < 5 && m.has(key)) {
          m.delete(key);
          m.set(key, step);
        } else if (op < 7) m.set(key, step);
        else if (!m.has(key)) {
          if (m.size >= bound) {
            if (m === map) deleteOldest(map);
            else m.delete(m.keys().next().value as number);
          }
          m.set(key, step);
        }
      }
      if (op === 19) {
        while (map.size) {
          deleteOldest(map);
          want.delete(want.keys().next().value as number);
        }
      }
      expect([...map]).toEqual([...want]);
    }
  }
});

it('does nothing to an empty map', () => {
  const map = new Map<string, number>();
  deleteOldest(map);
  map.set('a', 1);
  deleteOldest(map);
  deleteOldest(map);
  map.set('b', 2);
  map.set('c', 3);
  deleteOldest(map);
  expect([...map.keys()]).toEqual(['c']);
});
