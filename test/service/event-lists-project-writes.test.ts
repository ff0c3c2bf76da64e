import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { expectEveryPage, pagedReads, preparedBy, queryPlan } from '../helpers/lists';
import { TestService } from '../helpers/service';

/**
 * An events list with no condition on each event's project (an administrator's, and one
 * project's, whose visibility holds for all of it) reads no project row: its statements name no
 * `projects`, so a write to a project leaves their remembered answers (db/connection.ts
 * rememberReads). Pinned: every page's rows and headers against a fresh query joined to projects,
 * for an administrator, a member, a non-member and anonymous, events outside any project among
 * them; the statements of those lists; and an answer kept across a project's write (an event
 * added behind the connection's back shows only after a write to events).
 */
let s: TestService;
let secret: number;
let open: number;
let member: { id: number; token: string };
let stranger: { id: number; token: string };

const db = () => s.service.context.db;
const ids = (where: string, ...args: unknown[]): number[] =>
  (db().prepare(`SELECT e.id FROM events e NOT INDEXED JOIN projects p ON p.id = e.project_id WHERE ${where} ORDER BY e.id DESC`).all(...args) as { id: number }[]).map(
    (r) => r.id,
  );

beforeAll(async () => {
  s = await TestService.start();
  secret = (await s.createProject({ name: 'secret', visibility: 'private' })).id;
  open = (await s.createProject({ name: 'open', visibility: 'public' })).id;
  const u = await s.createUser();
  member = { id: u.user.id, token: u.token };
  const v = await s.createUser();
  stranger = { id: v.user.id, token: v.token };
  await s.addMember('projects', secret, member.id, 30);
  const group = (await s.createGroup({ name: 'g', path: 'g' })).id;
  const insert = db().prepare(
    "INSERT INTO events (project_id, group_id, author_id, action, target_type, created_at) VALUES (?, ?, ?, ?, ?, ?)",
  );
  db().transaction(() => {
    for (let i = 0; i < 30; i++) {
      const project = [secret, open, null][i % 3];
      insert.run(project, project === null ? group : null, i % 2 ? 1 : member.id, ['created', 'closed', 'joined'][i % 3], i % 2 ? 'Issue' : null, `2024-01-0${1 + (i % 5)}T00:00:00.000Z`);
    }
  })();
});
afterAll(() => s.stop());

it('answers every page of the lists as the join to projects does', async () => {
  await expectEveryPage(s, '/events', { scope: 'all' }, ids('1 = 1'), 4);
  await expectEveryPage(s, '/events', { scope: 'all', sort: 'asc', target_type: 'issue' }, ids("e.target_type = 'Issue'").reverse(), 3);
  await expectEveryPage(s, '/events', { scope: 'all', before: '2024-01-04' }, ids("e.created_at < '2024-01-04'"), 3);
  await expectEveryPage(s, '/events', { scope: 'all', action: 'closed' }, ids("e.action = 'closed'"), 3);
  await expectEveryPage(s, '/users/1/events', {}, ids('e.author_id = 1'), 3);
  await expectEveryPage(s, `/users/${member.id}/events`, { after: '2024-01-02' }, ids("e.author_id = ? AND e.created_at >= '2024-01-03'", member.id), 3);
  for (const token of [undefined, member.token, stranger.token]) {
    await expectEveryPage(s, `/projects/${open}/events`, {}, ids('e.project_id = ?', open), 3, token);
    await expectEveryPage(s, `/projects/${open}/events`, { target_type: 'issue', sort: 'asc' }, ids("e.project_id = ? AND e.target_type = 'Issue'", open).reverse(), 3, token);
  }
  // Anonymous: the public project's events, not the private one's.
  const anonymous = await s.get(`/projects/${open}/events`, { token: null, query: { per_page: '100' } });
  expect([anonymous.headers.get('x-total'), (anonymous.body as { id: number }[]).map((e) => e.id)]).toEqual([String(ids('e.project_id = ?', open).length), ids('e.project_id = ?', open)]);
  expect((await s.get(`/projects/${secret}/events`, { token: null })).status).toBe(404);
  for (const token of [undefined, member.token]) await expectEveryPage(s, `/projects/${secret}/events`, { action: 'created' }, ids("e.project_id = ? AND e.action = 'created'", secret), 2, token);
  // A member's own lists still hold a condition on each event's project.
  await expectEveryPage(s, '/events', {}, ids("e.author_id = ? AND (p.visibility = 'public' OR p.id = ?)", member.id, secret), 2, member.token);
  await expectEveryPage(s, '/events', { scope: 'all' }, ids('e.project_id = ?', secret), 2, member.token);
  await expectEveryPage(s, `/users/1/events`, {}, ids("e.author_id = 1 AND (p.visibility = 'public' OR p.id = ?)", secret), 2, member.token);
  await expectEveryPage(s, `/users/1/events`, {}, ids("e.author_id = 1 AND p.visibility = 'public'"), 2, stranger.token);
  expect((await s.get(`/projects/${secret}/events`, { token: stranger.token })).status).toBe(404);
});

it('reads no project row for a list without a condition on each event\'s project', async () => {
  const lists: [string, Record<string, string>, string | undefined][] = [
    ['/events', { scope: 'all' }, undefined],
    ['/events', { scope: 'all', before: '2024-01-04', page: '2', per_page: '3' }, undefined],
    ['/users/1/events', { target_type: 'issue' }, undefined],
    // A project's pages of a length no test above read: a page read before is kept at its list's version (rowsAtVersion), no statement prepared.
    [`/projects/${open}/events`, { action: 'closed', per_page: '7' }, undefined],
    [`/projects/${open}/events`, { per_page: '7' }, stranger.token],
    [`/projects/${secret}/events`, { per_page: '7' }, member.token],
  ];
  for (const [path, query, token] of lists) {
    const prepared = await preparedBy(s, () => s.get(path, { query, token }));
    const reads = prepared.filter((sql) => /\bFROM events e\b/.test(sql));
    expect(reads.length, path).toBeGreaterThan(0);
    for (const sql of reads) expect(sql, path).not.toMatch(/\bprojects\b/);
  }
  // The same indexes as the join's (partial, on project_id IS NOT NULL), in id order.
  const plans = async (path: string, query: Record<string, string>, token?: string) =>
  {
    const reads = await pagedReads(s, async () => void (await s.get(path, { query, token })));
    expect(reads.length, path).toBeGreaterThan(0);
    return reads.map((read) => queryPlan(db(), read.sql, ...read.args));
  };
  for (const plan of await plans('/events', { scope: 'all' })) expect(plan).toMatch(/^SCAN e USING INDEX events_in_projects$/);
  for (const plan of await plans('/events', { scope: 'all', action: 'closed' })) expect(plan).toMatch(/^SEARCH e USING INDEX events_action \(action=\?\)$/);
  for (const plan of await plans('/users/1/events', {})) expect(plan).toMatch(/^SEARCH e USING INDEX events_author_in_projects \(author_id=\?\)$/);
  for (const plan of await plans(`/projects/${open}/events`, {}, stranger.token)) expect(plan).toMatch(/^SEARCH e USING INDEX events_project \(project_id=\?\)$/);
  // A member's list of their projects' events keeps its join (a condition on each event's project).
  const prepared = await preparedBy(s, () => s.get('/events', { token: member.token }));
  expect(prepared.filter((sql) => /\bFROM events e JOIN projects p\b/.test(sql)).length).toBeGreaterThan(0);
});

it("keeps the lists' answers across a project's write, and reads them again after a write to events", async () => {
  const behind = new Database(join(s.dataDir, 'sandlab.db'));
  try {
    const first = async (path: string, query: Record<string, string>, token?: string) =>
      ((await s.get(path, { query: { ...query, per_page: '5' }, token })).body as { id: number }[]).map((e) => e.id);
    const lists: [string, Record<string, string>, string | undefined][] = [
      ['/events', { scope: 'all' }, undefined],
      ['/users/1/events', {}, undefined],
      [`/projects/${open}/events`, {}, undefined],
      [`/projects/${open}/events`, {}, stranger.token],
    ];
    const before = [];
    for (const [path, query, token] of lists) before.push(await first(path, query, token));
    // An event added by another connection, every table version put back: this connection does not see the write.
    const versions = behind.prepare('SELECT name, version FROM table_versions').all() as { name: string; version: number }[];
    const added = Number(
      behind.prepare("INSERT INTO events (project_id, author_id, action, target_type, created_at) VALUES (?, 1, 'created', 'Issue', '2024-01-09T00:00:00.000Z')").run(open)
        .lastInsertRowid,
    );
    const put = behind.prepare('UPDATE table_versions SET version = ? WHERE name = ?');
    for (const v of versions) put.run(v.version, v.name);
    // A write to a project: the lists' remembered answers stay.
    expect((await s.put(`/projects/${secret}`, { description: 'written' })).status).toBe(200);
    for (const [i, [path, query, token]] of lists.entries()) expect(await first(path, query, token), path).toEqual(before[i]);
    // A write to events: read again, the event added behind first.
    db().prepare("UPDATE events SET action = 'created' WHERE id = ?").run(added);
    for (const [path, query, token] of lists) expect((await first(path, query, token))[0], path).toBe(added);
  } finally {
    behind.close();
  }
});
