import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openBefore, openToday } from '../helpers/older-data-dir';
import { TestService } from '../helpers/service';
import { expectEveryPage, pagedReads, queryPlan } from '../helpers/lists';

/**
 * `/events?scope=all` (an administrator: every project's events; anyone else: their member
 * projects') read the events in a project newest first from their own index (core/037) instead
 * of walking past the events outside any project. Pinned: every page's rows, order and headers,
 * with the newest events outside any project, through inserts, moves in and out of projects,
 * deletes and a project's deletion.
 */
let s: TestService;
let mine: number;
let other: number;
let member: { id: number; token: string };

const db = () => s.service.context.db;
const insertEvents = (projectId: number | null, n: number): void => {
  const insert = db().prepare(
    `INSERT INTO events (project_id, author_id, action, created_at) VALUES (?, 1, 'created', '2024-01-01T00:00:00.000Z')`,
  );
  db().transaction(() => {
    for (let i = 0; i < n; i++) insert.run(projectId);
  })();
};
/** The list's rows as a plain reading of the table gives them: events of existing projects, newest first. */
const expected = (projects?: number[]): number[] =>
  (
    db()
      .prepare(`SELECT id FROM events NOT INDEXED WHERE project_id IN (SELECT id FROM projects) ORDER BY id DESC`)
      .all() as { id: number; project_id?: number }[]
  )
    .map((r) => r.id)
    .filter((id) => !projects || projects.includes((db().prepare('SELECT project_id FROM events WHERE id = ?').get(id) as { project_id: number }).project_id));

beforeAll(async () => {
  s = await TestService.start();
  mine = (await s.createProject({ name: 'mine', visibility: 'private' })).id;
  other = (await s.createProject({ name: 'other', visibility: 'private' })).id;
  const u = await s.createUser();
  member = { id: u.user.id, token: u.token };
  await s.addMember('projects', mine, member.id, 30);
  insertEvents(mine, 9);
  insertEvents(other, 6);
  // The newest events are outside any project (as group memberships are), ahead of every page.
  insertEvents(null, 40);
}, 60_000);
afterAll(async () => s.stop());

describe('events of every project read from the events in projects', () => {
  it('an administrator (scope=all) and a member: every page, in order, with its headers', async () => {
    await expectEveryPage(s, '/events', { scope: 'all' }, expected(), 4);
    await expectEveryPage(s, '/events', { scope: 'all' }, expected([mine]), 3, member.token);
    await expectEveryPage(s, '/events', { scope: 'all', sort: 'asc' }, [...expected()].reverse(), 5);
  });

  it("an administrator's page is read from the index of events in projects, not past the events outside them", async () => {
    // (A member's list is driven from their few projects when the planner sees fewer of them.)
    const reads = await pagedReads(s, async () => {
      await s.get('/events', { query: { scope: 'all', per_page: '5', page: '2' } });
      await s.get('/events', { query: { scope: 'all', per_page: '5', sort: 'asc' } });
    });
    expect(reads).toHaveLength(2);
    for (const read of reads) {
      const plan = queryPlan(db(), `SELECT e.* ${read.sql.slice(read.sql.indexOf('FROM events'))}`, ...read.args);
      expect(plan).toContain('USING INDEX events_in_projects');
    }
  });

  it('follow inserts, moves in and out of projects, deletes and a deleted project', async () => {
    insertEvents(other, 3);
    insertEvents(null, 5);
    db().prepare('UPDATE events SET project_id = ? WHERE id IN (SELECT id FROM events WHERE project_id IS NULL ORDER BY id DESC LIMIT 2)').run(mine);
    db().prepare('UPDATE events SET project_id = NULL WHERE id IN (SELECT id FROM events WHERE project_id = ? ORDER BY id LIMIT 2)').run(other);
    db().prepare('DELETE FROM events WHERE id = (SELECT max(id) FROM events WHERE project_id = ?)').run(mine);
    expect((await s.post(`/projects/${mine}/issues`, { title: 'An event of its own' })).status).toBe(201);
    await expectEveryPage(s, '/events', { scope: 'all' }, expected(), 4);
    await expectEveryPage(s, '/events', { scope: 'all' }, expected([mine]), 3, member.token);
    db().prepare('DELETE FROM projects WHERE id = ?').run(other);
    await expectEveryPage(s, '/events', { scope: 'all' }, expected(), 4);
    expect(expected()).toEqual(expected([mine]));
  });
});

describe('core/037 on an existing data dir', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandlab-events-in-projects-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('indexes the events in projects a data dir already holds', () => {
    const file = join(dir, 'sandlab.db');
    const before = openBefore(file, 'core/037_events_in_projects');
    const insert = before.prepare(`INSERT INTO events (project_id, author_id, action, created_at) VALUES (?, 1, 'created', '2024-01-01T00:00:00.000Z')`);
    for (const project of [7, null, 7, 9, null, null]) insert.run(project);
    before.close();
    const after = openToday(file);
    expect(after.prepare('SELECT id FROM events INDEXED BY events_in_projects WHERE project_id IS NOT NULL ORDER BY id DESC').all()).toEqual([
      { id: 4 },
      { id: 3 },
      { id: 1 },
    ]);
    expect(after.prepare('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });
    after.close();
  });
});
