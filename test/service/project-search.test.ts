import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService } from '../helpers/service';
import { expectUncounted, pagedReads, preparedBy, queryPlan } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * `search` on a project's issues and merge requests (core/015's project ranges of the full-text
 * index): a common term's early pages walk the list order a window at a time and check each window
 * against the index at once (a range read per dense stretch of its ids, a lone id probed); the project's match count is remembered until the project's records are next written.
 * Whatever the plan, rows, order and headers are the ones the records say.
 */
let s: TestService;
let project: number;
let other: number;

interface Seed {
  id: number;
  iid: number;
  title: string;
  description: string | null;
  state: string;
  createdAt: string;
}
const mrs: Seed[] = [];
const N = 10_600;
// `alpha` in the description of all but the newest 550: more than 10,000 matches, none among the newest.
const descriptionOf = (i: number): string | null => (i <= 10_050 ? 'Alpha release' : null);
const createdAt = (i: number): string => new Date(Date.UTC(2024, 0, 1) + Math.floor(i / 3) * 60_000).toISOString();

const mergeRequest = (projectId: number, iid: number, title: string, at: string, description: string | null = null) =>
  insertImportedMergeRequest(s.service.context, projectId, {
    iid,
    title,
    description,
    state: iid % 7 === 0 ? 'closed' : 'opened',
    authorId: 1,
    sourceBranch: `feature-${iid}`,
    targetBranch: 'main',
    baseSha: '0'.repeat(40),
    headSha: '1'.repeat(40),
    createdAt: at,
    updatedAt: at,
    importedFrom: 'none',
  });

beforeAll(async () => {
  s = await TestService.start();
  project = (await s.createProject({ name: 'searched', visibility: 'public' })).id;
  other = (await s.createProject({ name: 'other', visibility: 'public' })).id;
  s.service.context.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      const mr = mergeRequest(project, i, `Change ${i}`, createdAt(i), descriptionOf(i));
      mrs.push({ id: mr.id, iid: i, title: `Change ${i}`, description: descriptionOf(i), state: i % 7 === 0 ? 'closed' : 'opened', createdAt: createdAt(i) });
    }
    for (let i = 1; i <= 40; i++) {
      insertImportedIssue(s.service.context, project, {
        iid: i,
        title: `Report ${i}`,
        description: null,
        state: 'opened',
        authorId: 1,
        labels: [],
        confidential: false,
        createdAt: createdAt(i),
        updatedAt: createdAt(i),
        importedFrom: 'none',
      });
    }
  })();
}, 120_000);
afterAll(async () => s.stop());

const newestFirst = (xs: Seed[]): Seed[] => [...xs].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.id - a.id));
const matching = (term: string, filter: (x: Seed) => boolean = () => true): Seed[] =>
  newestFirst(mrs.filter((x) => `${x.title}\n${x.description ?? ''}`.toLowerCase().includes(term.toLowerCase()) && filter(x)));
const iids = (res: ApiResult): number[] => res.body.map((x: any) => x.iid);
const searchMrs = (query: Record<string, string>) => s.get(`/projects/${project}/merge_requests`, { query: { per_page: '100', ...query } });

describe("a common term on a project's merge requests", () => {
  it('pages within the first 1,000 matches walk the list order; deeper ones read the matches; the same rows either way', async () => {
    const all = matching('hange');
    expect(all.length).toBeGreaterThan(10_000);
    for (const n of [1, 2, 10, 11, 30]) {
      const res = await searchMrs({ search: 'HANGE', page: String(n) });
      expectUncounted(res, String(n + 1));
      expect(iids(res)).toEqual(all.slice((n - 1) * 100, n * 100).map((x) => x.iid));
    }
    // A term none of the newest records holds: the walk reads larger windows until it finds the page.
    const alpha = matching('alpha');
    expect(alpha.length).toBeGreaterThan(10_000);
    for (const n of [1, 4]) {
      const res = await searchMrs({ search: 'ALPHA', page: String(n) });
      expectUncounted(res, String(n + 1));
      expect(iids(res)).toEqual(alpha.slice((n - 1) * 100, n * 100).map((x) => x.iid));
    }
    // Fewer than 10,000 matches: counted, read from the index and sorted.
    const res = await searchMrs({ search: 'ge 1', page: '3', per_page: '20' });
    const ge1 = matching('ge 1');
    expect(res.headers.get('x-total')).toBe(String(ge1.length));
    expect(iids(res)).toEqual(ge1.slice(40, 60).map((x) => x.iid));
  });

  it('with a state, counts the matches that pass it and lists them in order', async () => {
    const closed = matching('change', (x) => x.state === 'closed');
    const res = await searchMrs({ search: 'change', state: 'closed', page: '3' });
    expect(res.headers.get('x-total')).toBe(String(closed.length));
    expect(iids(res)).toEqual(closed.slice(200, 300).map((x) => x.iid));
    const alpha = matching('alpha', (x) => x.state === 'closed');
    const first = await searchMrs({ search: 'alpha', state: 'closed' });
    expect(first.headers.get('x-total')).toBe(String(alpha.length));
    expect(iids(first)).toEqual(alpha.slice(0, 100).map((x) => x.iid));
  });

  it('records dated out of id order: a window whose ids lie far apart is read a dense stretch at a time, a lone id probed, same rows', async () => {
    // The oldest records (lowest ids) become the newest, and one from the middle among them: the
    // first window holds three stretches of ids far apart, one of them a single record.
    const db = s.service.context.db;
    for (const x of mrs.filter((m) => m.iid <= 30 || m.iid === 5_000)) {
      x.createdAt = new Date(Date.UTC(2030, 0, 1) + (x.iid % 1000) * 1000).toISOString();
      db.prepare('UPDATE merge_requests SET created_at = ? WHERE id = ?').run(x.createdAt, x.id);
    }
    for (const n of [1, 2]) {
      const res = await searchMrs({ search: 'change', page: String(n) });
      expectUncounted(res, String(n + 1));
      expect(iids(res)).toEqual(matching('change').slice((n - 1) * 100, n * 100).map((x) => x.iid));
    }
    expect(iids(await searchMrs({ search: 'change 2', per_page: '5' }))).toEqual(matching('change 2').slice(0, 5).map((x) => x.iid));
  });
});

describe("a common term's deep pages and counts: the list's records checked, not every match read", () => {
  it("past the walk's pages, with a state, an order: the same rows and headers, no read of the matches", async () => {
    for (const query of [
      { search: 'CHANGE', per_page: '20', page: '60' },
      { search: 'change', state: 'closed', per_page: '20', page: '60' },
      { search: 'change', state: 'opened', order_by: 'title', sort: 'asc', per_page: '50', page: '25' },
      { search: 'alpha', order_by: 'created_at', sort: 'asc', per_page: '100', page: '12' },
    ] as Record<string, string>[]) {
      const byTitle = query.order_by === 'title';
      const want = matching(query.search, (x) => !query.state || x.state === query.state);
      // By title, ascending with the id after; by created_at as the seeds say.
      const ordered = byTitle ? [...want].sort((a, b) => (a.title < b.title ? -1 : a.title > b.title ? 1 : a.id - b.id)) : query.sort === 'asc' ? [...want].reverse() : want;
      let res!: ApiResult;
      const reads = await preparedBy(s, async () => {
        res = await s.get(`/projects/${project}/merge_requests`, { query });
      });
      const per = Number(query.per_page);
      const n = Number(query.page);
      expect(iids(res), JSON.stringify(query)).toEqual(ordered.slice((n - 1) * per, n * per).map((x) => x.iid));
      if (want.length > 10_000) expectUncounted(res, String(n + 1));
      else expect(res.headers.get('x-total'), JSON.stringify(query)).toBe(String(want.length));
      expect(reads.filter((sql) => sql.includes('x.id IN (SELECT s.rowid & 4294967295'))).toEqual([]);
      expect(reads.some((sql) => sql.includes(') AS m FROM merge_requests x WHERE'))).toBe(true);
    }
  });
});

describe("a project's remembered match count follows every write to its records", () => {
  it('merge requests: created, retitled, moved to another project, deleted', async () => {
    const total = async (projectId = project): Promise<string | null> =>
      (await s.get(`/projects/${projectId}/merge_requests`, { query: { search: 'change 77' } })).headers.get('x-total');
    const expected = (): string => String(matching('change 77').length);
    expect(await total()).toBe(expected());
    const created = mergeRequest(project, N + 1, 'Change 77 again', createdAt(N + 1));
    mrs.push({ id: created.id, iid: N + 1, title: 'Change 77 again', description: null, state: 'opened', createdAt: createdAt(N + 1) });
    expect(await total()).toBe(expected());
    const retitled = mrs.find((x) => x.iid === 770)!;
    expect((await s.put(`/projects/${project}/merge_requests/770`, { title: 'Renamed' })).status).toBe(200);
    retitled.title = 'Renamed';
    expect(await total()).toBe(expected());
    // No REST endpoint moves a merge request between projects; the count follows the table whatever writes it.
    const moved = mrs.find((x) => x.iid === 77)!;
    s.service.context.db.prepare('UPDATE merge_requests SET project_id = ?, iid = 1 WHERE id = ?').run(other, moved.id);
    mrs.splice(mrs.indexOf(moved), 1);
    expect(await total()).toBe(expected());
    expect(await total(other)).toBe('1');
    expect((await s.del(`/projects/${project}/merge_requests/2770`)).status).toBe(204);
    mrs.splice(mrs.findIndex((x) => x.iid === 2770), 1);
    expect(await total()).toBe(expected());
  });

  it('a rare term with a state reads its matches by id, not the instance’s state index', async () => {
    const db = s.service.context.db;
    const reads = await pagedReads(s, async () => {
      const res = await searchMrs({ search: 'ge 123', state: 'opened', per_page: '5' });
      const want = matching('ge 123', (x) => x.state === 'opened');
      expect(res.headers.get('x-total')).toBe(String(want.length));
      expect(iids(res)).toEqual(want.slice(0, 5).map((x) => x.iid));
    });
    expect(reads.length).toBeGreaterThan(0);
    for (const { sql, args } of reads) {
      const plan = queryPlan(db, sql, ...args);
      expect(plan).not.toContain('merge_requests_state');
    }
  });

  it('a rare term: its few matches read once and remembered until a write to the project’s merge requests; pages, states and orders read them by id', async () => {
    const db = s.service.context.db;
    const check = async (query: Record<string, string>, filter: (x: Seed) => boolean = () => true): Promise<string[]> => {
      let res!: ApiResult;
      const reads = await preparedBy(s, async () => {
        res = await searchMrs({ search: 'ge 12', per_page: '5', ...query });
      });
      const want = matching('ge 12', filter);
      expect(want.length).toBeGreaterThan(5);
      expect(want.length).toBeLessThan(200);
      expect(res.headers.get('x-total')).toBe(String(want.length));
      const page = Number(query.page ?? '1');
      expect(iids(res)).toEqual(want.slice((page - 1) * 5, page * 5).map((x) => x.iid));
      return reads.filter((sql) => sql.includes('MATCH'));
    };
    expect(await check({})).toHaveLength(1);
    // The same matches for another page, a state: no full-text read.
    expect(await check({ page: '2' })).toEqual([]);
    expect(await check({ state: 'closed' }, (x) => x.state === 'closed')).toEqual([]);
    // Their records looked up by id, not the project's walked.
    const { sql, args } = (await pagedReads(s, async () => void (await searchMrs({ search: 'ge 12', per_page: '5', page: '3' }))))[0];
    const plan = queryPlan(db, sql, ...args);
    expect(plan).toContain('USING INTEGER PRIMARY KEY');
    expect(plan).not.toMatch(/SCAN x|merge_requests_project/);
    // A write to the project's merge requests: read again, and the new match listed.
    const created = mergeRequest(project, N + 2, 'Change 12 anew', createdAt(N + 2));
    mrs.push({ id: created.id, iid: N + 2, title: 'Change 12 anew', description: null, state: 'opened', createdAt: createdAt(N + 2) });
    expect(await check({})).toHaveLength(1);
    expect(await check({ page: '2' })).toEqual([]);
  });

  it('with a state: the count is remembered until a write to the project’s merge requests, and exact after each', async () => {
    const db = s.service.context.db;
    const total = async (): Promise<string | null> => (await searchMrs({ search: 'hange', state: 'closed', per_page: '20' })).headers.get('x-total');
    const closed = (): number => (db.prepare("SELECT count(*) AS n FROM merge_requests WHERE project_id = ? AND state = 'closed' AND title LIKE '%hange%'").get(project) as { n: number }).n;
    expect(await total()).toBe(String(closed()));
    expect(await total()).toBe(String(closed()));
    // Writes to something else leave it; a close, a reopen and a write without the API are seen.
    expect((await s.put(`/projects/${project}`, { description: 'touched again' })).status).toBe(200);
    expect(await total()).toBe(String(closed()));
    const open = db.prepare("SELECT iid FROM merge_requests WHERE project_id = ? AND state = 'opened' AND title LIKE '%hange%' LIMIT 1").get(project) as { iid: number };
    expect((await s.put(`/projects/${project}/merge_requests/${open.iid}`, { state_event: 'close' })).status).toBe(200);
    expect(await total()).toBe(String(closed()));
    expect((await s.put(`/projects/${project}/merge_requests/${open.iid}`, { state_event: 'reopen' })).status).toBe(200);
    expect(await total()).toBe(String(closed()));
    db.prepare("UPDATE merge_requests SET state = 'closed' WHERE project_id = ? AND iid = ?").run(project, open.iid);
    expect(await total()).toBe(String(closed()));
    db.prepare("UPDATE merge_requests SET state = 'opened' WHERE project_id = ? AND iid = ?").run(project, open.iid);
    expect(await total()).toBe(String(closed()));
  });

  it('past 10,000 matches, stays uncounted through writes that leave more than 10,000, and is counted again at 10,000', async () => {
    const search = () => searchMrs({ search: 'alpha', per_page: '20' });
    const alpha = (): Seed[] => matching('alpha');
    expect(alpha().length).toBeGreaterThan(10_001);
    expectUncounted(await search(), '2');
    // One statement, one write per record: all but one of the matches past 10,000 lose the term.
    const db = s.service.context.db;
    const drop = (xs: Seed[]): void => {
      for (const x of xs) x.description = null;
      db.prepare(`UPDATE merge_requests SET description = NULL WHERE id IN (${xs.map((x) => x.id).join(',')})`).run();
    };
    drop(alpha().slice(-(alpha().length - 10_001)));
    expect(alpha()).toHaveLength(10_001);
    const still = await search();
    expectUncounted(still, '2');
    expect(iids(still)).toEqual(alpha().slice(0, 20).map((x) => x.iid));
    drop(alpha().slice(-1));
    const counted = await search();
    expect(counted.headers.get('x-total')).toBe('10000');
    expect(counted.headers.get('x-total-pages')).toBe('500');
    expect(iids(counted)).toEqual(alpha().slice(0, 20).map((x) => x.iid));
  });

  it('issues: created, retitled, deleted', async () => {
    // Pages of 5: a full page leaves the total to the count.
    const expectFound = async (ns: number[]): Promise<void> => {
      const res = await s.get(`/projects/${project}/issues`, { query: { search: 'report 1', per_page: '5' } });
      expect(res.headers.get('x-total')).toBe(String(ns.length));
      expect(res.body.map((i: any) => i.title)).toEqual(ns.slice(0, 5).map((n) => `Report ${n}`));
    };
    await expectFound([19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 1]);
    expect((await s.post(`/projects/${project}/issues`, { title: 'Report 100' })).status).toBe(201);
    await expectFound([100, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 1]);
    expect((await s.put(`/projects/${project}/issues/19`, { title: 'Done' })).status).toBe(200);
    await expectFound([100, 18, 17, 16, 15, 14, 13, 12, 11, 10, 1]);
    expect((await s.del(`/projects/${project}/issues/18`)).status).toBe(204);
    await expectFound([100, 17, 16, 15, 14, 13, 12, 11, 10, 1]);
  });
});

describe("a common term's walk is remembered, and patched by the records of that type written since", () => {
  // Each window the walk read: from the list's start ('start'), or after the last record an earlier window read ('after'); none: the page came from the remembered (or patched) walk.
  const windowReads = (statements: string[], table: string): string[] =>
    statements.filter((sql) => sql.includes(`json_group_array(id) AS ids FROM (SELECT ((x.project_id << 32) + x.id) AS id FROM ${table} x`)).map((sql) => (sql.includes('OFFSET ?') ? 'start' : 'after'));

  it('merge requests: the same page again and the next page go on from it; every write is seen', async () => {
    const page = async (n: number, query: Record<string, string> = {}): Promise<string[]> => {
      const reads = await preparedBy(s, async () => {
        const res = await searchMrs({ search: 'alpha', per_page: '20', page: String(n), ...query });
        const expected = matching('alpha', query.state ? (x) => x.state === query.state : undefined);
        expect(iids(res)).toEqual(expected.slice((n - 1) * 20, n * 20).map((x) => x.iid));
        if (expected.length > 10_000) expectUncounted(res, String(n + 1));
        else expect(res.headers.get('x-total')).toBe(String(expected.length));
      });
      return windowReads(reads, 'merge_requests');
    };
    await page(1);
    // A write to something else (the project, an issue) leaves the walk as it was.
    expect((await s.put(`/projects/${project}`, { description: 'touched' })).status).toBe(200);
    expect((await s.put(`/projects/${project}/issues/2`, { title: 'Report 2 again' })).status).toBe(200);
    expect(await page(1)).toEqual([]);
    // The next page goes on from where the first one stopped, not from the list's start.
    const next = await page(2);
    expect(next.length).toBeGreaterThan(0);
    expect(next).not.toContain('start');
    expect(await page(2)).toEqual([]);
    expect(await page(1)).toEqual([]);
    // Another walk (with a state), remembered by an earlier test and patched since: the same rows.
    await page(1, { state: 'closed' });
    expect(await page(1, { state: 'closed' })).toEqual([]);
    // Every kind of write to the project's merge requests is seen: the walk is patched by the
    // records written (the write log, core/041) instead of walked again from the list's start.
    const newest = newestFirst(mrs.filter((x) => !`${x.title}\n${x.description ?? ''}`.toLowerCase().includes('alpha')))[0];
    expect((await s.put(`/projects/${project}/merge_requests/${newest.iid}`, { title: 'Alpha newest' })).status).toBe(200);
    newest.title = 'Alpha newest';
    expect(await page(1)).not.toContain('start');
    expect(await page(1)).toEqual([]);
    const created = await s.post(`/projects/${project}/merge_requests`, { source_branch: 'alpha-new', target_branch: 'main', title: 'Alpha created' });
    expect(created.status).toBe(201);
    mrs.push({ id: created.body.id, iid: created.body.iid, title: 'Alpha created', description: null, state: 'opened', createdAt: created.body.created_at });
    expect(await page(1)).not.toContain('start');
    const closing = matching('alpha', (x) => x.state === 'opened')[3];
    expect((await s.put(`/projects/${project}/merge_requests/${closing.iid}`, { state_event: 'close' })).status).toBe(200);
    closing.state = 'closed';
    expect(await page(1, { state: 'closed' })).not.toContain('start');
    expect(await page(2)).not.toContain('start');
    expect((await s.del(`/projects/${project}/merge_requests/${newest.iid}`)).status).toBe(204);
    mrs.splice(mrs.indexOf(newest), 1);
    expect(await page(1)).not.toContain('start');
    // Retitled so it no longer matches.
    const retitled = matching('alpha')[5];
    expect((await s.put(`/projects/${project}/merge_requests/${retitled.iid}`, { title: 'Plain', description: 'plain' })).status).toBe(200);
    retitled.title = 'Plain';
    retitled.description = 'plain';
    expect(await page(1)).not.toContain('start');
    await page(2);
    // Written without the API: dated anew, moved to another project.
    const redated = matching('alpha')[30];
    redated.createdAt = '2031-01-01T00:00:00.000Z';
    s.service.context.db.prepare('UPDATE merge_requests SET created_at = ? WHERE id = ?').run(redated.createdAt, redated.id);
    expect(await page(1)).not.toContain('start');
    await page(2);
    const moved = matching('alpha')[2];
    s.service.context.db.prepare('UPDATE merge_requests SET project_id = ?, iid = 100000 WHERE id = ?').run(other, moved.id);
    mrs.splice(mrs.indexOf(moved), 1);
    expect(await page(1)).not.toContain('start');
    await page(2);
    // More writes since than a patch takes, or more than the log keeps: walked again.
    const bump = s.service.context.db.prepare('UPDATE merge_requests SET updated_at = updated_at WHERE id = ?');
    for (let i = 0; i < 201; i++) bump.run(mrs[i].id);
    expect(await page(1)).toContain('start');
    expect(await page(1)).toEqual([]);
    bump.run(mrs[0].id);
    const elsewhere = s.service.context.db.prepare('UPDATE issues SET updated_at = updated_at WHERE project_id = ?');
    for (let i = 0; i < 26; i++) elsewhere.run(project);
    expect(await page(1)).toContain('start');
    expect(await page(2)).not.toContain('start');
    // A term every record holds, page 10: the window read 4,000 matches; the walk keeps the first
    // 2,000 and goes on from the last of them, so asking again reads nothing.
    const hange = async (n: number): Promise<string[]> => {
      const reads = await preparedBy(s, async () => {
        const res = await searchMrs({ search: 'hange', page: String(n) });
        expect(iids(res)).toEqual(matching('hange').slice((n - 1) * 100, n * 100).map((x) => x.iid));
      });
      return windowReads(reads, 'merge_requests');
    };
    expect(await hange(10)).toContain('start');
    expect(await hange(10)).toEqual([]);
    expect(await hange(3)).toEqual([]);
    // Other orders, as a fresh query of the table says: by title (after the last record read), by merged_at (NULL for all: by OFFSET).
    const db = s.service.context.db;
    for (const [order_by, sort, sql] of [
      ['title', 'asc', 'title ASC, id ASC'],
      ['updated_at', 'desc', 'updated_at DESC, id DESC'],
      ['merged_at', 'desc', 'merged_at DESC, id DESC'],
    ] as const) {
      const expected = (): number[] =>
        (db.prepare(`SELECT iid FROM merge_requests WHERE project_id = ? AND (title LIKE '%alpha%' OR description LIKE '%alpha%') ORDER BY ${sql}`).all(project) as { iid: number }[]).map((r) => r.iid);
      const pages = async (): Promise<string[]> => {
        const want = expected();
        const reads = await preparedBy(s, async () => {
          for (const n of [1, 2, 3]) {
            const res = await searchMrs({ search: 'alpha', order_by, sort, per_page: '20', page: String(n) });
            expect(iids(res)).toEqual(want.slice((n - 1) * 20, n * 20));
          }
        });
        return windowReads(reads, 'merge_requests');
      };
      await pages();
      // A record written into the walked stretch (a title first in A-Z order, updated now), and
      // one out of it: patched in their places (by time by halving; a title not ASCII through SQL).
      const into = mrs.find((x) => !`${x.title}\n${x.description ?? ''}`.toLowerCase().includes('alpha') && x.iid > 100)!;
      expect((await s.put(`/projects/${project}/merge_requests/${into.iid}`, { title: `Aa alpha ${order_by} é` })).status).toBe(200);
      into.title = `Aa alpha ${order_by} é`;
      const out = expected()[7];
      expect((await s.put(`/projects/${project}/merge_requests/${out}`, { title: 'Plain again', description: 'plain' })).status).toBe(200);
      const seed = mrs.find((x) => x.iid === out)!;
      seed.title = 'Plain again';
      seed.description = 'plain';
      const after = await pages();
      if (order_by !== 'merged_at') expect(after).not.toContain('start');
    }
  });
});

describe("an issue search's walk is not remembered for a caller whose view depends on memberships", () => {
  it('a user made Planner sees the confidential issues at once, though no issue was written', async () => {
    for (const n of [1, 2, 3]) {
      expect((await s.post(`/projects/${project}/issues`, { title: `Report secret ${n}`, confidential: true })).status).toBe(201);
    }
    const { user, token } = await s.createUser();
    const titles = async (): Promise<string[]> =>
      (await s.get(`/projects/${project}/issues`, { query: { search: 'report', per_page: '10' }, token })).body.map((i: any) => i.title);
    expect((await titles()).filter((t) => t.startsWith('Report secret'))).toEqual([]);
    expect((await s.post(`/projects/${project}/members`, { user_id: user.id, access_level: 15 })).status).toBe(201);
    expect((await titles()).slice(0, 3)).toEqual(['Report secret 3', 'Report secret 2', 'Report secret 1']);
  });
});
