import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBefore, openToday } from '../helpers/older-data-dir';
import { expectCounted, expectUncounted, preparedBy } from '../helpers/lists';
import { TestService } from '../helpers/service';

/**
 * A project's events by `target_type`, and an administrator's of every project, take their total
 * from counters per project and target type kept by triggers (core/046): the headers are the
 * ones a count of the list's own SQL gives, whatever wrote the events, either side of 10,000.
 */
let s: TestService;
let busy: number;
let quiet: number;
let hidden: number;
let outsider: { id: number; token: string };

const db = () => s.service.context.db;
const TYPES: [string, string | null][] = [
  ['issue', 'Issue'],
  ['merge_request', 'MergeRequest'],
  ['note', 'Note'],
  ['milestone', 'Milestone'],
];
const insertEvents = (projectId: number | null, n: number, type: string | null = 'Issue'): void => {
  const insert = db().prepare(
    `INSERT INTO events (project_id, author_id, action, target_type, target_id, target_iid, target_title, created_at)
     VALUES (?, 1, 'created', ?, NULL, NULL, NULL, '2024-01-01T00:00:00.000Z')`,
  );
  db().transaction(() => {
    for (let i = 0; i < n; i++) insert.run(projectId, type);
  })();
};
const LIST = 'FROM events e JOIN projects p ON p.id = e.project_id WHERE';
const counted = (where: string, ...args: unknown[]): number => (db().prepare(`SELECT count(*) AS n ${LIST} ${where}`).get(...args) as { n: number }).n;
const ids = (where: string, ...args: unknown[]): number[] =>
  (db().prepare(`SELECT e.id ${LIST} ${where} ORDER BY e.id DESC`).all(...args) as { id: number }[]).map((r) => r.id);
const idsOf = (res: { body: unknown }): number[] => (res.body as { id: number }[]).map((e) => e.id);
const CAPPED_COUNT = /count\(\*\) AS n FROM \(SELECT 1 FROM events/;

/** Every type's page of every project (admin and an outsider) and of the instance (admin), as the SQL says. */
async function expectAllAsSql(): Promise<void> {
  for (const [type, stored] of TYPES) {
    for (const project of [busy, quiet]) {
      for (const token of [undefined, outsider.token]) {
        const page = await s.get(`/projects/${project}/events`, { token, query: { target_type: type, per_page: '4', page: '2' } });
        expectCounted(page, counted('e.project_id = ? AND e.target_type = ?', project, stored), 4);
        expect(idsOf(page)).toEqual(ids('e.project_id = ? AND e.target_type = ?', project, stored).slice(4, 8));
      }
    }
    const all = await s.get('/events', { query: { scope: 'all', target_type: type, per_page: '4' } });
    expectCounted(all, counted('e.target_type = ?', stored), 4);
    expect(idsOf(all)).toEqual(ids('e.target_type = ?', stored).slice(0, 4));
  }
}

beforeAll(async () => {
  s = await TestService.start();
  busy = (await s.createProject({ name: 'busy', visibility: 'public' })).id;
  quiet = (await s.createProject({ name: 'quiet', visibility: 'public' })).id;
  hidden = (await s.createProject({ name: 'hidden', visibility: 'private' })).id;
  const u = await s.createUser();
  outsider = { id: u.user.id, token: u.token };
  insertEvents(quiet, 9, 'Issue');
  insertEvents(quiet, 6, 'MergeRequest');
  insertEvents(quiet, 3, null);
  insertEvents(hidden, 5, 'Issue');
  // Events outside any project are in no list.
  insertEvents(null, 7, 'Issue');
}, 60_000);
afterAll(async () => s.stop());

describe('event lists by target type, totals from counters', () => {
  it("a project's and every project's: counted exactly without walking the list; a member's own walk still right", async () => {
    const sql = await preparedBy(s, expectAllAsSql);
    expect(sql.filter((q) => CAPPED_COUNT.test(q))).toEqual([]);
    expect((await s.get(`/projects/${hidden}/events`, { token: outsider.token, query: { target_type: 'issue' } })).status).toBe(404);
    // Not an administrator: the outsider's projects (none) are counted by the list itself.
    expectCounted(await s.get('/events', { token: outsider.token, query: { scope: 'all', target_type: 'issue' } }), 0, 20);
    // With another filter the list counts itself.
    const both = await s.get(`/projects/${quiet}/events`, { query: { target_type: 'issue', action: 'created', per_page: '2' } });
    expectCounted(both, counted("e.project_id = ? AND e.target_type = 'Issue' AND e.action = 'created'", quiet), 2);
  });

  it('follow events written through the API, inserted, deleted, retyped, moved and a deleted project', async () => {
    expect((await s.post(`/projects/${quiet}/issues`, { title: 'An event of its own' })).status).toBe(201);
    insertEvents(busy, 12, 'Note');
    await expectAllAsSql();
    db().prepare("DELETE FROM events WHERE id IN (SELECT id FROM events WHERE project_id = ? AND target_type = 'Issue' ORDER BY id LIMIT 2)").run(quiet);
    await expectAllAsSql();
    db().prepare("UPDATE events SET target_type = 'Milestone' WHERE id IN (SELECT id FROM events WHERE project_id = ? AND target_type = 'Note' ORDER BY id LIMIT 5)").run(busy);
    db().prepare('UPDATE events SET target_type = NULL WHERE id IN (SELECT id FROM events WHERE project_id = ? AND target_type = ? ORDER BY id LIMIT 1)').run(quiet, 'MergeRequest');
    db().prepare("UPDATE events SET target_type = 'Issue' WHERE id IN (SELECT id FROM events WHERE project_id = ? AND target_type IS NULL ORDER BY id LIMIT 2)").run(quiet);
    await expectAllAsSql();
    db().prepare('UPDATE events SET project_id = ? WHERE id IN (SELECT id FROM events WHERE project_id = ? ORDER BY id LIMIT 4)').run(busy, quiet);
    db().prepare('UPDATE events SET project_id = NULL WHERE id IN (SELECT id FROM events WHERE project_id = ? ORDER BY id LIMIT 3)').run(busy);
    db().prepare('UPDATE events SET project_id = ? WHERE id IN (SELECT id FROM events WHERE project_id IS NULL ORDER BY id LIMIT 2)').run(quiet);
    await expectAllAsSql();
    const doomed = (await s.createProject({ name: 'doomed' })).id;
    insertEvents(doomed, 6, 'Note');
    await expectAllAsSql();
    db().prepare('DELETE FROM projects WHERE id = ?').run(doomed);
    expect(counted('e.project_id = ?', doomed)).toBe(0);
    await expectAllAsSql();
    expect(db().prepare('SELECT target_type, project_id, n FROM event_target_counts WHERE n != 0 ORDER BY 1, 2').all()).toEqual(
      db()
        .prepare('SELECT target_type, coalesce(project_id, 0) AS project_id, count(*) AS n FROM events WHERE target_type IS NOT NULL GROUP BY 1, 2 ORDER BY 1, 2')
        .all(),
    );
  });

  it('past 10,000 uncounted, for the project and the instance, and counted again once fewer', async () => {
    insertEvents(busy, 10_001 - counted("e.project_id = ? AND e.target_type = 'Issue'", busy), 'Issue');
    const sql = await preparedBy(s, async () => {
      const page = await s.get(`/projects/${busy}/events`, { query: { target_type: 'issue', per_page: '20' } });
      expectUncounted(page, '2');
      expect(idsOf(page)).toEqual(ids("e.project_id = ? AND e.target_type = 'Issue'", busy).slice(0, 20));
      expectUncounted(await s.get('/events', { query: { scope: 'all', target_type: 'issue', per_page: '20' } }), '2');
    });
    expect(sql.filter((q) => CAPPED_COUNT.test(q))).toEqual([]);
    db().prepare("DELETE FROM events WHERE id = (SELECT max(id) FROM events WHERE project_id = ? AND target_type = 'Issue')").run(busy);
    expectCounted(await s.get(`/projects/${busy}/events`, { query: { target_type: 'issue', per_page: '100' } }), 10_000, 100);
  });
});

describe('core/046 on an existing data dir', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandlab-event-types-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("counts each project's events by target type, and those outside any project", () => {
    const file = join(dir, 'sandlab.db');
    const before = openBefore(file, 'core/046_event_target_counts');
    const insert = before.prepare(`INSERT INTO events (project_id, author_id, action, target_type, created_at) VALUES (?, 1, 'created', ?, '2024-01-01T00:00:00.000Z')`);
    for (const [project, type] of [[7, 'Issue'], [7, 'Issue'], [7, null], [7, 'Note'], [9, 'Issue'], [null, 'Issue']] as const) insert.run(project, type);
    before.close();
    const after = openToday(file);
    expect(after.prepare('SELECT target_type, project_id, n FROM event_target_counts ORDER BY 1, 2').all()).toEqual([
      { target_type: 'Issue', project_id: 0, n: 1 },
      { target_type: 'Issue', project_id: 7, n: 2 },
      { target_type: 'Issue', project_id: 9, n: 1 },
      { target_type: 'Note', project_id: 7, n: 1 },
    ]);
    after.close();
  });
});
