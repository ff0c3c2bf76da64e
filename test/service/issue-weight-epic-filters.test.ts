import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, TestService } from '../helpers/service';
import { expectEveryPage, pagedReads, preparedBy, queryPlan } from '../helpers/lists';

/**
 * The issues lists' EE filters and order on data Sandlab carries: weight= / not[weight]= /
 * order_by=weight (EE IssuesHelpers, IssuesFinder#by_weight, #by_negated_weight, Issue
 * order_weight_*: no weight last either way, ties newest id first) and epic_id= (IssuesFinder
 * #by_epic: the epic's own issues, not its child epics'; None; Any). Every page in a project, a
 * group and the instance, for an administrator and a Guest, against the issues kept here by
 * GitLab's rules; GitLab's 400s.
 */
let s: TestService;
let group: number;
let alpha: number;
let beta: number;
let elsewhere: number;
let guest: string;
let closer: { user: { id: number }; token: string };
let parentEpic: { id: number; iid: number };
let childEpic: { id: number; iid: number };
let otherEpic: { id: number; iid: number };

interface Row { id: number; project_id: number; weight: number | null; confidential: number; state: string; epic_id: number | null; closed_by_id: number | null }
const db = () => s.service.context.db;

function rows(): Row[] {
  return db()
    .prepare('SELECT i.id, i.project_id, i.weight, i.confidential, i.state, i.closed_by_id, ei.epic_id FROM issues i LEFT JOIN epic_issues ei ON ei.issue_id = i.id ORDER BY i.created_at DESC, i.id DESC')
    .all() as Row[];
}

/** The issues of `projects` that `keep` selects, newest first (confidential ones only for an administrator). */
function expected(projects: number[], admin: boolean, keep: (r: Row) => boolean, order: (a: Row, b: Row) => number = () => 0): number[] {
  return rows()
    .filter((r) => projects.includes(r.project_id) && (admin || !r.confidential) && keep(r))
    .sort(order)
    .map((r) => r.id);
}

/** GitLab's weight order: by weight in `dir`, no weight last either way, ties by id descending. */
const byWeight = (dir: 'asc' | 'desc') => (a: Row, b: Row): number => {
  if (a.weight === null || b.weight === null) return a.weight === b.weight ? b.id - a.id : a.weight === null ? 1 : -1;
  return a.weight !== b.weight ? (dir === 'asc' ? a.weight - b.weight : b.weight - a.weight) : b.id - a.id;
};

beforeAll(async () => {
  s = await TestService.start();
  const u = await s.createUser();
  guest = u.token;
  group = ok(await s.post('/groups', { name: 'ee', path: 'ee', visibility: 'private' })).id;
  alpha = ok(await s.post('/projects', { name: 'alpha', namespace_id: group, visibility: 'private' })).id;
  beta = ok(await s.post('/projects', { name: 'beta', namespace_id: group, visibility: 'private' })).id;
  elsewhere = ok(await s.post('/projects', { name: 'elsewhere', visibility: 'private' })).id;
  await s.addMember('groups', group, u.user.id, 10);
  closer = await s.createUser();
  await s.addMember('groups', group, closer.user.id, 30);
  parentEpic = ok(await s.post(`/groups/${group}/epics`, { title: 'parent' }));
  childEpic = ok(await s.post(`/groups/${group}/epics`, { title: 'child', parent_id: parentEpic.id }));
  otherEpic = ok(await s.post(`/groups/${group}/epics`, { title: 'other' }));
  const weights = [null, 3, 0, 5, null, 3, 1, 3, null, 0, 5, 2];
  const epics = [parentEpic, null, childEpic, parentEpic, otherEpic, null, null, childEpic, parentEpic];
  const projects = [alpha, beta, elsewhere];
  for (let n = 0; n < 40; n++) {
    const project = projects[n % 3];
    const issue = ok(await s.post(`/projects/${project}/issues`, { title: `issue ${n}`, weight: weights[n % weights.length] ?? undefined, confidential: n % 7 === 3 }));
    if (n % 4 === 1) ok(await s.put(`/projects/${project}/issues/${issue.iid}`, { state_event: 'close' }, project === elsewhere || n % 3 ? {} : { token: closer.token }));
    // Closed and reopened: no closer.
    if (n % 8 === 5) for (const state_event of ['close', 'reopen']) ok(await s.put(`/projects/${project}/issues/${issue.iid}`, { state_event }));
    const epic = epics[n % epics.length];
    if (epic && project !== elsewhere) ok(await s.post(`/groups/${group}/epics/${epic.iid}/issues/${issue.id}`));
  }
  // A weight set and then cleared: no weight again.
  const cleared = ok(await s.post(`/projects/${alpha}/issues`, { title: 'cleared', weight: 4 }));
  ok(await s.put(`/projects/${alpha}/issues/${cleared.iid}`, { weight: null }));
}, 120_000);
afterAll(async () => s?.stop());

const scopes = (): [string, Record<string, string>, number[]][] => [
  [`/projects/${alpha}/issues`, {}, [alpha]],
  [`/groups/${group}/issues`, {}, [alpha, beta]],
  ['/issues', { scope: 'all' }, [alpha, beta, elsewhere]],
];

describe('issues weight=, not[weight]=', () => {
  it('every page of a weight, None, Any and not[weight], in a project, a group and the instance, as an administrator and a Guest', async () => {
    const cases: [Record<string, string>, (r: Row) => boolean][] = [
      [{ weight: '3' }, (r) => r.weight === 3],
      [{ weight: '0' }, (r) => r.weight === 0],
      [{ weight: '7' }, () => false],
      [{ weight: 'None' }, (r) => r.weight === null],
      [{ weight: 'none' }, (r) => r.weight === null],
      [{ weight: 'ANY' }, (r) => r.weight !== null],
      [{ 'not[weight]': '3' }, (r) => r.weight !== 3],
      [{ 'not[weight]': '0' }, (r) => r.weight !== 0],
      [{ weight: 'Any', 'not[weight]': '5' }, (r) => r.weight !== null && r.weight !== 5],
      [{ weight: '3', state: 'opened' }, (r) => r.weight === 3 && r.state === 'opened'],
    ];
    for (const [path, base, projects] of scopes()) {
      for (const [query, keep] of cases) {
        await expectEveryPage(s, path, { ...base, ...query }, expected(projects, true, keep), 4);
        await expectEveryPage(s, path, { ...base, ...query }, expected(projects.filter((p) => p !== elsewhere), false, keep), 5, guest);
      }
    }
  });

  it("answers GitLab's 400 for a weight that is not an integer, None or Any, and for a not[weight] that is not an integer", async () => {
    for (const value of ['heavy', 'Everything', '3.5', '']) {
      const res = await s.get(`/projects/${alpha}/issues`, { query: { weight: value } });
      expect(res.status, value).toBe(400);
      expect(res.body).toEqual({ error: `weight should be an integer, none, or any, however got ${value}` });
    }
    for (const value of ['None', 'heavy']) {
      const res = await s.get(`/groups/${group}/issues`, { query: { 'not[weight]': value } });
      expect(res.status, value).toBe(400);
      expect(res.body).toEqual({ error: 'not[weight] is invalid' });
    }
    // Merge requests have no weight: GitLab's list does not declare the parameter.
    expect((await s.get(`/projects/${alpha}/merge_requests`, { query: { weight: 'heavy' } })).status).toBe(200);
  });
});

describe('issue weight on create and update', () => {
  it("refuses a negative weight with EE::Issue's validation error, writing nothing; 0 and none are fine", async () => {
    const before = db().prepare('SELECT count(*) AS n FROM issues').get();
    const bad = await s.post(`/projects/${alpha}/issues`, { title: 'negative', weight: -1 });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ message: { weight: ['must be greater than or equal to 0'] } });
    const both = await s.post(`/projects/${alpha}/issues`, { title: ' ', weight: -5 });
    expect(both.body).toEqual({ message: { title: ["can't be blank"], weight: ['must be greater than or equal to 0'] } });
    expect(db().prepare('SELECT count(*) AS n FROM issues').get()).toEqual(before);
    const issue = ok(await s.post(`/projects/${alpha}/issues`, { title: 'weightless', weight: 0 }));
    expect(issue.weight).toBe(0);
    const update = await s.put(`/projects/${alpha}/issues/${issue.iid}`, { weight: -2 });
    expect(update.status).toBe(400);
    expect(update.body).toEqual({ message: { weight: ['must be greater than or equal to 0'] } });
    expect(ok(await s.get(`/projects/${alpha}/issues/${issue.iid}`)).weight).toBe(0);
    expect(ok(await s.put(`/projects/${alpha}/issues/${issue.iid}`, { weight: 4 })).weight).toBe(4);
    ok(await s.del(`/projects/${alpha}/issues/${issue.iid}`));
  });
});

describe('issues order_by=weight', () => {
  it('orders by weight either way with no weight last, ties newest first, every page in each scope', async () => {
    for (const [path, base, projects] of scopes()) {
      for (const sort of ['asc', 'desc'] as const) {
        await expectEveryPage(s, path, { ...base, order_by: 'weight', sort }, expected(projects, true, () => true, byWeight(sort)), 6);
        await expectEveryPage(s, path, { ...base, order_by: 'weight', sort }, expected(projects.filter((p) => p !== elsewhere), false, () => true, byWeight(sort)), 7, guest);
        await expectEveryPage(s, path, { ...base, order_by: 'weight', sort, state: 'closed' }, expected(projects, true, (r) => r.state === 'closed', byWeight(sort)), 3);
        await expectEveryPage(s, path, { ...base, order_by: 'weight', sort, weight: 'Any' }, expected(projects, true, (r) => r.weight !== null, byWeight(sort)), 4);
      }
      // sort defaults to desc.
      await expectEveryPage(s, path, { ...base, order_by: 'weight' }, expected(projects, true, () => true, byWeight('desc')), 8);
    }
  });

  it('is not a merge request order', async () => {
    const res = await s.get(`/projects/${alpha}/merge_requests`, { query: { order_by: 'weight' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'order_by does not have a valid value' });
  });
});

describe('issues epic_id=', () => {
  it("every page of an epic's own issues (not its child epic's), None and Any, in each scope, as an administrator and a Guest", async () => {
    const cases: [Record<string, string>, (r: Row) => boolean][] = [
      [{ epic_id: String(parentEpic.id) }, (r) => r.epic_id === parentEpic.id],
      [{ epic_id: String(childEpic.id) }, (r) => r.epic_id === childEpic.id],
      [{ epic_id: String(otherEpic.id) }, (r) => r.epic_id === otherEpic.id],
      [{ epic_id: '999999' }, () => false],
      [{ epic_id: 'None' }, (r) => r.epic_id === null],
      [{ epic_id: 'any' }, (r) => r.epic_id !== null],
      [{ epic_id: String(parentEpic.id), state: 'closed' }, (r) => r.epic_id === parentEpic.id && r.state === 'closed'],
      [{ epic_id: 'Any', weight: '3' }, (r) => r.epic_id !== null && r.weight === 3],
      [{ epic_id: 'None', 'not[weight]': '3' }, (r) => r.epic_id === null && r.weight !== 3],
    ];
    for (const [path, base, projects] of scopes()) {
      for (const [query, keep] of cases) {
        await expectEveryPage(s, path, { ...base, ...query }, expected(projects, true, keep), 3);
        await expectEveryPage(s, path, { ...base, ...query }, expected(projects.filter((p) => p !== elsewhere), false, keep), 4, guest);
      }
      await expectEveryPage(s, path, { ...base, epic_id: String(parentEpic.id), order_by: 'weight', sort: 'asc' }, expected(projects, true, (r) => r.epic_id === parentEpic.id, byWeight('asc')), 2);
    }
  });

  it("answers GitLab's 400 for an epic_id that is not an integer, None or Any; ignores not[epic_id], which the REST API does not declare", async () => {
    for (const value of ['first', '&1', '']) {
      const res = await s.get('/issues', { query: { epic_id: value, scope: 'all' } });
      expect(res.status, value).toBe(400);
      expect(res.body).toEqual({ error: `epic_id should be an integer, none, or any, however got ${value}` });
    }
    await expectEveryPage(s, `/groups/${group}/issues`, { 'not[epic_id]': String(parentEpic.id) }, expected([alpha, beta], true, () => true), 20);
  });
});

describe('how they are read', () => {
  const reads = async (path: string, query: Record<string, string>) => pagedReads(s, async () => void ok(await s.get(path, { query })));
  const planOf = (read: { sql: string; args: unknown[] }) => queryPlan(db(), read.sql, ...read.args);

  it("reads a weight's issues by core/106's indexes (a project's, a group's projects', the instance's), not the list walked; counts Any by the project's", async () => {
    const sets: [string, Record<string, string>, RegExp][] = [
      [`/projects/${alpha}/issues`, { weight: '5' }, /USING (COVERING )?INDEX issues_project_weight/],
      [`/groups/${group}/issues`, { weight: '1' }, /USING (COVERING )?INDEX issues_project_weight/],
      ['/issues', { scope: 'all', weight: '0' }, /USING (COVERING )?INDEX issues_weighted/],
    ];
    for (const [path, query, index] of sets) {
      const [read] = await reads(path, { ...query, per_page: '1' });
      expect(read.sql, JSON.stringify(query)).toContain('CROSS JOIN issues x');
      expect(planOf(read), JSON.stringify(query)).toMatch(index);
    }
    // Counted as a condition the project's index reads.
    const sql = await preparedBy(s, () => s.get(`/projects/${alpha}/issues`, { query: { weight: 'Any', per_page: '1' } }));
    const count = sql.find((q) => q.startsWith('SELECT count(*)') && q.includes('x.weight IS NOT NULL'))!;
    expect(count).toBeDefined();
    expect(queryPlan(db(), count, ...Array.from({ length: count.split('?').length - 1 }, () => alpha))).toMatch(/SEARCH x USING COVERING INDEX issues_project_weight \(project_id=\? AND weight>\?\)/);
  });

  it("pages a project's order_by=weight as two walks of issues_project_weight: the weighted (a weight's ties sorted), then the rest by id, never the whole list sorted", async () => {
    for (const sort of ['asc', 'desc']) {
      // Page 3 of 6 holds the last weighted issues and the first without one.
      const weighted = expected([alpha], true, (r) => r.weight !== null).length;
      const page = Math.floor(weighted / 6) + 1;
      const walks = await reads(`/projects/${alpha}/issues`, { order_by: 'weight', sort, per_page: '6', page: String(page) });
      expect(walks.map((w) => / x\.weight IS (NOT )?NULL ORDER BY/.exec(w.sql)?.[0])).toEqual([' x.weight IS NOT NULL ORDER BY', ' x.weight IS NULL ORDER BY']);
      for (const walk of walks) {
        const plan = planOf(walk);
        expect(plan).toMatch(/SEARCH x USING (COVERING )?INDEX issues_project_weight/);
        expect(plan).not.toContain('USE TEMP B-TREE FOR ORDER BY');
      }
    }
  });
});

describe('issues closed_by_id=', () => {
  it('every page of the issues a user closed, in each scope, as an administrator and a Guest', async () => {
    const root = (db().prepare("SELECT id FROM users WHERE username = 'root'").get() as { id: number }).id;
    const cases: [Record<string, string>, (r: Row) => boolean][] = [
      [{ closed_by_id: String(root) }, (r) => r.closed_by_id === root],
      [{ closed_by_id: String(closer.user.id) }, (r) => r.closed_by_id === closer.user.id],
      [{ closed_by_id: '999999' }, () => false],
      [{ closed_by_id: String(root), state: 'opened' }, () => false],
      [{ closed_by_id: String(closer.user.id), weight: 'Any' }, (r) => r.closed_by_id === closer.user.id && r.weight !== null],
    ];
    expect(rows().filter((r) => r.closed_by_id === closer.user.id).length).toBeGreaterThan(1);
    for (const [path, base, projects] of scopes()) {
      for (const [query, keep] of cases) {
        await expectEveryPage(s, path, { ...base, ...query }, expected(projects, true, keep), 2);
        await expectEveryPage(s, path, { ...base, ...query }, expected(projects.filter((p) => p !== elsewhere), false, keep), 3, guest);
      }
    }
  });

  it("answers Grape's 400 for a closed_by_id that is not an integer; merge requests do not take it", async () => {
    const res = await s.get(`/projects/${alpha}/issues`, { query: { closed_by_id: 'me' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'closed_by_id is invalid' });
    expect((await s.get(`/projects/${alpha}/merge_requests`, { query: { closed_by_id: 'me' } })).status).toBe(200);
  });

  it("reads a closer's issues by core/107's index, in a project and the instance", async () => {
    for (const [path, query] of [[`/projects/${alpha}/issues`, {}], ['/issues', { scope: 'all' }]] as [string, Record<string, string>][]) {
      const [read] = await pagedReads(s, async () => void ok(await s.get(path, { query: { ...query, closed_by_id: String(closer.user.id), per_page: '1' } })));
      expect(read.sql).toContain('CROSS JOIN issues x');
      expect(queryPlan(db(), read.sql, ...read.args)).toMatch(/SEARCH c USING (COVERING )?INDEX issues_closed_by/);
    }
  });
});
