import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, TestService } from '../helpers/service';
import { expectEveryPage, pagedReads, preparedBy, queryPlan } from '../helpers/lists';
import { isDraftTitle } from '../../src/main/service/areas/core/entities';
import { draftTitleSql090 } from '../../src/main/service/areas/core/schema';

/**
 * Merge request list filters Sandlab ignored (fil13's audit): wip=yes/no (drafts by their titles, as
 * the answers' `draft` says), source_project_id, merge_user_id / merge_user_username, and the
 * deployment filters (Sandlab deploys nothing: none match); GitLab's 400s for wip and approved
 * values; every page in a project, a group and the instance, and the few read by core/090's indexes.
 */
let s: TestService;
let group: number;
let alpha: number;
let beta: number;
let fork: number;
let merger: { id: number; username: string };

interface Row { id: number; project_id: number; title: string; source_project_id: number; merged_by_id: number | null }
const db = () => s.service.context.db;

const TITLES = ['Draft: a', 'draft:b', '[Draft] c', '(DRAFT) d', 'Draft - e', 'Draft -f', 'plain', ' \tDraft: g', '\u00a0[draft] h', 'Drafts: i', 'x Draft: j', 'Draft\u2003-\u2003k', 'final'];

function expected(projects: number[], keep: (r: Row) => boolean): number[] {
  const rows = db().prepare('SELECT id, project_id, title, source_project_id, merged_by_id FROM merge_requests ORDER BY created_at DESC, id DESC').all() as Row[];
  return rows.filter((r) => projects.includes(r.project_id) && keep(r)).map((r) => r.id);
}

beforeAll(async () => {
  s = await TestService.start();
  const u = await s.createUser();
  merger = { id: u.user.id, username: u.user.username };
  group = ok(await s.post('/groups', { name: 'mf', path: 'mf' })).id;
  alpha = ok(await s.post('/projects', { name: 'alpha', namespace_id: group })).id;
  beta = ok(await s.post('/projects', { name: 'beta', namespace_id: group })).id;
  fork = ok(await s.post('/projects', { name: 'fork' })).id;
  let n = 0;
  for (let round = 0; round < 3; round++) {
    for (const title of TITLES) {
      const project = n % 3 === 2 ? beta : alpha;
      const mr = ok(await s.post(`/projects/${project}/merge_requests`, { title, source_branch: `b${n}`, target_branch: 'main' }));
      // Set-up the API cannot make here (a fork's branch, a merge through git): on the rows, as those would leave them.
      if (n % 5 === 1) db().prepare('UPDATE merge_requests SET source_project_id = ? WHERE id = ?').run(fork, mr.id);
      if (n % 4 === 3) db().prepare("UPDATE merge_requests SET state = 'merged', merged_by_id = ?, merged_at = updated_at WHERE id = ?").run(n % 8 === 3 ? merger.id : 1, mr.id);
      n++;
    }
  }
}, 120_000);
afterAll(async () => s?.stop());

const lists = (): [string, Record<string, string>, number[]][] => [
  [`/projects/${alpha}/merge_requests`, {}, [alpha]],
  [`/groups/${group}/merge_requests`, {}, [alpha, beta]],
  ['/merge_requests', { scope: 'all' }, [alpha, beta]],
];

describe('merge request own filters', () => {
  it('the SQL draft condition is isDraftTitle', () => {
    for (const title of [...TITLES, '', ' ', 'draft', 'Draft -', 'Draft - ', '(draft', 'draft\u0085-\u0085x', '\ufeffDraft: x', 'DRAFT:', 'Dräft: x']) {
      const row = db().prepare(`SELECT ${draftTitleSql090('t.title')} AS d FROM (SELECT ? AS title) t`).get(title) as { d: number };
      expect(!!row.d, JSON.stringify(title)).toBe(isDraftTitle(title));
    }
  });

  it('wip, source_project_id, merge_user_id and merge_user_username: every page in a project, a group and the instance', async () => {
    for (const [path, base, projects] of lists()) {
      const cases: [Record<string, string>, (r: Row) => boolean][] = [
        [{ wip: 'yes' }, (r) => isDraftTitle(r.title)],
        [{ wip: 'no' }, (r) => !isDraftTitle(r.title)],
        [{ wip: 'yes', state: 'merged' }, (r) => isDraftTitle(r.title) && r.merged_by_id !== null],
        [{ source_project_id: String(fork) }, (r) => r.source_project_id === fork],
        [{ source_project_id: String(alpha) }, (r) => r.source_project_id === alpha],
        [{ source_project_id: '999999' }, () => false],
        [{ merge_user_id: String(merger.id) }, (r) => r.merged_by_id === merger.id],
        [{ merge_user_username: merger.username.toUpperCase() }, (r) => r.merged_by_id === merger.id],
        [{ merge_user_id: '1', wip: 'no' }, (r) => r.merged_by_id === 1 && !isDraftTitle(r.title)],
        [{ merge_user_username: 'nobody-at-all' }, () => false],
        [{ environment: 'production' }, () => false],
        [{ deployed_after: '2000-01-01' }, () => false],
        [{ approved: 'no' }, () => true],
      ];
      for (const [query, keep] of cases) {
        await expectEveryPage(s, path, { ...base, ...query }, expected(projects, keep), 4);
      }
    }
  });

  it("answers GitLab's 400s", async () => {
    const bad: [Record<string, string>, string][] = [
      [{ wip: 'maybe' }, 'wip does not have a valid value'],
      [{ wip: 'YES' }, 'wip does not have a valid value'],
      [{ approved: 'true' }, 'approved does not have a valid value'],
      [{ merge_user_id: '1', merge_user_username: 'root' }, 'merge_user_id, merge_user_username are mutually exclusive'],
      [{ source_project_id: 'alpha' }, 'source_project_id is invalid'],
    ];
    for (const [query, error] of bad) {
      const res = await s.get(`/projects/${alpha}/merge_requests`, { query });
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(res.body).toEqual({ error });
    }
  });

  it("reads the few by core/090's indexes", async () => {
    const sets: [string, Record<string, string>, string, RegExp][] = [
      [`/projects/${alpha}/merge_requests`, { wip: 'yes' }, 'dr', /USING (COVERING )?INDEX merge_requests_drafts/],
      ['/merge_requests', { scope: 'all', wip: 'yes' }, 'dr', /USING (COVERING )?INDEX merge_requests_drafts/],
      [`/groups/${group}/merge_requests`, { source_project_id: String(fork) }, 'sp', /USING (COVERING )?INDEX merge_requests_source_project/],
      [`/projects/${alpha}/merge_requests`, { merge_user_id: String(merger.id) }, 'mu', /USING (COVERING )?INDEX merge_requests_merged_by/],
    ];
    for (const [path, query, alias, index] of sets) {
      // The set's rows, counted to choose between reading them and walking the list (idSetLists).
      const sql = await preparedBy(s, () => s.get(path, { query: { ...query, per_page: '1' } }));
      const rows = sql.find((q) => q.startsWith(`SELECT count(*) AS n FROM (SELECT 1 FROM merge_requests ${alias} `));
      expect(rows, JSON.stringify(query)).toBeDefined();
      const args = Array.from({ length: rows!.split('?').length - 1 }, () => 1);
      expect(queryPlan(db(), rows!, ...args), JSON.stringify(query)).toMatch(index);
    }
    // A merge user's with a state counted by core/091's index alone (no merge request looked up for its state).
    const sql = await preparedBy(s, () => s.get(`/projects/${alpha}/merge_requests`, { query: { merge_user_id: '1', state: 'merged', per_page: '1' } }));
    const count = sql.find((q) => q.startsWith('SELECT count(*) AS n FROM (SELECT 1 FROM merge_requests x WHERE') && q.includes('(x.merged_by_id = ?)'));
    expect(count).toBeDefined();
    expect(queryPlan(db(), count!, ...Array.from({ length: count!.split('?').length - 1 }, () => 1))).toMatch(/SEARCH x USING COVERING INDEX merge_requests_merged_by_state \(merged_by_id=\? AND project_id=\? AND state=\?\)/);
    // A fork's few merge requests in a project's list: read by id from the set, not the list walked.
    const reads = await pagedReads(s, async () => void ok(await s.get(`/projects/${alpha}/merge_requests`, { query: { source_project_id: String(fork), per_page: '1' } })));
    expect(reads[0].sql).toContain('CROSS JOIN merge_requests x');
  });
});
