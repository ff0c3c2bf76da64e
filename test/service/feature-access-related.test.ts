import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, TestService } from '../helpers/service';

/**
 * Issues and merge requests of a project whose feature is private or disabled, reached from other
 * records or APIs (see src/main/service/areas/core/feature-access.ts; feature-access.test.ts pins the
 * issue and merge request APIs themselves). GitLab answers each through read_issue /
 * read_merge_request, which ProjectFeature's level decides: award emoji ("404 Award Emoji Not
 * Found"), issue links, closing and related lists, an epic's issues, to-dos, events, the project
 * search's notes and Markdown references leave out what the caller may not read.
 */
let s: TestService;
let group: { id: number };
let epic: { iid: number };
const p: Record<'open' | 'priv' | 'off', { id: number }> = {} as never;
const u: Record<'guest' | 'reporter' | 'outsider', { user: { id: number }; token: string }> = {} as never;
const names = ['open', 'priv', 'off'] as const;
// Each merge request closes the open project's issue #1 and its own project's #1.
const closes: Record<(typeof names)[number], string> = { open: 'Closes #1, fa/fa-priv#1 and fa/fa-off#1', priv: 'Closes fa/fa-open#1 and #1', off: 'Closes fa/fa-open#1 and #1' };

beforeAll(async () => {
  s = await TestService.start();
  for (const name of ['guest', 'reporter', 'outsider'] as const) u[name] = await s.createUser({ username: `far-${name}` });
  group = await s.createGroup({ path: 'fa', visibility: 'public' });
  epic = ok(await s.post(`/groups/${group.id}/epics`, { title: 'the epic' }));
  for (const name of names) {
    p[name] = await s.createProject({ name: `fa-${name}`, namespace_id: group.id, visibility: 'public', initialize_with_readme: true });
    const issue = ok(await s.post(`/projects/${p[name].id}/issues`, { title: `issue of ${name}` }));
    ok(await s.post(`/groups/${group.id}/epics/${epic.iid}/issues/${issue.id}`));
  }
  for (const name of names) {
    ok(await s.post(`/projects/${p[name].id}/repository/branches`, { branch: `topic-${name}`, ref: 'main' }));
    ok(await s.post(`/projects/${p[name].id}/merge_requests`, { title: `mr of ${name}`, source_branch: `topic-${name}`, target_branch: 'main', description: closes[name] }));
    for (const rec of ['issues', 'merge_requests'] as const) {
      ok(await s.post(`/projects/${p[name].id}/${rec}/1/award_emoji`, { name: 'thumbsup' }));
      ok(await s.post(`/projects/${p[name].id}/${rec}/1/notes`, { body: `note on ${rec} of ${name}` }));
      for (const who of ['outsider', 'guest'] as const) ok(await s.post(`/projects/${p[name].id}/${rec}/1/todo`, {}, { token: u[who].token }));
    }
    if (name !== 'open') ok(await s.post(`/projects/${p.open.id}/issues/1/links`, { target_project_id: p[name].id, target_issue_iid: 1 }));
  }
  for (const name of ['priv', 'off'] as const) {
    await s.addMember('projects', p[name].id, u.guest.user.id, 10);
    await s.addMember('projects', p[name].id, u.reporter.user.id, 20);
  }
  ok(await s.put(`/projects/${p.priv.id}`, { issues_access_level: 'private', merge_requests_access_level: 'private' }));
  ok(await s.put(`/projects/${p.off.id}`, { issues_access_level: 'disabled', merge_requests_access_level: 'disabled' }));
}, 120_000);
afterAll(async () => s?.stop());

type Who = 'root' | 'anonymous' | keyof typeof u;
const as = (who: Who) => ({ token: who === 'root' ? undefined : who === 'anonymous' ? null : u[who].token });
const get = async (path: string, who: Who, query: Record<string, string> = {}) => {
  const res = await s.get(path, { ...as(who), query: { per_page: '100', ...query } });
  expect(res.status, `${path} as ${who}: ${res.text}`).toBe(200);
  return res;
};
const titles = async (path: string, who: Who, query: Record<string, string> = {}) => ((await get(path, who, query)).body as { title: string }[]).map((r) => r.title);

describe('award emoji', () => {
  it('on an issue or merge request the caller may not read: 404 Award Emoji Not Found (a missing one stays 404 Not found)', async () => {
    const cases: [Who, 'priv' | 'off', 'issues' | 'merge_requests', number][] = [
      ['outsider', 'priv', 'issues', 404],
      ['outsider', 'priv', 'merge_requests', 404],
      ['guest', 'priv', 'issues', 200],
      ['guest', 'priv', 'merge_requests', 404],
      ['reporter', 'priv', 'merge_requests', 200],
      ['root', 'priv', 'merge_requests', 200],
      ['root', 'off', 'issues', 404],
      ['root', 'off', 'merge_requests', 404],
    ];
    for (const [who, name, rec, status] of cases) {
      const base = `/projects/${p[name].id}/${rec}/1/award_emoji`;
      const list = await s.get(base, as(who));
      expect(list.status, `${who} ${base}`).toBe(status);
      if (status === 404) {
        expect(list.body).toEqual({ message: '404 Award Emoji Not Found' });
        expect((await s.post(base, { name: 'tada' }, as(who))).body).toEqual({ message: '404 Award Emoji Not Found' });
      } else {
        expect((list.body as { name: string }[]).map((a) => a.name)).toEqual(['thumbsup']);
      }
    }
    expect((await s.get(`/projects/${p.off.id}/issues/9/award_emoji`)).body).toEqual({ message: '404 Not found' });
    expect((await s.get(`/projects/${p.priv.id}/merge_requests/9/award_emoji`, as('outsider'))).body).toEqual({ message: '404 Not found' });
  });
});

describe('records reached from another one', () => {
  it("an issue's links leave out the linked issues the caller may not read", async () => {
    expect(await titles(`/projects/${p.open.id}/issues/1/links`, 'outsider')).toEqual([]);
    expect(await titles(`/projects/${p.open.id}/issues/1/links`, 'guest')).toEqual(['issue of priv']);
    expect(await titles(`/projects/${p.open.id}/issues/1/links`, 'root')).toEqual(['issue of priv']);
    const link = ((await get(`/projects/${p.open.id}/issues/1/links`, 'guest')).body as { issue_link_id: number }[])[0].issue_link_id;
    expect((await s.get(`/projects/${p.open.id}/issues/1/links/${link}`, as('outsider'))).status).toBe(404);
    expect((await s.get(`/projects/${p.open.id}/issues/1/links/${link}`, as('guest'))).status).toBe(200);
  });

  it('closing and related lists: merge requests and issues the caller may not read left out', async () => {
    const related = `/projects/${p.open.id}/issues/1/related_merge_requests`;
    expect(await titles(related, 'outsider')).toEqual(['mr of open']);
    expect(await titles(related, 'guest')).toEqual(['mr of open']);
    expect(await titles(related, 'reporter')).toEqual(['mr of open', 'mr of priv']);
    expect(await titles(related, 'root')).toEqual(['mr of open', 'mr of priv']);
    // closed_by reads the project's merge requests through MergeRequestsFinder: none without the feature.
    const closedBy = await get(`/projects/${p.priv.id}/issues/1/closed_by`, 'guest');
    expect(closedBy.body).toEqual([]);
    expect(closedBy.headers.get('x-total')).toBe('0');
    expect(await titles(`/projects/${p.priv.id}/issues/1/closed_by`, 'reporter')).toEqual(['mr of priv']);
    expect(await titles(`/projects/${p.open.id}/merge_requests/1/closes_issues`, 'outsider')).toEqual(['issue of open']);
    expect(await titles(`/projects/${p.open.id}/merge_requests/1/closes_issues`, 'guest')).toEqual(['issue of open', 'issue of priv']);
    expect(await titles(`/projects/${p.open.id}/merge_requests/1/closes_issues`, 'root')).toEqual(['issue of open', 'issue of priv']);
    expect(await titles(`/projects/${p.open.id}/merge_requests/1/related_issues`, 'outsider')).toEqual(['issue of open']);
  });

  it("a commit's merge requests: 403 where the caller may not read the project's (authorize! :read_merge_request)", async () => {
    const path = (name: 'open' | 'priv' | 'off') => `/projects/${p[name].id}/repository/commits/main/merge_requests`;
    expect((await s.get(path('priv'), as('guest'))).status).toBe(403);
    expect((await s.get(path('off'), as('root'))).status).toBe(403);
    expect((await s.get(path('priv'), as('reporter'))).status).toBe(200);
    expect((await s.get(path('open'), as('outsider'))).status).toBe(200);
  });

  it("an epic's issues leave out those the caller may not read", async () => {
    const list = `/groups/${group.id}/epics/${epic.iid}/issues`;
    expect(await titles(list, 'outsider')).toEqual(['issue of open']);
    expect(await titles(list, 'anonymous')).toEqual(['issue of open']);
    expect(await titles(list, 'guest')).toEqual(['issue of open', 'issue of priv']);
    expect(await titles(list, 'root')).toEqual(['issue of open', 'issue of priv']);
  });

  it("to-dos: a page leaves out those whose target the caller may not read, counted as GitLab counts them (filtered after paging)", async () => {
    const todos = async (who: Who) => {
      const res = await get('/todos', who);
      return { targets: (res.body as { target: { title: string } }[]).map((t) => t.target.title), total: res.headers.get('x-total') };
    };
    expect(await todos('outsider')).toEqual({ targets: ['mr of open', 'issue of open'], total: '6' });
    expect(await todos('guest')).toEqual({ targets: ['issue of priv', 'mr of open', 'issue of open'], total: '6' });
  });

  it('events leave out issues and merge requests (and notes on them) the caller may not read', async () => {
    const targets = async (path: string, who: Who) =>
      ((await get(path, who)).body as { target_type: string | null; target_title: string | null }[])
        .filter((e) => e.target_type)
        .map((e) => `${e.target_type}: ${e.target_title}`)
        .sort();
    expect(await targets(`/projects/${p.priv.id}/events`, 'outsider')).toEqual([]);
    expect(await targets(`/projects/${p.priv.id}/events`, 'guest')).toEqual(['Issue: issue of priv', 'Note: issue of priv']);
    expect(await targets(`/projects/${p.priv.id}/events`, 'reporter')).toEqual(['Issue: issue of priv', 'MergeRequest: mr of priv', 'Note: issue of priv', 'Note: mr of priv']);
    expect(await targets(`/projects/${p.off.id}/events`, 'root')).toEqual([]);
    const byRoot = await targets('/users/1/events', 'outsider');
    expect(byRoot.filter((t) => t.endsWith('of open'))).toHaveLength(4);
    expect(byRoot.filter((t) => !t.endsWith('of open'))).toEqual([]);
  });

  it("the project search's notes leave out notes on issues or merge requests the caller may not read", async () => {
    const notes = async (name: 'priv' | 'off', who: Who) =>
      ((await get(`/projects/${p[name].id}/search`, who, { scope: 'notes', search: 'note on' })).body as { body: string }[]).map((n) => n.body);
    expect(await notes('priv', 'outsider')).toEqual([]);
    expect(await notes('priv', 'guest')).toEqual(['note on issues of priv']);
    expect(await notes('priv', 'reporter')).toEqual(['note on merge_requests of priv', 'note on issues of priv']);
    expect(await notes('off', 'root')).toEqual([]);
    const res = await get(`/projects/${p.off.id}/search`, 'root', { scope: 'notes', search: 'note on' });
    expect(res.headers.get('x-total')).toBe('0');
  });

  it('Markdown references to issues and merge requests the caller may not read stay text', async () => {
    const html = async (who: Who) => ok(await s.post('/markdown', { text: '#1 and !1', gfm: true, project: 'fa/fa-priv' }, as(who))).html as string;
    expect(await html('outsider')).not.toContain('gfm-issue');
    expect(await html('outsider')).not.toContain('gfm-merge_request');
    expect(await html('guest')).toContain('gfm-issue');
    expect(await html('guest')).not.toContain('gfm-merge_request');
    expect(await html('reporter')).toContain('gfm-merge_request');
  });
});
