import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';

// A user as lists embed them (UserBasic: authors, assignees, reviewers, resolvers, award and epic
// authors) is one kept entity per user and base URL while the user's row reads the same
// (areas/core/entities.ts userBasicById): these tests pin that every list shows a change to the user
// at its next page — through the API, through SQL — and each request's own base URL. And the day
// of a user's last activity is written only when it changes (areas/core/events.ts), so writes
// that record events leave the users table (and every remembered user) alone within a day.

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s?.stop());

const db = () => s.service.context.db;
const usersVersion = (): number => (db().prepare("SELECT version FROM table_versions WHERE name = 'users'").get() as { version: number }).version;


describe('users embedded in list rows', () => {
  let author: { user: any; token: string };
  let other: { user: any; token: string };
  let group: any;
  let project: any;
  let issue: any;
  let mr: any;
  let epic: any;
  let touches = 0;

  /** Every embedded UserBasic of `value` (any key that holds one), by where it was found. */
  const embedded = (value: unknown, at = '', out: [string, any][] = []): [string, any][] => {
    if (Array.isArray(value)) value.forEach((v, i) => embedded(v, `${at}[${i}]`, out));
    else if (value && typeof value === 'object') {
      const o = value as Record<string, unknown>;
      if ('username' in o && 'web_url' in o && 'avatar_url' in o && 'locked' in o) out.push([at, o]);
      else for (const [k, v] of Object.entries(o)) embedded(v, `${at}.${k}`, out);
    }
    return out;
  };
  /** The lists that embed users, with the user each shows of `author` found in it. */
  const lists = (): string[] => [
    `/projects/${project.id}/issues`,
    `/issues?scope=all`,
    `/projects/${project.id}/merge_requests`,
    `/projects/${project.id}/issues/${issue.iid}/notes`,
    `/projects/${project.id}/issues/${issue.iid}/discussions`,
    `/projects/${project.id}/merge_requests/${mr.iid}/notes`,
    `/projects/${project.id}/issues/${issue.iid}/award_emoji`,
    `/projects/${project.id}/snippets`,
    `/groups/${group.id}/epics`,
    `/projects/${project.id}/issues/${issue.iid}/resource_label_events`,
    `/projects/${project.id}/issues/${issue.iid}`,
    `/projects/${project.id}/merge_requests/${mr.iid}`,
    `/groups/${group.id}/epics/${epic.iid}`,
    `/projects/${project.id}/events`,
    `/users/${author.user.id}/events`,
  ];
  /** What every list shows of the author: each embedded UserBasic of theirs, all equal to `expected`. */
  const expectShown = async (expected: Record<string, unknown>, host?: string): Promise<void> => {
    for (const path of lists()) {
      const res = host ? await s.getWithHost(path, host) : await s.get(path);
      expect(res.status, path).toBe(200);
      const mine = embedded(res.body).filter(([, u]) => u.id === author.user.id);
      expect(mine.length, `${path} shows the author`).toBeGreaterThan(0);
      // UserBasic's fields first (a snippet's author adds its own after them).
      for (const [at, u] of mine) expect(JSON.stringify(Object.fromEntries(Object.entries(u).slice(0, 7))), `${path} ${at}`).toBe(JSON.stringify(expected));
    }
  };
  const basic = (u: any, base: string): Record<string, unknown> => ({
    id: u.id,
    username: u.username,
    name: u.name,
    state: u.state,
    locked: u.state === 'blocked',
    avatar_url: u.avatar_url ?? null,
    web_url: `${base}/${u.username}`,
  });
  const elsewhere = async () => ok(await s.put(`/projects/${project.id}`, { description: `elsewhere ${++touches}` }));

  beforeAll(async () => {
    author = await s.createUser();
    other = await s.createUser();
    group = await s.createGroup();
    project = await s.createProject({ namespace_id: group.id, initialize_with_readme: true });
    await s.addMember('projects', project.id, author.user.id, 40);
    await s.addMember('groups', group.id, author.user.id, 40);
    await s.addMember('projects', project.id, other.user.id, 30);
    const label = ok(await s.post(`/projects/${project.id}/labels`, { name: 'bug', color: '#ff0000' }));
    issue = ok(await s.post(`/projects/${project.id}/issues`, { title: 'One', assignee_ids: [author.user.id, other.user.id] }, { token: author.token }));
    ok(await s.post(`/projects/${project.id}/issues`, { title: 'Two', assignee_ids: [other.user.id] }, { token: other.token }));
    ok(await s.put(`/projects/${project.id}/issues/${issue.iid}`, { labels: label.name }, { token: author.token }));
    ok(await s.post(`/projects/${project.id}/repository/branches`, { branch: 'feature', ref: 'main' }));
    mr = ok(
      await s.post(
        `/projects/${project.id}/merge_requests`,
        { title: 'Change', source_branch: 'feature', target_branch: 'main', assignee_ids: [author.user.id], reviewer_ids: [author.user.id] },
        { token: author.token },
      ),
    );
    ok(await s.post(`/projects/${project.id}/issues/${issue.iid}/notes`, { body: 'A note' }, { token: author.token }));
    ok(await s.post(`/projects/${project.id}/merge_requests/${mr.iid}/notes`, { body: 'An MR note' }, { token: author.token }));
    const thread = ok(await s.post(`/projects/${project.id}/merge_requests/${mr.iid}/discussions`, { body: 'A thread' }, { token: other.token }));
    ok(await s.put(`/projects/${project.id}/merge_requests/${mr.iid}/discussions/${thread.id}`, { resolved: true }, { token: author.token }));
    ok(await s.post(`/projects/${project.id}/issues/${issue.iid}/award_emoji`, { name: 'thumbsup' }, { token: author.token }));
    ok(await s.post(`/projects/${project.id}/snippets`, { title: 'Snip', file_name: 'a.txt', content: 'x', visibility: 'private' }, { token: author.token }));
    epic = ok(await s.post(`/groups/${group.id}/epics`, { title: 'Epic' }, { token: author.token }));
  });

  it('shows the user as their own GET does, in every list, after writes elsewhere', async () => {
    const base = new URL(s.url).origin;
    const own = ok(await s.get(`/users/${author.user.id}`));
    await expectShown(basic(own, base));
    await elsewhere();
    await expectShown(basic(own, base));
  });

  it('shows a rename, a new username, a block and an avatar at the next page (API writes)', async () => {
    const base = new URL(s.url).origin;
    await expectShown(basic(ok(await s.get(`/users/${author.user.id}`)), base));
    ok(await s.put(`/users/${author.user.id}`, { name: 'Renamed Author' }));
    await expectShown({ ...basic(ok(await s.get(`/users/${author.user.id}`)), base), name: 'Renamed Author' });
    const username = `renamed_${author.user.id}`;
    ok(await s.put(`/users/${author.user.id}`, { username }));
    const renamed = ok(await s.get(`/users/${author.user.id}`));
    expect(renamed.username).toBe(username);
    await expectShown(basic(renamed, base));
    expect((await s.post(`/users/${author.user.id}/block`, {})).status).toBe(201);
    await expectShown({ ...basic(renamed, base), state: 'blocked', locked: true });
    expect((await s.post(`/users/${author.user.id}/unblock`, {})).status).toBe(201);
    await expectShown(basic(renamed, base));
  });

  it('shows SQL writes to the user row at the next page', async () => {
    const base = new URL(s.url).origin;
    const before = ok(await s.get(`/users/${author.user.id}`));
    await expectShown(basic(before, base));
    db().prepare('UPDATE users SET name = ? WHERE id = ?').run('Written By SQL', author.user.id);
    await expectShown({ ...basic(before, base), name: 'Written By SQL' });
    db().prepare('UPDATE users SET avatar = ? WHERE id = ?').run('face.png', author.user.id);
    await expectShown({
      ...basic(before, base),
      name: 'Written By SQL',
      avatar_url: `${base}/uploads/-/system/user/avatar/${author.user.id}/face.png`,
    });
    db().prepare('UPDATE users SET avatar = NULL, name = ? WHERE id = ?').run(before.name, author.user.id);
    await expectShown(basic(before, base));
  });

  it("shows each request's own base URL in the user's links", async () => {
    const u = ok(await s.get(`/users/${author.user.id}`));
    await expectShown(basic(u, new URL(s.url).origin));
    await expectShown(basic(u, 'http://sandlab.example:8080'), 'sandlab.example:8080');
    await expectShown(basic(u, new URL(s.url).origin));
  });
});

describe("a user's last activity day", () => {
  it('is written when the day changes, and leaves the users table alone within a day', async () => {
    const { user, token } = await s.createUser();
    const project = await s.createProject();
    await s.addMember('projects', project.id, user.id, 30);
    const lastActivity = () => (db().prepare('SELECT last_activity_on FROM users WHERE id = ?').get(user.id) as { last_activity_on: string | null }).last_activity_on;
    ok(await s.post(`/projects/${project.id}/issues`, { title: 'First' }, { token }));
    const today = lastActivity();
    expect(today).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const version = usersVersion();
    ok(await s.post(`/projects/${project.id}/issues`, { title: 'Second' }, { token }));
    ok(await s.post(`/projects/${project.id}/issues/1/notes`, { body: 'noted' }, { token }));
    expect(usersVersion()).toBe(version);
    expect(lastActivity()).toBe(today);
    // An earlier day (yesterday's activity) is moved on to today by the next event.
    db().prepare('UPDATE users SET last_activity_on = ? WHERE id = ?').run('2001-02-03', user.id);
    ok(await s.post(`/projects/${project.id}/issues`, { title: 'Third' }, { token }));
    expect(lastActivity()).toBe(today);
    db().prepare('UPDATE users SET last_activity_on = NULL WHERE id = ?').run(user.id);
    ok(await s.post(`/projects/${project.id}/issues`, { title: 'Fourth' }, { token }));
    expect(lastActivity()).toBe(today);
    const activities = ok(await s.get('/user/activities', { query: { from: '2000-01-01' } }));
    expect(activities.find((a: any) => a.username === user.username)?.last_activity_on).toBe(today);
  });
});
