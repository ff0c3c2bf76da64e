import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type ApiResult, TestService } from '../helpers/service';
import { expectCounted, expectUncounted, pagedReads, preparedBy } from '../helpers/lists';
import { insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';
import { nextEpicIds } from '../../src/main/service/areas/epics/epics';
import { createSnippet } from '../../src/main/service/areas/snippets/snippets';

/**
 * Merge requests filtered by author or milestone (core/028) and a group's epics (epics/007) past
 * 10,000 records: counted from counters kept by triggers, deep pages started after a row an
 * earlier page read. Whatever the mechanism, every answer is the one the records say: these
 * tests compute it from the seeded records and compare rows, order and headers, before and after
 * every kind of write.
 */
let s: TestService;
let group: number;
let project: number;
let other: { user: any; token: string };

interface Seed {
  id: number;
  iid: number;
  title: string;
  state: string;
  authorId: number;
  milestone: string | null;
  confidential: boolean;
  createdAt: string;
  updatedAt: string;
}
const mrs: Seed[] = [];
const epics: Seed[] = [];
const N = 10_060;

// Three records share each created_at (ties broken by id); updated_at runs the other way.
const createdAt = (i: number): string => new Date(Date.UTC(2024, 0, 1) + Math.floor(i / 3) * 60_000).toISOString();
const updatedAt = (i: number): string => new Date(Date.UTC(2025, 0, 1) - Math.floor(i / 2) * 60_000).toISOString();
const mrState = (i: number): string => (i % 11 === 0 ? 'merged' : i % 7 === 0 ? 'closed' : 'opened');
// Root writes all but every 997th; milestone `wide` is on all but every 1,000th, `narrow` on those.
const authorOf = (i: number): number => (i % 997 ? 1 : other.user.id);
const milestoneOf = (i: number): string | null => (i % 1000 ? 'wide' : i % 2000 ? 'narrow' : null);

beforeAll(async () => {
  s = await TestService.start();
  other = await s.createUser();
  group = (await s.createGroup({ visibility: 'public' })).id;
  project = (await s.createProject({ name: 'big', namespace_id: group, visibility: 'public' })).id;
  const milestoneIds = new Map<string, number>();
  for (const title of ['wide', 'narrow']) milestoneIds.set(title, (await s.post(`/projects/${project}/milestones`, { title })).body.id);
  const ctx = s.service.context;
  const insertEpic = ctx.db.prepare(
    'INSERT INTO epics (id, group_id, iid, title, state, confidential, author_id, labels, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      const common = { title: `Item ${i}`, authorId: authorOf(i), createdAt: createdAt(i), updatedAt: updatedAt(i) };
      const mr = insertImportedMergeRequest(ctx, project, {
        ...common,
        iid: i,
        description: null,
        state: mrState(i) as 'opened',
        milestoneId: milestoneIds.get(milestoneOf(i) ?? '') ?? null,
        sourceBranch: `feature-${i}`,
        targetBranch: 'main',
        baseSha: '0'.repeat(40),
        headSha: '1'.repeat(40),
        importedFrom: 'none',
      });
      mrs.push({ ...common, id: mr.id, iid: i, state: mrState(i), milestone: milestoneOf(i), confidential: false });
      // Epics: every 7th closed, every 1,000th (from 500) confidential.
      const { id, iid } = nextEpicIds(ctx, group);
      const epic = { ...common, id, iid, state: i % 7 === 0 ? 'closed' : 'opened', milestone: null, confidential: i % 1000 === 500 };
      insertEpic.run(id, group, iid, epic.title, epic.state, Number(epic.confidential), epic.authorId, '[]', epic.createdAt, epic.updatedAt);
      epics.push(epic);
    }
  })();
}, 180_000);
afterAll(async () => s.stop());

const newestFirst = (xs: Seed[]): Seed[] => [...xs].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.id - a.id));
const updatedAsc = (xs: Seed[]): Seed[] => [...xs].sort((a, b) => (a.updatedAt < b.updatedAt ? -1 : a.updatedAt > b.updatedAt ? 1 : a.id - b.id));
const titleAsc = (xs: Seed[]): Seed[] => [...xs].sort((a, b) => (a.title < b.title ? -1 : a.title > b.title ? 1 : a.id - b.id));
const ids = (res: ApiResult): number[] => res.body.map((x: any) => x.id);
/** The list's page of `per` as the records say it. */
const slice = (xs: Seed[], n: number, per = 100): number[] => xs.slice((n - 1) * per, n * per).map((x) => x.id);

describe("a project's merge requests by author and milestone", () => {
  const list = (query: Record<string, string>) => s.get(`/projects/${project}/merge_requests`, { query: { per_page: '100', ...query } });

  it('an author of more than 10,000 is uncounted, one of fewer counted exactly, with or without a state', async () => {
    const root = newestFirst(mrs.filter((x) => x.authorId === 1));
    expect(root.length).toBeGreaterThan(10_000);
    const res = await list({ author_id: '1', page: '3' });
    expectUncounted(res, '4');
    expect(ids(res)).toEqual(slice(root, 3));
    const theirs = newestFirst(mrs.filter((x) => x.authorId === other.user.id));
    const mine = await list({ author_id: String(other.user.id), per_page: '5' });
    expectCounted(mine, theirs.length, 5);
    expect(ids(mine)).toEqual(slice(theirs, 1, 5));
    const byName = await list({ author_username: other.user.username, state: 'opened' });
    expectCounted(byName, theirs.filter((x) => x.state === 'opened').length, 100);
    const rootMerged = newestFirst(root.filter((x) => x.state === 'merged'));
    const merged = await list({ author_id: '1', state: 'merged', page: '2' });
    expectCounted(merged, rootMerged.length, 100);
    expect(ids(merged)).toEqual(slice(rootMerged, 2));
  });

  it('a milestone by title, with or without a state and an author', async () => {
    const wide = newestFirst(mrs.filter((x) => x.milestone === 'wide'));
    expect(wide.length).toBeGreaterThan(10_000);
    const res = await list({ milestone: 'wide', page: '2' });
    expectUncounted(res, '3');
    expect(ids(res)).toEqual(slice(wide, 2));
    const narrow = await list({ milestone: 'narrow' });
    expectCounted(narrow, mrs.filter((x) => x.milestone === 'narrow').length, 100);
    const wideClosed = newestFirst(wide.filter((x) => x.state === 'closed'));
    const closed = await list({ milestone: 'wide', state: 'closed', page: '3' });
    expectCounted(closed, wideClosed.length, 100);
    expect(ids(closed)).toEqual(slice(wideClosed, 3));
    const theirsWide = await list({ milestone: 'wide', author_id: String(other.user.id) });
    expectCounted(theirsWide, wide.filter((x) => x.authorId === other.user.id).length, 100);
  });

  it('follow every write: a merge request closed, given a milestone, created, deleted', async () => {
    // A page of one: a full page, so the total comes from a count, not from the page itself.
    const count = async (query: Record<string, string>): Promise<string | null> => (await list({ ...query, per_page: '1' })).headers.get('x-total');
    const theirs = () => mrs.filter((x) => x.authorId === other.user.id);
    const target = newestFirst(theirs()).find((x) => x.state === 'opened')!;
    expect((await s.put(`/projects/${project}/merge_requests/${target.iid}`, { state_event: 'close' })).status).toBe(200);
    target.state = 'closed';
    expect(await count({ author_id: String(other.user.id), state: 'closed' })).toBe(String(theirs().filter((x) => x.state === 'closed').length));
    expect(await count({ author_id: String(other.user.id), state: 'opened' })).toBe(String(theirs().filter((x) => x.state === 'opened').length));

    const narrowId = (await s.get(`/projects/${project}/milestones`, { query: { title: 'narrow' } })).body[0].id;
    const moved = mrs.find((x) => x.milestone === 'wide' && x.state === 'opened')!;
    expect((await s.put(`/projects/${project}/merge_requests/${moved.iid}`, { milestone_id: narrowId })).status).toBe(200);
    moved.milestone = 'narrow';
    expect(await count({ milestone: 'narrow' })).toBe(String(mrs.filter((x) => x.milestone === 'narrow').length));
    expect(await count({ milestone: 'narrow', state: 'opened' })).toBe(String(mrs.filter((x) => x.milestone === 'narrow' && x.state === 'opened').length));

    await s.addMember('projects', project, other.user.id, 30);
    const created = await s.post(
      `/projects/${project}/merge_requests`,
      { source_branch: 'new', target_branch: 'main', title: 'New', milestone_id: narrowId },
      { token: other.token },
    );
    expect(created.status).toBe(201);
    mrs.push({ ...moved, id: created.body.id, iid: created.body.iid, authorId: other.user.id, state: 'opened', milestone: 'narrow' });
    expect(await count({ author_id: String(other.user.id) })).toBe(String(theirs().length));
    expect(await count({ milestone: 'narrow', author_id: String(other.user.id) })).toBe('1');

    expect((await s.del(`/projects/${project}/merge_requests/${created.body.iid}`)).status).toBe(204);
    mrs.pop();
    expect(await count({ author_id: String(other.user.id) })).toBe(String(theirs().length));
    expect(await count({ milestone: 'narrow' })).toBe(String(mrs.filter((x) => x.milestone === 'narrow').length));
  });
});

describe("a group's epics", () => {
  const list = (query: Record<string, string>, token?: string) => s.get(`/groups/${group}/epics`, { query: { per_page: '100', ...query }, token });
  const visibleTo = (userId: number) => epics.filter((x) => !x.confidential || x.authorId === userId);

  it('past 10,000 are uncounted; a state or an author of fewer counted exactly, in created_at order', async () => {
    const all = newestFirst(epics);
    const first = await list({});
    expectUncounted(first, '2');
    expect(ids(first)).toEqual(slice(all, 1));
    const closed = newestFirst(epics.filter((x) => x.state === 'closed'));
    const res = await list({ state: 'closed', page: '4' });
    expectCounted(res, closed.length, 100);
    expect(ids(res)).toEqual(slice(closed, 4));
    const theirs = newestFirst(epics.filter((x) => x.authorId === other.user.id));
    const byAuthor = await list({ author_id: String(other.user.id), per_page: '3' });
    expectCounted(byAuthor, theirs.length, 3);
    expect(ids(byAuthor)).toEqual(slice(theirs, 1, 3));
    expectCounted(await list({ author_username: other.user.username, state: 'opened' }), theirs.filter((x) => x.state === 'opened').length, 100);
    expectCounted(await list({ author_username: 'nobody-at-all' }), 0, 100);
  });

  it('counts only what a user outside the group may see: confidential epics hidden, save their own', async () => {
    const outsider = await s.createUser();
    const confidential = epics.find((x) => x.confidential && x.state === 'opened')!;
    s.service.context.db.prepare('UPDATE epics SET author_id = ? WHERE id = ?').run(outsider.user.id, confidential.id);
    confidential.authorId = outsider.user.id;
    const closedSeen = newestFirst(visibleTo(outsider.user.id).filter((x) => x.state === 'closed'));
    expect(closedSeen.length).toBeLessThan(epics.filter((x) => x.state === 'closed').length);
    const res = await list({ state: 'closed', page: '2' }, outsider.token);
    expectCounted(res, closedSeen.length, 100);
    expect(ids(res)).toEqual(slice(closedSeen, 2));
    expectCounted(await list({ author_id: String(outsider.user.id) }, outsider.token), 1, 100);
    expectCounted(await list({ author_id: String(outsider.user.id) }, other.token), 0, 100);
  });

  it('searched for a term on more than 10,000 epics, or on a few (the full-text index), finds what a substring match finds', async () => {
    const common = newestFirst(epics.filter((x) => x.title.includes('Item 1')));
    expect(common.length).toBeLessThan(10_000);
    const res = await list({ search: 'item 1', page: '2' });
    expectCounted(res, common.length, 100);
    expect(ids(res)).toEqual(slice(common, 2));
    const all = await list({ search: 'ITEM', page: '7' });
    expectUncounted(all, '8');
    expect(ids(all)).toEqual(slice(newestFirst(epics), 7));
    const rare = newestFirst(epics.filter((x) => x.title.includes('Item 123')));
    expect(ids(await list({ search: 'Item 123' }))).toEqual(rare.map((x) => x.id));
    const made = await s.post(`/groups/${group}/epics`, { title: 'Straße Ü-Epic', description: 'Große Änderung' });
    expect(made.status).toBe(201);
    epics.push({ ...rare[0], id: made.body.id, iid: made.body.iid, title: 'Straße Ü-Epic', state: 'opened', confidential: false, authorId: 1, createdAt: made.body.created_at, updatedAt: made.body.updated_at });
    expect(ids(await list({ search: 'ü-epic' }))).toEqual([]);
    expect(ids(await list({ search: 'Ü-EPIC' }))).toEqual([made.body.id]);
    expect(ids(await list({ search: 'Änderung' }))).toEqual([made.body.id]);
    expect((await s.put(`/groups/${group}/epics/${made.body.iid}`, { title: 'Renamed epic' })).status).toBe(200);
    epics[epics.length - 1].title = 'Renamed epic';
    epics[epics.length - 1].updatedAt = (await s.get(`/groups/${group}/epics/${made.body.iid}`)).body.updated_at;
    expect(ids(await list({ search: 'Ü-EPIC' }))).toEqual([]);
    expect(ids(await list({ search: 'renamed EPIC' }))).toEqual([made.body.id]);
  });

  it('read in turn, asked again and jumped between, every deep page is the slice the records say, in each order', async () => {
    const all = newestFirst(epics);
    for (const n of [11, 12, 13, 12, 30, 13, 100, 101, 11]) {
      const res = await list({ page: String(n) });
      expect(ids(res)).toEqual(slice(all, n));
      expect(res.headers.get('x-next-page')).toBe(n < 101 ? String(n + 1) : '');
    }
    for (const n of [20, 21, 20]) expect(ids(await list({ page: String(n), order_by: 'updated_at', sort: 'asc' }))).toEqual(slice(updatedAsc(epics), n));
    for (const n of [40, 41, 40]) expect(ids(await list({ page: String(n), order_by: 'title', sort: 'asc' }))).toEqual(slice(titleAsc(epics), n));
    const opened = newestFirst(epics.filter((x) => x.state === 'opened'));
    for (const n of [11, 12, 11]) expect(ids(await list({ page: String(n), state: 'opened' }))).toEqual(slice(opened, n));
  });

  it('follow every write: an epic created among them, closed, dated anew, deleted; and a user let in sees confidential ones at once', async () => {
    const check = async (n: number, query: Record<string, string> = {}, filter: (x: Seed) => boolean = () => true): Promise<void> => {
      expect(ids(await list({ page: String(n), ...query }))).toEqual(slice(newestFirst(epics.filter(filter)), n));
    };
    const closedCount = async (): Promise<string | null> => (await list({ state: 'closed' })).headers.get('x-total');
    await check(30);
    await check(12, { state: 'opened' }, (x) => x.state === 'opened');
    // Created with a date in the middle of the list: every page after it moves by one.
    const middle = newestFirst(epics)[2_950];
    const created = await s.post(`/groups/${group}/epics`, { title: 'Dated', created_at: middle.createdAt });
    expect(created.status).toBe(201);
    epics.push({ ...middle, id: created.body.id, iid: created.body.iid, title: 'Dated', state: 'opened', confidential: false, updatedAt: created.body.updated_at });
    await check(30);
    // Closed: it joins the closed list and its count.
    const toClose = newestFirst(epics).find((x, i) => i >= 4_321 && x.state === 'opened')!;
    expect((await s.put(`/groups/${group}/epics/${toClose.iid}`, { state_event: 'close' })).status).toBe(200);
    toClose.state = 'closed';
    toClose.updatedAt = (await s.get(`/groups/${group}/epics/${toClose.iid}`)).body.updated_at;
    expect(await closedCount()).toBe(String(epics.filter((x) => x.state === 'closed').length));
    await check(12, { state: 'opened' }, (x) => x.state === 'opened');
    await check(30);
    // Dated anew without the API: the anchors follow the table, whatever writes it.
    const moved = newestFirst(epics)[500];
    moved.createdAt = newestFirst(epics)[9_000].createdAt;
    s.service.context.db.prepare('UPDATE epics SET created_at = ? WHERE id = ?').run(moved.createdAt, moved.id);
    await check(30);
    await check(90);
    // Deleted.
    const gone = newestFirst(epics).find((x, i) => i > 1_000 && x.state === 'closed')!;
    expect((await s.del(`/groups/${group}/epics/${gone.iid}`)).status).toBe(204);
    epics.splice(epics.indexOf(gone), 1);
    expect(await closedCount()).toBe(String(epics.filter((x) => x.state === 'closed').length));
    await check(30);
    await check(11);

    // A user outside the group reads deep pages without the confidential epics; made a Planner, with them.
    const { user, token } = await s.createUser();
    const visible = newestFirst(visibleTo(user.id));
    for (const n of [40, 41]) expect(ids(await list({ page: String(n) }, token))).toEqual(slice(visible, n));
    await s.addMember('groups', group, user.id, 15);
    const all = newestFirst(epics);
    expect(slice(all, 40)).not.toEqual(slice(visible, 40));
    for (const n of [40, 41]) expect(ids(await list({ page: String(n) }, token))).toEqual(slice(all, n));
    expectCounted(await list({ state: 'closed' }, token), epics.filter((x) => x.state === 'closed').length, 100);
  });
});

describe("a group's epics by one label (epics/009) and by a common term (a remembered count)", () => {
  const list = (query: Record<string, string>, token?: string) => s.get(`/groups/${group}/epics`, { query: { per_page: '100', ...query }, token });
  // `wide` on all but every 1,000th epic (more than 10,000), `bug` on every 3rd, `Bug` on every 301st, `rare` on every 997th.
  const labelsOf = new Map<number, string[]>();
  const carrying = (title: string, xs: Seed[] = epics) => newestFirst(xs.filter((x) => (labelsOf.get(x.id) ?? []).includes(title)));
  const relabel = (x: Seed, labels: string[]): void => {
    labelsOf.set(x.id, labels);
    s.service.context.db.prepare('UPDATE epics SET labels = ? WHERE id = ?').run(JSON.stringify(labels), x.id);
  };

  beforeAll(() => {
    s.service.context.db.transaction(() => {
      epics.forEach((x, i) => {
        const labels = [i % 1000 ? 'wide' : '', i % 3 ? '' : 'bug', i % 301 ? '' : 'Bug', i % 997 ? '' : 'rare'].filter(Boolean);
        relabel(x, labels);
      });
    })();
  });

  it('are counted from the counters, exactly for every reader, or uncounted past 10,000; the rows are the records\' own', async () => {
    expect(carrying('wide').length).toBeGreaterThan(10_000);
    const wide = await list({ labels: 'wide', page: '3' });
    expectUncounted(wide, '4');
    expect(ids(wide)).toEqual(slice(carrying('wide'), 3));
    for (const [query, expected] of [
      [{ labels: 'bug', page: '2' }, carrying('bug')],
      [{ labels: 'Bug' }, carrying('Bug')],
      [{ labels: 'bug', state: 'closed' }, carrying('bug').filter((x) => x.state === 'closed')],
      [{ labels: 'bug', author_id: String(other.user.id) }, carrying('bug').filter((x) => x.authorId === other.user.id)],
      [{ labels: 'wide', state: 'closed', page: '5' }, carrying('wide').filter((x) => x.state === 'closed')],
      [{ labels: 'rare' }, carrying('rare')],
      [{ labels: 'RARE' }, []],
      [{ labels: 'nothing-has-it' }, []],
    ] as [Record<string, string>, Seed[]][]) {
      const res = await list(query);
      expectCounted(res, expected.length, 100);
      expect(ids(res)).toEqual(slice(expected, Number(query.page ?? 1)));
    }
    // Outside the group: confidential epics count only when their own.
    const outsider = await s.createUser();
    const seen = carrying('bug').filter((x) => !x.confidential || x.authorId === outsider.user.id);
    expect(seen.length).toBeLessThan(carrying('bug').length);
    const res = await list({ labels: 'bug', page: '3' }, outsider.token);
    expectCounted(res, seen.length, 100);
    expect(ids(res)).toEqual(slice(seen, 3));
  });

  it('follow every write: labels added and removed, through the API and outside it, an epic closed, made confidential, created, deleted, a label renamed', async () => {
    const expectLists = async (): Promise<void> => {
      for (const title of ['bug', 'rare']) {
        for (const state of ['all', 'opened', 'closed']) {
          const expected = carrying(title).filter((x) => state === 'all' || x.state === state);
          const res = await list({ labels: title, state });
          expectCounted(res, expected.length, 100);
          expect(ids(res)).toEqual(slice(expected, 1));
        }
      }
    };
    await expectLists();
    const [first, second, third] = carrying('bug').slice(5, 8);
    expect((await s.put(`/groups/${group}/epics/${first.iid}`, { remove_labels: 'bug', add_labels: 'rare' })).status).toBe(200);
    labelsOf.set(first.id, [...labelsOf.get(first.id)!.filter((l) => l !== 'bug'), 'rare']);
    relabel(second, [...labelsOf.get(second.id)!, 'rare', 'rare']);
    expect((await s.put(`/groups/${group}/epics/${third.iid}`, { state_event: 'close' })).status).toBe(200);
    third.state = 'closed';
    await expectLists();
    // Closed and relabelled in one write, outside the API.
    const fourth = carrying('bug').find((x) => x.state === 'opened')!;
    s.service.context.db.prepare("UPDATE epics SET state = 'closed', labels = '[\"rare\"]' WHERE id = ?").run(fourth.id);
    fourth.state = 'closed';
    labelsOf.set(fourth.id, ['rare']);
    await expectLists();
    // Made confidential: an outsider no longer counts it.
    const outsider = await s.createUser();
    const secret = carrying('rare').find((x) => !x.confidential)!;
    expect((await s.put(`/groups/${group}/epics/${secret.iid}`, { confidential: true })).status).toBe(200);
    secret.confidential = true;
    expectCounted(await list({ labels: 'rare' }, outsider.token), carrying('rare').filter((x) => !x.confidential).length, 100);
    // Created with the label, deleted.
    const made = await s.post(`/groups/${group}/epics`, { title: 'Labelled', labels: 'rare,bug' });
    expect(made.status).toBe(201);
    const seed = { ...secret, id: made.body.id, iid: made.body.iid, title: 'Labelled', state: 'opened', confidential: false, authorId: 1, createdAt: made.body.created_at, updatedAt: made.body.updated_at };
    epics.push(seed);
    labelsOf.set(seed.id, ['bug', 'rare']);
    await expectLists();
    const gone = carrying('rare').find((x) => x.id !== seed.id && x.state === 'opened')!;
    expect((await s.del(`/groups/${group}/epics/${gone.iid}`)).status).toBe(204);
    epics.splice(epics.indexOf(gone), 1);
    await expectLists();
    // The group's `rare` label renamed: its epics carry the new title.
    const groupLabel = (await s.get(`/groups/${group}/labels`, { query: { search: 'rare' } })).body.find((l: any) => l.name === 'rare');
    expect((await s.put(`/groups/${group}/labels/${groupLabel.id}`, { new_name: 'seldom' })).status).toBe(200);
    for (const x of carrying('rare')) labelsOf.set(x.id, labelsOf.get(x.id)!.map((l) => (l === 'rare' ? 'seldom' : l)));
    expect(carrying('rare')).toEqual([]);
    expectCounted(await list({ labels: 'rare' }), 0, 100);
    const seldom = carrying('seldom');
    const res = await list({ labels: 'seldom' });
    expectCounted(res, seldom.length, 100);
    expect(ids(res)).toEqual(slice(seldom, 1));
  });

  it('a common term stays uncounted through writes, and is counted again once the writes could have brought it to 10,000', async () => {
    const prepared = (fn: () => Promise<void>): Promise<string[]> => preparedBy(s, fn);
    const counts = (sqls: string[]) => sqls.filter((q) => q.startsWith('SELECT count(*)') && q.includes('LIKE'));
    const holding = () => newestFirst(epics.filter((x) => x.title.toLowerCase().includes('item')));
    expect(holding().length).toBeGreaterThan(10_001);
    // "Item" is in (almost) every title: counted once, a little past 10,000, then remembered.
    expect(counts(await prepared(async () => expectUncounted(await list({ search: 'item' }), '2')))).toHaveLength(1);
    expect(counts(await prepared(async () => expectUncounted(await list({ search: 'item' }), '2')))).toEqual([]);
    // Retitled out of the term, outside the API, until 10,001 remain: still more than 10,000, not counted again.
    const retitle = s.service.context.db.prepare("UPDATE epics SET title = 'Renamed away' WHERE id = ?");
    s.service.context.db.transaction(() => {
      for (const x of holding().slice(10_001)) {
        retitle.run(x.id);
        x.title = 'Renamed away';
      }
    })();
    expect(holding()).toHaveLength(10_001);
    const still = await prepared(async () => {
      const res = await list({ search: 'item' });
      expectUncounted(res, '2');
      expect(ids(res)).toEqual(slice(holding(), 1));
    });
    expect(counts(still)).toEqual([]);
    // One more through the API: 10,000 could be all that is left, so it is counted, and is.
    const last = holding()[0];
    expect((await s.put(`/groups/${group}/epics/${last.iid}`, { title: 'Away too' })).status).toBe(200);
    last.title = 'Away too';
    const first = await list({ search: 'item' });
    expectCounted(first, 10_000, 100);
    expect(ids(first)).toEqual(slice(holding(), 1));
    expect(ids(await list({ search: 'item', page: '100' }))).toEqual(slice(holding(), 100));
  });
});

describe("a project's labels, past 10,000, with its groups' labels", () => {
  interface Label {
    id: number;
    title: string;
    from: 'project' | 'parent' | 'grandparent';
  }
  const labels: Label[] = [];
  let labelled: number;

  beforeAll(async () => {
    const grandparent = (await s.createGroup({ visibility: 'public' })).id;
    const parent = (await s.createGroup({ visibility: 'public', parent_id: grandparent })).id;
    labelled = (await s.createProject({ name: 'labelled', namespace_id: parent, visibility: 'public' })).id;
    const insert = s.service.context.db.prepare(
      "INSERT INTO labels (group_id, project_id, title, color, created_at, updated_at) VALUES (?, ?, ?, '#428bca', '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z')",
    );
    s.service.context.db.transaction(() => {
      // Titles of the three owners interleave; the groups' ones also repeat a project title (a tie broken by id).
      for (let i = 0; i < 10_050; i++) {
        const title = `label-${String(i).padStart(5, '0')}`;
        labels.push({ id: Number(insert.run(null, labelled, title).lastInsertRowid), title, from: 'project' });
        if (i % 400 === 7) labels.push({ id: Number(insert.run(parent, null, `${title}-group`).lastInsertRowid), title: `${title}-group`, from: 'parent' });
        if (i % 900 === 3) labels.push({ id: Number(insert.run(grandparent, null, title).lastInsertRowid), title, from: 'grandparent' });
      }
    })();
  }, 120_000);

  const byTitle = (xs: Label[]): Label[] => [...xs].sort((a, b) => (a.title < b.title ? -1 : a.title > b.title ? 1 : a.id - b.id));
  const list = (query: Record<string, string>) => s.get(`/projects/${labelled}/labels`, { query: { per_page: '100', ...query } });

  it('lists all of them in title order, ties broken by id, uncounted past 10,000', async () => {
    const all = byTitle(labels);
    for (const n of [1, 2, 57, 103]) {
      const res = await list({ page: String(n) });
      expectUncounted(res, n < 103 ? String(n + 1) : '');
      expect(ids(res)).toEqual(all.slice((n - 1) * 100, n * 100).map((l) => l.id));
    }
  });

  it("without the ancestors' labels, and searched", async () => {
    const mineAndParent = byTitle(labels.filter((l) => l.from !== 'grandparent'));
    const res = await list({ include_ancestor_groups: 'false', page: '40' });
    expect(ids(res)).toEqual(mineAndParent.slice(3_900, 4_000).map((l) => l.id));
    const found = byTitle(labels.filter((l) => l.title.includes('label-0040')));
    const searched = await list({ search: 'label-0040' });
    expectCounted(searched, found.length, 100);
    expect(ids(searched)).toEqual(found.map((l) => l.id));
    expect(searched.body.filter((l: any) => l.is_project_label === false).length).toBe(found.filter((l) => l.from !== 'project').length);
  });

  it('searched for a term on more than 10,000 labels, or on a few (the full-text index), finds what a substring match finds', async () => {
    const common = byTitle(labels.filter((l) => l.title.includes('label-')));
    expect(common.length).toBeGreaterThan(10_000);
    const res = await list({ search: 'LABEL-', page: '3' });
    expectUncounted(res, '4');
    expect(ids(res)).toEqual(common.slice(200, 300).map((l) => l.id));
    // Case folds in ASCII only, as before: the index's wider folding finds more, the substring match keeps what it matched.
    const made = await s.post(`/projects/${labelled}/labels`, { name: 'Straße Ü-Label', color: '#123456', description: 'Große Änderung' });
    expect(made.status).toBe(201);
    expect(ids(await list({ search: 'ü-label' }))).toEqual([]);
    expect(ids(await list({ search: 'Ü-LABEL' }))).toEqual([made.body.id]);
    expect(ids(await list({ search: 'Änderung' }))).toEqual([made.body.id]);
    // Renamed: found by its new name only.
    expect((await s.put(`/projects/${labelled}/labels/${made.body.id}`, { new_name: 'Renamed one' })).status).toBe(200);
    expect(ids(await list({ search: 'Ü-LABEL' }))).toEqual([]);
    expect(ids(await list({ search: 'renamed ONE' }))).toEqual([made.body.id]);
    expect((await s.del(`/projects/${labelled}/labels/${made.body.id}`)).status).toBe(204);
    expect(ids(await list({ search: 'renamed ONE' }))).toEqual([]);
  });
});

describe("labels lists at scale: counted from each owner's counter, deep pages anchored (labels/003)", () => {
  interface Owned {
    id: number;
    title: string;
    owner: string;
  }
  let top: number;
  let sub: number;
  let inTop: number;
  let inSub: number;
  let elsewhere: number;
  const owned: Owned[] = [];
  const byTitle = (xs: Owned[]): Owned[] => [...xs].sort((a, b) => (a.title < b.title ? -1 : a.title > b.title ? 1 : a.id - b.id));
  const own = (...owners: string[]) => byTitle(owned.filter((l) => owners.includes(l.owner)));
  const idsOf = (xs: Owned[], from = 0, to = xs.length): number[] => xs.slice(from, to).map((l) => l.id);

  beforeAll(async () => {
    top = (await s.createGroup({ visibility: 'public' })).id;
    sub = (await s.createGroup({ visibility: 'public', parent_id: top })).id;
    inTop = (await s.createProject({ name: 'in-top', namespace_id: top, visibility: 'public' })).id;
    inSub = (await s.createProject({ name: 'in-sub', namespace_id: sub, visibility: 'public' })).id;
    elsewhere = (await s.createProject({ name: 'elsewhere', namespace_id: group, visibility: 'public' })).id;
    const insert = s.service.context.db.prepare(
      "INSERT INTO labels (group_id, project_id, title, color, created_at, updated_at) VALUES (?, ?, ?, '#428bca', '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z')",
    );
    const add = (owner: string, groupId: number | null, projectId: number | null, title: string) =>
      owned.push({ id: Number(insert.run(groupId, projectId, title).lastInsertRowid), title, owner });
    s.service.context.db.transaction(() => {
      // The top project's titles run through every other owner's; the same title in two owners is a tie broken by id.
      for (let i = 0; i < 2_400; i++) add('inTop', null, inTop, `t-${String(i).padStart(5, '0')}`);
      for (let i = 0; i < 40; i++) add('top', top, null, `t-${String(i * 53).padStart(5, '0')}`);
      for (let i = 0; i < 30; i++) add('sub', sub, null, `t-${String(i * 71).padStart(5, '0')}-sub`);
      for (let i = 0; i < 300; i++) add('inSub', null, inSub, `t-${String(i * 7).padStart(5, '0')}-p`);
      for (let i = 0; i < 50; i++) add('elsewhere', null, elsewhere, `t-${String(i * 11).padStart(5, '0')}`);
    })();
  }, 60_000);

  const page = (path: string, query: Record<string, string>) => s.get(path, { query: { per_page: '20', ...query } });

  it("a project's list, its ancestors' and a group's with its projects' labels are counted exactly, through every write", async () => {
    // The projects moved into the subgroup.
    const moved: string[] = [];
    const expectTotals = async (): Promise<void> => {
      const project = await page(`/projects/${inSub}/labels`, {});
      expectCounted(project, own('inSub', 'sub', 'top').length, 20);
      expect(ids(project)).toEqual(idsOf(own('inSub', 'sub', 'top'), 0, 20));
      expectCounted(await page(`/projects/${inSub}/labels`, { include_ancestor_groups: 'false' }), own('inSub', 'sub').length, 20);
      expectCounted(await page(`/groups/${top}/labels`, {}), own('top').length, 20);
      expectCounted(await page(`/groups/${top}/labels`, { include_descendant_groups: 'true' }), own('top', 'sub').length, 20);
      const everything = own('top', 'sub', 'inTop', 'inSub', ...moved);
      const withProjects = await page(`/groups/${top}/labels`, { include_descendant_groups: 'true', only_group_labels: 'false', page: '7' });
      expectCounted(withProjects, everything.length, 20);
      expect(ids(withProjects)).toEqual(idsOf(everything, 120, 140));
      expectCounted(await page(`/groups/${sub}/labels`, { only_group_labels: 'false' }), own('sub', 'top', 'inSub', ...moved).length, 20);
    };
    await expectTotals();
    // Created through the API in the project and in a group, and outside the API.
    const made = await s.post(`/projects/${inSub}/labels`, { name: 'a-first', color: '#123456' });
    expect(made.status).toBe(201);
    owned.push({ id: made.body.id, title: 'a-first', owner: 'inSub' });
    const madeInSub = await s.post(`/groups/${sub}/labels`, { name: 't-00100-sub', color: '#123456' });
    expect(madeInSub.status).toBe(201);
    owned.push({ id: madeInSub.body.id, title: 't-00100-sub', owner: 'sub' });
    const direct = s.service.context.db
      .prepare("INSERT INTO labels (group_id, project_id, title, color, created_at, updated_at) VALUES (?, NULL, 'm-direct', '#428bca', '2024-01-01', '2024-01-01')")
      .run(top);
    owned.push({ id: Number(direct.lastInsertRowid), title: 'm-direct', owner: 'top' });
    await expectTotals();
    // Deleted; promoted to the project's group (a new group label in its place); the same title in the group already: merged away.
    expect((await s.del(`/projects/${inSub}/labels/${made.body.id}`)).status).toBe(204);
    owned.splice(owned.findIndex((l) => l.id === made.body.id), 1);
    const promoted = owned.find((l) => l.owner === 'inSub' && l.title === 't-00014-p')!;
    const lifted = await s.put(`/projects/${inSub}/labels/${promoted.id}/promote`, {});
    expect(lifted.status).toBe(200);
    // Labels::PromoteService: a new group label (a new id) takes the project label's place.
    promoted.owner = 'sub';
    promoted.id = lifted.body.id;
    const twin = s.service.context.db
      .prepare("INSERT INTO labels (group_id, project_id, title, color, created_at, updated_at) VALUES (NULL, ?, 't-00014-p', '#428bca', '2024-01-01', '2024-01-01')")
      .run(inSub);
    expect((await s.put(`/projects/${inSub}/labels/${twin.lastInsertRowid}/promote`, {})).status).toBe(200);
    await expectTotals();
    // A project moved into the subgroup: the group's list with its projects' labels takes in its labels.
    expect((await s.put(`/projects/${elsewhere}/transfer`, { namespace: sub })).status).toBe(200);
    moved.push('elsewhere');
    await expectTotals();
    // The subgroup deleted with its labels: gone from every list and count.
    const gone = await s.del(`/groups/${sub}`);
    expect(gone.status).toBe(202);
    await vi.waitFor(async () => expect((await s.get(`/groups/${sub}`)).status).toBe(404), { timeout: 30_000 });
    for (let i = owned.length - 1; i >= 0; i--) if (['sub', 'inSub', 'elsewhere'].includes(owned[i].owner)) owned.splice(i, 1);
    expectCounted(await page(`/groups/${top}/labels`, { include_descendant_groups: 'true', only_group_labels: 'false' }), own('top', 'inTop').length, 20);
    expectCounted(await page(`/groups/${top}/labels`, { include_descendant_groups: 'true' }), own('top').length, 20);
  });

  it('deep pages, read in turn, asked again and after every kind of write, are the slice the records say', async () => {
    const project = `/projects/${inTop}/labels`;
    const check = async (n: number, more: Record<string, string> = {}): Promise<void> => {
      const all = own('inTop', 'top');
      const res = await page(project, { per_page: '20', page: String(n), ...more });
      expect(ids(res)).toEqual(idsOf(all, (n - 1) * 20, n * 20));
    };
    for (const n of [51, 52, 53, 52, 120, 53, 122, 51]) await check(n);
    // The next page in turn starts at the last one's anchor: it skips no rows. (Asked in another
    // form: the same request's page is kept whole, keptProjectLabelsPage, and reads nothing.)
    const reads = await pagedReads(s, () => check(52, { with_counts: 'false' }));
    expect(reads).toHaveLength(1);
    expect(reads[0].sql).toContain('(l.title, l.id) > (?, ?)');
    expect(reads[0].args.at(-1)).toBe(0);
    // Another page size: a page just before an anchor (the one at 1,040) reads back from it.
    const back = await pagedReads(s, async () => {
      expect(ids(await page(project, { per_page: '7', page: '149' }))).toEqual(idsOf(own('inTop', 'top'), 1_036, 1_043));
    });
    expect(back[0].sql).toContain('(l.title, l.id) <= (?, ?)');
    // A label created before the deep pages' rows moves each of them by one.
    const made = await s.post(project, { name: 't-00005-new', color: '#123456' });
    owned.push({ id: made.body.id, title: 't-00005-new', owner: 'inTop' });
    await check(52);
    // Renamed from the start of the list to its end, and back.
    const renamed = owned.find((l) => l.owner === 'inTop' && l.title === 't-00002')!;
    expect((await s.put(`${project}/${renamed.id}`, { new_name: 'z-renamed' })).status).toBe(200);
    renamed.title = 'z-renamed';
    await check(52);
    await check(122);
    // In the group: created, and deleted.
    const inGroup = await s.post(`/groups/${top}/labels`, { name: 't-00001-group', color: '#123456' });
    owned.push({ id: inGroup.body.id, title: 't-00001-group', owner: 'top' });
    await check(52);
    const groupLabel = owned.find((l) => l.owner === 'top' && l.title === 't-00053')!;
    expect((await s.del(`/groups/${top}/labels/${groupLabel.id}`)).status).toBe(204);
    owned.splice(owned.indexOf(groupLabel), 1);
    await check(52);
    // Outside the API: deleted and retitled.
    const dropped = owned.find((l) => l.owner === 'inTop' && l.title === 't-00003')!;
    s.service.context.db.prepare('DELETE FROM labels WHERE id = ?').run(dropped.id);
    owned.splice(owned.indexOf(dropped), 1);
    await check(53);
    const retitled = owned.find((l) => l.owner === 'inTop' && l.title === 't-02000')!;
    s.service.context.db.prepare("UPDATE labels SET title = 'a-retitled' WHERE id = ?").run(retitled.id);
    retitled.title = 'a-retitled';
    await check(53);
    // The group list with its projects' labels, deep.
    const everything = own('top', 'inTop');
    for (const n of [60, 61, 60]) {
      const res = await page(`/groups/${top}/labels`, { only_group_labels: 'false', page: String(n) });
      expect(ids(res)).toEqual(idsOf(everything, (n - 1) * 20, n * 20));
    }
  });
});

describe("a project's snippets past 10,000", () => {
  interface Snip {
    id: number;
    visibility: 'public' | 'internal' | 'private';
    authorId: number;
  }
  const snippets: Snip[] = [];
  let snipped: number;

  beforeAll(async () => {
    snipped = (await s.createProject({ name: 'snipped', visibility: 'public' })).id;
    await s.addMember('projects', snipped, other.user.id, 30);
    const ctx = s.service.context;
    ctx.db.transaction(() => {
      for (let i = 0; i < 10_050; i++) {
        const visibility = (['public', 'internal', 'private'] as const)[i % 3];
        const authorId = i % 97 ? 1 : other.user.id;
        const row = createSnippet(ctx, { projectId: snipped, authorId, title: `Snippet ${i}`, visibility, files: [{ path: `s${i}.txt`, content: `${i}` }] });
        snippets.push({ id: row.id, visibility, authorId });
      }
    })();
  }, 120_000);

  const newest = (xs: Snip[]): number[] => xs.map((x) => x.id).sort((a, b) => b - a);
  const list = (query: Record<string, string>, token?: string) =>
    s.get(`/projects/${snipped}/snippets`, { query: { per_page: '100', ...query }, token });

  it('are uncounted for a member, counted exactly for those who see fewer than 10,000', async () => {
    const all = newest(snippets);
    const first = await list({});
    expectUncounted(first, '2');
    expect(ids(first)).toEqual(all.slice(0, 100));
    const outsider = await s.createUser();
    // Not a member: public and internal snippets, and their own private ones (none) or other's (here: the member's).
    const seen = newest(snippets.filter((x) => x.visibility !== 'private'));
    const res = await list({ page: '3' }, outsider.token);
    expectCounted(res, seen.length, 100);
    expect(ids(res)).toEqual(seen.slice(200, 300));
    const external = await s.createUser({ external: true });
    expectCounted(await list({ per_page: '1' }, external.token), snippets.filter((x) => x.visibility === 'public').length, 1);
  });

  it('deep pages read in turn, asked again and after every write are the slice the records say', async () => {
    const page = async (n: number, token?: string): Promise<number[]> => ids(await list({ page: String(n) }, token));
    for (const n of [11, 12, 13, 12, 100, 101, 11]) expect(await page(n)).toEqual(newest(snippets).slice((n - 1) * 100, n * 100));
    const created = await s.post(`/projects/${snipped}/snippets`, { title: 'New', file_name: 'n.txt', content: 'n', visibility: 'private' });
    expect(created.status).toBe(201);
    snippets.push({ id: created.body.id, visibility: 'private', authorId: 1 });
    for (const n of [11, 12]) expect(await page(n)).toEqual(newest(snippets).slice((n - 1) * 100, n * 100));
    const outsider = await s.createUser();
    const seen = () => newest(snippets.filter((x) => x.visibility !== 'private'));
    expect(await page(40, outsider.token)).toEqual(seen().slice(3_900, 4_000));
    // Made public: it enters the outsider's list and count.
    const target = snippets.find((x) => x.visibility === 'private' && x.id < newest(snippets)[5_000])!;
    expect((await s.put(`/projects/${snipped}/snippets/${target.id}`, { visibility: 'public' })).status).toBe(200);
    target.visibility = 'public';
    expect(await page(40, outsider.token)).toEqual(seen().slice(3_900, 4_000));
    expectCounted(await list({ per_page: '1' }, outsider.token), seen().length, 1);
    // Made private: it leaves them.
    const hidden = snippets.find((x) => x.visibility === 'internal' && x.id < newest(snippets)[4_500])!;
    expect((await s.put(`/projects/${snipped}/snippets/${hidden.id}`, { visibility: 'private' })).status).toBe(200);
    hidden.visibility = 'private';
    expect(await page(40, outsider.token)).toEqual(seen().slice(3_900, 4_000));
    expectCounted(await list({ per_page: '1' }, outsider.token), seen().length, 1);
    const gone = snippets.find((x) => x.visibility === 'public' && x.id < newest(snippets)[6_000])!;
    expect((await s.del(`/projects/${snipped}/snippets/${gone.id}`)).status).toBe(204);
    snippets.splice(snippets.indexOf(gone), 1);
    expect(await page(40, outsider.token)).toEqual(seen().slice(3_900, 4_000));
    expectCounted(await list({ per_page: '1' }, outsider.token), seen().length, 1);
    for (const n of [60, 61]) expect(await page(n)).toEqual(newest(snippets).slice((n - 1) * 100, n * 100));
  });
});
