import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBefore, openToday } from '../helpers/older-data-dir';
import { expectEveryPage, pagedReads, queryPlan } from '../helpers/lists';
import { TestService } from '../helpers/service';

/**
 * Events by `target_type` read their own partial index entries in id order (core/047, made partial
 * by core/047_event_target_types_partial so that statistics never steer an unfiltered list to them): a project's
 * (events_target_project) and every project's (events_target), while a project's unfiltered list
 * keeps events_project. Pinned: every page's rows, order, X-Total and paging headers and Link,
 * against a fresh query of the table, either sort, for an administrator and a member.
 */
let s: TestService;
let mine: number;
let other: number;
let member: { id: number; token: string };

const db = () => s.service.context.db;
const STORED: Record<string, string> = { issue: 'Issue', note: 'Note', merge_request: 'MergeRequest', milestone: 'Milestone' };
const insertEvents = (projectId: number | null, types: (string | null)[]): void => {
  const insert = db().prepare(
    `INSERT INTO events (project_id, author_id, action, target_type, created_at) VALUES (?, 1, 'created', ?, '2024-01-01T00:00:00.000Z')`,
  );
  db().transaction(() => {
    for (const type of types) insert.run(projectId, type);
  })();
};
const LIST = 'FROM events e NOT INDEXED JOIN projects p ON p.id = e.project_id WHERE';
const ids = (where: string, ...args: unknown[]): number[] =>
  (db().prepare(`SELECT e.id ${LIST} ${where} ORDER BY e.id DESC`).all(...args) as { id: number }[]).map((r) => r.id);

async function expectEveryList(): Promise<void> {
  for (const [type, stored] of Object.entries(STORED)) {
    for (const project of [mine, other]) {
      const want = ids('e.project_id = ? AND e.target_type = ?', project, stored);
      await expectEveryPage(s, `/projects/${project}/events`, { target_type: type }, want, 3);
      await expectEveryPage(s, `/projects/${project}/events`, { target_type: type, sort: 'asc' }, [...want].reverse(), 4);
    }
    const all = ids('e.target_type = ?', stored);
    await expectEveryPage(s, '/events', { scope: 'all', target_type: type }, all, 3);
    await expectEveryPage(s, '/events', { scope: 'all', target_type: type, sort: 'asc' }, [...all].reverse(), 5);
    await expectEveryPage(s, '/events', { scope: 'all', target_type: type }, ids('e.project_id = ? AND e.target_type = ?', mine, stored), 2, member.token);
    // A user's events in projects by type (core/170): root's, and their own.
    const roots = ids('e.author_id = 1 AND e.target_type = ?', stored);
    await expectEveryPage(s, '/users/1/events', { target_type: type }, roots, 3);
    await expectEveryPage(s, '/users/1/events', { target_type: type, sort: 'asc' }, [...roots].reverse(), 4);
    await expectEveryPage(s, '/events', { target_type: type }, roots, 3);
  }
}

const planOf = (read: { sql: string; args: unknown[] }): string => queryPlan(db(), read.sql, ...read.args);

beforeAll(async () => {
  s = await TestService.start();
  mine = (await s.createProject({ name: 'mine', visibility: 'private' })).id;
  other = (await s.createProject({ name: 'other', visibility: 'private' })).id;
  const u = await s.createUser();
  member = { id: u.user.id, token: u.token };
  await s.addMember('projects', mine, member.id, 30);
  // Types interleaved, so a page of one type is spread among the others', and a few outside any project.
  const cycle = ['Issue', 'MergeRequest', null, 'Note', 'MergeRequest', 'DiffNote', 'Issue', 'MergeRequest'];
  for (let i = 0; i < 3; i++) {
    insertEvents(mine, cycle);
    insertEvents(other, [...cycle].reverse());
    insertEvents(null, ['Issue', 'Note']);
  }
}, 60_000);
afterAll(async () => s.stop());

describe('event lists by target type, read from their own index', () => {
  it('every page, in order, with its headers, as the table says; after writes too', async () => {
    await expectEveryList();
    insertEvents(other, ['Issue', 'Issue', 'Note']);
    db().prepare("UPDATE events SET target_type = 'Issue' WHERE id = (SELECT min(id) FROM events WHERE project_id = ? AND target_type = 'MergeRequest')").run(mine);
    db().prepare("DELETE FROM events WHERE id = (SELECT max(id) FROM events WHERE project_id = ? AND target_type = 'Issue')").run(mine);
    db().prepare('UPDATE events SET project_id = ? WHERE id = (SELECT max(id) FROM events WHERE project_id IS NULL)').run(other);
    await expectEveryList();
  });

  it("a project's and every project's page by type use the type's index; a project's unfiltered page keeps events_project", async () => {
    const byType = await pagedReads(s, async () => {
      await s.get(`/projects/${mine}/events`, { query: { target_type: 'issue', per_page: '2', page: '2' } });
      await s.get(`/projects/${mine}/events`, { query: { target_type: 'issue', action: 'created', per_page: '2', sort: 'asc' } });
    });
    expect(byType).toHaveLength(2);
    for (const read of byType) expect(planOf(read)).toContain('USING INDEX events_target_project (target_type=? AND project_id=?)');
    const all = await pagedReads(s, async () => {
      await s.get('/events', { query: { scope: 'all', target_type: 'issue', per_page: '2', page: '2' } });
    });
    expect(all).toHaveLength(1);
    expect(planOf(all[0])).toContain('USING INDEX events_target (target_type=?)');
    // A user's events by type: their own entries of the type (core/170), not all their events walked.
    const authored = await pagedReads(s, async () => {
      await s.get('/users/1/events', { query: { target_type: 'milestone', per_page: '2' } });
      await s.get('/events', { query: { target_type: 'note', per_page: '2', sort: 'asc' } });
    });
    expect(authored).toHaveLength(2);
    for (const read of authored) expect(planOf(read)).toContain('USING INDEX events_author_target (author_id=? AND target_type=?)');
    const plain = await pagedReads(s, async () => {
      await s.get(`/projects/${mine}/events`, { query: { per_page: '2', page: '2' } });
    });
    expect(plain).toHaveLength(1);
    expect(planOf(plain[0])).toContain('USING INDEX events_project (project_id=?)');
    expect(planOf(plain[0])).not.toContain('TEMP B-TREE');
  });

  it("with a big instance's statistics (PRAGMA optimize) the same: no skip-scan of the type's index for an unfiltered page", async () => {
    // A big instance's shape: one project with thousands of events among hundreds with a dozen
    // (theirs written with foreign keys off, for projects that need not exist), analyzed with STAT4.
    const huge = (await s.createProject({ name: 'huge', visibility: 'private' })).id;
    insertEvents(huge, Array.from({ length: 3000 }, (_, i) => (i % 500 === 0 ? 'Issue' : 'MergeRequest')));
    const types = ['Issue', 'MergeRequest', 'Note', 'Milestone', null, 'DiffNote'];
    db().pragma('foreign_keys = OFF');
    for (let p = 0; p < 800; p++) insertEvents(1_000_000 + p, Array.from({ length: 12 }, (_, i) => types[i % 6]));
    db().pragma('foreign_keys = ON');
    db().exec('ANALYZE events');
    try {
      const reads = await pagedReads(s, async () => {
        await s.get(`/projects/${huge}/events`, { query: { per_page: '2', page: '2' } });
        await s.get(`/projects/${huge}/events`, { query: { per_page: '2', sort: 'asc' } });
        await s.get(`/projects/${huge}/events`, { query: { target_type: 'issue', per_page: '2', page: '2' } });
        await s.get('/events', { query: { scope: 'all', target_type: 'note', per_page: '2' } });
      });
      expect(reads).toHaveLength(4);
      for (const read of reads.slice(0, 2)) {
        expect(planOf(read)).toContain('USING INDEX events_project (project_id=?)');
        expect(planOf(read)).not.toContain('TEMP B-TREE');
      }
      expect(planOf(reads[2])).toContain('USING INDEX events_target_project (target_type=? AND project_id=?)');
      expect(planOf(reads[3])).toContain('USING INDEX events_target (target_type=?)');
      const want = ids("e.project_id = ? AND e.target_type = 'Issue'", huge);
      await expectEveryPage(s, `/projects/${huge}/events`, { target_type: 'issue' }, want, 4);
    } finally {
      db().prepare('DELETE FROM events WHERE project_id >= 1000000').run();
      db().exec("DELETE FROM sqlite_stat1 WHERE tbl = 'events'");
      if (db().prepare("SELECT 1 FROM sqlite_schema WHERE name = 'sqlite_stat4'").get()) db().exec("DELETE FROM sqlite_stat4 WHERE tbl = 'events'");
      db().exec('ANALYZE sqlite_schema');
    }
  });
});

describe('core/047 on an existing data dir', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandlab-event-target-types-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('indexes the events already there', () => {
    const file = join(dir, 'sandlab.db');
    const before = openBefore(file, 'core/047_event_target_types');
    const insert = before.prepare(`INSERT INTO events (project_id, author_id, action, target_type, created_at) VALUES (?, 1, 'created', ?, '2024-01-01T00:00:00.000Z')`);
    for (const [project, type] of [[7, 'Issue'], [7, 'Note'], [7, null], [7, 'Issue'], [9, 'Issue'], [null, 'Issue']] as const) insert.run(project, type);
    before.close();
    const after = openToday(file);
    const read = (index: string, where: string, ...args: unknown[]) =>
      (after.prepare(`SELECT id FROM events INDEXED BY ${index} WHERE ${where} ORDER BY id DESC`).all(...args) as { id: number }[]).map((r) => r.id);
    expect(read('events_target_project', 'target_type = ? AND project_id = ?', 'Issue', 7)).toEqual([4, 1]);
    expect(read('events_target', 'target_type = ?', 'Issue')).toEqual([6, 5, 4, 1]);
    // core/047_event_target_types_partial: events without a type are not in them.
    expect(after.prepare("SELECT count(*) AS n FROM events INDEXED BY events_target WHERE target_type IS NOT NULL").get()).toEqual({ n: 5 });
    for (const name of ['events_target_project', 'events_target']) {
      expect((after.prepare('SELECT sql FROM sqlite_schema WHERE name = ?').get(name) as { sql: string }).sql).toContain('WHERE target_type IS NOT NULL');
    }
    expect(after.pragma('integrity_check')).toEqual([{ integrity_check: 'ok' }]);
    after.close();
  });
});
