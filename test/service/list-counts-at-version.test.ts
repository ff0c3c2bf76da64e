import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { expectCounted, preparedBy } from '../helpers/lists';

/**
 * Lists whose anchors' version moves on every write that may add or drop a row (PageAnchors
 * .countsAtVersion: /users and /groups by core/052, an administrator's /projects by core/099) keep
 * their exact count while it stays. Pinned: X-Total and the rows against a fresh count after each
 * kind of write that changes them (API and SQL), and no count read again while nothing was written.
 */
let s: TestService;
const db = () => s.service.context.db;
const NOW = '2026-01-01T00:00:00.000Z';

const fresh = (sql: string): number => (db().prepare(sql).get() as { n: number }).n;

async function expectTotals(): Promise<void> {
  const lists: [string, Record<string, string>, string][] = [
    ['/groups', {}, "SELECT count(*) AS n FROM namespaces WHERE kind = 'group'"],
    ['/groups', { top_level_only: 'true' }, "SELECT count(*) AS n FROM namespaces WHERE kind = 'group' AND parent_id IS NULL"],
    ['/groups', { visibility: 'public' }, "SELECT count(*) AS n FROM namespaces WHERE kind = 'group' AND visibility = 'public'"],
    ['/users', { active: 'true' }, "SELECT count(*) AS n FROM users WHERE state = 'active'"],
    ['/users', {}, 'SELECT count(*) AS n FROM users'],
    ['/projects', { visibility: 'public' }, "SELECT count(*) AS n FROM projects WHERE visibility = 'public'"],
    ['/projects', { archived: 'true' }, 'SELECT count(*) AS n FROM projects WHERE archived = 1'],
  ];
  for (const [path, query, sql] of lists) {
    // Twice: the second from the count the first kept.
    for (let i = 0; i < 2; i++) {
      const res = await s.get(path, { query: { ...query, per_page: '2', simple: 'true' } });
      const where = `${path} ${JSON.stringify(query)} ${i}`;
      expect({ where, total: res.headers.get('x-total') }).toEqual({ where, total: String(fresh(sql)) });
      expectCounted(res, fresh(sql), 2);
    }
  }
}

beforeAll(async () => {
  s = await TestService.start();
  for (let i = 0; i < 5; i++) {
    const g = await s.createGroup({ visibility: i % 2 ? 'public' : 'private' });
    await s.createGroup({ parent_id: g.id, visibility: 'private' });
    await s.createUser();
    await s.createProject({ visibility: i % 2 ? 'public' : 'internal' });
  }
});
afterAll(async () => s.stop());

describe('counts kept at the list version', () => {
  it('the totals as the tables say, and not counted again while nothing was written', async () => {
    await expectTotals();
    const prepared = await preparedBy(s, () => s.get('/groups', { query: { per_page: '2' } }));
    expect(prepared.filter((sql) => sql.includes('count(*)'))).toEqual([]);
  });

  it('the same after API writes: a group, a user and a project added, a user blocked, a project archived', async () => {
    await s.createGroup({ visibility: 'public' });
    const { user } = await s.createUser();
    expect((await s.post(`/users/${user.id}/block`, {})).status).toBe(201);
    const p = await s.createProject({ visibility: 'public' });
    expect((await s.post(`/projects/${p.id}/archive`, {})).status).toBe(201);
    await expectTotals();
  });

  it('the same after SQL writes: rows deleted, a group moved to the top, visibility and state changed', async () => {
    db().prepare("DELETE FROM namespaces WHERE id = (SELECT max(id) FROM namespaces WHERE kind = 'group' AND visibility = 'public')").run();
    db().prepare("UPDATE namespaces SET parent_id = NULL WHERE id = (SELECT min(id) FROM namespaces WHERE kind = 'group' AND parent_id IS NOT NULL)").run();
    db().prepare("UPDATE namespaces SET visibility = 'public' WHERE id = (SELECT min(id) FROM namespaces WHERE kind = 'group' AND visibility = 'private')").run();
    db().prepare("UPDATE users SET state = 'blocked' WHERE id = (SELECT max(id) FROM users WHERE state = 'active')").run();
    db()
      .prepare("INSERT INTO users (username, name, email, state, created_at, updated_at) VALUES ('sqlonly', 'SQL Only', 'sqlonly@example.com', 'active', ?, ?)")
      .run(NOW, NOW);
    db().prepare("UPDATE projects SET visibility = 'public' WHERE id = (SELECT min(id) FROM projects WHERE visibility = 'internal')").run();
    db().prepare('UPDATE projects SET archived = 0 WHERE archived = 1').run();
    await expectTotals();
    db().prepare("DELETE FROM projects WHERE id = (SELECT max(id) FROM projects WHERE visibility = 'public')").run();
    await expectTotals();
  });
});
