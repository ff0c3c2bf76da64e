import { afterAll, beforeAll, expect, it } from 'vitest';
import { ok, TestService } from '../helpers/service';

/**
 * Deep pages of the events lists a caller who sees only some projects reads (/events?scope=all,
 * /users/:id/events as a Guest or a Reporter) start at anchors kept under the events' version and
 * the versions of the projects' listed columns, memberships and groups their conditions read
 * (events.ts viewedEventAnchors). Pinned: every deep page, read twice, as the events table
 * and the caller's projects (by the API) say, after each write that moves the caller's view (a group joined, a project made
 * private, a membership removed, a transfer, a new event) and one that does not (a description);
 * a confidential issue's events never reach the Guest.
 */
let s: TestService;
const project: Record<'pub' | 'mem' | 'grp' | 'hidden', number> = { pub: 0, mem: 0, grp: 0, hidden: 0 };
let group: number;
let other: number;
let guest: { id: number; token: string };
let reporter: { id: number; token: string };
let author: number;

const db = () => s.service.context.db;

function addEvents(projectId: number, n: number, targetId: number | null = null): void {
  const insert = db().prepare(
    'INSERT INTO events (project_id, group_id, author_id, action, target_type, target_id, created_at) VALUES (?, NULL, ?, ?, ?, ?, ?)',
  );
  db().transaction(() => {
    for (let i = 0; i < n; i++) insert.run(projectId, i % 3 ? author : 1, ['created', 'closed', 'updated'][i % 3], targetId === null ? null : 'Issue', targetId, '2024-01-02T00:00:00.000Z');
  })();
}

beforeAll(async () => {
  s = await TestService.start();
  const g = await s.createUser({ username: 'guesty' });
  guest = { id: g.user.id, token: g.token };
  const r = await s.createUser({ username: 'reportery' });
  reporter = { id: r.user.id, token: r.token };
  author = (await s.createUser({ username: 'authory' })).user.id;
  group = (await s.createGroup({ name: 'viewed', path: 'viewed' })).id;
  other = (await s.createGroup({ name: 'other', path: 'other' })).id;
  project.pub = (await s.createProject({ name: 'pub', visibility: 'public' })).id;
  project.mem = (await s.createProject({ name: 'mem', visibility: 'private' })).id;
  project.grp = (await s.createProject({ name: 'grp', visibility: 'private', namespace_id: group })).id;
  project.hidden = (await s.createProject({ name: 'hidden', visibility: 'private' })).id;
  await s.addMember('projects', project.mem, guest.id, 10);
  await s.addMember('projects', project.mem, reporter.id, 20);
  await s.addMember('projects', project.hidden, reporter.id, 20);
  // Interleaved, so each project's events are spread over the whole id range.
  for (let round = 0; round < 12; round++) for (const id of Object.values(project)) addEvents(id, 100);
}, 60_000);
afterAll(() => s.stop());

/** The projects a caller reaches (`membership`: as a member) by the API, each list's own rule. */
async function projectsOf(token: string | null, membership: boolean): Promise<number[]> {
  return (ok(await s.get('/projects', { token, query: { per_page: '100', ...(membership ? { membership: 'true' } : {}) } })) as { id: number }[]).map((p) => p.id);
}

/**
 * Every deep page of both lists for each caller, read twice (the second from the first's anchors),
 * against the events table: the page is the slice of the caller's projects' events, less those
 * whose target the caller may not read (a confidential issue for a Guest), dropped after the slice
 * as Event#visible_to_user? is.
 */
async function expectDeepPages(what: string, hidden: (token: string | null, id: number) => boolean = () => false, callers: (string | null)[] = [guest.token, reporter.token]): Promise<void> {
  for (const token of callers) {
    const lists = [
      // /events is the caller's own: none for an anonymous caller.
      ...(token === null ? [] : [{ path: '/events', query: { scope: 'all' } as Record<string, string>, projects: await projectsOf(token, true), author: undefined }]),
      { path: `/users/${author}/events`, query: {} as Record<string, string>, projects: await projectsOf(token, false), author },
    ];
    for (const list of lists) {
      const all = (
        db()
          .prepare(`SELECT id FROM events WHERE project_id IN (SELECT value FROM json_each(?))${list.author === undefined ? '' : ' AND author_id = ?'} ORDER BY id DESC`)
          .all(JSON.stringify(list.projects), ...(list.author === undefined ? [] : [list.author])) as { id: number }[]
      ).map((r) => r.id);
      const last = Math.ceil(all.length / 100) + 1;
      for (const sort of ['desc', 'asc']) {
        const ordered = sort === 'asc' ? [...all].reverse() : all;
        for (const page of [11, 12, last - 1, last]) {
          if (page < 11) continue;
          const want = ordered.slice((page - 1) * 100, page * 100).filter((id) => !hidden(token, id));
          for (let round = 0; round < 2; round++) {
            const res = await s.get(list.path, { token, query: { ...list.query, sort, per_page: '100', page: String(page) } });
            expect((ok(res) as { id: number }[]).map((e) => e.id), `${what}: ${list.path} ${sort} page ${page} round ${round}`).toEqual(want);
          }
        }
      }
    }
  }
}

it("answers a member's and a Guest's deep events pages from the events, through writes that move their view", async () => {
  await expectDeepPages('first');
  ok(await s.put(`/projects/${project.mem}`, { description: 'moved nothing' }));
  await expectDeepPages('a description');
  await s.addMember('groups', group, guest.id, 10);
  await expectDeepPages('a group joined');
  ok(await s.put(`/projects/${project.pub}`, { visibility: 'private' }));
  await expectDeepPages('a project made private');
  expect((await s.del(`/projects/${project.mem}/members/${guest.id}`)).status).toBe(204);
  await expectDeepPages('a membership removed');
  ok(await s.put(`/projects/${project.grp}/transfer`, { namespace: other }));
  await expectDeepPages('a transfer out of the group');
  addEvents(project.hidden, 30);
  await expectDeepPages('new events');
});

it("keeps a confidential issue's events from a Guest's deep pages, not from a Reporter's", async () => {
  await s.addMember('projects', project.grp, guest.id, 10);
  await s.addMember('projects', project.grp, reporter.id, 20);
  const issue = ok(await s.post(`/projects/${project.grp}/issues`, { title: 'secret', confidential: true }));
  const before = (db().prepare('SELECT coalesce(max(id), 0) AS m FROM events').get() as { m: number }).m;
  addEvents(project.grp, 1200, issue.id);
  const secret = (id: number): boolean => id > before && (db().prepare('SELECT target_id FROM events WHERE id = ?').get(id) as { target_id: number | null }).target_id === issue.id;
  await expectDeepPages('confidential events', (token, id) => token === guest.token && secret(id));
  // The Reporter's pages hold them, so the Guest's were kept from them.
  const page = (token: string) => s.get('/events', { token, query: { scope: 'all', per_page: '100', page: '11' } });
  expect((ok(await page(reporter.token)) as { id: number }[]).filter((e) => secret(e.id)).length).toBeGreaterThan(0);
  expect((ok(await page(guest.token)) as { id: number }[]).filter((e) => secret(e.id))).toEqual([]);
});

it("answers an anonymous caller's, a Guest's and a Reporter's deep pages through projects made public or internal and a share", async () => {
  // Anonymous: /users/:id/events only (GitLab's lib/api/events.rb asks no authentication there), the public projects' events.
  const callers = [null, guest.token, reporter.token];
  // The confidential issue's events (the test before) stay the Guest's to miss.
  const hidden = (token: string | null, id: number): boolean =>
    token === guest.token && !!db().prepare("SELECT 1 FROM events e JOIN issues i ON i.id = e.target_id WHERE e.id = ? AND e.target_type = 'Issue' AND i.confidential = 1").get(id);
  await expectDeepPages('as left', hidden, callers);
  ok(await s.put(`/projects/${project.pub}`, { visibility: 'public' }));
  await expectDeepPages('a project made public again', hidden, callers);
  // Internal: every signed-in caller's, not the anonymous one's.
  ok(await s.put(`/projects/${project.hidden}`, { visibility: 'internal' }));
  await expectDeepPages('a project made internal', hidden, callers);
  ok(await s.put(`/projects/${project.hidden}`, { visibility: 'private' }));
  await expectDeepPages('made private again', hidden, callers);
  // Shared with the group the Guest is in: the Guest's as a member (scope=all) too.
  ok(await s.post(`/projects/${project.hidden}/share`, { group_id: group, group_access: 10 }));
  await expectDeepPages('a project shared with their group', hidden, callers);
  expect((await s.del(`/projects/${project.hidden}/share/${group}`)).status).toBe(204);
  await expectDeepPages('the share removed', hidden, callers);
});
