import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openBefore, openToday } from '../helpers/older-data-dir';
import { queryPlan } from '../helpers/lists';

/**
 * core/049_no_planner_statistics: a data dir that carries ANALYZE statistics (as bench/build-scale.ts
 * wrote them before) opens without them, so SQLite plans its lists from the query's shape alone,
 * as on every other data dir and in every test, and the records are untouched.
 */
const dir = mkdtempSync(join(tmpdir(), 'sandlab-stats-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const statTables = (db: ReturnType<typeof openToday>): string[] =>
  (db.prepare("SELECT name FROM sqlite_schema WHERE name LIKE 'sqlite_stat%' ORDER BY name").all() as { name: string }[]).map((r) => r.name);

describe('core/049_no_planner_statistics', () => {
  it('drops the statistics an older data dir carries, and keeps its records', () => {
    const file = join(dir, 'analyzed.sqlite');
    const before = openBefore(file, 'core/049_no_planner_statistics');
    before.prepare("INSERT INTO users (id, username, email, name, state, created_at, updated_at) VALUES (77, 'stat', 'stat@example.com', 'Stat', 'active', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')").run();
    before.exec('ANALYZE');
    expect(statTables(before)).toEqual(['sqlite_stat1', 'sqlite_stat4']);
    expect((before.prepare('SELECT count(*) AS n FROM sqlite_stat1').get() as { n: number }).n).toBeGreaterThan(0);
    before.close();

    const today = openToday(file);
    expect(statTables(today)).toEqual([]);
    expect(today.prepare('SELECT username FROM users WHERE id = 77').get()).toEqual({ username: 'stat' });
    // The connection plans without them too: one equality on an index is SQLite's default guess (10 rows).
    const plan = queryPlan(today, 'SELECT id FROM users WHERE username = ?', 'stat');
    expect(plan).toContain('USING');
    today.close();
  });

  it('opens a data dir that never had statistics as it was', () => {
    const file = join(dir, 'plain.sqlite');
    openBefore(file, 'core/049_no_planner_statistics').close();
    const today = openToday(file);
    expect(statTables(today)).toEqual([]);
    expect((today.prepare("SELECT count(*) AS n FROM schema_migrations WHERE name = 'core/049_no_planner_statistics'").get() as { n: number }).n).toBe(1);
    today.close();
  });
});
