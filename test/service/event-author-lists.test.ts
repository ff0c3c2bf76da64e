import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBefore, openToday } from '../helpers/older-data-dir';
import { expectCounted, expectUncounted, pagedReads, preparedBy } from '../helpers/lists';
import { TestService } from '../helpers/service';

/**
 * An administrator's list of one user's events (`/users/:id/events`, their own `/events`) takes
 * its total from counters per author kept by triggers (core/045), and its deep pages, like those
 * of every project's events (`/events?scope=all`), start after a row an earlier page read while
 * the author's version (the authors' sum) stays. Every answer here is what the list's own SQL
 * gives at that moment, whatever wrote the events.
 */
let s: TestService;
let open: number;
let closed: number;
let author: { id: number; token: string };
let outsider: { id: number; token: string };

const db = () => s.service.context.db;
const insertEvents = (projectId: number | null, authorId: number, n: number, action = 'created'): void => {
  const insert = db().prepare(
    `INSERT INTO events (project_id, author_id, action, target_type, target_id, target_iid, target_title, created_at)
     VALUES (?, ?, ?, NULL, NULL, NULL, NULL, '2024-01-01T00:00:00.000Z')`,
  );
  db().transaction(() => {
    for (let i = 0; i < n; i++) insert.run(projectId, authorId, i % 3 === 0 ? 'closed' : action);
  })();
};
const LIST = 'FROM events e JOIN projects p ON p.id = e.project_id WHERE';
const counted = (where: string, ...args: unknown[]): number => (db().prepare(`SELECT count(*) AS n ${LIST} ${where}`).get(...args) as { n: number }).n;
const ids = (where: string, ...args: unknown[]): number[] =>
  (db().prepare(`SELECT e.id ${LIST} ${where} ORDER BY e.id DESC`).all(...args) as { id: number }[]).map((r) => r.id);
const idsOf = (res: { body: unknown }): number[] => (res.body as { id: number }[]).map((e) => e.id);
const CAPPED_COUNT = /count\(\*\) AS n FROM \(SELECT 1 FROM events/;

beforeAll(async () => {
  s = await TestService.start();
  open = (await s.createProject({ name: 'open', visibility: 'public' })).id;
  closed = (await s.createProject({ name: 'closed', visibility: 'private' })).id;
  const a = await s.createUser();
  author = { id: a.user.id, token: a.token };
  const o = await s.createUser();
  outsider = { id: o.user.id, token: o.token };
  insertEvents(open, author.id, 30);
  insertEvents(closed, author.id, 12);
  // Events outside any project (a group's) are in no list.
  insertEvents(null, author.id, 5);
  insertEvents(open, 1, 8);
}, 60_000);
afterAll(async () => s.stop());

describe("a user's events for an administrator", () => {
  it('counted from the counters, rows as the SQL says; everyone else counts what they see', async () => {
    const sql = await preparedBy(s, async () => {
      const page = await s.get(`/users/${author.id}/events`, { query: { per_page: '10', page: '2' } });
      expectCounted(page, counted('e.author_id = ?', author.id), 10);
      expect(idsOf(page)).toEqual(ids('e.author_id = ?', author.id).slice(10, 20));
      const own = await s.get('/events', { query: { per_page: '5' } });
      expectCounted(own, counted('e.author_id = 1'), 5);
      expect(idsOf(own)).toEqual(ids('e.author_id = 1').slice(0, 5));
    });
    expect(sql.filter((q) => CAPPED_COUNT.test(q))).toEqual([]);
    expect(counted('e.author_id = ?', author.id)).toBe(42);
    // Neither an outsider nor the author (no member of it) sees the private project's events.
    const seen = await s.get(`/users/${author.id}/events`, { token: outsider.token, query: { per_page: '10' } });
    expectCounted(seen, counted("e.author_id = ? AND p.visibility = 'public'", author.id), 10);
    expect(idsOf(seen)).toEqual(ids("e.author_id = ? AND p.visibility = 'public'", author.id).slice(0, 10));
    const mine = await s.get('/events', { token: author.token, query: { per_page: '50' } });
    expectCounted(mine, 30, 50);
    expect(idsOf(mine)).toEqual(ids("e.author_id = ? AND p.visibility = 'public'", author.id));
  });

  it('follow events written through the API, inserted, deleted, moved between projects and authors, and a deleted project', async () => {
    expect((await s.post(`/projects/${open}/issues`, { title: 'An event of its own' })).status).toBe(201);
    insertEvents(open, author.id, 4);
    const check = async (): Promise<void> => {
      for (const [path, who] of [[`/users/${author.id}/events`, author.id], ['/events', 1]] as const) {
        const page = await s.get(path, { query: { per_page: '7', page: '2' } });
        expectCounted(page, counted('e.author_id = ?', who), 7);
        expect(idsOf(page)).toEqual(ids('e.author_id = ?', who).slice(7, 14));
      }
    };
    await check();
    db().prepare('DELETE FROM events WHERE id IN (SELECT id FROM events WHERE author_id = ? ORDER BY id LIMIT 2)').run(author.id);
    await check();
    db().prepare('UPDATE events SET project_id = NULL WHERE id IN (SELECT id FROM events WHERE author_id = ? AND project_id = ? ORDER BY id LIMIT 3)').run(author.id, open);
    await check();
    db().prepare('UPDATE events SET project_id = ? WHERE id IN (SELECT id FROM events WHERE author_id = ? AND project_id IS NULL ORDER BY id LIMIT 4)').run(closed, author.id);
    await check();
    db().prepare('UPDATE events SET author_id = 1 WHERE id IN (SELECT id FROM events WHERE author_id = ? ORDER BY id DESC LIMIT 3)').run(author.id);
    await check();
    const doomed = (await s.createProject({ name: 'doomed' })).id;
    insertEvents(doomed, author.id, 6);
    await check();
    db().prepare('DELETE FROM projects WHERE id = ?').run(doomed);
    expect(counted('e.project_id = ?', doomed)).toBe(0);
    await check();
    expect(db().prepare('SELECT author_id, n FROM event_author_counts WHERE author_id IN (1, ?) ORDER BY author_id').all(author.id)).toEqual([
      { author_id: 1, n: counted('e.author_id = 1') },
      { author_id: author.id, n: counted('e.author_id = ?', author.id) },
    ]);
  });

  it('past 10,000 events uncounted without walking them, and counted again once fewer', async () => {
    insertEvents(open, author.id, 10_001 - counted('e.author_id = ?', author.id));
    const sql = await preparedBy(s, async () => {
      const page = await s.get(`/users/${author.id}/events`, { query: { per_page: '20' } });
      expectUncounted(page, '2');
      expect(idsOf(page)).toEqual(ids('e.author_id = ?', author.id).slice(0, 20));
    });
    expect(sql.filter((q) => CAPPED_COUNT.test(q))).toEqual([]);
    db().prepare('DELETE FROM events WHERE id = (SELECT max(id) FROM events WHERE author_id = ? AND project_id IS NOT NULL)').run(author.id);
    const page = await s.get(`/users/${author.id}/events`, { query: { per_page: '100', page: '3' } });
    expectCounted(page, 10_000, 100);
    expect(idsOf(page)).toEqual(ids('e.author_id = ?', author.id).slice(200, 300));
  });
});

describe('deep pages of an author’s events and of every project’s', () => {
  const lists: [string, Record<string, string>, string, unknown[]][] = [];
  beforeAll(() => {
    lists.push(
      [`/users/${author.id}/events`, {}, 'e.author_id = ?', [author.id]],
      [`/users/${author.id}/events`, { action: 'closed' }, "e.author_id = ? AND e.action = 'closed'", [author.id]],
      ['/events', { scope: 'all' }, '1 = 1', []],
      ['/events', { scope: 'all', sort: 'asc' }, '1 = 1', []],
    );
  });
  const deep = { per_page: '100', page: '15' };
  const expectPage = async (path: string, query: Record<string, string>, where: string, args: unknown[]): Promise<void> => {
    const page = await s.get(path, { query: { ...query, ...deep } });
    const all = ids(where, ...args);
    expect(idsOf(page)).toEqual((query.sort === 'asc' ? all.reverse() : all).slice(1400, 1500));
  };

  it('start after a row an earlier page read while the events stay as they were', async () => {
    for (const [path, query, where, args] of lists) {
      await expectPage(path, query, where, args);
      const reads = await pagedReads(s, () => expectPage(path, query, where, args));
      expect(reads.map((r) => r.args[r.args.length - 1])).toEqual([0]);
    }
  });

  it('are read again as the SQL says after every kind of write', async () => {
    const newest = (n: number): number[] =>
      (db().prepare('SELECT id FROM events WHERE author_id = ? AND project_id IS NOT NULL ORDER BY id DESC LIMIT ?').all(author.id, n) as { id: number }[]).map(
        (r) => r.id,
      );
    const writes: (() => unknown)[] = [
      () => db().prepare('DELETE FROM events WHERE id = ?').run(newest(5)[4]),
      () => db().prepare("UPDATE events SET action = CASE action WHEN 'closed' THEN 'created' ELSE 'closed' END WHERE id = ?").run(newest(9)[8]),
      () => db().prepare('UPDATE events SET project_id = NULL WHERE id = ?').run(newest(3)[2]),
      () => db().prepare('UPDATE events SET author_id = 1 WHERE id = ?').run(newest(2)[1]),
      () => insertEvents(open, author.id, 1, 'closed'),
      () => s.post(`/projects/${open}/issues`, { title: 'Another event' }),
    ];
    for (const write of writes) {
      for (const [path, query, where, args] of lists) await expectPage(path, query, where, args);
      await write();
      for (const [path, query, where, args] of lists) await expectPage(path, query, where, args);
    }
  });
});

describe('core/045 on an existing data dir', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandlab-event-authors-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("counts each author's events in projects a data dir already holds", () => {
    const file = join(dir, 'sandlab.db');
    const before = openBefore(file, 'core/045_event_author_counts');
    const insert = before.prepare(`INSERT INTO events (project_id, author_id, action, created_at) VALUES (?, ?, 'created', '2024-01-01T00:00:00.000Z')`);
    for (const [project, who] of [[7, 1], [7, 1], [null, 1], [9, 2], [null, 3]] as const) insert.run(project, who);
    before.close();
    const after = openToday(file);
    expect(after.prepare('SELECT author_id, n FROM event_author_counts ORDER BY author_id').all()).toEqual([
      { author_id: 1, n: 2 },
      { author_id: 2, n: 1 },
      { author_id: 3, n: 0 },
    ]);
    after.close();
  });
});
