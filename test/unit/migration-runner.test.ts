import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATION_CACHE_KIB, applyMigrations } from '../../src/main/service/db/migrations';

let dir: string;
let db: Database.Database;
const open = (): Database.Database => {
  dir = mkdtempSync(join(tmpdir(), 'sandlab-migrate-'));
  db = new Database(join(dir, 'x.db'));
  return db;
};

afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

// Each migration records the page cache sizes it ran under.
const recording = (name: string) => ({
  name,
  sql: `CREATE TABLE "${name}" AS SELECT (SELECT cache_size FROM pragma_cache_size) AS main,
    (SELECT cache_size FROM pragma_cache_size('temp')) AS temp`,
});
const sizes = (name: string) => db.prepare(`SELECT main, temp FROM "${name}"`).get();

describe('the migration runner', () => {
  it('runs pending migrations under a small page cache, then puts the sizes back', () => {
    open();
    const before = { main: db.pragma('main.cache_size', { simple: true }), temp: db.pragma('temp.cache_size', { simple: true }) };
    expect(before.main).not.toBe(-MIGRATION_CACHE_KIB);
    applyMigrations(db, [recording('m/001'), recording('m/002')]);
    expect(sizes('m/001')).toEqual({ main: -MIGRATION_CACHE_KIB, temp: -MIGRATION_CACHE_KIB });
    expect(sizes('m/002')).toEqual({ main: -MIGRATION_CACHE_KIB, temp: -MIGRATION_CACHE_KIB });
    expect({ main: db.pragma('main.cache_size', { simple: true }), temp: db.pragma('temp.cache_size', { simple: true }) }).toEqual(before);
    expect(db.prepare('SELECT name FROM schema_migrations ORDER BY name').all()).toEqual([{ name: 'm/001' }, { name: 'm/002' }]);
  });

  it('puts the sizes back when a migration fails, and keeps the ones before it', () => {
    open();
    const before = db.pragma('main.cache_size', { simple: true });
    expect(() => applyMigrations(db, [recording('m/001'), { name: 'm/002', sql: 'CREATE TABLE broken (' }])).toThrow();
    expect(db.pragma('main.cache_size', { simple: true })).toBe(before);
    expect(db.prepare('SELECT name FROM schema_migrations').all()).toEqual([{ name: 'm/001' }]);
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name = 'broken'").get()).toBeUndefined();
  });

  it('refuses an applied migration whose text changed, before running any other', () => {
    open();
    applyMigrations(db, [recording('m/001')]);
    const edited = { name: 'm/001', sql: `${recording('m/001').sql} -- edited` };
    expect(() => applyMigrations(db, [edited, recording('m/002')])).toThrow(/m\/001 was edited after it was applied/);
    expect(db.prepare('SELECT name FROM schema_migrations').all()).toEqual([{ name: 'm/001' }]);
  });

  it('leaves the cache alone when nothing is pending', () => {
    open();
    applyMigrations(db, [recording('m/001')]);
    db.pragma('main.cache_size = -1234');
    applyMigrations(db, [recording('m/001')]);
    expect(db.pragma('main.cache_size', { simple: true })).toBe(-1234);
  });
});
