import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService } from '../helpers/service';
import { expectCounted, expectUncounted } from '../helpers/lists';
import { insertImportedIssue } from '../../src/main/service/areas/core/imported';

/**
 * Lists past 10,000 records read other indexes than small ones (core/014): a label filter counts
 * from the label rows, a group of many records walks the instance-wide order index, a page past
 * the first 10,000 rows is not counted at all. Whatever the plan, the answer is the one the
 * records say: these tests compute it from the seeded records and compare rows, order and headers.
 */
let s: TestService;
let group: number;
let big: number;
let small: number;
let otherAuthor: number;

/** The seeded issues of the big project, as the tests expect to see them. */
interface Seed {
  iid: number;
  id: number;
  state: 'opened' | 'closed';
  labels: string[];
  confidential: boolean;
  createdAt: string;
  updatedAt: string;
  authorId: number;
  milestone: string | null;
}
const seeded: Seed[] = [];
const N = 10_060;

// Three issues share each created_at (ties broken by id); updated_at runs the other way.
const createdAt = (i: number): string => new Date(Date.UTC(2024, 0, 1) + Math.floor(i / 3) * 60_000).toISOString();
const updatedAt = (i: number): string => new Date(Date.UTC(2025, 0, 1) - Math.floor(i / 2) * 60_000).toISOString();
const labelsOf = (i: number): string[] =>
  // `common` on all but every 1,000th; `rare` on every 500th, some of those also as `RARE` (one record, two rows).
  [...(i % 1000 ? ['common'] : []), ...(i % 500 === 0 ? ['rare'] : []), ...(i % 1500 === 0 ? ['RARE'] : [])];
// Root writes all but every 997th; milestone `wide` is on all but every 1,000th, `narrow` on those.
const authorOf = (i: number): number => (i % 997 ? 1 : otherAuthor);
const milestoneOf = (i: number): string | null => (i % 1000 ? 'wide' : i % 2000 ? 'narrow' : null);

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ visibility: 'public' })).id;
  big = (await s.createProject({ name: 'big', namespace_id: group, visibility: 'public' })).id;
  small = (await s.createProject({ name: 'small', namespace_id: group, visibility: 'public' })).id;
  otherAuthor = (await s.createUser()).user.id;
  const milestoneIds = new Map<string, number>();
  for (const title of ['wide', 'narrow']) milestoneIds.set(title, (await s.post(`/projects/${big}/milestones`, { title })).body.id);
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      const state = i % 7 === 0 ? 'closed' : 'opened';
      const row = insertImportedIssue(ctx, big, {
        iid: i,
        title: `Issue ${i}`,
        description: null,
        state,
        authorId: authorOf(i),
        milestoneId: milestoneIds.get(milestoneOf(i) ?? '') ?? null,
        labels: labelsOf(i),
        confidential: i % 1000 === 500,
        createdAt: createdAt(i),
        updatedAt: updatedAt(i),
        importedFrom: 'none',
      });
      seeded.push({
        iid: i,
        id: row.id,
        state,
        labels: labelsOf(i),
        confidential: i % 1000 === 500,
        createdAt: createdAt(i),
        updatedAt: updatedAt(i),
        authorId: authorOf(i),
        milestone: milestoneOf(i),
      });
    }
  })();
  for (const title of ['Small one', 'Small two', 'Small three']) await s.post(`/projects/${small}/issues`, { title, labels: 'rare' });
}, 120_000);
afterAll(async () => s.stop());

const byCreatedDesc = (a: { createdAt: string; id: number }, b: { createdAt: string; id: number }): number =>
  a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.id - a.id;
const hasLabel = (x: Seed, title: string): boolean => x.labels.some((l) => l.toLowerCase() === title.toLowerCase());

describe('a label filter on a project', () => {
  it('past 10,000 matches is uncounted, and lists in created_at order with ties broken by id', async () => {
    const expected = seeded.filter((x) => hasLabel(x, 'common')).sort(byCreatedDesc);
    expect(expected.length).toBeGreaterThan(10_000);
    const res = await s.get(`/projects/${big}/issues`, { query: { labels: 'common', per_page: '100', page: '2' } });
    expectUncounted(res, '3');
    expect(res.body.map((i: any) => i.iid)).toEqual(expected.slice(100, 200).map((x) => x.iid));
  });

  it('with a state, counts exactly up to 10,000 matches from the label rows', async () => {
    const expected = seeded.filter((x) => hasLabel(x, 'common') && x.state === 'opened').sort(byCreatedDesc);
    expect(expected.length).toBeLessThanOrEqual(10_000);
    const res = await s.get(`/projects/${big}/issues`, { query: { labels: 'Common', state: 'opened', per_page: '50', page: '3' } });
    expectCounted(res, expected.length, 50);
    expect(res.body.map((i: any) => i.iid)).toEqual(expected.slice(100, 150).map((x) => x.iid));
  });

  it('counts a record once when it carries the title in two cases', async () => {
    const expected = seeded.filter((x) => hasLabel(x, 'rare')).sort(byCreatedDesc);
    expect(expected.some((x) => x.labels.includes('rare') && x.labels.includes('RARE'))).toBe(true);
    const res = await s.get(`/projects/${big}/issues`, { query: { labels: 'rare', per_page: '100' } });
    expectCounted(res, expected.length, 100);
    expect(res.body.map((i: any) => i.iid)).toEqual(expected.map((x) => x.iid));
    const closed = await s.get(`/projects/${big}/issues`, { query: { labels: 'RARE', state: 'closed' } });
    expectCounted(closed, expected.filter((x) => x.state === 'closed').length, 20);
  });

  it('counts only what a user outside the project may see (confidential issues hidden)', async () => {
    const { token } = await s.createUser();
    const expected = seeded.filter((x) => hasLabel(x, 'rare') && !x.confidential).sort(byCreatedDesc);
    expect(expected.length).toBeLessThan(seeded.filter((x) => hasLabel(x, 'rare')).length);
    const res = await s.get(`/projects/${big}/issues`, { query: { labels: 'rare', per_page: '100' }, token });
    expectCounted(res, expected.length, 100);
    expect(res.body.map((i: any) => i.iid)).toEqual(expected.map((x) => x.iid));
  });

  it('past 10,000 matches nobody is denied, is uncounted for a user outside the project too (from the label counters)', async () => {
    const { token } = await s.createUser();
    const expected = seeded.filter((x) => hasLabel(x, 'common') && !x.confidential).sort(byCreatedDesc);
    expect(expected.length).toBeGreaterThan(10_000);
    const res = await s.get(`/projects/${big}/issues`, { query: { labels: 'COMMON', per_page: '100', page: '3' }, token });
    expectUncounted(res, '4');
    expect(res.body.map((i: any) => i.iid)).toEqual(expected.slice(200, 300).map((x) => x.iid));
  });

  it("follows a record's state: closing a labelled issue moves it between the state counts", async () => {
    const count = async (state: string): Promise<string | null> =>
      (await s.get(`/projects/${small}/issues`, { query: { labels: 'rare', state } })).headers.get('x-total');
    expect([await count('opened'), await count('closed')]).toEqual(['3', '0']);
    await s.put(`/projects/${small}/issues/2`, { state_event: 'close' });
    expect([await count('opened'), await count('closed')]).toEqual(['2', '1']);
    await s.put(`/projects/${small}/issues/2`, { state_event: 'reopen', labels: 'RARE,rare' });
    expect([await count('opened'), await count('closed')]).toEqual(['3', '0']);
  });
});

describe('pages past the first 10,000 rows', () => {
  const all = () => [...seeded].sort(byCreatedDesc);

  it('a full page past 10,000 and the last, short page are uncounted, the last without a next page', async () => {
    const deep = await s.get(`/projects/${big}/issues`, { query: { per_page: '100', page: '100' } });
    expectUncounted(deep, '101');
    expect(deep.body.map((i: any) => i.iid)).toEqual(all().slice(9_900, 10_000).map((x) => x.iid));
    const last = await s.get(`/projects/${big}/issues`, { query: { per_page: '100', page: '101' } });
    expectUncounted(last, '');
    expect(last.body.map((i: any) => i.iid)).toEqual(all().slice(10_000).map((x) => x.iid));
    const beyond = await s.get(`/projects/${big}/issues`, { query: { per_page: '100', page: '150' } });
    expectUncounted(beyond, '');
    expect(beyond.body).toEqual([]);
  });

  it('a short last page within 10,000 rows and an empty page past the end are counted', async () => {
    const rare = seeded.filter((x) => hasLabel(x, 'rare')).length;
    const last = await s.get(`/projects/${big}/issues`, { query: { labels: 'rare', per_page: '15', page: '2' } });
    expectCounted(last, rare, 15);
    expect(last.body).toHaveLength(rare - 15);
    expect(last.headers.get('x-next-page')).toBe('');
    const beyond = await s.get(`/projects/${big}/issues`, { query: { labels: 'rare', per_page: '15', page: '9' } });
    expectCounted(beyond, rare, 15);
    expect(beyond.body).toEqual([]);
  });
});

describe('totals of a big project, unfiltered or by state (from the state counters)', () => {
  it('leave out a total past 10,000 and count a state of fewer exactly, confidential issues only for those who see them', async () => {
    const all = [...seeded].sort(byCreatedDesc);
    const first = await s.get(`/projects/${big}/issues`, { query: { per_page: '100' } });
    expectUncounted(first, '2');
    expect(first.body.map((i: any) => i.iid)).toEqual(all.slice(0, 100).map((x) => x.iid));
    const opened = all.filter((x) => x.state === 'opened');
    expect(opened.length).toBeLessThanOrEqual(10_000);
    const res = await s.get(`/projects/${big}/issues`, { query: { state: 'opened', per_page: '100', page: '2' } });
    expectCounted(res, opened.length, 100);
    expect(res.body.map((i: any) => i.iid)).toEqual(opened.slice(100, 200).map((x) => x.iid));
    const { token } = await s.createUser();
    const visible = opened.filter((x) => !x.confidential);
    expect(visible.length).toBeLessThan(opened.length);
    expectCounted(await s.get(`/projects/${big}/issues`, { query: { state: 'opened' }, token }), visible.length, 20);
  });
});

describe('an author or milestone filter on a big project (from the filter counters)', () => {
  const list = (query: Record<string, string>, token?: string) => s.get(`/projects/${big}/issues`, { query, token });

  it('past 10,000 matches is uncounted, fewer are counted exactly, in created_at order', async () => {
    const byRoot = seeded.filter((x) => x.authorId === 1).sort(byCreatedDesc);
    expect(byRoot.length).toBeGreaterThan(10_000);
    const res = await list({ author_id: '1', per_page: '100', page: '2' });
    expectUncounted(res, '3');
    expect(res.body.map((i: any) => i.iid)).toEqual(byRoot.slice(100, 200).map((x) => x.iid));
    const openedByRoot = byRoot.filter((x) => x.state === 'opened');
    expect(openedByRoot.length).toBeLessThanOrEqual(10_000);
    const opened = await list({ author_id: '1', state: 'opened', per_page: '100', page: '4' });
    expectCounted(opened, openedByRoot.length, 100);
    expect(opened.body.map((i: any) => i.iid)).toEqual(openedByRoot.slice(300, 400).map((x) => x.iid));
    const byOther = seeded.filter((x) => x.authorId === otherAuthor).sort(byCreatedDesc);
    const other = await list({ author_id: String(otherAuthor) });
    expectCounted(other, byOther.length, 20);
    expect(other.body.map((i: any) => i.iid)).toEqual(byOther.map((x) => x.iid));
    expectCounted(await list({ author_id: '0' }), 0, 20);
  });

  it('a milestone by title, with or without a state and an author', async () => {
    const wide = seeded.filter((x) => x.milestone === 'wide').sort(byCreatedDesc);
    expect(wide.length).toBeGreaterThan(10_000);
    const res = await list({ milestone: 'wide', per_page: '100' });
    expectUncounted(res, '2');
    expect(res.body.map((i: any) => i.iid)).toEqual(wide.slice(0, 100).map((x) => x.iid));
    const closedWide = wide.filter((x) => x.state === 'closed');
    const closed = await list({ milestone: 'wide', state: 'closed', per_page: '100', page: '2' });
    expectCounted(closed, closedWide.length, 100);
    expect(closed.body.map((i: any) => i.iid)).toEqual(closedWide.slice(100, 200).map((x) => x.iid));
    const narrowByOther = seeded.filter((x) => x.milestone === 'narrow' && x.authorId === otherAuthor);
    expectCounted(await list({ milestone: 'narrow', author_id: String(otherAuthor) }), narrowByOther.length, 20);
    const narrow = seeded.filter((x) => x.milestone === 'narrow').sort(byCreatedDesc);
    const few = await list({ milestone: 'narrow' });
    expectCounted(few, narrow.length, 20);
    expect(few.body.map((i: any) => i.iid)).toEqual(narrow.map((x) => x.iid));
    expectCounted(await list({ milestone: 'no such milestone' }), 0, 20);
  });

  it('for a user outside the project: uncounted when the issues they may see pass 10,000, counted exactly otherwise', async () => {
    const { token } = await s.createUser();
    const visibleByRoot = seeded.filter((x) => x.authorId === 1 && !x.confidential).sort(byCreatedDesc);
    expect(visibleByRoot.length).toBeGreaterThan(10_000);
    const res = await list({ author_id: '1', per_page: '100', page: '5' }, token);
    expectUncounted(res, '6');
    expect(res.body.map((i: any) => i.iid)).toEqual(visibleByRoot.slice(400, 500).map((x) => x.iid));
    const openedWide = seeded.filter((x) => x.milestone === 'wide' && x.state === 'opened' && !x.confidential).sort(byCreatedDesc);
    const opened = await list({ milestone: 'wide', state: 'opened', per_page: '100', page: '2' }, token);
    expectCounted(opened, openedWide.length, 100);
    expect(opened.body.map((i: any) => i.iid)).toEqual(openedWide.slice(100, 200).map((x) => x.iid));
    const visible = seeded.filter((x) => !x.confidential);
    expect(visible.length).toBeGreaterThan(10_000);
    expectUncounted(await list({ per_page: '100', page: '2' }, token), '3');
  });
});

describe('issues of a group holding more than 10,000', () => {
  it('list every project in created_at order, ties broken by id, uncounted', async () => {
    const smallIssues = (await s.get(`/projects/${small}/issues`, { query: { per_page: '100' } })).body.map((i: any) => ({
      id: i.id,
      iid: i.iid,
      createdAt: i.created_at,
    }));
    const expected = [...seeded, ...smallIssues].sort(byCreatedDesc);
    const first = await s.get(`/groups/${group}/issues`, { query: { per_page: '100' } });
    expectUncounted(first, '2');
    expect(first.body.map((i: any) => i.id)).toEqual(expected.slice(0, 100).map((x) => x.id));
    const asc = await s.get(`/groups/${group}/issues`, { query: { per_page: '100', page: '3', order_by: 'updated_at', sort: 'asc' } });
    expectUncounted(asc, '4');
    const byUpdatedAsc = [...seeded].sort((a, b) => (a.updatedAt < b.updatedAt ? -1 : a.updatedAt > b.updatedAt ? 1 : a.id - b.id));
    // The small project's issues were updated now, after every seeded one.
    expect(asc.body.map((i: any) => i.id)).toEqual(byUpdatedAsc.slice(200, 300).map((x) => x.id));
  });

  it('counts a filter of fewer than 10,000 exactly, through the projects of the group', async () => {
    const expected = seeded.filter((x) => x.state === 'closed').sort(byCreatedDesc);
    const res = await s.get(`/groups/${group}/issues`, { query: { state: 'closed', per_page: '100', page: '3' } });
    expectCounted(res, expected.length, 100);
    expect(res.body.map((i: any) => i.id)).toEqual(expected.slice(200, 300).map((x) => x.id));
    const rare = seeded.filter((x) => hasLabel(x, 'rare')).length + 3;
    expectCounted(await s.get(`/groups/${group}/issues`, { query: { labels: 'rare' } }), rare, 20);
  });

  it('and the same filters answer the same at the instance level', async () => {
    const expected = seeded.filter((x) => x.state === 'closed').sort(byCreatedDesc);
    const res = await s.get('/issues', { query: { scope: 'all', state: 'closed', per_page: '100', page: '2' } });
    expectCounted(res, expected.length, 100);
    expect(res.body.map((i: any) => i.id)).toEqual(expected.slice(100, 200).map((x) => x.id));
  });
});

describe('search', () => {
  it('finds the same substrings in a big scope (every match read once) and a small one (each record probed)', async () => {
    const expected = seeded.filter((x) => `Issue ${x.iid}`.includes('Issue 100')).sort(byCreatedDesc);
    const res = await s.get(`/projects/${big}/issues`, { query: { search: 'issue 100', per_page: '100' } });
    expectCounted(res, expected.length, 100);
    expect(res.body.map((i: any) => i.iid)).toEqual(expected.map((x) => x.iid));
    const few = await s.get(`/projects/${small}/issues`, { query: { search: 'SMALL T' } });
    expectCounted(few, 2, 20);
    expect(few.body.map((i: any) => i.title)).toEqual(['Small three', 'Small two']);
    const inGroup = await s.get(`/groups/${group}/issues`, { query: { search: 'small t', in: 'title' } });
    expect(inGroup.body.map((i: any) => i.title)).toEqual(['Small three', 'Small two']);
  });
});

describe('search on a big project (the project\'s own range of the full-text index)', () => {
  const titled = (x: Seed, term: string): boolean => `Issue ${x.iid}`.toLowerCase().includes(term.toLowerCase());

  it('a term on every record: the first pages walk the list order, deeper ones read the matches, same rows either way', async () => {
    const expected = seeded.filter((x) => titled(x, 'ssue')).sort(byCreatedDesc);
    expect(expected.length).toBeGreaterThan(10_000);
    const first = await s.get(`/projects/${big}/issues`, { query: { search: 'SSUE', per_page: '100' } });
    expectUncounted(first, '2');
    expect(first.body.map((i: any) => i.iid)).toEqual(expected.slice(0, 100).map((x) => x.iid));
    const deep = await s.get(`/projects/${big}/issues`, { query: { search: 'ssue', per_page: '100', page: '15' } });
    expectUncounted(deep, '16');
    expect(deep.body.map((i: any) => i.iid)).toEqual(expected.slice(1_400, 1_500).map((x) => x.iid));
    const last = await s.get(`/projects/${big}/issues`, { query: { search: 'ssue', per_page: '100', page: '101' } });
    expectUncounted(last, '');
    expect(last.body.map((i: any) => i.iid)).toEqual(expected.slice(10_000).map((x) => x.iid));
  });

  it('with another filter, counts the matches that pass it', async () => {
    const expected = seeded.filter((x) => titled(x, 'issue') && x.state === 'closed').sort(byCreatedDesc);
    const res = await s.get(`/projects/${big}/issues`, { query: { search: 'issue', state: 'closed', per_page: '100', page: '2' } });
    expectCounted(res, expected.length, 100);
    expect(res.body.map((i: any) => i.iid)).toEqual(expected.slice(100, 200).map((x) => x.iid));
    const byTitle = await s.get(`/projects/${big}/issues`, { query: { search: 'issue 99', order_by: 'title', sort: 'asc', per_page: '5' } });
    const titles = seeded.filter((x) => titled(x, 'issue 99')).map((x) => `Issue ${x.iid}`).sort();
    expectCounted(byTitle, titles.length, 5);
    expect(byTitle.body.map((i: any) => i.title)).toEqual(titles.slice(0, 5));
  });

  it('counts and lists only what a user outside the project may see', async () => {
    const { token } = await s.createUser();
    const some = seeded.filter((x) => titled(x, 'issue 5') && !x.confidential).sort(byCreatedDesc);
    expect(some.length).toBeLessThan(seeded.filter((x) => titled(x, 'issue 5')).length);
    const res = await s.get(`/projects/${big}/issues`, { query: { search: 'issue 5', per_page: '100', page: '2' }, token });
    expectCounted(res, some.length, 100);
    expect(res.body.map((i: any) => i.iid)).toEqual(some.slice(100, 200).map((x) => x.iid));
    const all = seeded.filter((x) => !x.confidential).sort(byCreatedDesc);
    const common = await s.get(`/projects/${big}/issues`, { query: { search: 'issue', per_page: '100', page: '3' }, token });
    expectUncounted(common, '4');
    expect(common.body.map((i: any) => i.iid)).toEqual(all.slice(200, 300).map((x) => x.iid));
  });

  it("finds a record in its project only, and follows it to another project", async () => {
    const other = (await s.createProject({ name: 'other', namespace_id: group, visibility: 'public' })).id;
    const wanderer = (await s.post(`/projects/${small}/issues`, { title: 'Wanderer issue 5' })).body;
    const titles = async (project: number): Promise<string[]> =>
      (await s.get(`/projects/${project}/issues`, { query: { search: 'wanderer' } })).body.map((i: any) => i.title);
    expect(await titles(small)).toEqual(['Wanderer issue 5']);
    expect(await titles(other)).toEqual([]);
    // No REST endpoint moves an issue between projects yet; the index follows the record whatever moves it.
    s.service.context.db.prepare('UPDATE issues SET project_id = ?, iid = 1 WHERE id = ?').run(other, wanderer.id);
    expect(await titles(small)).toEqual([]);
    expect(await titles(other)).toEqual(['Wanderer issue 5']);
    const inBig = await s.get(`/projects/${big}/issues`, { query: { search: 'wanderer' } });
    expectCounted(inBig, 0, 20);
  });
});

describe('deep pages of a project (started after a row an earlier page read, core/019)', () => {
  // Runs last: it writes to the big project. `current` follows every write the tests make.
  const current = (): Seed[] => seeded;
  const ids = (res: ApiResult): number[] => res.body.map((i: any) => i.id);
  const page = (query: Record<string, string>, token?: string) => s.get(`/projects/${big}/issues`, { query: { per_page: '100', ...query }, token });
  const newestFirst = (xs: Seed[]) => [...xs].sort(byCreatedDesc);

  it('read in turn, asked again and jumped between, every page is the slice the records say', async () => {
    const expected = newestFirst(current());
    for (const n of [11, 12, 13, 12, 30, 13, 100, 101, 11]) {
      const res = await page({ page: String(n) });
      expect(ids(res)).toEqual(expected.slice((n - 1) * 100, n * 100).map((x) => x.id));
      expect(res.headers.get('x-next-page')).toBe(n < 101 ? String(n + 1) : '');
    }
    const updatedAsc = [...current()].sort((a, b) => (a.updatedAt < b.updatedAt ? -1 : a.updatedAt > b.updatedAt ? 1 : a.id - b.id));
    for (const n of [20, 21, 20]) expect(ids(await page({ page: String(n), order_by: 'updated_at', sort: 'asc' }))).toEqual(updatedAsc.slice((n - 1) * 100, n * 100).map((x) => x.id));
    const titleAsc = [...current()].sort((a, b) => (`Issue ${a.iid}` < `Issue ${b.iid}` ? -1 : `Issue ${a.iid}` > `Issue ${b.iid}` ? 1 : a.id - b.id));
    for (const n of [40, 41, 40]) expect(ids(await page({ page: String(n), order_by: 'title', sort: 'asc' }))).toEqual(titleAsc.slice((n - 1) * 100, n * 100).map((x) => x.id));
    const closed = newestFirst(current().filter((x) => x.state === 'closed'));
    for (const n of [11, 12, 11]) expect(ids(await page({ page: String(n), state: 'closed' }))).toEqual(closed.slice((n - 1) * 100, n * 100).map((x) => x.id));
  });

  it('follow every write to the project: an issue created among them, closed, dated anew, deleted', async () => {
    const check = async (n: number, query: Record<string, string> = {}, filter: (x: Seed) => boolean = () => true): Promise<void> => {
      const expected = newestFirst(current().filter(filter));
      expect(ids(await page({ page: String(n), ...query }))).toEqual(expected.slice((n - 1) * 100, n * 100).map((x) => x.id));
    };
    await check(30);
    await check(12, { state: 'closed' }, (x) => x.state === 'closed');
    // Created with a date in the middle of the list (an administrator may date an issue): every page after it moves by one.
    const middle = newestFirst(current())[2_950];
    const created = await s.post(`/projects/${big}/issues`, { title: 'Dated', created_at: middle.createdAt });
    expect(created.status).toBe(201);
    seeded.push({ ...middle, iid: created.body.iid, id: created.body.id, labels: [], confidential: false, updatedAt: created.body.updated_at, milestone: null });
    await check(30);
    // Closed: it joins the closed list.
    const toClose = newestFirst(current())[4_321];
    expect((await s.put(`/projects/${big}/issues/${toClose.iid}`, { state_event: 'close' })).status).toBe(200);
    toClose.state = 'closed';
    toClose.updatedAt = (await s.get(`/projects/${big}/issues/${toClose.iid}`)).body.updated_at;
    await check(12, { state: 'closed' }, (x) => x.state === 'closed');
    await check(30);
    // Dated anew without the API: the anchors follow the table, whatever writes it.
    const moved = newestFirst(current())[500];
    moved.createdAt = newestFirst(current())[9_000].createdAt;
    s.service.context.db.prepare('UPDATE issues SET created_at = ? WHERE id = ?').run(moved.createdAt, moved.id);
    await check(30);
    await check(90);
    // Deleted.
    const gone = newestFirst(current())[1_000];
    expect((await s.del(`/projects/${big}/issues/${gone.iid}`)).status).toBe(204);
    seeded.splice(seeded.indexOf(gone), 1);
    await check(30);
    await check(11);
  });

  it('for a user who becomes a Planner, the confidential issues appear on their deep pages at once', async () => {
    const { user, token } = await s.createUser();
    const visible = newestFirst(current().filter((x) => !x.confidential));
    for (const n of [40, 41]) expect(ids(await page({ page: String(n) }, token))).toEqual(visible.slice((n - 1) * 100, n * 100).map((x) => x.id));
    await s.addMember('projects', big, user.id, 15);
    const all = newestFirst(current());
    expect(all.slice(3_900, 4_000)).not.toEqual(visible.slice(3_900, 4_000));
    for (const n of [40, 41]) expect(ids(await page({ page: String(n) }, token))).toEqual(all.slice((n - 1) * 100, n * 100).map((x) => x.id));
  });
});
