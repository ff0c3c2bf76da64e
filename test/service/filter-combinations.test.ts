import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService } from '../helpers/service';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * Issue and merge request lists filtered by several filters at once, drawn at random from a seeded
 * generator (as bench/scale-fuzz.ts draws them), against a reference built from each filter alone:
 * the combination's records are those every one of its filters' own lists holds (GitLab ANDs its
 * filters), in the order of the unfiltered list. Every answer (rows, order, X-Total, X-Total-Pages,
 * X-Next-Page, Link) must be that, however the list is read: the combinations that exclude each
 * other (labels=x&not[labels]=x, dates out of order, a label no record of the state carries), which
 * filter-plan.ts answers without reading rows, among them. Some records are updated before they
 * were created (as an import may write them), so created_after past updated_before is not always empty.
 */
let s: TestService;
let group: number;
let big: number;
let small: number;
const authors: number[] = [];
let milestoneV1 = 0;

const TITLES = ['bug', 'Bug', 'label-1', 'label-2', 'label-3', 'closed-only'];
const DATES = ['2019-06-01T00:00:00Z', '2021-01-01T00:00:00Z', '2022-06-01T00:00:00.000Z', '2024-01-01T00:00:00Z', '2030-01-01T00:00:00Z'];

/** A small linear congruential generator: the same seed draws the same records and requests. */
function generator(seed: number) {
  let x = seed;
  const next = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
  return { next, pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)], maybe: (p: number) => next() < p };
}

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ visibility: 'public' })).id;
  big = (await s.createProject({ name: 'big', namespace_id: group, visibility: 'public' })).id;
  small = (await s.createProject({ name: 'small', namespace_id: group, visibility: 'public' })).id;
  authors.push(1, (await s.createUser()).user.id, (await s.createUser()).user.id);
  milestoneV1 = (await s.post(`/projects/${big}/milestones`, { title: 'v1' })).body.id as number;
  const ctx = s.service.context;
  const g = generator(7);
  ctx.db.transaction(() => {
    for (const [project, count] of [[big, 260], [small, 40]] as const) {
      for (let i = 1; i <= count; i++) {
        const issue = g.maybe(0.5);
        const state = issue ? g.pick(['opened', 'opened', 'closed']) : g.pick(['opened', 'opened', 'closed', 'merged']);
        // `closed-only` only on closed records; author 3 writes no merged one.
        const labels = TITLES.filter((t) => t !== 'closed-only' && g.maybe(0.3));
        if (state === 'closed' && g.maybe(0.3)) labels.push('closed-only');
        const author = state === 'merged' ? g.pick(authors.slice(0, 2)) : g.pick(authors);
        // The third author never carries label-3 (each has records, and label-3 has others').
        if (author === authors[2] && labels.includes('label-3')) labels.splice(labels.indexOf('label-3'), 1);
        const created = new Date(Date.UTC(2019, 0, 1) + Math.floor(g.next() * 6 * 365) * 86_400_000 + (i % 3) * 1000);
        // A few updated before their creation (bucket -1 of the date lag), the rest up to two years after.
        const lag = g.maybe(0.08) ? -Math.floor(g.next() * 800) * 86_400_000 : Math.floor(g.next() * 730) * 86_400_000;
        const common = {
          iid: i,
          title: `${g.pick(['Alpha', 'beta', 'Gamma'])} ${i % 17}`,
          description: null,
          state: state as 'opened',
          authorId: author,
          labels,
          // No merged record carries v1.
          milestoneId: project === big && state !== 'merged' && g.maybe(0.3) ? milestoneV1 : null,
          createdAt: created.toISOString(),
          updatedAt: new Date(created.getTime() + lag).toISOString(),
          importedFrom: 'none' as const,
        };
        if (issue) insertImportedIssue(ctx, project, { ...common, state: common.state, confidential: g.maybe(0.1) });
        else insertImportedMergeRequest(ctx, project, { ...common, sourceBranch: `f-${i}`, targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40), mergedAt: state === 'merged' ? common.updatedAt : null });
      }
    }
    // Updated before created, in the big project: created_after=2022-06-01&updated_before=2021-01-01 holds them.
    const lagging = { title: 'Lagging', description: null, state: 'opened' as const, authorId: 1, labels: ['bug'], createdAt: '2023-03-01T00:00:00.000Z', updatedAt: '2020-03-01T00:00:00.000Z', importedFrom: 'none' as const };
    insertImportedIssue(ctx, big, { ...lagging, iid: 1000 });
    insertImportedMergeRequest(ctx, big, { ...lagging, iid: 1000, sourceBranch: 'lag', targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40) });
    // Created on a bound exactly: created_after and created_before both at it hold it.
    const onTheBound = { ...lagging, title: 'On the bound', createdAt: '2021-01-01T00:00:00.000Z', updatedAt: '2021-02-01T00:00:00.000Z' };
    insertImportedIssue(ctx, big, { ...onTheBound, iid: 1001 });
    insertImportedMergeRequest(ctx, big, { ...onTheBound, iid: 1001, sourceBranch: 'bound', targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40) });
  })();
}, 60_000);
afterAll(async () => s.stop());

const ids = (res: ApiResult): number[] => (res.body as { id: number }[]).map((x) => x.id);

interface Row { id: number; project_id: number; state: string; labels: string; author_id: number; milestone_id: number | null; created_at: string; updated_at: string; title: string; confidential?: number }

/** The combination's records in the list's order, by GitLab's rules written out on the stored records (an administrator sees all). */
function reference(type: string, projects: number[], filters: Record<string, string>, order: { order_by: string; sort: string }): number[] {
  const rows = s.service.context.db.prepare(`SELECT * FROM ${type}`).all() as Row[];
  const fold = (t: string) => t.replace(/[A-Z]/g, (c) => c.toLowerCase());
  const titles = (r: Row) => (JSON.parse(r.labels) as string[]).map(fold);
  const at = (v: string) => new Date(v).toISOString();
  const keep = (r: Row): boolean => {
    if (!projects.includes(r.project_id)) return false;
    for (const [name, value] of Object.entries(filters)) {
      if (name === 'state' && r.state !== value) return false;
      if (name === 'labels') {
        for (const l of value.split(',')) {
          if (l.toLowerCase() === 'none' ? titles(r).length > 0 : l.toLowerCase() === 'any' ? titles(r).length === 0 : !titles(r).includes(fold(l))) return false;
        }
      }
      if (name === 'not[labels]' && value.split(',').some((l) => titles(r).includes(fold(l)))) return false;
      if (name === 'author_id' && r.author_id !== Number(value)) return false;
      if (name === 'not[author_id]' && r.author_id === Number(value)) return false;
      if (name === 'milestone' && (value === 'None' ? r.milestone_id !== null : value === 'Any' ? r.milestone_id === null : r.milestone_id !== milestoneV1)) return false;
      if (name === 'created_after' && !(r.created_at >= at(value))) return false;
      if (name === 'created_before' && !(r.created_at <= at(value))) return false;
      if (name === 'updated_after' && !(r.updated_at >= at(value))) return false;
      if (name === 'updated_before' && !(r.updated_at <= at(value))) return false;
      if (name === 'confidential' && r.confidential !== (value === 'true' ? 1 : 0)) return false;
      // A substring of the title (no record has a description), ASCII case-insensitively.
      if (name === 'search' && !r.title.toLowerCase().includes(value.toLowerCase())) return false;
      // `/issues` and `/merge_requests` without scope=all: the caller's own (created_by_me; the administrator is user 1).
      if (name === 'created_by_me' && r.author_id !== 1) return false;
    }
    return true;
  };
  const col = order.order_by as 'created_at' | 'updated_at' | 'title';
  const dir = order.sort === 'asc' ? 1 : -1;
  return rows.filter(keep).sort((a, b) => dir * (a[col] < b[col] ? -1 : a[col] > b[col] ? 1 : a.id - b.id)).map((r) => r.id);
}

/** One random combination of 2-6 filters, as bench/scale-fuzz.ts draws them (with the orders whose values a reader sees). */
function draw(g: ReturnType<typeof generator>, issues: boolean): Record<string, string> {
  const q: Record<string, string> = {};
  const { pick, maybe } = g;
  while (Object.keys(q).length < 2) {
    if (maybe(0.5)) q.state = pick(issues ? ['opened', 'closed'] : ['opened', 'closed', 'merged']);
    if (maybe(0.5)) q.labels = pick(['bug', 'label-1', 'BUG,label-2', 'label-1,label-2,label-3', 'None', 'Any', 'closed-only', 'None,bug', 'Any,None']);
    if (maybe(0.3)) q['not[labels]'] = pick(['bug', 'label-1', 'Label-3', 'closed-only']);
    if (maybe(0.3)) q.author_id = String(pick(authors));
    if (maybe(0.15)) q['not[author_id]'] = String(pick(authors));
    if (maybe(0.2)) q.milestone = pick(['v1', 'None', 'Any']);
    if (maybe(0.25)) q.created_after = pick(DATES);
    if (maybe(0.25)) q.created_before = pick(DATES);
    if (maybe(0.25)) q.updated_after = pick(DATES);
    if (maybe(0.25)) q.updated_before = pick(DATES);
    if (issues && maybe(0.1)) q.confidential = pick(['true', 'false']);
  }
  return q;
}


/** Checks a combination's pages (first, second, last, one past) against the reference; returns its records' number. */
async function expectCombined(path: string, scope: Record<string, string>, filters: Record<string, string>, order: { order_by: string; sort: string }, per: number): Promise<number> {
  const type = path.endsWith('issues') ? 'issues' : 'merge_requests';
  const projects = path.startsWith('/projects') ? [big] : [big, small];
  const mine = !path.startsWith('/projects') && !path.startsWith('/groups') && scope.scope === undefined;
  const want = reference(type, projects, mine ? { ...filters, created_by_me: '1' } : filters, order);
  const pages = Math.max(1, Math.ceil(want.length / per));
  for (const page of new Set([1, 2, pages, pages + 1])) {
    const res = await expectPage(path, { ...filters, ...scope, ...order }, want, per, page);
    expect(res.headers.get('link'), `${path} page ${page}`).toContain(`page=${pages}`);
  }
  return want.length;
}

/** One page of a combination against the reference's records: rows, X-Total, X-Total-Pages, X-Next-Page. */
async function expectPage(path: string, params: Record<string, string>, want: number[], per: number, page: number): Promise<ApiResult> {
  const pages = Math.max(1, Math.ceil(want.length / per));
  const query = { ...params, per_page: String(per), page: String(page) };
  const res = await s.get(path, { query });
  const what = `${path} ${new URLSearchParams(query)}`;
  expect(res.status, what).toBe(200);
  expect(ids(res), what).toEqual(want.slice((page - 1) * per, page * per));
  expect(res.headers.get('x-total'), what).toBe(String(want.length));
  expect(res.headers.get('x-total-pages'), what).toBe(String(pages));
  expect(res.headers.get('x-next-page'), what).toBe(page < pages ? String(page + 1) : '');
  return res;
}

/** As expectCombined, every page (deep ones in turn, then from the last back); `mine`: the caller's own records (the instance's default scope). */
async function expectEveryCombinedPage(path: string, scope: Record<string, string>, filters: Record<string, string>, order: { order_by: string; sort: string }, per: number): Promise<number> {
  const type = path.endsWith('issues') ? 'issues' : 'merge_requests';
  const projects = path.startsWith('/projects') ? [big] : [big, small];
  const own: Record<string, string> = path.startsWith('/groups') || scope.scope === 'all' ? {} : { author_id: '1' };
  if (own.author_id && filters.author_id && filters.author_id !== '1') return 0;
  const want = reference(type, projects, { ...filters, ...own }, order);
  const pages = Math.max(1, Math.ceil(want.length / per));
  const order2 = [...Array.from({ length: pages + 1 }, (_, i) => i + 1), ...Array.from({ length: pages }, (_, i) => pages - i)];
  for (const page of order2) await expectPage(path, { ...filters, ...scope, ...order }, want, per, page);
  return want.length;
}

describe('filters combined', () => {
  it("answer every page at group and instance scope (the administrator's own records by default) with date filters", async () => {
    const g = generator(5);
    let some = 0;
    for (let n = 0; n < 40; n++) {
      const issues = g.maybe(0.5);
      const type = issues ? 'issues' : 'merge_requests';
      const path = g.pick([`/groups/${group}/${type}`, `/${type}`, `/${type}`]);
      const scope: Record<string, string> = path.startsWith('/groups') || g.maybe(0.5) ? {} : { scope: 'all' };
      const filters = draw(g, issues);
      // One date filter at least, on either column.
      if (!['created_after', 'created_before', 'updated_after', 'updated_before'].some((d) => d in filters)) filters[g.pick(['created_after', 'created_before', 'updated_after', 'updated_before'])] = g.pick(DATES);
      const order = { order_by: g.pick(['created_at', 'updated_at']), sort: g.pick(['asc', 'desc']) };
      if ((await expectEveryCombinedPage(path, scope, filters, order, 7)) > 7) some++;
    }
    expect(some).toBeGreaterThan(10);
  }, 240_000);

  it('answer, at every scope, order and page, what each filter alone keeps, all of them together', async () => {
    const g = generator(1);
    let empty = 0;
    let some = 0;
    for (let n = 0; n < 240; n++) {
      const issues = g.maybe(0.5);
      const type = issues ? 'issues' : 'merge_requests';
      const path = g.pick([`/projects/${big}/${type}`, `/projects/${big}/${type}`, `/groups/${group}/${type}`, `/${type}`]);
      const scope: Record<string, string> = path.startsWith('/projects') || path.startsWith('/groups') ? {} : { scope: 'all' };
      const filters = draw(g, issues);
      const order = { order_by: g.pick(['created_at', 'updated_at', 'title']), sort: g.pick(['asc', 'desc']) };
      if ((await expectCombined(path, scope, filters, order, g.pick([5, 20]))) > 0) some++;
      else empty++;
    }
    // The draw holds both kinds (not a test of nothing).
    expect(empty).toBeGreaterThan(30);
    expect(some).toBeGreaterThan(30);
  }, 240_000);

  it('answer the same with search= among them (a rare term, a common one, one no record holds, one too short for the index), the caller\'s own records too', async () => {
    const g = generator(5);
    const terms = ['alpha 1', 'BETA', 'amma 1', 'zzz', 'a 16', 'ph', 'on the bound', 'lagg'];
    const seen = { empty: 0, some: 0 };
    for (let n = 0; n < 160; n++) {
      const issues = g.maybe(0.5);
      const type = issues ? 'issues' : 'merge_requests';
      const path = g.pick([`/projects/${big}/${type}`, `/groups/${group}/${type}`, `/${type}`, `/${type}`]);
      const scope: Record<string, string> = path === `/${type}` && g.maybe(0.5) ? { scope: 'all' } : {};
      const filters = { ...(g.maybe(0.7) ? draw(g, issues) : {}), search: g.pick(terms) };
      const order = { order_by: g.pick(['created_at', 'updated_at', 'title']), sort: g.pick(['asc', 'desc']) };
      if ((await expectCombined(path, scope, filters, order, g.pick([5, 20]))) > 0) seen.some++;
      else seen.empty++;
    }
    expect(seen.empty).toBeGreaterThan(20);
    expect(seen.some).toBeGreaterThan(20);
  }, 240_000);

  it('answer what the records say where filter-plan.ts may find them empty: every spelling, state and date bound', async () => {
    const cases: Record<string, string>[] = [
      { labels: 'BUG', state: 'opened' },
      { labels: 'bug', 'not[labels]': 'BUG' },
      { labels: 'Label-1,label-2', 'not[labels]': 'label-3' },
      { labels: 'closed-only', state: 'opened' },
      { labels: 'closed-only', state: 'closed' },
      { labels: 'None,bug' },
      { labels: 'None', 'not[labels]': 'bug' },
      { labels: 'Any', 'not[labels]': 'closed-only' },
      { author_id: '3', state: 'merged' },
      { author_id: '3', 'not[author_id]': '3' },
      { author_id: '2', 'not[author_id]': '3' },
      { author_id: '3', labels: 'Label-3' },
      { milestone: 'v1', state: 'merged' },
      { milestone: 'v1', state: 'closed', author_id: '3' },
      { milestone: 'v1', author_id: '2' },
      { author_id: '3', labels: 'LABEL-2', state: 'opened' },
      { author_id: '3', labels: 'bug,closed-only', state: 'closed' },
      { created_after: '2022-06-01T00:00:00Z', updated_before: '2021-01-01T00:00:00Z' },
      { created_after: '2022-06-01T00:00:00Z', updated_before: '2021-01-01T00:00:00Z', labels: 'bug' },
      { created_after: '2024-01-01T00:00:00Z', created_before: '2021-01-01T00:00:00Z' },
      { updated_after: '2024-01-01T00:00:00Z', updated_before: '2021-01-01T00:00:00Z' },
      { created_after: '2021-01-01T00:00:00Z', created_before: '2021-01-01T00:00:00.000Z' },
    ];
    for (const type of ['issues', 'merge_requests']) {
      for (const path of [`/projects/${big}/${type}`, `/groups/${group}/${type}`, `/${type}`]) {
        const scope: Record<string, string> = path.startsWith('/projects') || path.startsWith('/groups') ? {} : { scope: 'all' };
        for (const filters of cases) {
          if (type === 'issues' && filters.state === 'merged') continue;
          await expectCombined(path, scope, { ...filters, ...(filters.author_id === '3' ? { author_id: String(authors[2]) } : {}), ...(filters['not[author_id]'] === '3' ? { 'not[author_id]': String(authors[2]) } : {}) }, { order_by: 'created_at', sort: 'desc' }, 20);
        }
      }
    }
    // The lagging records are found (not an empty answer assumed).
    expect(reference('issues', [big], { created_after: '2022-06-01T00:00:00Z', updated_before: '2021-01-01T00:00:00Z' }, { order_by: 'created_at', sort: 'desc' }).length).toBeGreaterThan(0);
  });
});
