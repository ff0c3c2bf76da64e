import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectEveryPage, pagedReads, queryPlan } from '../helpers/lists';
import { TestService } from '../helpers/service';

/**
 * Every project's events of one action (`/events?scope=all&action=`) read their own entries of
 * the action (core/171 events_action), and of the action and target type together
 * (events_action_target), instead of walking every event of the instance newest first for an
 * action seldom taken. Pinned: every page's rows, order and headers against a fresh query of the
 * table, either sort, for an administrator and a member; after writes too; and the plans.
 */
let s: TestService;
let mine: number;
let other: number;
let member: { id: number; token: string };

const db = () => s.service.context.db;
const insertEvents = (projectId: number | null, rows: [string, string | null][]): void => {
  const insert = db().prepare(
    `INSERT INTO events (project_id, author_id, action, target_type, created_at) VALUES (?, 1, ?, ?, '2024-01-01T00:00:00.000Z')`,
  );
  db().transaction(() => {
    for (const [action, type] of rows) insert.run(projectId, action, type);
  })();
};
const ids = (where: string, ...args: unknown[]): number[] =>
  (db().prepare(`SELECT e.id FROM events e NOT INDEXED JOIN projects p ON p.id = e.project_id WHERE ${where} ORDER BY e.id DESC`).all(...args) as { id: number }[]).map(
    (r) => r.id,
  );

async function expectEveryList(): Promise<void> {
  for (const action of ['created', 'joined', 'closed', 'commented']) {
    const all = ids('e.action = ?', action);
    await expectEveryPage(s, '/events', { scope: 'all', action }, all, 3);
    await expectEveryPage(s, '/events', { scope: 'all', action, sort: 'asc' }, [...all].reverse(), 4);
    await expectEveryPage(s, '/events', { scope: 'all', action }, ids('e.project_id = ? AND e.action = ?', mine, action), 2, member.token);
    const roots = ids('e.author_id = 1 AND e.action = ?', action);
    await expectEveryPage(s, '/users/1/events', { action }, roots, 3);
    await expectEveryPage(s, `/projects/${other}/events`, { action, target_type: 'issue' }, ids("e.project_id = ? AND e.action = ? AND e.target_type = 'Issue'", other, action), 2);
    for (const [type, stored] of [['issue', 'Issue'], ['milestone', 'Milestone']]) {
      const both = ids('e.action = ? AND e.target_type = ?', action, stored);
      await expectEveryPage(s, '/events', { scope: 'all', action, target_type: type }, both, 2);
      await expectEveryPage(s, '/events', { scope: 'all', action, target_type: type, sort: 'asc' }, [...both].reverse(), 3);
      const authors = ids('e.author_id = 1 AND e.action = ? AND e.target_type = ?', action, stored);
      await expectEveryPage(s, '/users/1/events', { action, target_type: type }, authors, 2);
      await expectEveryPage(s, '/events', { action, target_type: type, sort: 'asc' }, [...authors].reverse(), 3);
    }
  }
}

beforeAll(async () => {
  s = await TestService.start();
  mine = (await s.createProject({ name: 'mine', visibility: 'private' })).id;
  other = (await s.createProject({ name: 'other', visibility: 'private' })).id;
  const u = await s.createUser();
  member = { id: u.user.id, token: u.token };
  await s.addMember('projects', mine, member.id, 30);
  // Actions and types interleaved, so a page of one is spread among the others', and joined events outside any project (group memberships).
  const cycle: [string, string | null][] = [
    ['created', 'Issue'],
    ['closed', 'Issue'],
    ['joined', null],
    ['created', 'Milestone'],
    ['commented', 'Note'],
    ['created', null],
    ['closed', 'Milestone'],
    ['created', 'Issue'],
  ];
  for (let i = 0; i < 3; i++) {
    insertEvents(mine, cycle);
    insertEvents(other, [...cycle].reverse());
    insertEvents(null, [['joined', null], ['created', 'Issue']]);
  }
}, 60_000);
afterAll(async () => s.stop());

describe("every project's events by action, read from their own index", () => {
  it('every page, in order, with its headers, as the table says; after writes too', async () => {
    await expectEveryList();
    insertEvents(other, [['joined', null], ['closed', 'Issue'], ['created', 'Milestone']]);
    db().prepare("UPDATE events SET action = 'joined' WHERE id = (SELECT min(id) FROM events WHERE project_id = ? AND action = 'created')").run(mine);
    db().prepare("DELETE FROM events WHERE id = (SELECT max(id) FROM events WHERE project_id = ? AND action = 'joined')").run(mine);
    db().prepare('UPDATE events SET project_id = ? WHERE id = (SELECT max(id) FROM events WHERE project_id IS NULL)').run(other);
    db().prepare("UPDATE events SET target_type = 'Milestone' WHERE id = (SELECT min(id) FROM events WHERE project_id = ? AND target_type = 'Issue')").run(other);
    await expectEveryList();
  });

  it("an administrator's page of one action reads events_action, with a target type events_action_target", async () => {
    const reads = await pagedReads(s, async () => {
      await s.get('/events', { query: { scope: 'all', action: 'joined', per_page: '2', page: '2' } });
      await s.get('/events', { query: { scope: 'all', action: 'closed', per_page: '2', sort: 'asc' } });
      await s.get('/events', { query: { scope: 'all', action: 'created', target_type: 'milestone', per_page: '2' } });
      await s.get('/events', { query: { scope: 'all', action: 'created', target_type: 'issue', per_page: '2', sort: 'asc' } });
    });
    expect(reads).toHaveLength(4);
    const plans = reads.map((read) => queryPlan(db(), read.sql, ...read.args));
    for (const plan of plans) expect(plan).not.toContain('TEMP B-TREE');
    for (const plan of plans.slice(0, 2)) expect(plan).toContain('USING INDEX events_action (action=?)');
    for (const plan of plans.slice(2)) expect(plan).toContain('USING INDEX events_action_target (action=? AND target_type=?)');
  });

  it("an author's and a project's list by action keep their own index, not the action's walked for them", async () => {
    const plans4 = (reads: { sql: string; args: unknown[] }[]): string[] => reads.map((read) => queryPlan(db(), read.sql, ...read.args));
    const reads = await pagedReads(s, async () => {
      await s.get('/users/1/events', { query: { action: 'created', per_page: '2' } });
      await s.get('/events', { query: { action: 'created', target_type: 'issue', per_page: '2', sort: 'asc' } });
      await s.get(`/projects/${mine}/events`, { query: { action: 'created', per_page: '2' } });
      await s.get(`/projects/${mine}/events`, { query: { action: 'created', target_type: 'issue', per_page: '2' } });
      await s.get('/users/1/events', { query: { target_type: 'issue', per_page: '2' } });
      await s.get(`/users/${member.id}/events`, { query: { action: 'joined', per_page: '2', sort: 'asc' } });
    });
    expect(reads).toHaveLength(6);
    expect(plans4(reads)[4]).toContain('USING INDEX events_author_target (author_id=? AND target_type=?)');
    expect(plans4(reads)[5]).toContain('USING INDEX events_author_action (author_id=? AND action=?)');
    const plans = reads.map((read) => queryPlan(db(), read.sql, ...read.args));
    // core/180: an author's entries of the action (before, their events in projects, each action compared).
    expect(plans[0]).toContain('USING INDEX events_author_action (author_id=? AND action=?)');
    // core/391: with a target type, the author's entries of the pair (before, each of the action's compared by type).
    expect(plans[1]).toContain('USING INDEX events_author_action_target (author_id=? AND action=? AND target_type=?)');
    expect(plans[2]).toContain('USING INDEX events_project_action (project_id=? AND action=?)');
    expect(plans[3]).toContain('USING INDEX events_target_project (target_type=? AND project_id=?)');
    for (const plan of plans) expect(plan).not.toContain('TEMP B-TREE');
  });
});
