import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, TestService } from '../helpers/service';
import { preparedBy, queryPlan } from '../helpers/lists';

/**
 * PUT /projects/:id/labels/:label_id/promote as GitLab's Labels::PromoteService: the group label of
 * that title (found, or a new one from the project label's title, color and description) takes in
 * every project label of exactly that title in the group's own projects: their records (which carry
 * titles), label events, per-project priorities and subscriptions (one per user) move to it, and
 * those project labels are deleted. A subgroup's projects and other spellings keep theirs.
 */
let s: TestService;
let group: { id: number };
const p: Record<'a' | 'b' | 'sub', { id: number }> = {} as never;
const u: Record<'ann' | 'bob', { user: { id: number }; token: string }> = {} as never;
const bug: Record<'a' | 'b' | 'sub', number> = {} as never;

beforeAll(async () => {
  s = await TestService.start();
  for (const name of ['ann', 'bob'] as const) u[name] = await s.createUser({ username: `pm-${name}` });
  group = await s.createGroup({ path: 'pm', visibility: 'public' });
  const sub = await s.createGroup({ path: 'pm-sub', parent_id: group.id, visibility: 'public' });
  p.a = await s.createProject({ name: 'pm-a', namespace_id: group.id, visibility: 'public' });
  p.b = await s.createProject({ name: 'pm-b', namespace_id: group.id, visibility: 'public' });
  p.sub = await s.createProject({ name: 'pm-sub-p', namespace_id: sub.id, visibility: 'public' });
  const priority = { a: 2, b: 5, sub: 1 };
  for (const name of ['a', 'b', 'sub'] as const) {
    bug[name] = ok(await s.post(`/projects/${p[name].id}/labels`, { name: 'bug', color: name === 'a' ? '#AA0000' : '#00BB00', description: `bug of ${name}`, priority: priority[name] })).id;
    ok(await s.post(`/projects/${p[name].id}/issues`, { title: `issue of ${name}` }));
    ok(await s.put(`/projects/${p[name].id}/issues/1`, { add_labels: 'bug' }));
  }
  ok(await s.post(`/projects/${p.b.id}/labels`, { name: 'Bug', color: '#0000CC' }));
  ok(await s.post(`/projects/${p.b.id}/issues`, { title: 'other spelling', labels: 'Bug' }));
  for (const [who, name] of [['ann', 'a'], ['ann', 'b'], ['bob', 'b']] as const) ok(await s.post(`/projects/${p[name].id}/labels/${bug[name]}/subscribe`, {}, { token: u[who].token }));
}, 120_000);
afterAll(async () => s?.stop());

const labelsOf = async (project: { id: number }, token?: string) =>
  (ok(await s.get(`/projects/${project.id}/labels`, { token, query: { per_page: '100' } })) as { id: number; name: string; priority: number | null; is_project_label: boolean; subscribed: boolean }[])
    .filter((l) => l.name.toLowerCase() === 'bug')
    .map((l) => ({ name: l.name, id: l.id, priority: l.priority, project: l.is_project_label, subscribed: l.subscribed }));

describe('promoting a project label', () => {
  it("merges every same-title label of the group's projects into one new group label", async () => {
    const res = await s.put(`/projects/${p.a.id}/labels/${bug.a}/promote`, {});
    expect(res.status).toBe(200);
    const promoted = res.body as { id: number; name: string; color: string; description: string; is_project_label: boolean };
    expect(promoted).toMatchObject({ name: 'bug', color: '#AA0000', description: 'bug of a' });
    expect(promoted).not.toHaveProperty('is_project_label');
    expect([bug.a, bug.b, bug.sub]).not.toContain(promoted.id);
    const g = promoted.id;
    // The project labels merged are gone; the subgroup's project and the other spelling keep theirs.
    for (const [project, id] of [[p.a, bug.a], [p.b, bug.b]] as const) expect((await s.get(`/projects/${project.id}/labels/${id}`)).status).toBe(404);
    expect(await labelsOf(p.a)).toEqual([{ name: 'bug', id: g, priority: 2, project: false, subscribed: false }]);
    expect((await labelsOf(p.b)).sort((x, y) => Number(x.project) - Number(y.project))).toEqual([
      { name: 'bug', id: g, priority: 5, project: false, subscribed: false },
      { name: 'Bug', id: expect.any(Number), priority: null, project: true, subscribed: false },
    ]);
    expect((await labelsOf(p.sub)).find((l) => l.project)).toEqual({ name: 'bug', id: bug.sub, priority: 1, project: true, subscribed: false });
    // Subscriptions moved, one per user.
    expect((await labelsOf(p.a, u.ann.token))[0].subscribed).toBe(true);
    expect((await labelsOf(p.b, u.bob.token)).find((l) => l.id === g)!.subscribed).toBe(true);
    const subs = s.service.context.db.prepare('SELECT user_id FROM label_subscriptions WHERE label_id = ? ORDER BY user_id').all(g) as { user_id: number }[];
    expect(subs.map((r) => r.user_id)).toEqual([u.ann.user.id, u.bob.user.id]);
  });

  it('the records keep their label, now the group label, and their label events name it', async () => {
    const g = (ok(await s.get(`/groups/${group.id}/labels`, { query: { search: 'bug' } })) as { id: number; name: string }[]).find((l) => l.name === 'bug')!.id;
    for (const project of [p.a, p.b]) {
      const list = await s.get(`/projects/${project.id}/issues`, { query: { labels: 'bug', search: 'issue of', with_labels_details: 'true' } });
      expect(list.headers.get('x-total')).toBe('1');
      expect((list.body as { labels: { id: number; name: string }[] }[])[0].labels.map((l) => [l.id, l.name])).toEqual([[g, 'bug']]);
      const events = ok(await s.get(`/projects/${project.id}/issues/1/resource_label_events`)) as { label: { id: number; name: string } | null; action: string }[];
      expect(events.map((e) => [e.action, e.label?.id, e.label?.name])).toEqual([['add', g, 'bug']]);
    }
    const sub = ok(await s.get(`/projects/${p.sub.id}/issues/1/resource_label_events`)) as { label: { id: number } }[];
    expect(sub.map((e) => e.label.id)).toEqual([bug.sub]);
  });

  it('into the group label of that title where there is one already (its id, color and priorities kept)', async () => {
    const own = ok(await s.post(`/projects/${p.b.id}/labels`, { name: 'dupe', color: '#654321', priority: 7 }));
    const existing = ok(await s.post(`/groups/${group.id}/labels`, { name: 'dupe', color: '#123456' }));
    ok(await s.post(`/projects/${p.b.id}/issues`, { title: 'duped', labels: 'dupe' }));
    ok(await s.post(`/projects/${p.b.id}/labels/${own.id}/subscribe`, {}, { token: u.bob.token }));
    const res = ok(await s.put(`/projects/${p.b.id}/labels/${own.id}/promote`, {}));
    expect(res).toMatchObject({ id: existing.id, color: '#123456' });
    expect((await s.get(`/projects/${p.b.id}/labels/${own.id}`)).status).toBe(404);
    const mine = ok(await s.get(`/projects/${p.b.id}/labels/${existing.id}`, { token: u.bob.token }));
    expect(mine).toMatchObject({ name: 'dupe', priority: 7, subscribed: true, is_project_label: false });
    const duped = ok(await s.get(`/projects/${p.b.id}/issues`, { query: { labels: 'dupe' } })) as { title: string; labels: string[] }[];
    expect(duped.map((i) => [i.title, i.labels])).toEqual([['duped', ['dupe']]]);
  });

  it('by name through the deprecated PUT /projects/:id/labels/promote (GitLab routes it before /labels/:name)', async () => {
    ok(await s.post(`/projects/${p.a.id}/labels`, { name: 'by-name', color: '#0A0A0A' }));
    const res = await s.put(`/projects/${p.a.id}/labels/promote`, { name: 'by-name' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'by-name', color: '#0A0A0A' });
    expect((ok(await s.get(`/groups/${group.id}/labels`, { query: { search: 'by-name' } })) as { name: string }[]).map((l) => l.name)).toEqual(['by-name']);
    expect((await s.put(`/projects/${p.a.id}/labels/promote`, {})).status).toBe(400);
  });

  it('outside a group: 400 Failed to promote project label to group label, before the label is looked up', async () => {
    const personal = await s.createProject({ name: 'pm-personal' });
    const own = ok(await s.post(`/projects/${personal.id}/labels`, { name: 'mine', color: '#0A0A0A' }));
    for (const ref of [own.id, 999999]) {
      const res = await s.put(`/projects/${personal.id}/labels/${ref}/promote`, {});
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: 'Failed to promote project label to group label' });
    }
  });

  it("finds the labels to merge by each project's title index, not the labels walked (a million in one project at scale)", async () => {
    const own = ok(await s.post(`/projects/${p.a.id}/labels`, { name: 'planned', color: '#0A0A0A' }));
    const seen = await preparedBy(s, async () => ok(await s.put(`/projects/${p.a.id}/labels/${own.id}/promote`, {})));
    const lookup = seen.find((sql) => sql.startsWith('SELECT id, project_id, priority FROM labels'))!;
    expect(queryPlan(s.service.context.db, lookup, group.id, 'planned')).toMatch(/SEARCH labels USING INDEX labels_project_title \(project_id=\? AND title=\?\)/);
  });
});
