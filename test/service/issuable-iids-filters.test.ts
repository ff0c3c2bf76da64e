import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, TestService } from '../helpers/service';
import { pagedReads } from '../helpers/lists';

/**
 * iids[] on a group's and the instance's issue and merge-request lists (core/070): the records of
 * those iids in every project of the scope, newest first, with their headers; read by id from the
 * iid index instead of every record of the scope walked (a project's list keeps its own index).
 */
let s: TestService;
let group: number;
const projects: number[] = [];

beforeAll(async () => {
  s = await TestService.start();
  group = ok(await s.post('/groups', { name: 'iids', path: 'iids' })).id;
  for (const name of ['one', 'two']) projects.push(ok(await s.post('/projects', { name, namespace_id: group })).id);
  const elsewhere = ok(await s.post('/projects', { name: 'elsewhere' })).id;
  for (let i = 0; i < 5; i++) {
    for (const p of [...projects, elsewhere]) {
      ok(await s.post(`/projects/${p}/issues`, { title: `issue ${i}` }));
      ok(await s.post(`/projects/${p}/merge_requests`, { title: `mr ${i}`, source_branch: `b${i}`, target_branch: 'main' }));
    }
  }
});
afterAll(async () => s.stop());

describe('iids[] beyond one project', () => {
  for (const kind of ['issues', 'merge_requests']) {
    it(`${kind}: a group's and the instance's lists hold those iids of every project in scope, newest first`, async () => {
      const table = kind === 'issues' ? 'issues' : 'merge_requests';
      const db = s.service.context.db;
      const want = (projectIds: number[] | null) =>
        (db.prepare(`SELECT id FROM ${table} WHERE iid IN (2, 4)${projectIds ? ` AND project_id IN (${projectIds.join(',')})` : ''} ORDER BY created_at DESC, id DESC`).all() as { id: number }[]).map((r) => r.id);
      for (const [path, query, expected] of [
        [`/groups/${group}/${kind}`, {}, want(projects)],
        [`/${kind}`, { scope: 'all' }, want(null)],
      ] as const) {
        const all = await s.get(path, { query: { ...query, 'iids[]': ['2', '4'], per_page: '100' } });
        expect(all.status).toBe(200);
        expect(all.body.map((x: any) => x.id)).toEqual(expected);
        expect(all.headers.get('x-total')).toBe(String(expected.length));
        const page2 = await s.get(path, { query: { ...query, 'iids[]': ['2', '4'], per_page: '2', page: '2' } });
        expect(page2.body.map((x: any) => x.id)).toEqual(expected.slice(2, 4));
        expect(page2.headers.get('x-total-pages')).toBe(String(Math.ceil(expected.length / 2)));
        // With another filter (state) the same rows; none for an iid no record has.
        expect((await s.get(path, { query: { ...query, 'iids[]': ['2', '4'], state: 'opened', per_page: '100' } })).body.map((x: any) => x.id)).toEqual(expected);
        expect((await s.get(path, { query: { ...query, 'iids[]': ['99'] } })).body).toEqual([]);
      }
      // The group's page reads the iids' records by id.
      const reads = await pagedReads(s, async () => {
        await s.get(`/groups/${group}/${kind}`, { query: { 'iids[]': ['2', '4'] } });
      });
      expect(reads.some((r) => r.sql.includes('SELECT DISTINCT +r.id AS id FROM') && r.sql.includes('r.iid IN'))).toBe(true);
      // A project's list is as before.
      const one = await s.get(`/projects/${projects[0]}/${kind}`, { query: { 'iids[]': ['2', '4'] } });
      expect(one.body.map((x: any) => x.iid)).toEqual([4, 2]);
    });
  }
});
