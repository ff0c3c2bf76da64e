import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, TestService } from '../helpers/service';
import { expectEveryPage, pagedReads, preparedBy, queryPlan } from '../helpers/lists';

/**
 * The issues lists' issue_type= and due_date= (GitLab's lib/api/issues.rb values; IssuesFinder
 * #by_issue_types, #by_due_date and Issue's due_* scopes): every page in a project, a group and the
 * instance, for an administrator and a Guest, against the issues filtered here by GitLab's rules
 * on four days of the service's clock (the windows written out by hand); GitLab's 400s; and how the
 * few records of a sparse filter are read (their index, not the list walked).
 */
let now = new Date('2026-01-01T12:00:00Z');
let s: TestService;
let group: number;
let alpha: number;
let beta: number;
let elsewhere: number;
let guest: string;

interface Row { id: number; project_id: number; due_date: string | null; issue_type: string; confidential: number; state: string }
const db = () => s.service.context.db;

/** GitLab's windows for each day (Rails: weeks from Monday, `(today + 1.month).end_of_month`), written out. */
const DAYS: Record<string, { today: string; tomorrow: string; week: [string, string]; month: [string, string]; next: [string, string] }> = {
  '2026-01-31': { today: '2026-01-31', tomorrow: '2026-02-01', week: ['2026-01-26', '2026-02-01'], month: ['2026-01-01', '2026-01-31'], next: ['2026-01-17', '2026-02-28'] },
  '2026-03-31': { today: '2026-03-31', tomorrow: '2026-04-01', week: ['2026-03-30', '2026-04-05'], month: ['2026-03-01', '2026-03-31'], next: ['2026-03-17', '2026-04-30'] },
  '2026-11-29': { today: '2026-11-29', tomorrow: '2026-11-30', week: ['2026-11-23', '2026-11-29'], month: ['2026-11-01', '2026-11-30'], next: ['2026-11-15', '2026-12-31'] },
  '2026-12-20': { today: '2026-12-20', tomorrow: '2026-12-21', week: ['2026-12-14', '2026-12-20'], month: ['2026-12-01', '2026-12-31'], next: ['2026-12-06', '2027-01-31'] },
};

const shift = (day: string, days: number): string => new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/** The issues of `projects` that `keep` selects, newest first (confidential ones only for an administrator). */
function expected(projects: number[], admin: boolean, keep: (r: Row) => boolean): number[] {
  const rows = db().prepare('SELECT id, project_id, due_date, issue_type, confidential, state FROM issues ORDER BY created_at DESC, id DESC').all() as Row[];
  return rows.filter((r) => projects.includes(r.project_id) && (admin || !r.confidential) && keep(r)).map((r) => r.id);
}

function dueTest(day: string, value: string): (r: Row) => boolean {
  const w = DAYS[day];
  const between = ([lo, hi]: [string, string]) => (r: Row) => r.due_date !== null && r.due_date >= lo && r.due_date <= hi;
  switch (value) {
    case '0': return (r) => r.due_date === null;
    case 'any': return (r) => r.due_date !== null;
    case 'today': return (r) => r.due_date === w.today;
    case 'tomorrow': return (r) => r.due_date === w.tomorrow;
    case 'overdue': return (r) => r.due_date !== null && r.due_date < w.today;
    case 'week': return between(w.week);
    case 'month': return between(w.month);
    case 'next_month_and_previous_two_weeks': return between(w.next);
    default: throw new Error(value);
  }
}

beforeAll(async () => {
  s = await TestService.start({ clock: () => new Date(now) });
  const u = await s.createUser();
  guest = u.token;
  group = ok(await s.post('/groups', { name: 'due', path: 'due', visibility: 'private' })).id;
  alpha = ok(await s.post('/projects', { name: 'alpha', namespace_id: group, visibility: 'private' })).id;
  beta = ok(await s.post('/projects', { name: 'beta', namespace_id: group, visibility: 'private' })).id;
  elsewhere = ok(await s.post('/projects', { name: 'elsewhere', visibility: 'private' })).id;
  await s.addMember('groups', group, u.user.id, 10);
  // Every window's edges and the days either side of them, and issues without a due date.
  const dates = new Set<string>();
  for (const w of Object.values(DAYS)) {
    for (const edge of [w.today, w.tomorrow, ...w.week, ...w.month, ...w.next]) for (const d of [-1, 0, 1]) dates.add(shift(edge, d));
  }
  const dues: (string | null)[] = [...dates].sort();
  for (let i = 0; i < dues.length; i += 6) dues.splice(i, 0, null);
  const types = ['issue', 'incident', 'issue', 'test_case', 'task', 'issue', 'issue'];
  const projects = [alpha, beta, elsewhere];
  for (let n = 0; n < dues.length; n++) {
    const project = projects[n % 3];
    const issue = ok(await s.post(`/projects/${project}/issues`, { title: `issue ${n}`, due_date: dues[n] ?? undefined, issue_type: types[n % types.length], confidential: n % 5 === 0 }));
    if (n % 4 === 1) ok(await s.put(`/projects/${project}/issues/${issue.iid}`, { state_event: 'close' }));
  }
}, 120_000);
afterAll(async () => s?.stop());

const scopes = (): [string, Record<string, string>, number[]][] => [
  [`/projects/${alpha}/issues`, {}, [alpha]],
  [`/groups/${group}/issues`, {}, [alpha, beta]],
  ['/issues', { scope: 'all' }, [alpha, beta, elsewhere]],
];

describe('issues due_date=', () => {
  for (const day of Object.keys(DAYS)) {
    it(`every page of each value on ${day}, in a project, a group and the instance, as an administrator and a Guest`, async () => {
      now = new Date(`${day}T23:30:00Z`);
      for (const [path, base, projects] of scopes()) {
        for (const value of ['0', 'any', 'today', 'tomorrow', 'overdue', 'week', 'month', 'next_month_and_previous_two_weeks']) {
          const keep = dueTest(day, value);
          await expectEveryPage(s, path, { ...base, due_date: value }, expected(projects, true, keep), 7);
          await expectEveryPage(s, path, { ...base, due_date: value }, expected(projects.filter((p) => p !== elsewhere), false, keep), 10, guest);
        }
        // With a state, and with a type.
        const overdue = dueTest(day, 'overdue');
        await expectEveryPage(s, path, { ...base, due_date: 'overdue', state: 'opened' }, expected(projects, true, (r) => overdue(r) && r.state === 'opened'), 4);
        await expectEveryPage(s, path, { ...base, due_date: 'any', issue_type: 'incident' }, expected(projects, true, (r) => r.due_date !== null && r.issue_type === 'incident'), 3);
      }
    }, 120_000);
  }

  it("answers GitLab's 400 for a value it does not list, and filters nothing by an empty one", async () => {
    for (const value of ['none', 'None', 'Overdue', '2026-01-01', 'next_month']) {
      const res = await s.get(`/projects/${alpha}/issues`, { query: { due_date: value } });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'due_date does not have a valid value' });
    }
    await expectEveryPage(s, `/groups/${group}/issues`, { due_date: '' }, expected([alpha, beta], true, () => true), 25);
    // Merge requests have no due date: GitLab's list does not declare the parameter.
    expect((await s.get(`/projects/${alpha}/merge_requests`, { query: { due_date: 'bogus' } })).status).toBe(200);
  });
});

describe('issues issue_type=', () => {
  it('every page of each type, in a project, a group and the instance, as an administrator and a Guest', async () => {
    for (const [path, base, projects] of scopes()) {
      for (const type of ['issue', 'incident', 'test_case', 'task']) {
        await expectEveryPage(s, path, { ...base, issue_type: type }, expected(projects, true, (r) => r.issue_type === type), 6);
        await expectEveryPage(s, path, { ...base, issue_type: type, state: 'closed' }, expected(projects, true, (r) => r.issue_type === type && r.state === 'closed'), 2);
        await expectEveryPage(s, path, { ...base, issue_type: type }, expected(projects.filter((p) => p !== elsewhere), false, (r) => r.issue_type === type), 9, guest);
      }
    }
  });

  it("answers GitLab's 400 for a type the REST API does not list", async () => {
    for (const value of ['epic', 'requirement', 'INCIDENT', 'objective']) {
      const res = await s.get('/issues', { query: { issue_type: value, scope: 'all' } });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'issue_type does not have a valid value' });
    }
  });
});

describe('how the few are read', () => {
  // A project's or a group's as a Guest: an administrator's list there by one sparse set alone is read from core/111's indexes (below).
  const reads = async (path: string, query: Record<string, string>) =>
    pagedReads(s, async () => void ok(await s.get(path, { query, token: path.startsWith('/issues') ? undefined : guest })));
  const planOf = (read: { sql: string; args: unknown[] }) => queryPlan(db(), read.sql, ...read.args);

  it('reads a sparse type or due date by its index, in a project, a group and the instance; walks a dense one in list order', async () => {
    now = new Date('2026-03-31T12:00:00Z');
    // Few against the scope's issues for a page of 1: the set read (core/089's indexes, issues_project_due).
    const sets: [string, Record<string, string>, RegExp][] = [
      [`/projects/${alpha}/issues`, { issue_type: 'incident' }, /USING (COVERING )?INDEX issues_typed/],
      ['/issues', { scope: 'all', issue_type: 'test_case' }, /USING (COVERING )?INDEX issues_typed/],
      [`/projects/${alpha}/issues`, { due_date: 'today' }, /USING (COVERING )?INDEX issues_project_due/],
      [`/groups/${group}/issues`, { due_date: 'week' }, /USING (COVERING )?INDEX issues_(project_)?due/],
      ['/issues', { scope: 'all', due_date: 'tomorrow' }, /USING (COVERING )?INDEX issues_due\b/],
    ];
    for (const [path, query, index] of sets) {
      const [read] = await reads(path, { ...query, per_page: '1' });
      expect(read.sql, JSON.stringify(query)).toContain('CROSS JOIN issues x');
      const plan = planOf(read);
      expect(plan, JSON.stringify(query)).toMatch(index);
      expect(plan).toMatch(/SCAN s\b/);
    }
    // Many: the list walked in its order (no set read and sorted, no due-date index chosen over the order's).
    for (const query of [{ issue_type: 'issue' }, { due_date: '0' }, { due_date: 'any' }] as Record<string, string>[]) {
      const [read] = await reads(`/projects/${alpha}/issues`, { ...query, per_page: '1' });
      expect(read.sql).not.toContain('CROSS JOIN');
      const plan = planOf(read);
      expect(plan).not.toContain('TEMP B-TREE');
      expect(plan).toContain('issues_project_created');
    }
  });

  it("an administrator's list by one sparse set alone: its ids in order from core/111's indexes, no record read", async () => {
    now = new Date('2026-03-31T12:00:00Z');
    for (const [path, query, index] of [
      [`/projects/${alpha}/issues`, { issue_type: 'incident' }, 'issues_typed_order'],
      [`/groups/${group}/issues`, { due_date: 'week', state: 'opened' }, 'issues_due_order'],
    ] as const) {
      const sql = await preparedBy(s, () => s.get(path, { query: { ...query, per_page: '1' } }));
      const read = sql.filter((q) => q.startsWith('SELECT c.id AS id FROM'));
      expect(read.length, path).toBe(1);
      expect(queryPlan(db(), read[0], ...Array.from({ length: read[0].split('?').length - 1 }, () => 1))).toMatch(new RegExp(`SEARCH c USING COVERING INDEX ${index} \\(project_id=\\?`));
      expect(sql.filter((q) => q.includes('CROSS JOIN issues x')), path).toEqual([]);
    }
  });

  it("counts a sparse due date through its rows by issues_project_due, each record looked up, even with a state (no state index walked)", async () => {
    now = new Date('2026-03-31T12:00:00Z');
    for (const query of [{ due_date: 'overdue' }, { due_date: 'any', state: 'opened' }] as Record<string, string>[]) {
      const sql = await preparedBy(s, () => s.get(`/projects/${alpha}/issues`, { query: { ...query, per_page: '1' }, token: guest }));
      const count = sql.find((q) => q.startsWith('SELECT count(*) AS n FROM (SELECT 1 FROM (SELECT DISTINCT +due.id AS id FROM issues due WHERE'))!;
      expect(count, JSON.stringify(query)).toBeDefined();
      const plan = queryPlan(db(), count, ...Array.from({ length: count.split('?').length - 1 }, () => '2026-01-01'));
      expect(plan).toMatch(/SEARCH due USING COVERING INDEX issues_project_due/);
      expect(plan).toMatch(/SEARCH x USING INTEGER PRIMARY KEY/);
    }
  });
});
