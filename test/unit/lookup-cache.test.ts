import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cachedLookup, inTransaction, openDatabase, type Db } from '../../src/main/service/db/connection';

let dir: string;
let db: Db;
const open = (): Db => {
  dir = mkdtempSync(join(tmpdir(), 'sandlab-cache-'));
  db = openDatabase(join(dir, 'x.db'), [{ name: 'test/001', sql: 'CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)' }]);
  db.prepare('INSERT INTO t (id, v) VALUES (1, ?)').run('one');
  return db;
};
const read = (id: number) => cachedLookup(db, `t:${id}`, () => db.prepare('SELECT * FROM t WHERE id = ?').get(id) as { v: string } | undefined);

afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('cached lookups', () => {
  it('serve the same frozen row until any write', () => {
    open();
    const a = read(1);
    expect(read(1)).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
    db.prepare('UPDATE t SET v = ? WHERE id = 1').run('uno');
    expect(read(1)?.v).toBe('uno');
  });

  it('see writes made through RETURNING statements', () => {
    open();
    expect(read(2)).toBeUndefined();
    db.prepare("INSERT INTO t (id, v) VALUES (2, 'two') RETURNING id").get();
    expect(read(2)?.v).toBe('two');
  });

  it('never keep a row read inside a transaction that rolled back', () => {
    open();
    expect(() =>
      inTransaction(db, () => {
        db.prepare("INSERT INTO t (id, v) VALUES (3, 'ghost')").run();
        expect(read(3)?.v).toBe('ghost');
        throw new Error('roll back');
      }),
    ).toThrow('roll back');
    expect(read(3)).toBeUndefined();
  });
});
