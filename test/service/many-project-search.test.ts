import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService } from '../helpers/service';
import { expectUncounted, preparedBy } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * `search` on a group's merge requests and issues, and on the instance's (`scope=all`): a common
 * term's early pages walk the list order a window at a time against the full-text index (records
 * of several projects, known by their key in it), its matches in scope counted from the index; a
 * rarer term reads the scope's matches. Whatever the plan, rows, order and headers are what a
 * fresh query of the tables says (LIKE: the terms are ASCII, matched case-insensitively as the
 * trigram index does).
 */
let s: TestService;
let group: number;
let inGroup: number[];
let outside: number;

// Two projects of the group, records interleaved in time (each window holds both), and one
// project outside it. `alpha` in every record but the newest 300 of the group: more than 10,000
// matches in the group, none among its newest; `gamma 1` in a few of each project.
const PER_PROJECT = 5_300;
const OUTSIDE = 400;
const createdAt = (i: number): string => new Date(Date.UTC(2024, 0, 1) + Math.floor(i / 2) * 60_000).toISOString();
const describeRecord = (i: number, n: number): string => `${i <= n - 300 ? 'Alpha release' : 'Beta'}${i % 97 === 0 ? ' gamma 1' : ''}`;

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ path: 'searched-group', visibility: 'public' })).id;
  inGroup = [(await s.createProject({ name: 'one', namespace_id: group, visibility: 'public' })).id, (await s.createProject({ name: 'two', namespace_id: group, visibility: 'public' })).id];
  outside = (await s.createProject({ name: 'outside', visibility: 'public' })).id;
  // A third project of the group with a few of its newest records.
  const three = (await s.createProject({ name: 'three', namespace_id: group, visibility: 'public' })).id;
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    const total = PER_PROJECT * 2;
    for (let i = 1; i <= total; i++) {
      const projectId = inGroup[i % 2];
      const iid = Math.ceil(i / 2);
      const at = createdAt(i);
      insertImportedMergeRequest(ctx, projectId, {
        iid,
        title: `Change ${i}`,
        description: describeRecord(i, total),
        state: i % 7 === 0 ? 'closed' : 'opened',
        authorId: 1,
        sourceBranch: `feature-${iid}`,
        targetBranch: 'main',
        baseSha: '0'.repeat(40),
        headSha: '1'.repeat(40),
        createdAt: at,
        updatedAt: i % 5 === 0 ? createdAt(total - i) : at,
        importedFrom: 'none',
      });
      if (i <= 3_000) {
        insertImportedIssue(ctx, projectId, {
          iid,
          title: `Report ${i}`,
          description: describeRecord(i, 3_000),
          state: i % 7 === 0 ? 'closed' : 'opened',
          authorId: 1,
          // Every third issue of the group labelled: a set of records (label rows) beside a search's.
          labels: i % 3 === 0 ? ['bug'] : [],
          confidential: i % 11 === 0,
          createdAt: at,
          updatedAt: at,
          importedFrom: 'none',
        });
      }
    }
    for (let i = 1; i <= 30; i++) {
      const at = createdAt(total + 2 * OUTSIDE + i);
      insertImportedMergeRequest(ctx, three, {
        iid: i,
        title: `Third ${i}`,
        description: 'Alpha',
        state: 'opened',
        authorId: 1,
        sourceBranch: `third-${i}`,
        targetBranch: 'main',
        baseSha: '0'.repeat(40),
        headSha: '1'.repeat(40),
        createdAt: at,
        updatedAt: at,
        importedFrom: 'none',
      });
    }
    for (let i = 1; i <= OUTSIDE; i++) {
      const at = createdAt(total + i);
      insertImportedMergeRequest(ctx, outside, {
        iid: i,
        title: `Outside ${i}`,
        description: `Alpha${i % 97 === 0 ? ' gamma 1' : ''}`,
        state: 'opened',
        authorId: 1,
        sourceBranch: `outside-${i}`,
        targetBranch: 'main',
        baseSha: '0'.repeat(40),
        headSha: '1'.repeat(40),
        createdAt: at,
        updatedAt: at,
        importedFrom: 'none',
      });
      insertImportedIssue(ctx, outside, {
        iid: i,
        title: `Outside ${i}`,
        description: `Alpha${i % 97 === 0 ? ' gamma 1' : ''}`,
        state: 'opened',
        authorId: 1,
        labels: [],
        confidential: false,
        createdAt: at,
        updatedAt: at,
        importedFrom: 'none',
      });
    }
  })();
  inGroup.push(three);
}, 180_000);
afterAll(async () => s.stop());

const ORDERS: Record<string, string> = { created_at: 'created_at', updated_at: 'updated_at', title: 'title' };

/** The ids a fresh query of the table lists for a search (and a condition) in scope, in the list's order. */
function expected(table: 'merge_requests' | 'issues', projects: number[] | null, term: string, extra = '1 = 1', order = 'created_at', sort = 'desc'): number[] {
  const like = `%${term}%`;
  const rows = s.service.context.db
    .prepare(
      `SELECT id FROM ${table} x WHERE ${projects ? `project_id IN (${projects.join(',')})` : '1 = 1'} AND (title LIKE ? OR description LIKE ?) AND ${extra}
       ORDER BY x.${ORDERS[order]} ${sort}, x.id ${sort}`,
    )
    .all(like, like) as { id: number }[];
  return rows.map((r) => r.id);
}
const ids = (res: ApiResult): number[] => res.body.map((x: any) => x.id);
/** Each window a walk read (its ids as one JSON array). */
const windowReads = (statements: string[]): number => statements.filter((sql) => sql.includes('json_group_array(id) AS ids FROM (SELECT ((x.project_id << 32) + x.id) AS id')).length;

describe('a common term on a group’s or the instance’s merge requests', () => {
  const lists = [
    ['group', () => `/groups/${group}/merge_requests`, () => inGroup],
    ['instance', () => '/merge_requests', () => null],
  ] as const;
  for (const [name, path, projects] of lists) {
    it(`${name}: early pages walk the list order; deeper ones read the matches; uncounted past 10,000; the same rows as the table says`, async () => {
      const all = expected('merge_requests', projects(), 'alpha');
      expect(all.length).toBeGreaterThan(10_000);
      for (const n of [1, 2, 10, 11, 40]) {
        let res!: ApiResult;
        const reads = await preparedBy(s, async () => {
          res = await s.get(path(), { query: { scope: 'all', search: 'ALPHA', per_page: '100', page: String(n) } });
        });
        expectUncounted(res, String(n + 1));
        expect(ids(res)).toEqual(all.slice((n - 1) * 100, n * 100));
        // Pages within the first 1,000 matches walk (the first page's walk serves the next ones);
        // deeper ones read the matches and sort them.
        if (n === 1) expect(windowReads(reads)).toBeGreaterThan(0);
        if (n > 10) expect(windowReads(reads)).toBe(0);
      }
    });

    it(`${name}: other orders and a state, the same rows; a state's count is exact`, async () => {
      for (const [order, sort] of [['updated_at', 'desc'], ['title', 'asc'], ['created_at', 'asc']]) {
        const res = await s.get(path(), { query: { scope: 'all', search: 'alpha', order_by: order, sort, page: '2' } });
        expect(ids(res)).toEqual(expected('merge_requests', projects(), 'alpha', '1 = 1', order, sort).slice(20, 40));
      }
      const closed = expected('merge_requests', projects(), 'alpha', "x.state = 'closed'");
      const res = await s.get(path(), { query: { scope: 'all', search: 'alpha', state: 'closed', page: '3' } });
      expect(res.headers.get('x-total')).toBe(String(closed.length));
      expect(ids(res)).toEqual(closed.slice(40, 60));
    });

    it(`${name}: a rarer term, counted exactly (the scope's matches alone) and sorted`, async () => {
      const rare = expected('merge_requests', projects(), 'gamma 1');
      expect(rare.length).toBeGreaterThan(20);
      const res = await s.get(path(), { query: { scope: 'all', search: 'Gamma 1', page: '2' } });
      expect(res.headers.get('x-total')).toBe(String(rare.length));
      expect(res.headers.get('x-total-pages')).toBe(String(Math.ceil(rare.length / 20)));
      expect(ids(res)).toEqual(rare.slice(20, 40));
    });
  }

  it("a scope's match count is remembered until a write, then counted again", async () => {
    const db = s.service.context.db;
    const total = async (): Promise<string | null> => (await s.get(`/groups/${group}/merge_requests`, { query: { search: 'gamma 1' } })).headers.get('x-total');
    expect(await total()).toBe(String(expected('merge_requests', inGroup, 'gamma 1').length));
    expect(await total()).toBe(String(expected('merge_requests', inGroup, 'gamma 1').length));
    const one = db.prepare(`SELECT iid FROM merge_requests WHERE project_id = ? AND description NOT LIKE '%gamma 1%' LIMIT 1`).get(inGroup[0]) as { iid: number };
    expect((await s.put(`/projects/${inGroup[0]}/merge_requests/${one.iid}`, { title: 'Gamma 1 now' })).status).toBe(200);
    expect(await total()).toBe(String(expected('merge_requests', inGroup, 'gamma 1').length));
    // Written without the API, in a project outside the group, then inside it.
    db.prepare(`UPDATE merge_requests SET title = 'gamma 1 too' WHERE project_id = ? AND iid = 1`).run(outside);
    expect(await total()).toBe(String(expected('merge_requests', inGroup, 'gamma 1').length));
    db.prepare(`UPDATE merge_requests SET title = 'gamma 1 too' WHERE project_id = ? AND iid = 2`).run(inGroup[1]);
    expect(await total()).toBe(String(expected('merge_requests', inGroup, 'gamma 1').length));
  });

  it('the walk is remembered, patched by the records written since, and walked again when the log no longer holds them all', async () => {
    const db = s.service.context.db;
    // Each window read: from the list's start, or after the last record read.
    const walked = async (path: string, projects: number[] | null, page = 1): Promise<string[]> => {
      let res!: ApiResult;
      const reads = await preparedBy(s, async () => {
        res = await s.get(path, { query: { scope: 'all', search: 'alpha', page: String(page) } });
      });
      expect(ids(res)).toEqual(expected('merge_requests', projects, 'alpha').slice((page - 1) * 20, page * 20));
      return reads.filter((sql) => sql.includes('json_group_array(id) AS ids FROM (SELECT ((x.project_id << 32) + x.id) AS id')).map((sql) => (sql.includes('OFFSET ?') ? 'start' : 'after'));
    };
    const groupPath = `/groups/${group}/merge_requests`;
    for (const [path, projects] of [[groupPath, inGroup], ['/merge_requests', null]] as const) {
      await walked(path, projects);
      // Nothing written: the same page from the remembered walk; the next goes on from it.
      expect(await walked(path, projects)).toEqual([]);
      expect(await walked(path, projects, 2)).not.toContain('start');
      expect(await walked(path, projects, 2)).toEqual([]);
    }
    // A record of the group written into the walked stretch, one out of it: patched, not walked again.
    const into = db
      .prepare(`SELECT iid, project_id FROM merge_requests WHERE project_id = ? AND description = 'Beta' ORDER BY created_at DESC LIMIT 1`)
      .get(inGroup[0]) as { iid: number; project_id: number };
    expect((await s.put(`/projects/${into.project_id}/merge_requests/${into.iid}`, { title: 'Alpha now' })).status).toBe(200);
    const outId = expected('merge_requests', inGroup, 'alpha')[4];
    const out = db.prepare('SELECT iid, project_id FROM merge_requests WHERE id = ?').get(outId) as { iid: number; project_id: number };
    expect((await s.put(`/projects/${out.project_id}/merge_requests/${out.iid}`, { title: 'Plain', description: 'plain' })).status).toBe(200);
    for (const [path, projects] of [[groupPath, inGroup], ['/merge_requests', null]] as const) {
      expect(await walked(path, projects)).not.toContain('start');
      expect(await walked(path, projects, 2)).toEqual([]);
    }
    // Moved out of the group without the API.
    const moved = expected('merge_requests', inGroup, 'alpha')[1];
    db.prepare('UPDATE merge_requests SET project_id = ?, iid = 100000 WHERE id = ?').run(outside, moved);
    expect(await walked(groupPath, inGroup)).not.toContain('start');
    // A project of the group hidden from the caller writes no record: another set of projects, another walk.
    const anonymous = async (): Promise<number[]> => ids(await s.get(groupPath, { token: null, query: { search: 'alpha' } }));
    expect(await anonymous()).toEqual(expected('merge_requests', inGroup, 'alpha').slice(0, 20));
    expect((await s.put(`/projects/${inGroup[2]}`, { visibility: 'private' })).status).toBe(200);
    expect(await anonymous()).toEqual(expected('merge_requests', inGroup.slice(0, 2), 'alpha').slice(0, 20));
    expect((await s.put(`/projects/${inGroup[2]}`, { visibility: 'public' })).status).toBe(200);
    // More writes since than the log keeps (1,000): walked again.
    await walked(groupPath, inGroup);
    const bump = db.prepare('UPDATE issues SET updated_at = updated_at WHERE id = ?');
    const issueIds = (db.prepare('SELECT id FROM issues LIMIT 1001').all() as { id: number }[]).map((r) => r.id);
    for (const id of issueIds) bump.run(id);
    // A page not read before (page 1 is kept whole while the group's merge requests are unwritten: SqlList.keptRows).
    expect(await walked(groupPath, inGroup, 3)).toContain('start');
    // More merge request writes than a patch takes (200): walked again.
    const touch = db.prepare('UPDATE merge_requests SET updated_at = updated_at WHERE id = ?');
    for (const id of expected('merge_requests', inGroup, 'alpha').slice(100, 301)) touch.run(id);
    expect(await walked(groupPath, inGroup)).toContain('start');
    expect(await walked(groupPath, inGroup)).toEqual([]);
  });
});

describe('a common term on a group’s or the instance’s issues', () => {
  it('an administrator: every issue, counted from the index', async () => {
    for (const [path, projects] of [[`/groups/${group}/issues`, inGroup], ['/issues', null]] as const) {
      const all = expected('issues', projects, 'alpha');
      const res = await s.get(path, { query: { scope: 'all', search: 'alpha', page: '5' } });
      expect(res.headers.get('x-total')).toBe(String(all.length));
      expect(ids(res)).toEqual(all.slice(80, 100));
      const rare = expected('issues', projects, 'gamma 1');
      const few = await s.get(path, { query: { scope: 'all', search: 'gamma 1' } });
      expect(few.headers.get('x-total')).toBe(String(rare.length));
      expect(ids(few)).toEqual(rare.slice(0, 20));
    }
  });

  it('an anonymous caller: no confidential issue, in rows or count', async () => {
    for (const [path, projects] of [[`/groups/${group}/issues`, inGroup], ['/issues', null]] as const) {
      const visible = expected('issues', projects, 'alpha', 'x.confidential = 0');
      const res = await s.get(path, { token: null, query: { scope: 'all', search: 'alpha', page: '3' } });
      expect(res.headers.get('x-total')).toBe(String(visible.length));
      expect(ids(res)).toEqual(visible.slice(40, 60));
    }
  });
});

describe("the caller's own records searched (`/merge_requests`' and `/issues`' default scope, created_by_me)", () => {
  // Every record here is the administrator's (user 1): created_by_me holds them all.
  it('a rare term reads its matches from the index as a set, each record checked against the rest once; rows and counts as the table says', async () => {
    // gamma 1: a few matches (FEW_MATCHES), read once and looked up by id; alpha on issues: 3,100,
    // read from the index by the set's statement.
    for (const [path, table, term, few] of [['/merge_requests', 'merge_requests', 'Gamma 1', true], ['/issues', 'issues', 'Gamma 1', true], ['/issues', 'issues', 'ALPHA', false]] as const) {
      const rare = expected(table, null, term);
      expect(rare.length).toBeGreaterThan(20);
      expect(rare.length < 200).toBe(few);
      let res!: ApiResult;
      const reads = await preparedBy(s, async () => {
        res = await s.get(path, { query: { search: term, per_page: '10', page: '2' } });
      });
      expect(res.headers.get('x-total')).toBe(String(rare.length));
      expect(res.headers.get('x-total-pages')).toBe(String(Math.ceil(rare.length / 10)));
      expect(ids(res)).toEqual(rare.slice(10, 20));
      // The matches read as the set's rows (their ids in hand, or the index read by the set's
      // statement), not every match built into a list per statement, and the index not asked
      // again about each record read from them.
      const set = few ? 'SELECT DISTINCT +s.value AS id FROM json_each(?) s WHERE 1 = 1' : `SELECT DISTINCT +s.rowid & 4294967295 AS id FROM ${table}_search s WHERE s.${table}_search MATCH ?`;
      const fromSet = reads.filter((sql) => sql.includes(`FROM (${set}) s CROSS JOIN ${table} x`));
      expect(fromSet.length).toBeGreaterThan(0);
      for (const sql of fromSet) expect(sql).not.toContain('s.rowid = ((x.project_id << 32) + x.id)');
      expect(reads.some((sql) => sql.includes('x.id IN (SELECT s.rowid & 4294967295'))).toBe(false);
      // Besides a label's set (its rows asked on the search's, or the search asked on the label's).
      if (table === 'issues') {
        const labelled = expected(table, null, term, "x.labels != '[]'");
        expect(labelled.length).toBeGreaterThan(5);
        for (const labels of ['bug', 'bug,BUG']) {
          const res = await s.get(path, { query: { search: term, labels, per_page: '5', page: '2' } });
          expect(res.status).toBe(200);
          expect(res.headers.get('x-total')).toBe(String(labelled.length));
          expect(ids(res)).toEqual(labelled.slice(5, 10));
        }
      }
      // With a state and another order: the same rule.
      const closed = expected(table, null, term, "x.state = 'closed'", 'title', 'asc');
      const both = await s.get(path, { query: { search: term, state: 'closed', order_by: 'title', sort: 'asc', per_page: '2' } });
      expect(both.headers.get('x-total')).toBe(String(closed.length));
      expect(ids(both)).toEqual(closed.slice(0, 2));
    }
  });

  it('a common term: the rows and the count past 10,000 as before (the matches a list once per statement)', async () => {
    const all = expected('merge_requests', null, 'alpha');
    expect(all.length).toBeGreaterThan(10_000);
    let res!: ApiResult;
    const reads = await preparedBy(s, async () => {
      res = await s.get('/merge_requests', { query: { search: 'alpha', per_page: '50', page: '3' } });
    });
    expectUncounted(res, '4');
    expect(ids(res)).toEqual(all.slice(100, 150));
    // The count not a probe per record (10,001 of them): every match a list once. The page walks
    // the caller's list, each record checked on its columns (an ASCII term: checkedList), no list
    // of every match built for it.
    const probing = reads.filter((sql) => sql.includes('s.rowid = ((x.project_id << 32) + x.id)'));
    expect(reads.filter((sql) => sql.includes('count(*)') && sql.includes('x.id IN (SELECT s.rowid & 4294967295'))).toHaveLength(1);
    expect(probing).toHaveLength(1);
    expect(probing[0]).toMatch(/^SELECT json_group_array\(id\) AS value FROM \(SELECT id FROM \(SELECT x\.id AS id, \(\(x\.title LIKE/);
    expect(reads.filter((sql) => !sql.includes('count(*)') && sql.includes('x.id IN (SELECT s.rowid & 4294967295'))).toEqual([]);
    const issues = expected('issues', null, 'alpha', "x.state = 'opened'");
    const opened = await s.get('/issues', { query: { search: 'alpha', state: 'opened', page: '4' } });
    expect(opened.headers.get('x-total')).toBe(String(issues.length));
    expect(ids(opened)).toEqual(issues.slice(60, 80));
  });
});

describe('a term no record holds', () => {
  it('answers an empty list at every scope without reading or counting records; a term some record holds again after a write', async () => {
    const lists = [`/projects/${inGroup[0]}/merge_requests`, `/groups/${group}/merge_requests`, '/merge_requests', `/projects/${inGroup[0]}/issues`, `/groups/${group}/issues`, '/issues'];
    for (const path of lists) {
      const queries: Record<string, string>[] = [{ search: 'zzz' }, { search: 'zzz', scope: 'all', state: 'opened', order_by: 'title', page: '3' }, { search: 'zzz', labels: 'Any', order_by: 'popularity' }];
      for (const query of queries) {
        let res!: ApiResult;
        const reads = await preparedBy(s, async () => {
          res = await s.get(path, { query });
        });
        expect(res.status).toBe(200);
        expect(res.body).toEqual([]);
        expect(res.headers.get('x-total')).toBe('0');
        expect(res.headers.get('x-total-pages')).toBe('1');
        expect(res.headers.get('x-next-page')).toBe('');
        // No record read: neither the list's rows nor a count of them (but a scope's records
        // counted up to 1,001, to choose how it asks the index).
        expect(reads.filter((sql) => /FROM (merge_requests|issues) x\b/.test(sql) && !sql.endsWith('LIMIT 1001)'))).toEqual([]);
      }
    }
    const one = s.service.context.db.prepare('SELECT iid FROM merge_requests WHERE project_id = ? LIMIT 1').get(inGroup[0]) as { iid: number };
    expect((await s.put(`/projects/${inGroup[0]}/merge_requests/${one.iid}`, { title: 'Now zzz' })).status).toBe(200);
    for (const path of lists.slice(0, 3)) {
      const res = await s.get(path, { query: { search: 'ZZZ' } });
      expect(res.headers.get('x-total')).toBe('1');
      expect(res.body.map((x: any) => x.title)).toEqual(['Now zzz']);
    }
  });
});
