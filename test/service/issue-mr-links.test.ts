import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService } from '../helpers/service';
import { expectCounted, expectUncounted, pagedReads } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * Lists that hang off one issue or one milestone (an issue's related and closing merge requests, a
 * milestone's issues and merge requests) and the Search API's issues and merge requests: rows,
 * order and pagination headers, whatever each reads them from (core/062's mention rows, the filter
 * counters, the lists' own search plans).
 */
let s: TestService;
let group: any;
let a: any;
let b: any;
let hidden: any;
let reader: { user: any; token: string };
let guest: { user: any; token: string };

const AT = (i: number): string => new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString();

beforeAll(async () => {
  s = await TestService.start();
  group = await s.createGroup({ path: 'linked', visibility: 'public' });
  a = await s.createProject({ name: 'alpha', namespace_id: group.id, visibility: 'public', initialize_with_readme: true });
  b = await s.createProject({ name: 'beta', namespace_id: group.id, visibility: 'public', initialize_with_readme: true });
  hidden = await s.createProject({ name: 'hidden', visibility: 'private', initialize_with_readme: true });
  reader = await s.createUser({ username: 'links-reader' });
  guest = await s.createUser({ username: 'links-guest' });
  await s.addMember('projects', a.id, guest.user.id, 10);
}, 60_000);
afterAll(async () => s.stop());

const iids = (res: ApiResult): number[] => res.body.map((x: any) => x.iid);
const newIssue = async (p: any, title: string, extra: Record<string, unknown> = {}) => (await s.post(`/projects/${p.id}/issues`, { title, ...extra })).body;
let branch = 0;
const newMr = async (p: any, title: string, description?: string) =>
  (await s.post(`/projects/${p.id}/merge_requests`, { title, description, source_branch: `links-${++branch}`, target_branch: 'main' })).body;

describe("an issue's related and closing merge requests", () => {
  it('related_merge_requests: mentions in title, description or comments (not numbers that only start the same), closing ones, visible projects', async () => {
    // Issue #N in alpha, with enough issues first that N has two digits and #N0 is another number.
    for (let i = 0; i < 3; i++) await newIssue(a, `filler ${i}`);
    const issue = await newIssue(a, 'the one');
    const n = issue.iid;
    const other = await newIssue(b, 'same number elsewhere');
    const byDescription = await newMr(a, 'by description', `See #${n} for details`);
    const byTitle = await newMr(a, `Follow-up to #${n}`);
    await newMr(a, 'prefix only', `#${n}0 is another issue`);
    const byComment = await newMr(a, 'by comment');
    const comment = (await s.post(`/projects/${a.id}/merge_requests/${byComment.iid}/notes`, { body: `relates to #${n}` })).body;
    const fromBeta = await newMr(b, 'from beta', `Touches ${a.path_with_namespace}#${n}, and beta's own #${other.iid}`);
    const betaOwn = await newMr(b, 'beta own', `#${n} here is beta's issue`);
    const closing = await newMr(a, 'closing', `Closes #${n}`);
    const secret = await newMr(hidden, 'from hidden', `See ${a.path_with_namespace}#${n}`);
    // A URL reference is read once a number that starts with N picked the merge request (as before core/062).
    const byUrl = await newMr(a, 'by url', `#${n}1 and ${a.web_url}/-/issues/${n}`);
    const edited = await newMr(a, 'edited', `See #${n}`);
    const deleted = await newMr(a, 'deleted', `See #${n}`);

    const related = async (token?: string): Promise<ApiResult> => s.get(`/projects/${a.id}/issues/${n}/related_merge_requests`, token ? { token } : {});
    const expected = [byDescription, byTitle, byComment, fromBeta, closing, secret, byUrl, edited, deleted].map((m) => m.id);
    let res = await related();
    expect(res.body.map((m: any) => m.id)).toEqual(expected);
    expectCounted(res, expected.length, 20);
    expect(betaOwn.id).not.toBe(undefined);
    // The private project's merge request only for those who see it.
    expect((await related(reader.token)).body.map((m: any) => m.id)).toEqual(expected.filter((id) => id !== secret.id));

    await s.put(`/projects/${a.id}/merge_requests/${edited.iid}`, { description: 'nothing now' });
    await s.del(`/projects/${a.id}/merge_requests/${deleted.iid}`);
    await s.put(`/projects/${a.id}/merge_requests/${byComment.iid}/notes/${comment.id}`, { body: 'no reference' });
    await s.put(`/projects/${a.id}/merge_requests/${byTitle.iid}`, { title: 'plain title' });
    res = await related();
    const left = [byDescription, fromBeta, closing, secret, byUrl].map((m) => m.id);
    expect(res.body.map((m: any) => m.id)).toEqual(left);
    expectCounted(res, left.length, 20);
    expect((await s.get(`/projects/${a.id}/issues/${n}/related_merge_requests`, { query: { per_page: 2, page: 2 } })).body.map((m: any) => m.id)).toEqual(left.slice(2, 4));
    // Beta's own issue of the same number: its own mention only.
    expect((await s.get(`/projects/${b.id}/issues/${other.iid}/related_merge_requests`)).body.map((m: any) => m.id)).toEqual([fromBeta.id]);
  });

  it("closed_by: the issue's own project's merge requests that close it, newest first", async () => {
    const issue = await newIssue(a, 'to close');
    const first = await newMr(a, 'first', `Fixes #${issue.iid}`);
    const second = await newMr(a, 'second', `Closes #${issue.iid}`);
    await newMr(b, 'from beta', `Closes ${a.path_with_namespace}#${issue.iid}`);
    await newMr(a, 'mentions', `See #${issue.iid}`);
    const res = await s.get(`/projects/${a.id}/issues/${issue.iid}/closed_by`);
    expect(res.body.map((m: any) => m.id)).toEqual([second.id, first.id]);
    expectCounted(res, 2, 20);
    const page2 = await s.get(`/projects/${a.id}/issues/${issue.iid}/closed_by`, { query: { per_page: 1, page: 2 } });
    expect(page2.body.map((m: any) => m.id)).toEqual([first.id]);
    expectCounted(page2, 2, 1);
  });
});

describe("a milestone's issues and merge requests", () => {
  it('counted from the counters: every issue for those who see confidential ones, the others for the rest; merge requests', async () => {
    const project = await s.createProject({ name: 'milestoned', namespace_id: group.id, visibility: 'public', initialize_with_readme: true });
    await s.addMember('projects', project.id, guest.user.id, 10);
    const m = (await s.post(`/projects/${project.id}/milestones`, { title: 'm1' })).body;
    const other = (await s.post(`/projects/${project.id}/milestones`, { title: 'm2' })).body;
    const made: any[] = [];
    for (let i = 0; i < 7; i++) made.push(await newIssue(project, `issue ${i}`, { milestone_id: i === 5 ? other.id : m.id, confidential: i % 3 === 0 }));
    await newIssue(project, 'no milestone');
    const onM = made.filter((_, i) => i !== 5).reverse();
    let res = await s.get(`/projects/${project.id}/milestones/${m.id}/issues`, { query: { per_page: 4 } });
    expect(iids(res)).toEqual(onM.slice(0, 4).map((i) => i.iid));
    expectCounted(res, 6, 4);
    expect(res.headers.get('x-next-page')).toBe('2');
    res = await s.get(`/projects/${project.id}/milestones/${m.id}/issues`, { query: { per_page: 4, page: 2 } });
    expect(iids(res)).toEqual(onM.slice(4).map((i) => i.iid));
    expectCounted(res, 6, 4);
    // A reader (not a member) and a Guest see no confidential issue of others.
    const open = onM.filter((i) => !i.confidential);
    for (const token of [reader.token, guest.token]) {
      res = await s.get(`/projects/${project.id}/milestones/${m.id}/issues`, { query: { per_page: 2 }, token });
      expect(iids(res)).toEqual(open.slice(0, 2).map((i) => i.iid));
      expectCounted(res, open.length, 2);
    }
    // Past the end.
    res = await s.get(`/projects/${project.id}/milestones/${m.id}/issues`, { query: { per_page: 4, page: 3 } });
    expect(res.body).toEqual([]);
    expectCounted(res, 6, 4);

    const mrs: any[] = [];
    for (let i = 0; i < 3; i++) {
      const mr = await newMr(project, `mr ${i}`);
      await s.put(`/projects/${project.id}/merge_requests/${mr.iid}`, { milestone_id: i === 1 ? other.id : m.id });
      mrs.push(mr);
    }
    res = await s.get(`/projects/${project.id}/milestones/${m.id}/merge_requests`, { query: { per_page: 1 } });
    expect(iids(res)).toEqual([mrs[2].iid]);
    expectCounted(res, 2, 1);
    // A move of an issue to another milestone is counted at once.
    await s.put(`/projects/${project.id}/issues/${made[0].iid}`, { milestone_id: other.id });
    res = await s.get(`/projects/${project.id}/milestones/${m.id}/issues`, { query: { per_page: 4 } });
    expectCounted(res, 5, 4);
  });

  it('past 10,000 records: uncounted, as every list (a project milestone, a group milestone)', async () => {
    const project = await s.createProject({ name: 'many', namespace_id: group.id, visibility: 'public' });
    const m = (await s.post(`/projects/${project.id}/milestones`, { title: 'big' })).body;
    const gm = (await s.post(`/groups/${group.id}/milestones`, { title: 'group big' })).body;
    const ctx = s.service.context;
    ctx.db.transaction(() => {
      for (let i = 1; i <= 10_050; i++) {
        insertImportedIssue(ctx, project.id, {
          iid: i,
          title: `Issue ${i}`,
          description: null,
          state: 'opened',
          authorId: 1,
          labels: [],
          confidential: i % 10 === 0,
          milestoneId: i % 2 ? m.id : gm.id,
          createdAt: AT(i),
          updatedAt: AT(i),
          importedFrom: 'none',
        });
      }
      for (let i = 1; i <= 10_020; i++) {
        insertImportedMergeRequest(ctx, project.id, {
          iid: i,
          title: `MR ${i}`,
          description: null,
          state: 'opened',
          authorId: 1,
          sourceBranch: `many-${i}`,
          targetBranch: 'main',
          baseSha: '0'.repeat(40),
          headSha: '1'.repeat(40),
          milestoneId: m.id,
          createdAt: AT(i),
          updatedAt: AT(i),
          importedFrom: 'none',
        });
      }
    })();
    const newest = (table: string, milestone: number, n: number, offset = 0, open = false): number[] =>
      (
        ctx.db
          .prepare(`SELECT id FROM ${table} WHERE milestone_id = ?${open ? ' AND confidential = 0' : ''} ORDER BY id DESC LIMIT ? OFFSET ?`)
          .all(milestone, n, offset) as { id: number }[]
      ).map((r) => r.id);
    // 5,025 on the project milestone: counted; 10,020 merge requests: not.
    let res = await s.get(`/projects/${project.id}/milestones/${m.id}/issues`);
    expect(res.body.map((x: any) => x.id)).toEqual(newest('issues', m.id, 20));
    expectCounted(res, 5_025, 20);
    res = await s.get(`/projects/${project.id}/milestones/${m.id}/issues`, { token: reader.token, query: { page: 3 } });
    expect(res.body.map((x: any) => x.id)).toEqual(newest('issues', m.id, 20, 40, true));
    expectCounted(res, 5_025, 20);
    res = await s.get(`/projects/${project.id}/milestones/${m.id}/merge_requests`, { query: { page: 2 } });
    expect(res.body.map((x: any) => x.id)).toEqual(newest('merge_requests', m.id, 20, 20));
    expectUncounted(res, '3');
    res = await s.get(`/projects/${project.id}/milestones/${m.id}/merge_requests`, { query: { page: 500, per_page: 20 } });
    expect(res.body.map((x: any) => x.id)).toEqual(newest('merge_requests', m.id, 20, 9_980));
    expectUncounted(res, '501');
    res = await s.get(`/projects/${project.id}/milestones/${m.id}/merge_requests`, { query: { page: 501, per_page: 20 } });
    expect(res.body.map((x: any) => x.id)).toEqual(newest('merge_requests', m.id, 20, 10_000));
    expectUncounted(res, '');
    res = await s.get(`/projects/${project.id}/milestones/${m.id}/merge_requests`, { query: { page: 502, per_page: 20 } });
    expect(res.body).toEqual([]);
    expectUncounted(res, '');
    // Move 5,000 of the project milestone's issues onto the group's: 10,025, of which 1,005 confidential.
    ctx.db.prepare('UPDATE issues SET milestone_id = ? WHERE milestone_id = ? AND iid <= 10000').run(gm.id, m.id);
    res = await s.get(`/groups/${group.id}/milestones/${gm.id}/issues`);
    expect(res.body.map((x: any) => x.id)).toEqual(newest('issues', gm.id, 20));
    expectUncounted(res, '2');
    res = await s.get(`/projects/${project.id}/milestones/${m.id}/issues`);
    expectCounted(res, 25, 20);
    // The group milestone as a reader: 9,020 of 10,025 are not confidential.
    res = await s.get(`/groups/${group.id}/milestones/${gm.id}/issues`, { token: reader.token, query: { page: 2 } });
    expect(res.body.map((x: any) => x.id)).toEqual(newest('issues', gm.id, 20, 20, true));
    expectCounted(res, 9_020, 20);
    // All 10,050 back on the project milestone: uncounted for root; 9,045 not confidential, counted, for a reader.
    ctx.db.prepare('UPDATE issues SET milestone_id = ? WHERE milestone_id = ?').run(m.id, gm.id);
    res = await s.get(`/projects/${project.id}/milestones/${m.id}/issues`, { query: { page: 2 } });
    expect(res.body.map((x: any) => x.id)).toEqual(newest('issues', m.id, 20, 20));
    expectUncounted(res, '3');
    res = await s.get(`/projects/${project.id}/milestones/${m.id}/issues`, { token: reader.token });
    expect(res.body.map((x: any) => x.id)).toEqual(newest('issues', m.id, 20, 0, true));
    expectCounted(res, 9_045, 20);
    ctx.db.prepare('UPDATE issues SET confidential = 0 WHERE milestone_id = ? AND confidential = 1').run(m.id);
    res = await s.get(`/projects/${project.id}/milestones/${m.id}/issues`, { token: reader.token });
    expect(res.body.map((x: any) => x.id)).toEqual(newest('issues', m.id, 20));
    expectUncounted(res, '2');

    // Deep pages start after a row an earlier page read, until the project's records are written.
    const deep = async (kind: 'issues' | 'merge_requests', page: number, token?: string): Promise<{ ids: number[]; skipped: number[] }> => {
      let ids: number[] = [];
      const reads = await pagedReads(s, async () => {
        const r = await s.get(`/projects/${project.id}/milestones/${m.id}/${kind}`, { query: { page, per_page: 20 }, token });
        ids = r.body.map((x: any) => x.id);
      });
      return { ids, skipped: reads.map((r) => r.args[r.args.length - 1] as number) };
    };
    for (const [kind, token] of [['merge_requests', undefined], ['issues', undefined], ['issues', reader.token]] as const) {
      const truth = (page: number): number[] => newest(kind, m.id, 20, (page - 1) * 20, kind === 'issues' && !!token);
      expect((await deep(kind, 60, token)).ids).toEqual(truth(60));
      const again = await deep(kind, 61, token);
      expect(again.ids).toEqual(truth(61));
      expect(Math.max(...again.skipped)).toBeLessThan(100);
      // A write to the project's records: read from the start again, the right rows.
      if (kind === 'merge_requests') ctx.db.prepare('UPDATE merge_requests SET milestone_id = NULL WHERE id = ?').run(truth(1)[3]);
      else ctx.db.prepare('UPDATE issues SET confidential = 1 WHERE id = ?').run(truth(1)[5]);
      expect((await deep(kind, 61, token)).ids).toEqual(truth(61));
    }
  }, 120_000);
});

describe("the Search API's issues and merge requests", () => {
  beforeAll(() => {
    // More records than a search checks one by one (1,000), so the lists' plans (the project's
    // range of the index, a walk of the list order) are the ones taken.
    const ctx = s.service.context;
    ctx.db.transaction(() => {
      for (const [p, n, start] of [
        [a, 1_500, 1_000],
        [b, 900, 2_000],
        [hidden, 300, 3_000],
      ] as const) {
        for (let i = 1; i <= n; i++) {
          const text = i % 3 === 0 ? 'Crash on start' : i % 3 === 1 ? 'Slow page' : 'crashes sometimes';
          insertImportedIssue(ctx, p.id, {
            iid: start + i,
            title: `Report ${i} ${text}`,
            description: i % 5 === 0 ? 'a crash' : null,
            state: i % 4 === 0 ? 'closed' : 'opened',
            authorId: 1,
            labels: [],
            confidential: i % 7 === 0,
            createdAt: AT(start + i * 3),
            updatedAt: AT(start + i * 3),
            importedFrom: 'none',
          });
          insertImportedMergeRequest(ctx, p.id, {
            iid: start + i,
            title: `Change ${i} ${text}`,
            description: null,
            state: i % 4 === 0 ? 'merged' : 'opened',
            authorId: 1,
            sourceBranch: `search-${i}`,
            targetBranch: 'main',
            baseSha: '0'.repeat(40),
            headSha: '1'.repeat(40),
            createdAt: AT(start + i * 3),
            updatedAt: AT(start + i * 3),
            importedFrom: 'none',
          });
        }
      }
    })();
  }, 60_000);

  const HEADERS = ['x-total', 'x-total-pages', 'x-per-page', 'x-page', 'x-next-page', 'x-prev-page'];
  const answer = (res: ApiResult) => ({ status: res.status, body: res.body, headers: HEADERS.map((h) => res.headers.get(h)) });

  const levels: [string, () => string, () => string][] = [
    ['a project', () => `/projects/${a.id}/search`, () => `/projects/${a.id}`],
    ['a group', () => `/groups/${group.id}/search`, () => `/groups/${group.id}`],
    ['the instance', () => '/search', () => ''],
  ];
  for (const [level, searchPath, listBase] of levels) {
    it(`${level}: the same rows, order and headers as the list endpoints' search`, async () => {
      let compared = 0;
      for (const scope of ['issues', 'merge_requests']) {
        for (const term of ['crash', 'Crash on', 'Report 12 ', 'zz']) {
          for (const [extra, token] of [
            [{}, undefined],
            [{ page: 2, per_page: 7 }, undefined],
            [{ page: 40, per_page: 20 }, undefined],
            [{ per_page: 100, state: scope === 'issues' ? 'closed' : 'merged' }, undefined],
            [{ page: 3 }, reader.token],
            [{ per_page: 50 }, guest.token],
            ...(scope === 'issues' ? ([[{ confidential: true }, guest.token]] as const) : []),
          ] as [Record<string, unknown>, string | undefined][]) {
            const query = { search: term, ...extra };
            const searched = await s.get(searchPath(), { query: { scope, ...query }, token });
            const listed = await s.get(`${listBase()}/${scope}`, { query: { ...query, ...(level === 'the instance' ? { scope: 'all' } : {}) }, token });
            expect(answer(searched), `${scope} ${JSON.stringify(query)} ${token ? 'as a user' : 'as root'}`).toEqual(answer(listed));
            if (searched.body.length) compared++;
          }
        }
      }
      expect(compared).toBeGreaterThan(20);
      // The rows are the scope's: a project's own, a group's projects', the visible ones.
      // ("Report 12 " is one issue of each project.)
      const projectsOf = (res: ApiResult): number[] => res.body.map((i: any) => i.project_id).sort((x: number, y: number) => x - y);
      const visible = level === 'a project' ? [a.id] : [a.id, b.id].sort((x, y) => x - y);
      expect(projectsOf(await s.get(searchPath(), { query: { scope: 'issues', search: 'Report 12 ' }, token: reader.token }))).toEqual(visible);
      const all = await s.get(searchPath(), { query: { scope: 'issues', search: 'Report 12 ' } });
      expect(projectsOf(all)).toEqual(level === 'the instance' ? [...visible, hidden.id].sort((x, y) => x - y) : visible);
    }, 120_000);
  }
});
