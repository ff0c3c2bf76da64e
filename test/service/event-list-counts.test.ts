import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBefore, openToday } from '../helpers/older-data-dir';
import { TestService } from '../helpers/service';
import { expectCounted, expectUncounted, pagedReads, preparedBy } from '../helpers/lists';

/**
 * A project's unfiltered events, and an administrator's events of every project, take their
 * total from counters kept by triggers (core/035) instead of walking the list: the headers are
 * the ones a count of the list's own SQL gives, whatever wrote the events (the API, SQL
 * directly, a move between projects, a project's deletion), either side of 10,000.
 */
let s: TestService;
let busy: number;
let quiet: number;
let hidden: number;
let outsider: { id: number; token: string };

const db = () => s.service.context.db;
const insertEvents = (projectId: number | null, n: number): void => {
  const insert = db().prepare(
    `INSERT INTO events (project_id, author_id, action, target_type, target_id, target_iid, target_title, created_at)
     VALUES (?, 1, 'created', NULL, NULL, NULL, NULL, '2024-01-01T00:00:00.000Z')`,
  );
  db().transaction(() => {
    for (let i = 0; i < n; i++) insert.run(projectId);
  })();
};
/** What the list's SQL counts: events joined to the projects they belong to. */
const counted = (where = '1 = 1', ...args: unknown[]): number =>
  (db().prepare(`SELECT count(*) AS n FROM events e JOIN projects p ON p.id = e.project_id WHERE ${where}`).get(...args) as { n: number }).n;
const ids = (where: string, ...args: unknown[]): number[] =>
  (db().prepare(`SELECT e.id FROM events e JOIN projects p ON p.id = e.project_id WHERE ${where} ORDER BY e.id DESC`).all(...args) as { id: number }[]).map((r) => r.id);

beforeAll(async () => {
  s = await TestService.start();
  busy = (await s.createProject({ name: 'busy', visibility: 'public' })).id;
  quiet = (await s.createProject({ name: 'quiet', visibility: 'public' })).id;
  hidden = (await s.createProject({ name: 'hidden', visibility: 'private' })).id;
  const u = await s.createUser();
  outsider = { id: u.user.id, token: u.token };
  // Events outside any project (a group's) are in no project's list.
  insertEvents(null, 7);
  insertEvents(quiet, 25);
  insertEvents(hidden, 3);
}, 60_000);
afterAll(async () => s.stop());

describe('event list totals from counters', () => {
  it("a project's events: counted exactly, for an administrator and an outsider alike, without walking the list", async () => {
    for (const token of [undefined, outsider.token]) {
      const sql = await preparedBy(s, async () => {
        const page = await s.get(`/projects/${quiet}/events`, { token, query: { per_page: '10', page: '2' } });
        expectCounted(page, counted('e.project_id = ?', quiet), 10);
        expect(page.body.map((e: any) => e.id)).toEqual(ids('e.project_id = ?', quiet).slice(10, 20));
      });
      expect(sql.filter((q) => /count\(\*\) AS n FROM \(SELECT 1 FROM events/.test(q))).toEqual([]);
    }
    expect((await s.get(`/projects/${hidden}/events`, { token: outsider.token })).status).toBe(404);
  });

  it('follow events written through the API, inserted, deleted, moved and set outside any project', async () => {
    expect((await s.post(`/projects/${quiet}/issues`, { title: 'An event of its own' })).status).toBe(201);
    insertEvents(quiet, 4);
    db().prepare('DELETE FROM events WHERE id IN (SELECT id FROM events WHERE project_id = ? ORDER BY id LIMIT 2)').run(quiet);
    db().prepare('UPDATE events SET project_id = ? WHERE id IN (SELECT id FROM events WHERE project_id = ? ORDER BY id LIMIT 3)').run(hidden, quiet);
    db().prepare('UPDATE events SET project_id = NULL WHERE id IN (SELECT id FROM events WHERE project_id = ? ORDER BY id LIMIT 1)').run(hidden);
    db().prepare('UPDATE events SET project_id = ? WHERE id IN (SELECT id FROM events WHERE project_id IS NULL ORDER BY id LIMIT 2)').run(quiet);
    db().prepare("UPDATE events SET action = 'closed' WHERE project_id = ?").run(hidden);
    for (const project of [quiet, hidden]) {
      const page = await s.get(`/projects/${project}/events`, { query: { per_page: '5' } });
      expectCounted(page, counted('e.project_id = ?', project), 5);
      expect(page.body.map((e: any) => e.id)).toEqual(ids('e.project_id = ?', project).slice(0, 5));
    }
    const all = await s.get('/events', { query: { scope: 'all', per_page: '5' } });
    expectCounted(all, counted(), 5);
    expect(all.body.map((e: any) => e.id)).toEqual(ids('1 = 1').slice(0, 5));
  });

  it('past 10,000 events uncounted, for the project and the instance, and counted again once fewer', async () => {
    insertEvents(busy, 10_001 - counted('e.project_id = ?', busy));
    const sql = await preparedBy(s, async () => {
      const page = await s.get(`/projects/${busy}/events`, { query: { per_page: '20' } });
      expectUncounted(page, '2');
      expect(page.body.map((e: any) => e.id)).toEqual(ids('e.project_id = ?', busy).slice(0, 20));
      expectUncounted(await s.get('/events', { query: { scope: 'all', per_page: '20' } }), '2');
    });
    expect(sql.filter((q) => /count\(\*\) AS n FROM \(SELECT 1 FROM events/.test(q))).toEqual([]);
    // One fewer in the project: exactly 10,000, counted.
    db().prepare('DELETE FROM events WHERE id = (SELECT max(id) FROM events WHERE project_id = ?)').run(busy);
    expectCounted(await s.get(`/projects/${busy}/events`, { query: { per_page: '100' } }), 10_000, 100);
    // The busy project deleted: its events go with it (the foreign key), and the instance's total with them.
    db().prepare('DELETE FROM projects WHERE id = ?').run(busy);
    expect(counted('e.project_id = ?', busy)).toBe(0);
    const all = await s.get('/events', { query: { scope: 'all', per_page: '5', page: '2' } });
    expectCounted(all, counted(), 5);
    expect(all.body.map((e: any) => e.id)).toEqual(ids('1 = 1').slice(5, 10));
  });

  it('a page past the end: empty, with the headers reading it gives, and nothing read', async () => {
    const n = counted('e.project_id = ?', quiet);
    const reads = await pagedReads(s, async () => {
      const past = await s.get(`/projects/${quiet}/events`, { query: { per_page: '10', page: '9' } });
      expect(past.body).toEqual([]);
      expectCounted(past, n, 10);
      expect(past.headers.get('x-next-page')).toBe('');
      // Out of range (Kaminari): no previous page.
      expect(past.headers.get('x-prev-page')).toBe('');
      expect(past.headers.get('link')).not.toContain('rel="prev"');
      // Past 10,000 rows in: still counted, as GitLab counts the list whatever the page (total_count_with_limit).
      const far = await s.get(`/projects/${quiet}/events`, { query: { per_page: '20', page: '1001' } });
      expect(far.body).toEqual([]);
      expectCounted(far, n, 20);
      expect(far.headers.get('x-prev-page')).toBe('');
      const farAll = await s.get('/events', { query: { scope: 'all', per_page: '100', page: '200' } });
      expect(farAll.body).toEqual([]);
      const all = counted();
      if (all <= 10_000) expectCounted(farAll, all, 100);
      else expectUncounted(farAll, '');
    });
    expect(reads).toEqual([]);
    // The last page still reads its rows.
    const last = await s.get(`/projects/${quiet}/events`, { query: { per_page: '10', page: String(Math.ceil(n / 10)) } });
    expect(last.body.map((e: any) => e.id)).toEqual(ids('e.project_id = ?', quiet).slice(Math.floor((n - 1) / 10) * 10));
  });

  it('filtered lists still count their own rows', async () => {
    const page = await s.get(`/projects/${hidden}/events`, { query: { action: 'closed', per_page: '1' } });
    expectCounted(page, counted("e.project_id = ? AND e.action = 'closed'", hidden), 1);
  });
});

describe('core/035 on an existing data dir', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandlab-event-counts-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("counts the events a data dir already holds, each project's and those outside any", () => {
    const file = join(dir, 'sandlab.db');
    const before = openBefore(file, 'core/035_event_counts');
    const insert = before.prepare(`INSERT INTO events (project_id, author_id, action, created_at) VALUES (?, 1, 'created', '2024-01-01T00:00:00.000Z')`);
    for (const project of [7, 7, 7, 9, null, null]) insert.run(project);
    before.close();
    const after = openToday(file);
    expect(after.prepare('SELECT project_id, n FROM event_counts ORDER BY project_id').all()).toEqual([
      { project_id: 0, n: 2 },
      { project_id: 7, n: 3 },
      { project_id: 9, n: 1 },
    ]);
    after.close();
  });
});
