import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService, ok } from '../helpers/service';
import { pagedReads, preparedBy, queryPlan } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * Issue and merge-request filters the list walked in its order for (every record probed):
 * several label titles (labels=a,b; labels=a&not[labels]=b: labelTitlesList reads the rarest
 * title's label rows), a title with other filters (a label set: idSetLists reads the smallest set
 * and probes the rest), assignee_id=Any and milestone=Upcoming/Started (sets too). Whichever way a
 * list is read, its answer must be the one the records' own columns give (the SQL below: JSON
 * labels and assignees, milestones by their dates), rows, order and pagination headers, for a
 * project, its group and the instance, an administrator and a caller who sees no confidential issue.
 */
let s: TestService;
let group: number;
let proj: number;
let sibling: number;
let many: number;
let guestToken = '';
let assignee = 0;
const N = 240;
const MANY = 10_050;

const at = (minutes: number): string => new Date(Date.UTC(2024, 0, 1) + minutes * 60_000).toISOString();
const day = (offset: number): string => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/** Labels of record i: `bug` on every 3rd (`Bug` too on every 33rd), `ux` on every 5th, `rare` on every 7th. */
const labelsOf = (i: number): string[] => [...(i % 3 === 0 ? ['bug'] : []), ...(i % 33 === 0 ? ['Bug'] : []), ...(i % 5 === 0 ? ['ux'] : []), ...(i % 7 === 0 ? ['rare'] : [])];

beforeAll(async () => {
  s = await TestService.start();
  const guest = await s.createUser();
  guestToken = guest.token;
  assignee = (await s.createUser()).user.id;
  group = (await s.createGroup({ visibility: 'public' })).id;
  proj = (await s.createProject({ name: 'proj', namespace_id: group, visibility: 'public' })).id;
  sibling = (await s.createProject({ name: 'sibling', namespace_id: group, visibility: 'public' })).id;
  many = (await s.createProject({ name: 'many', visibility: 'public' })).id;
  // Upcoming: the nearest active milestone due after today (`soon`, not `later`); Started: active and started (`begun`); `done` is closed.
  const milestone = async (project: number, title: string, body: Record<string, string>): Promise<number> =>
    ok(await s.api('POST', `/projects/${project}/milestones`, { body: { title, ...body } })).id;
  const soon = await milestone(proj, 'soon', { due_date: day(10) });
  const later = await milestone(proj, 'later', { due_date: day(40) });
  const begun = await milestone(proj, 'begun', { start_date: day(-10), due_date: day(-1) });
  const done = await milestone(proj, 'done', { start_date: day(-30) });
  ok(await s.api('PUT', `/projects/${proj}/milestones/${done}`, { body: { state_event: 'close' } }));
  const siblingSoon = await milestone(sibling, 'soon', { due_date: day(20) });
  const milestones = [soon, later, begun, done, null];
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      // Three records share each created_at; updated_at goes back and forth.
      const common = {
        iid: i, title: `Record ${i % 17}`, description: null, authorId: 1, assigneeIds: i % 11 === 0 ? [assignee] : [], labels: labelsOf(i),
        milestoneId: milestones[i % 5], createdAt: at(Math.floor(i / 3)), updatedAt: at(1_000 - (i % 40)), importedFrom: 'none' as const,
      };
      insertImportedIssue(ctx, proj, { ...common, state: i % 4 === 0 ? 'closed' : 'opened', confidential: i % 13 === 0 });
      insertImportedMergeRequest(ctx, proj, {
        ...common, state: i % 4 === 0 ? 'merged' : 'opened', reviewerIds: [], sourceBranch: `f-${i}`, targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40),
      });
    }
    for (let i = 1; i <= 9; i++) {
      insertImportedIssue(ctx, sibling, { iid: i, title: `Sibling ${i}`, description: null, state: 'opened', authorId: 1, assigneeIds: i % 2 ? [assignee] : [], labels: labelsOf(i * 15), milestoneId: i % 3 ? siblingSoon : null, confidential: i === 5, createdAt: at(i * 7), updatedAt: at(i), importedFrom: 'none' });
    }
    // Past 10,000 records carrying both `bug` and `ux` (uncounted), the newest 40 only `bug`.
    for (let i = 1; i <= MANY; i++) {
      insertImportedIssue(ctx, many, { iid: i, title: `Many ${i}`, description: null, state: i % 4 === 0 ? 'closed' : 'opened', authorId: 1, labels: i <= MANY - 40 ? ['bug', 'ux'] : ['bug'], createdAt: at(i), updatedAt: at(i), importedFrom: 'none' });
    }
  })();
}, 120_000);
afterAll(async () => s.stop());

/** A label title on the record's own JSON list, ASCII case-insensitively. */
const carries = (title: string): string => `EXISTS (SELECT 1 FROM json_each(x.labels) WHERE lower(value) = lower('${title}'))`;
const upcoming = (): string =>
  `x.milestone_id IN (SELECT m.id FROM milestones m WHERE m.state = 'active' AND m.due_date > '${day(0)}' AND m.due_date = (
    SELECT min(o.due_date) FROM milestones o WHERE o.state = 'active' AND o.due_date > '${day(0)}' AND o.project_id IS m.project_id AND o.group_id IS m.group_id))`;
const started = (): string => `x.milestone_id IN (SELECT id FROM milestones WHERE state = 'active' AND start_date <= '${day(0)}')`;

/** The answer the records give: their ids in list order. */
function truth(table: string, projects: number[], where: string, order: string, guest: boolean): number[] {
  const visible = guest && table === 'issues' ? ' AND x.confidential = 0' : '';
  return (
    s.service.context.db.prepare(`SELECT x.id FROM ${table} x WHERE x.project_id IN (${projects.join(',')}) AND ${where}${visible} ORDER BY ${order}`).all() as { id: number }[]
  ).map((r) => r.id);
}

/** Every page asked for equals the records' answer: rows in order, X-Total / X-Total-Pages (absent past 10,000), X-Next-Page, rel="last". */
async function expectPages(path: string, query: Record<string, string>, expected: number[], pages: [number, number][], token?: string): Promise<void> {
  for (const [page, perPage] of pages) {
    const res: ApiResult = await s.get(path, { query: { ...query, page: String(page), per_page: String(perPage) }, token });
    const where = `${path}?${new URLSearchParams({ ...query, page: String(page), per_page: String(perPage) })}${token ? ' (guest)' : ''}`;
    expect(res.status, where).toBe(200);
    expect(res.body.map((x: any) => x.id), where).toEqual(expected.slice((page - 1) * perPage, page * perPage));
    const hasNext = expected.length > page * perPage;
    expect(res.headers.get('x-next-page'), where).toBe(hasNext ? String(page + 1) : '');
    if (expected.length > 10_000) {
      expect(res.headers.has('x-total'), where).toBe(false);
      expect(res.headers.get('link'), where).not.toContain('rel="last"');
    } else {
      expect(res.headers.get('x-total'), where).toBe(String(expected.length));
      expect(res.headers.get('x-total-pages'), where).toBe(String(Math.max(1, Math.ceil(expected.length / perPage))));
      expect(res.headers.get('link'), where).toContain('rel="last"');
    }
  }
}

const PAGES: [number, number][] = [[1, 20], [2, 20], [1, 100], [2, 7]];
const ORDERS: { query: Record<string, string>; order: string }[] = [
  { query: {}, order: 'x.created_at DESC, x.id DESC' },
  { query: { order_by: 'updated_at', sort: 'asc' }, order: 'x.updated_at ASC, x.id ASC' },
  { query: { order_by: 'title', sort: 'desc' }, order: 'x.title DESC, x.id DESC' },
];

const CASES: { query: Record<string, string>; where: string }[] = [
  { query: { labels: 'bug,ux' }, where: `${carries('bug')} AND ${carries('ux')}` },
  { query: { labels: 'UX,Bug', state: 'opened' }, where: `${carries('bug')} AND ${carries('ux')} AND x.state = 'opened'` },
  { query: { labels: 'bug,ux,rare' }, where: `${carries('bug')} AND ${carries('ux')} AND ${carries('rare')}` },
  { query: { labels: 'rare', 'not[labels]': 'bug' }, where: `${carries('rare')} AND NOT ${carries('bug')}` },
  { query: { labels: 'bug', 'not[labels]': 'ux,rare', state: 'closed' }, where: `${carries('bug')} AND NOT ${carries('ux')} AND NOT ${carries('rare')} AND x.state IN ('closed')` },
  { query: { labels: 'bug', 'not[labels]': 'rare' }, where: `${carries('bug')} AND NOT ${carries('rare')}` },
  { query: { labels: 'bug,nothing' }, where: '0' },
  { query: { labels: 'bug', author_id: '1' }, where: `${carries('bug')} AND x.author_id = 1` },
  { query: { labels: 'rare', created_after: at(20) }, where: `${carries('rare')} AND x.created_at >= '${at(20)}'` },
  { query: { labels: 'bug', assignee_id: 'Any', state: 'opened' }, where: `${carries('bug')} AND x.assignee_ids != '[]' AND x.state = 'opened'` },
  { query: { labels: 'bug,ux', assignee_id: 'Any' }, where: `${carries('bug')} AND ${carries('ux')} AND x.assignee_ids != '[]'` },
  { query: { labels: 'rare', milestone: 'soon' }, where: `${carries('rare')} AND x.milestone_id IN (SELECT id FROM milestones WHERE title = 'soon')` },
  { query: { milestone: 'soon' }, where: "x.milestone_id IN (SELECT id FROM milestones WHERE title = 'soon')" },
  { query: { milestone: 'soon', state: 'opened', author_id: '1' }, where: "x.milestone_id IN (SELECT id FROM milestones WHERE title = 'soon') AND x.state = 'opened' AND x.author_id = 1" },
  { query: { assignee_id: 'Any' }, where: "x.assignee_ids != '[]'" },
  { query: { assignee_id: 'Any', state: 'opened' }, where: "x.assignee_ids != '[]' AND x.state = 'opened'" },
  { query: { milestone: 'Upcoming' }, where: upcoming() },
  { query: { milestone_id: 'Upcoming', labels: 'bug' }, where: `${upcoming()} AND ${carries('bug')}` },
  { query: { milestone: 'Started' }, where: started() },
  { query: { 'not[milestone]': 'Upcoming' }, where: `NOT (x.milestone_id IS NOT NULL AND ${upcoming()})` },
];

describe('several label titles, label sets, assignee_id=Any, milestone=Upcoming/Started', () => {
  it('answers every case as the records do: project, group and instance, each order, administrator and guest', async () => {
    for (const kind of ['issues', 'merge_requests'] as const) {
      for (const c of CASES) {
        for (const o of ORDERS) {
          // The merge requests here are opened or merged.
          const merged = kind === 'merge_requests' && c.query.state === 'closed';
          const query = { ...c.query, ...(merged ? { state: 'merged' } : {}), ...o.query };
          const where = merged ? c.where.replace("x.state IN ('closed')", "x.state IN ('merged')") : c.where;
          await expectPages(`/projects/${proj}/${kind}`, query, truth(kind, [proj], where, o.order, false), PAGES);
          if (kind === 'issues') await expectPages(`/projects/${proj}/issues`, query, truth(kind, [proj], where, o.order, true), PAGES, guestToken);
          await expectPages(`/groups/${group}/${kind}`, query, truth(kind, [proj, sibling], where, o.order, false), PAGES.slice(0, 2));
          if (kind === 'issues') await expectPages(`/groups/${group}/issues`, query, truth(kind, [proj, sibling], where, o.order, true), PAGES.slice(0, 1), guestToken);
          await expectPages(`/${kind}`, { ...query, scope: 'all' }, truth(kind, [proj, sibling, many], where, o.order, false), PAGES.slice(0, 2));
        }
      }
    }
  }, 300_000);

  it('pages past 10,000 records carrying both titles uncounted, and counts the 40 without one', async () => {
    await expectPages(`/projects/${many}/issues`, { labels: 'bug,ux' }, truth('issues', [many], `${carries('bug')} AND ${carries('ux')}`, 'x.created_at DESC, x.id DESC', false), [[1, 20], [3, 100], [101, 100]]);
    await expectPages(`/projects/${many}/issues`, { labels: 'bug', 'not[labels]': 'ux' }, truth('issues', [many], `${carries('bug')} AND NOT ${carries('ux')}`, 'x.created_at DESC, x.id DESC', false), [[1, 20], [2, 20]]);
  }, 60_000);

  it('counts a group\'s or the instance\'s list by milestone title from the filter counters, and reads a rare milestone\'s records by its index', async () => {
    const db = s.service.context.db;
    for (const path of [`/groups/${group}/issues`, `/groups/${group}/merge_requests`, '/issues', '/merge_requests']) {
      const query = { milestone: 'soon', ...(path.startsWith('/groups') ? {} : { scope: 'all' }) };
      const statements = await preparedBy(s, async () => void ok(await s.get(path, { query })));
      // Counted by the counters: no statement counts the records themselves.
      expect(statements.filter((sql) => /count\(\*\)[\s\S]*FROM (issues|merge_requests) x/.test(sql)), path).toEqual([]);
      // At another page length (the page asked again whole is kept: scope-page-rows).
      const reads = await pagedReads(s, async () => void ok(await s.get(path, { query: { ...query, per_page: '10' } })));
      expect(reads.length, path).toBeGreaterThan(0);
      for (const read of reads) {
        const plan = queryPlan(db, read.sql, ...read.args);
        expect(plan, path).toMatch(/USING (COVERING )?INDEX (issues|merge_requests)_(project_)?milestone/);
        expect(plan, path).not.toMatch(/SCAN x/);
      }
    }
  });

  it('reads the rarest title\'s label rows, or the smallest set, never every record in list order', async () => {
    const db = s.service.context.db;
    const plans = async (path: string, query: Record<string, string>): Promise<string[]> => {
      const reads = await pagedReads(s, async () => void ok(await s.get(path, { query })));
      expect(reads.length, path).toBeGreaterThan(0);
      return reads.map((r) => `${r.sql}\n${queryPlan(db, r.sql, ...r.args)}`);
    };
    // ux is on fewer of the project's records than bug: its label rows are walked in order.
    for (const kind of ['issues', 'merge_requests']) {
      for (const plan of await plans(`/projects/${proj}/${kind}`, { labels: 'bug,ux' })) {
        expect(plan).toContain('SEARCH il USING COVERING INDEX issuable_labels_created (issuable_type=? AND project_id=? AND title=? AND created_at>?)');
        expect(plan).not.toMatch(/SCAN x|USING INDEX (issues|merge_requests)_project_created/);
      }
      // At another length (the page read above is kept whole at the version: SqlList.keptRows).
      const [page] = await pagedReads(s, async () => void ok(await s.get(`/projects/${proj}/${kind}`, { query: { labels: 'bug,ux', per_page: '10' } })));
      expect(page.args.slice(0, 2)).toEqual([proj, 'ux']);
    }
    const queries: Record<string, string>[] = [{ assignee_id: 'Any' }, { milestone: 'Upcoming' }, { labels: 'rare', created_after: at(20) }, { labels: 'bug', assignee_id: 'Any' }];
    const lists = [...queries.map((query) => [`/projects/${proj}/issues`, query] as const), [`/projects/${proj}/issues`, { labels: 'bug,ux', order_by: 'title' }] as const, [`/groups/${group}/issues`, { labels: 'bug,ux' }] as const];
    for (const [path, query] of lists) {
      for (const plan of await plans(path, query)) {
        // A title and a bound its rows carry: the page's ids from the title's rows in creation order (label-rows-list.ts), no record read for them.
        if (query.labels === 'rare' && 'created_after' in query) {
          expect(plan).toMatch(/^SELECT il\.issuable_id AS id FROM issuable_labels il INDEXED BY issuable_labels_created WHERE /);
          expect(plan).toContain('SEARCH il USING COVERING INDEX issuable_labels_created (issuable_type=? AND project_id=? AND title=? AND created_at>?)');
          continue;
        }
        expect(plan, JSON.stringify(query)).toContain('SEARCH x USING INTEGER PRIMARY KEY (rowid=?)');
        expect(plan, JSON.stringify(query)).not.toMatch(/SCAN x|USING INDEX issues_project_created/);
      }
    }
  });
});
