import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, TestService } from '../helpers/service';

/**
 * Issues and merge requests of a project whose feature is private or disabled (issues_access_level,
 * merge_requests_access_level, issues_enabled=false), as GitLab answers (see
 * src/main/service/areas/core/feature-access.ts): private to members of Guest (issues) or Reporter
 * (merge requests) and administrators, disabled for no one. Issues: the project's list empty, one
 * issue 404, create/update/delete 403. Merge requests: the project's list, one and create 403.
 * Group and instance lists leave those projects out.
 */
let s: TestService;
let group: { id: number };
const p: Record<'priv' | 'off' | 'open' | 'toggled', { id: number }> = {} as never;
const u: Record<'guest' | 'reporter' | 'outsider', { user: { id: number }; token: string }> = {} as never;

beforeAll(async () => {
  s = await TestService.start();
  for (const name of ['guest', 'reporter', 'outsider'] as const) u[name] = await s.createUser({ username: `fa-${name}` });
  group = await s.createGroup({ path: 'fa', visibility: 'public' });
  for (const name of ['priv', 'off', 'open', 'toggled'] as const) {
    p[name] = await s.createProject({ name: `fa-${name}`, namespace_id: group.id, visibility: 'public', initialize_with_readme: true });
    ok(await s.post(`/projects/${p[name].id}/issues`, { title: `issue of ${name}` }));
    ok(await s.post(`/projects/${p[name].id}/repository/branches`, { branch: `topic-${name}`, ref: 'main' }));
    ok(await s.post(`/projects/${p[name].id}/merge_requests`, { title: `mr of ${name}`, source_branch: `topic-${name}`, target_branch: 'main' }));
  }
  for (const name of ['priv', 'off', 'toggled'] as const) {
    await s.addMember('projects', p[name].id, u.guest.user.id, 10);
    await s.addMember('projects', p[name].id, u.reporter.user.id, 20);
  }
  ok(await s.put(`/projects/${p.priv.id}`, { issues_access_level: 'private', merge_requests_access_level: 'private' }));
  ok(await s.put(`/projects/${p.off.id}`, { issues_access_level: 'disabled', merge_requests_access_level: 'disabled' }));
  ok(await s.put(`/projects/${p.toggled.id}`, { issues_enabled: false, merge_requests_enabled: false }));
}, 120_000);
afterAll(async () => s?.stop());

type Who = 'root' | 'anonymous' | keyof typeof u;
const as = (who: Who) => ({ token: who === 'root' ? undefined : who === 'anonymous' ? null : u[who].token });
const titles = async (path: string, who: Who, query: Record<string, string> = {}) => {
  const res = await s.get(path, { ...as(who), query: { per_page: '100', ...query } });
  expect(res.status, `${path} as ${who}: ${res.text}`).toBe(200);
  expect(res.headers.get('x-total')).toBe(String((res.body as unknown[]).length));
  return (res.body as { title: string }[]).map((r) => r.title);
};
const status = async (method: 'get' | 'post' | 'put' | 'del', path: string, who: Who, body?: unknown) =>
  (method === 'get' || method === 'del' ? await s[method](path, as(who)) : await s[method](path, body, as(who))).status;

describe('issues of a project with the feature private or disabled', () => {
  it("the project's list: empty for those who may not see them (200, X-Total 0, one empty page)", async () => {
    for (const who of ['outsider', 'anonymous'] as const) {
      const res = await s.get(`/projects/${p.priv.id}/issues`, as(who));
      expect(res.status).toBe(200);
      expect(res.body).toEqual([]);
      expect(res.headers.get('x-total')).toBe('0');
      expect(res.headers.get('x-total-pages')).toBe('1');
      expect(res.headers.get('x-page')).toBe('1');
      // The same headers as any empty list of issues.
      const empty = await s.get(`/projects/${p.open.id}/issues`, { ...as(who), query: { search: 'no such words' } });
      for (const h of ['x-total', 'x-total-pages', 'x-per-page', 'x-page', 'x-next-page', 'x-prev-page', 'link']) {
        expect(res.headers.get(h), h).toBe(empty.headers.get(h)?.replaceAll(`/projects/${p.open.id}/`, `/projects/${p.priv.id}/`).replaceAll('&search=no%20such%20words', '') ?? null);
      }
    }
    expect(await titles(`/projects/${p.priv.id}/issues`, 'guest')).toEqual(['issue of priv']);
    expect(await titles(`/projects/${p.priv.id}/issues`, 'root')).toEqual(['issue of priv']);
    for (const who of ['root', 'reporter', 'outsider'] as const) {
      expect(await titles(`/projects/${p.off.id}/issues`, who)).toEqual([]);
      expect(await titles(`/projects/${p.toggled.id}/issues`, who)).toEqual([]);
    }
    expect(await titles(`/projects/${p.open.id}/issues`, 'outsider')).toEqual(['issue of open']);
  });

  it('one issue: 404; create, update and delete: 403 (a missing iid stays 404)', async () => {
    expect(await status('get', `/projects/${p.priv.id}/issues/1`, 'outsider')).toBe(404);
    expect(await status('get', `/projects/${p.priv.id}/issues/1`, 'guest')).toBe(200);
    expect(await status('get', `/projects/${p.off.id}/issues/1`, 'root')).toBe(404);
    expect(await status('get', `/projects/${p.off.id}/issues/1/notes`, 'root')).toBe(404);
    expect(await status('post', `/projects/${p.priv.id}/issues`, 'outsider', { title: 'x' })).toBe(403);
    expect(await status('post', `/projects/${p.off.id}/issues`, 'root', { title: 'x' })).toBe(403);
    expect(await status('post', `/projects/${p.toggled.id}/issues`, 'reporter', { title: 'x' })).toBe(403);
    expect(await status('put', `/projects/${p.off.id}/issues/1`, 'root', { title: 'x' })).toBe(403);
    expect(await status('put', `/projects/${p.off.id}/issues/99`, 'root', { title: 'x' })).toBe(404);
    expect(await status('del', `/projects/${p.off.id}/issues/1`, 'root')).toBe(403);
    expect(await status('post', `/projects/${p.open.id}/issues`, 'outsider', { title: 'open to all' })).toBe(201);
  });

  it('group and instance lists leave those projects out', async () => {
    const groupList = async (who: Who) => (await titles(`/groups/${group.id}/issues`, who)).filter((t) => t !== 'open to all');
    expect(await groupList('root')).toEqual(['issue of open', 'issue of priv']);
    expect(await groupList('guest')).toEqual(['issue of open', 'issue of priv']);
    expect(await groupList('outsider')).toEqual(['issue of open']);
    expect(await groupList('anonymous')).toEqual(['issue of open']);
    const instance = async (who: Who, scope: string) => (await titles('/issues', who, { scope })).filter((t) => t !== 'open to all');
    expect(await instance('root', 'all')).toEqual(['issue of open', 'issue of priv']);
    expect(await instance('root', 'created_by_me')).toEqual(['issue of open', 'issue of priv']);
    expect(await instance('reporter', 'all')).toEqual(['issue of open', 'issue of priv']);
    expect(await instance('outsider', 'all')).toEqual(['issue of open']);
    expect(await instance('anonymous', 'all')).toEqual(['issue of open']);
  });
});

describe('merge requests of a project with the feature private or disabled', () => {
  it("the project's list, one and create: 403 for those who may not see them (private: Reporter and up)", async () => {
    for (const who of ['guest', 'outsider', 'anonymous'] as const) {
      expect(await status('get', `/projects/${p.priv.id}/merge_requests`, who)).toBe(403);
      expect(await status('get', `/projects/${p.priv.id}/merge_requests/1`, who)).toBe(403);
    }
    expect(await titles(`/projects/${p.priv.id}/merge_requests`, 'reporter')).toEqual(['mr of priv']);
    expect(await status('get', `/projects/${p.priv.id}/merge_requests/1`, 'reporter')).toBe(200);
    for (const project of [p.off, p.toggled]) {
      expect(await status('get', `/projects/${project.id}/merge_requests`, 'root')).toBe(403);
      expect(await status('get', `/projects/${project.id}/merge_requests/1`, 'root')).toBe(403);
      expect(await status('get', `/projects/${project.id}/merge_requests/1/participants`, 'root')).toBe(403);
      // The notes and discussions APIs find it through the finder: 404, as for an issue.
      expect(await status('get', `/projects/${project.id}/merge_requests/1/notes`, 'root')).toBe(404);
      expect(await status('get', `/projects/${project.id}/merge_requests/1/discussions`, 'root')).toBe(404);
      expect(await status('get', `/projects/${project.id}/merge_requests/99`, 'root')).toBe(404);
      expect(await status('post', `/projects/${project.id}/merge_requests`, 'root', { title: 'x', source_branch: 'topic-off', target_branch: 'main' })).toBe(403);
    }
    expect(await titles(`/projects/${p.open.id}/merge_requests`, 'outsider')).toEqual(['mr of open']);
  });

  it('group and instance lists leave those projects out', async () => {
    expect(await titles(`/groups/${group.id}/merge_requests`, 'root')).toEqual(['mr of open', 'mr of priv']);
    expect(await titles(`/groups/${group.id}/merge_requests`, 'reporter')).toEqual(['mr of open', 'mr of priv']);
    expect(await titles(`/groups/${group.id}/merge_requests`, 'guest')).toEqual(['mr of open']);
    expect(await titles(`/groups/${group.id}/merge_requests`, 'anonymous')).toEqual(['mr of open']);
    expect(await titles('/merge_requests', 'root', { scope: 'all' })).toEqual(['mr of open', 'mr of priv']);
    expect(await titles('/merge_requests', 'root', { scope: 'created_by_me' })).toEqual(['mr of open', 'mr of priv']);
    expect(await titles('/merge_requests', 'guest', { scope: 'all' })).toEqual(['mr of open']);
  });
});

describe('search and milestone lists leave those projects out too', () => {
  it('the search API (instance, group, project) finds no issue or merge request the caller may not see', async () => {
    const found = async (path: string, who: Who, scope: string) => {
      const res = await s.get(path, { ...as(who), query: { scope, search: 'of', per_page: '100' } });
      expect(res.status, `${path} ${scope} as ${who}: ${res.text}`).toBe(200);
      return (res.body as { title: string }[]).map((r) => r.title).filter((t) => t !== 'open to all').sort();
    };
    expect(await found('/search', 'root', 'issues')).toEqual(['issue of open', 'issue of priv']);
    expect(await found('/search', 'outsider', 'issues')).toEqual(['issue of open']);
    expect(await found('/search', 'guest', 'merge_requests')).toEqual(['mr of open']);
    expect(await found('/search', 'reporter', 'merge_requests')).toEqual(['mr of open', 'mr of priv']);
    expect(await found(`/groups/${group.id}/search`, 'root', 'merge_requests')).toEqual(['mr of open', 'mr of priv']);
    expect(await found(`/groups/${group.id}/search`, 'outsider', 'issues')).toEqual(['issue of open']);
    expect(await found(`/projects/${p.priv.id}/search`, 'outsider', 'issues')).toEqual([]);
    expect(await found(`/projects/${p.priv.id}/search`, 'guest', 'issues')).toEqual(['issue of priv']);
    expect(await found(`/projects/${p.priv.id}/search`, 'guest', 'merge_requests')).toEqual([]);
    expect(await found(`/projects/${p.off.id}/search`, 'root', 'issues')).toEqual([]);
    expect(await found(`/projects/${p.off.id}/search`, 'root', 'merge_requests')).toEqual([]);
  });

  it("a milestone's issues and merge requests: none of the project's, and the group milestone's without those projects", async () => {
    const gm = ok(await s.post(`/groups/${group.id}/milestones`, { title: 'shared' })).id;
    const pm: Record<string, number> = {};
    pm.priv = ok(await s.post(`/projects/${p.priv.id}/milestones`, { title: 'm-priv' })).id;
    for (const rec of ['issues', 'merge_requests'] as const) ok(await s.put(`/projects/${p.open.id}/${rec}/1`, { milestone_id: gm }));
    // Disabled features cannot be written even by root: their records put on the milestones in SQL.
    const db = s.service.context.db;
    for (const name of ['priv', 'off'] as const) {
      db.prepare('UPDATE issues SET milestone_id = ? WHERE project_id = ? AND iid = 1').run(gm, p[name].id);
      db.prepare('UPDATE merge_requests SET milestone_id = ? WHERE project_id = ? AND iid = 1').run(gm, p[name].id);
    }
    const list = async (path: string, who: Who) => titles(path, who);
    expect(await list(`/groups/${group.id}/milestones/${gm}/issues`, 'root')).toEqual(['issue of open', 'issue of priv']);
    expect(await list(`/groups/${group.id}/milestones/${gm}/issues`, 'outsider')).toEqual(['issue of open']);
    expect(await list(`/groups/${group.id}/milestones/${gm}/merge_requests`, 'guest')).toEqual(['mr of open']);
    expect(await list(`/groups/${group.id}/milestones/${gm}/merge_requests`, 'reporter')).toEqual(['mr of open', 'mr of priv']);
    db.prepare('UPDATE issues SET milestone_id = ? WHERE project_id = ? AND iid = 1').run(pm.priv, p.priv.id);
    db.prepare('UPDATE merge_requests SET milestone_id = ? WHERE project_id = ? AND iid = 1').run(pm.priv, p.priv.id);
    // Neither feature available to the outsider: no read_milestone at all (feature-access-labels-milestones.test.ts).
    expect((await s.get(`/projects/${p.priv.id}/milestones/${pm.priv}/issues`, as('outsider'))).status).toBe(403);
    expect(await list(`/projects/${p.priv.id}/milestones/${pm.priv}/issues`, 'guest')).toEqual(['issue of priv']);
    expect(await list(`/projects/${p.priv.id}/milestones/${pm.priv}/merge_requests`, 'guest')).toEqual([]);
    expect(await list(`/projects/${p.priv.id}/milestones/${pm.priv}/merge_requests`, 'reporter')).toEqual(['mr of priv']);
  });
});
