import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, TestService } from '../helpers/service';
import { expectEveryPage } from '../helpers/lists';

/**
 * Issue and merge request list parameters GitLab offers that Sandlab ignored or answered with a
 * 500 (fil13's audit, /work/notes/15-s12-fil13-audit.txt): `scope` on a project's and a group's
 * lists (IssuableFinder#by_scope), the instance's merge requests `scope=reviews_for_me`, and each
 * list's own `order_by` values (GitLab's 400 for the other's).
 */
let s: TestService;
let group: number;
let alpha: number;
let beta: number;
let me: { id: number; token: string };
let other: { id: number; token: string };

type Kind = 'issues' | 'merge_requests';
interface Row { id: number; project_id: number; author_id: number; assignee_ids: string; reviewer_ids?: string }
const db = () => s.service.context.db;

function expected(kind: Kind, projects: number[], keep: (r: Row) => boolean): number[] {
  const rows = db().prepare(`SELECT * FROM ${kind} ORDER BY created_at DESC, id DESC`).all() as Row[];
  return rows.filter((r) => projects.includes(r.project_id) && keep(r)).map((r) => r.id);
}
const names = (r: Row, column: 'assignee_ids' | 'reviewer_ids', id: number) => (JSON.parse((r[column] as string | undefined) ?? '[]') as number[]).includes(id);

beforeAll(async () => {
  s = await TestService.start();
  const a = await s.createUser();
  const b = await s.createUser();
  me = { id: a.user.id, token: a.token };
  other = { id: b.user.id, token: b.token };
  group = ok(await s.post('/groups', { name: 'sc', path: 'sc', visibility: 'public' })).id;
  alpha = ok(await s.post('/projects', { name: 'alpha', namespace_id: group, visibility: 'public' })).id;
  beta = ok(await s.post('/projects', { name: 'beta', namespace_id: group, visibility: 'public' })).id;
  for (const u of [me, other]) await s.addMember('groups', group, u.id, 30);
  for (let n = 0; n < 24; n++) {
    const project = n % 3 ? alpha : beta;
    const author = n % 4 === 0 ? other : me;
    const assignee = [n % 3 === 0 ? me.id : other.id];
    const reviewer = [n % 5 === 0 ? me.id : other.id];
    ok(await s.post(`/projects/${project}/issues`, { title: `issue ${n}`, assignee_ids: assignee }, { token: author.token }));
    ok(await s.post(`/projects/${project}/merge_requests`, { title: `mr ${n}`, source_branch: `b${n}`, target_branch: 'main', assignee_ids: assignee, reviewer_ids: reviewer }, { token: author.token }));
  }
}, 120_000);
afterAll(async () => s?.stop());

describe('scope on project and group lists', () => {
  for (const kind of ['issues', 'merge_requests'] as const) {
    it(`${kind}: created_by_me, assigned_to_me${kind === 'merge_requests' ? ', reviews_for_me' : ''} and all, every page, as each user`, async () => {
      const lists: [string, number[]][] = [
        [`/projects/${alpha}/${kind}`, [alpha]],
        [`/groups/${group}/${kind}`, [alpha, beta]],
      ];
      for (const [path, projects] of lists) {
        for (const user of [me, other]) {
          const scopes: [string, (r: Row) => boolean][] = [
            ['created_by_me', (r) => r.author_id === user.id],
            ['created-by-me', (r) => r.author_id === user.id],
            ['assigned_to_me', (r) => names(r, 'assignee_ids', user.id)],
            ['all', () => true],
            ...(kind === 'merge_requests' ? ([['reviews_for_me', (r: Row) => names(r, 'reviewer_ids', user.id)]] as [string, (r: Row) => boolean][]) : []),
          ];
          for (const [scope, keep] of scopes) {
            await expectEveryPage(s, path, { scope }, expected(kind, projects, keep), 5, user.token);
            // With another filter on top.
            await expectEveryPage(s, path, { scope, state: 'opened', author_id: String(me.id) }, expected(kind, projects, (r) => keep(r) && r.author_id === me.id), 4, user.token);
          }
        }
        // An anonymous caller has no records of their own (IssuableFinder: none), and every record for all.
        const anonymous = await s.get(path, { token: null, query: { scope: 'created_by_me' } });
        expect(anonymous.status).toBe(200);
        expect(anonymous.body).toEqual([]);
        await expectEveryPage(s, path, { scope: 'all' }, expected(kind, projects, () => true), 10, null as unknown as string);
        const bad = await s.get(path, { query: { scope: kind === 'issues' ? 'reviews_for_me' : 'mine' } });
        expect(bad.status).toBe(400);
        expect(bad.body).toEqual({ error: 'scope does not have a valid value' });
      }
    });
  }

  it("the instance's merge requests: scope=reviews_for_me is the caller's review requests", async () => {
    for (const user of [me, other]) {
      await expectEveryPage(s, '/merge_requests', { scope: 'reviews_for_me' }, expected('merge_requests', [alpha, beta], (r) => names(r, 'reviewer_ids', user.id)), 4, user.token);
    }
    expect((await s.get('/issues', { query: { scope: 'reviews_for_me' } })).status).toBe(400);
  });
});

describe('order_by', () => {
  it("answers GitLab's 400 for the other list's orders (they were a 500, or created_at's order)", async () => {
    const bad: [string, string][] = [
      [`/projects/${alpha}/issues`, 'merged_at'],
      [`/groups/${group}/issues`, 'merged_at'],
      [`/projects/${alpha}/merge_requests`, 'due_date'],
      [`/projects/${alpha}/merge_requests`, 'relative_position'],
      ['/merge_requests', 'due_date'],
    ];
    for (const [path, order] of bad) {
      const res = await s.get(path, { query: { order_by: order } });
      expect(res.status, `${path} ${order}`).toBe(400);
      expect(res.body).toEqual({ error: 'order_by does not have a valid value' });
    }
    for (const [path, order] of [[`/projects/${alpha}/issues`, 'due_date'], [`/projects/${alpha}/issues`, 'relative_position'], [`/projects/${alpha}/merge_requests`, 'merged_at']]) {
      expect((await s.get(path, { query: { order_by: order } })).status, `${path} ${order}`).toBe(200);
    }
  });
});

describe('non_archived', () => {
  it("leaves an archived project's records out of a group's issues and merge requests and the instance's issues, unless non_archived=false", async () => {
    const archived = ok(await s.post('/projects', { name: 'gone', namespace_id: group, visibility: 'public' })).id;
    for (let n = 0; n < 3; n++) {
      ok(await s.post(`/projects/${archived}/issues`, { title: `old issue ${n}`, assignee_ids: [me.id] }, { token: me.token }));
      ok(await s.post(`/projects/${archived}/merge_requests`, { title: `old mr ${n}`, source_branch: `old${n}`, target_branch: 'main' }, { token: me.token }));
    }
    expect((await s.post(`/projects/${archived}/archive`, {})).status).toBe(201);
    const live = [alpha, beta];
    const all = [alpha, beta, archived];
    for (const token of [undefined, me.token, other.token]) {
      for (const kind of ['issues', 'merge_requests'] as const) {
        await expectEveryPage(s, `/groups/${group}/${kind}`, {}, expected(kind, live, () => true), 9, token);
        await expectEveryPage(s, `/groups/${group}/${kind}`, { non_archived: 'true', state: 'opened' }, expected(kind, live, () => true), 9, token);
        await expectEveryPage(s, `/groups/${group}/${kind}`, { non_archived: 'false' }, expected(kind, all, () => true), 9, token);
        await expectEveryPage(s, `/groups/${group}/${kind}`, { non_archived: 'false', scope: 'assigned_to_me' }, expected(kind, all, (r) => names(r, 'assignee_ids', me.id)), 4, me.token);
      }
      await expectEveryPage(s, '/issues', { scope: 'all' }, expected('issues', live, () => true), 9, token);
      await expectEveryPage(s, '/issues', { scope: 'all', non_archived: 'false' }, expected('issues', all, () => true), 9, token);
      // The instance's merge requests take no non_archived (lib/api/merge_requests.rb): every visible one.
      await expectEveryPage(s, '/merge_requests', { scope: 'all' }, expected('merge_requests', all, () => true), 9, token);
    }
    await expectEveryPage(s, '/issues', { scope: 'assigned_to_me' }, expected('issues', live, (r) => names(r, 'assignee_ids', me.id)), 5, me.token);
    await expectEveryPage(s, '/issues', { scope: 'assigned_to_me', non_archived: 'false' }, expected('issues', all, (r) => names(r, 'assignee_ids', me.id)), 5, me.token);
    // A project's own list takes none either: an archived project lists its records.
    await expectEveryPage(s, `/projects/${archived}/issues`, {}, expected('issues', [archived], () => true), 2);
    const bad = await s.get(`/groups/${group}/issues`, { query: { non_archived: 'maybe' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'non_archived is invalid' });
  });
});

describe('labels', () => {
  it("sorted by title, and as LabelBasic with with_labels_details=true (a title no label has: its name alone)", async () => {
    ok(await s.post(`/groups/${group}/labels`, { name: 'zeta', color: '#ff0000', description: 'group **label**' }));
    ok(await s.post(`/projects/${alpha}/labels`, { name: 'Alpha', color: '#00ff00' }));
    const issue = ok(await s.post(`/projects/${alpha}/issues`, { title: 'labelled', labels: 'zeta,Alpha,beta' }));
    const mr = ok(await s.post(`/projects/${alpha}/merge_requests`, { title: 'labelled', source_branch: 'lbl', target_branch: 'main', labels: 'zeta,Alpha,beta' }));
    expect(issue.labels).toEqual(['Alpha', 'beta', 'zeta']);
    expect(mr.labels).toEqual(['Alpha', 'beta', 'zeta']);
    // beta's label deleted: the records keep its title.
    const beta = (ok(await s.get(`/projects/${alpha}/labels`, { query: { search: 'beta' } })) as { id: number; name: string }[]).find((l) => l.name === 'beta')!;
    db().prepare('DELETE FROM labels WHERE id = ?').run(beta.id);
    const labels = (ok(await s.get(`/projects/${alpha}/labels`, { query: { include_ancestor_groups: 'true', per_page: '100' } })) as { id: number; name: string; color: string; description: string | null; description_html: string; text_color: string }[]);
    const basic = (name: string) => {
      const l = labels.find((x) => x.name === name)!;
      return { id: l.id, name: l.name, description: l.description, description_html: l.description_html, text_color: l.text_color, color: l.color };
    };
    const want = [basic('Alpha'), { id: null, name: 'beta' }, basic('zeta')];
    for (const path of [`/projects/${alpha}/issues`, `/groups/${group}/issues`, `/projects/${alpha}/merge_requests`, `/groups/${group}/merge_requests`]) {
      const detailed = ok(await s.get(path, { query: { with_labels_details: 'true', search: 'labelled' } })) as { labels: unknown[] }[];
      expect(detailed.map((r) => r.labels), path).toEqual([want]);
      const plain = ok(await s.get(path, { query: { search: 'labelled' } })) as { labels: unknown[] }[];
      expect(plain.map((r) => r.labels), path).toEqual([['Alpha', 'beta', 'zeta']]);
    }
    expect((ok(await s.get('/issues', { query: { scope: 'all', with_labels_details: 'true', search: 'labelled' } })) as { labels: unknown[] }[])[0].labels).toEqual(want);
  });
});
