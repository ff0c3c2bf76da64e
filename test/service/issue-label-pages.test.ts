import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService } from '../helpers/service';
import { expectCounted, pagedReads } from '../helpers/lists';
import { insertImportedIssue } from '../../src/main/service/areas/core/imported';
import { LABEL_ROWS } from '../../src/main/service/areas/core/label-rows-list';

/**
 * Issues by one label (perhaps with a state) in the default order read from the label's rows in
 * created_at order (core/038: issue label rows carry their record's created_at, as core/030 gave
 * merge requests'). Whatever the way, every answer is the one the records say: rows, order,
 * X-Total and the paging headers are computed from the seeded records and compared, for an
 * administrator and for a caller who may not see the confidential ones, in a project, a group
 * and the instance, before and after every kind of write that moves them.
 */
let s: TestService;
let group: number;
let project: number;
let sibling: number;
let outsider: string;

interface Seed {
  id: number;
  iid: number;
  projectId: number;
  state: string;
  labels: string[];
  confidential: boolean;
  createdAt: string;
}
const seeds: Seed[] = [];
const N = 240;

// Three records share each created_at (ties broken by id).
const createdAt = (i: number): string => new Date(Date.UTC(2024, 0, 1) + Math.floor(i / 3) * 60_000).toISOString();
const stateOf = (i: number): string => (i % 7 === 0 ? 'closed' : 'opened');
// `bug` on every 3rd, none among the newest 30 (the list's first page holds none of it); `Bug` and `bug` both on every 30th.
const labelsOf = (i: number): string[] =>
  i > N - 30 ? ['other'] : [...(i % 3 === 0 ? ['bug'] : []), ...(i % 30 === 0 ? ['Bug'] : []), ...(i % 5 === 0 ? ['other'] : [])];
const confidentialOf = (i: number): boolean => i % 4 === 0;

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ visibility: 'public' })).id;
  project = (await s.createProject({ name: 'big', namespace_id: group, visibility: 'public' })).id;
  sibling = (await s.createProject({ name: 'sibling', namespace_id: group, visibility: 'public' })).id;
  outsider = (await s.createUser()).token;
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      // Every 8th in the sibling project (same group), interleaved in time.
      const projectId = i % 8 === 1 ? sibling : project;
      const seed = { iid: i, projectId, state: stateOf(i), labels: labelsOf(i), confidential: confidentialOf(i), createdAt: createdAt(i) };
      const issue = insertImportedIssue(ctx, projectId, {
        iid: i,
        title: `Issue ${i}`,
        description: null,
        state: seed.state as 'opened',
        authorId: 1,
        labels: seed.labels,
        confidential: seed.confidential,
        createdAt: seed.createdAt,
        updatedAt: seed.createdAt,
        importedFrom: 'none',
      });
      seeds.push({ ...seed, id: issue.id });
    }
  })();
}, 60_000);
afterAll(async () => s.stop());

const newestFirst = (xs: Seed[]): Seed[] => [...xs].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.id - a.id));
const ids = (res: ApiResult): number[] => res.body.map((x: any) => x.id);
const hasLabel = (x: Seed, title: string): boolean => x.labels.some((l) => l.toLowerCase() === title.toLowerCase());

type Where = 'project' | 'group' | 'instance';
const path = (where: Where): string => (where === 'project' ? `/projects/${project}/issues` : where === 'group' ? `/groups/${group}/issues` : '/issues');
/** The records a list holds: in scope, seen by the caller, with the label (and state). */
const expected = (where: Where, token: string | undefined, state?: string, title = 'bug'): Seed[] =>
  newestFirst(
    seeds.filter(
      (x) => (where !== 'project' || x.projectId === project) && (token === undefined || !x.confidential) && hasLabel(x, title) && (!state || x.state === state),
    ),
  );

/** Every page of the list, in turn, against the records' order: rows, X-Total, pages, Link. */
async function expectPages(where: Where, query: Record<string, string>, want: Seed[], token?: string, per = 20): Promise<void> {
  const pages = Math.max(1, Math.ceil(want.length / per));
  for (let n = 1; n <= pages + 1; n++) {
    const res = await s.get(path(where), { token, query: { ...(where === 'instance' ? { scope: 'all' } : {}), ...query, per_page: String(per), page: String(n) } });
    expectCounted(res, want.length, per);
    expect(ids(res)).toEqual(want.slice((n - 1) * per, n * per).map((x) => x.id));
    expect(res.headers.get('x-page')).toBe(String(n));
    expect(res.headers.get('x-next-page')).toBe(n < pages ? String(n + 1) : '');
    // The page past the last is out of range (Kaminari): no previous page.
    expect(res.headers.get('x-prev-page')).toBe(n > 1 && n <= pages ? String(n - 1) : '');
    if (n < pages) expect(res.headers.get('link')).toMatch(new RegExp(`[?&]page=${n + 1}&per_page=${per}[^>]*>; rel="next"`));
    expect(res.headers.get('link')).toMatch(new RegExp(`[?&]page=${pages}&per_page=${per}[^>]*>; rel="last"`));
  }
}

async function checkAll(): Promise<void> {
  for (const where of ['project', 'group', 'instance'] as const) {
    for (const token of [undefined, outsider]) {
      await expectPages(where, { labels: 'bug' }, expected(where, token), token);
      await expectPages(where, { labels: 'bug', state: 'opened' }, expected(where, token, 'opened'), token);
      await expectPages(where, { labels: 'bug', state: 'closed' }, expected(where, token, 'closed'), token);
    }
  }
}

describe('issues by one label', () => {
  it('read from the label rows in created_at order, every page as the records say, with a state, both sorts, any case', async () => {
    const reads = await pagedReads(s, () => expectPages('project', { labels: 'bug' }, expected('project', undefined)));
    expect(reads.length).toBeGreaterThan(0);
    for (const r of reads) expect(r.sql).toContain('issuable_labels_created');
    // The instance's (an administrator's scope=all) from the title's rows of every project; a
    // group's still walks its records (the title's rows of the whole instance may be many more).
    const instanceReads = await pagedReads(s, () => expectPages('instance', { labels: 'bug', state: 'opened' }, expected('instance', undefined, 'opened')));
    expect(instanceReads.length).toBeGreaterThan(0);
    for (const r of instanceReads) expect(r.sql).toContain('issuable_labels_title_created');
    // (label-rows-list.ts reads a group's page from them when they are few: at most LABEL_ROWS.walk,
    // here 1; past it, only the pages that would read every row of `bug` and sort them, those past
    // the first: its 77 rows are fewer than their bound, sqrt(41 x 240) = 100, not than the first's, 71.)
    LABEL_ROWS.walk = 1;
    try {
      const groupReads = await pagedReads(s, () => expectPages('group', { labels: 'bug' }, expected('group', undefined)));
      expect(groupReads.map((r) => r.sql.includes('issuable_labels_title_created'))).toEqual([false, true, true, true]);
    } finally {
      LABEL_ROWS.walk = 20_000;
    }
    // At another page length (a page asked again whole is kept: scope-page-rows).
    const fewReads = await pagedReads(s, () => expectPages('group', { labels: 'bug' }, expected('group', undefined), undefined, 7));
    expect(fewReads.some((r) => r.sql.startsWith('SELECT il.issuable_id AS id FROM issuable_labels il INDEXED BY issuable_labels_title_created'))).toBe(true);
    await expectPages('project', { labels: 'BUG', sort: 'asc' }, [...expected('project', undefined)].reverse(), undefined, 15);
    await expectPages('group', { labels: 'Bug', sort: 'asc', state: 'opened' }, [...expected('group', outsider, 'opened')].reverse(), outsider, 15);
    await checkAll();
  });

  it('counts a record carrying the title in two cases once', async () => {
    const both = seeds.filter((x) => x.labels.includes('bug') && x.labels.includes('Bug'));
    expect(both.length).toBeGreaterThan(0);
    const res = await s.get(path('project'), { query: { labels: 'bug', per_page: '100' } });
    expect(new Set(ids(res)).size).toBe(ids(res).length);
    expect(ids(res)).toEqual(expected('project', undefined).slice(0, 100).map((x) => x.id));
  });

  it('in another order, or with another filter, as the records say', async () => {
    const bug = seeds.filter((x) => x.projectId === project && hasLabel(x, 'bug'));
    const byTitle = await s.get(path('project'), { query: { labels: 'bug', order_by: 'title', sort: 'asc', per_page: '100' } });
    expect(byTitle.body.map((x: any) => x.title)).toEqual(bug.map((x) => `Issue ${x.iid}`).sort().slice(0, 100));
    const open = newestFirst(bug.filter((x) => !x.confidential));
    expect(ids(await s.get(path('project'), { query: { labels: 'bug', confidential: 'false', per_page: '100' } }))).toEqual(open.map((x) => x.id));
  });

  it('follows every write: labelled, unlabelled, closed, made confidential, dated anew, moved, created, deleted', async () => {
    const db = s.service.context.db;
    const inProject = (xs: Seed[]): Seed[] => xs.filter((x) => x.projectId === project);
    const newest = newestFirst(inProject(seeds))[0];
    expect((await s.put(`/projects/${project}/issues/${newest.iid}`, { add_labels: 'bug' })).status).toBe(200);
    newest.labels = [...newest.labels, 'bug'];
    const old = expected('project', undefined)[5];
    expect((await s.put(`/projects/${project}/issues/${old.iid}`, { remove_labels: 'bug,Bug' })).status).toBe(200);
    old.labels = old.labels.filter((l) => l.toLowerCase() !== 'bug');
    const toClose = expected('project', outsider, 'opened')[3];
    expect((await s.put(`/projects/${project}/issues/${toClose.iid}`, { state_event: 'close' })).status).toBe(200);
    toClose.state = 'closed';
    const secret = expected('project', outsider, 'opened')[1];
    expect((await s.put(`/projects/${project}/issues/${secret.iid}`, { confidential: true })).status).toBe(200);
    secret.confidential = true;
    await checkAll();
    // Dated anew without the API: the label rows follow the record, whatever writes it.
    const redated = expected('project', undefined)[30];
    redated.createdAt = '2030-01-01T00:00:00.000Z';
    db.prepare('UPDATE issues SET created_at = ? WHERE id = ?').run(redated.createdAt, redated.id);
    const backdated = expected('project', undefined)[2];
    backdated.createdAt = '2001-01-01T00:00:00.000Z';
    db.prepare('UPDATE issues SET created_at = ? WHERE id = ?').run(backdated.createdAt, backdated.id);
    // Moved to the sibling project (same group) without the API.
    const moved = expected('project', undefined)[7];
    moved.projectId = sibling;
    db.prepare('UPDATE issues SET project_id = ?, iid = ? WHERE id = ?').run(sibling, 100_000, moved.id);
    moved.iid = 100_000;
    await checkAll();
    const created = await s.post(`/projects/${project}/issues`, { title: 'Fresh', labels: 'BUG' });
    expect(created.status).toBe(201);
    seeds.push({ id: created.body.id, iid: created.body.iid, projectId: project, state: 'opened', labels: ['BUG'], confidential: false, createdAt: created.body.created_at });
    const gone = expected('project', undefined)[2];
    expect((await s.del(`/projects/${project}/issues/${gone.iid}`)).status).toBe(204);
    seeds.splice(seeds.indexOf(gone), 1);
    await checkAll();
  });
});
