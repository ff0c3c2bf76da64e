import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { statementReads } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';
import { VERSIONED_PROJECTS } from '../../src/main/service/areas/core/count-versions';

/**
 * A group's and the instance's issue and merge request pages kept whole by their request
 * (core/kept-answers.ts keptScopePage): asked again after a write elsewhere, neither the scope (its
 * projects) nor the list is read again; after any write that changes which projects the scope holds
 * or what the caller sees of them (a project archived, moved out, deleted, made private; a
 * membership, a group's share, a feature's level), or one of its records, the answer is the fresh one.
 */
let s: TestService;
let group: number;
let open: number;
let closed: number;
let elsewhere: number;
let viewer: { user: any; token: string };
const N = 12;
const at = (i: number): string => new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString();

function fill(project: number, prefix: string): void {
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      const common = {
        iid: i,
        title: `${prefix} ${i}`,
        description: null,
        state: i % 4 === 0 ? ('closed' as const) : ('opened' as const),
        authorId: 1,
        labels: i % 2 ? ['bug'] : [],
        milestoneId: null,
        createdAt: at(i),
        updatedAt: at((i * 5) % N),
        importedFrom: 'none',
      };
      insertImportedIssue(ctx, project, { ...common, confidential: false });
      insertImportedMergeRequest(ctx, project, { ...common, sourceBranch: `b-${i}`, targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40) });
    }
  })();
}

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ visibility: 'public' })).id;
  open = (await s.createProject({ name: 'scope-open', namespace_id: group, visibility: 'public' })).id;
  closed = (await s.createProject({ name: 'scope-closed', namespace_id: group, visibility: 'private' })).id;
  elsewhere = (await s.createProject({ name: 'scope-elsewhere', visibility: 'public' })).id;
  fill(open, 'Open');
  fill(closed, 'Closed');
  viewer = await s.createUser();
}, 60_000);
afterAll(async () => s.stop());

const LISTS = () => [`/groups/${group}/issues`, `/groups/${group}/merge_requests`, '/issues', '/merge_requests'];
const SHAPES: Record<string, string>[] = [{ scope: 'all' }, { scope: 'all', labels: 'bug', per_page: '4', page: '2' }, { scope: 'all', order_by: 'updated_at', state: 'opened' }];

/** The statements that read a scope's projects or plan or read a list while `fn` ran. */
async function listReads(fn: () => Promise<unknown>): Promise<string[]> {
  const plans = /FROM projects\b|issuable_state_counts|label_counts|filter_counts|issuable_labels|FROM issues\b|FROM merge_requests\b/;
  return (await statementReads(s, (sql) => plans.test(sql), fn, ['get', 'all', 'iterate'])).map((r) => r.sql);
}

const answer = async (path: string, shape: Record<string, string>, token?: string) => {
  const res = await s.get(path, { query: shape, token });
  expect(res.status, `${path} ${JSON.stringify(shape)}`).toBe(200);
  return { rows: res.body.map((r: any) => [r.project_id, r.iid, r.title]), total: res.headers.get('x-total'), link: res.headers.get('link'), next: res.headers.get('x-next-page') };
};
const projectsOf = (a: { rows: unknown[][] }): number[] => [...new Set(a.rows.map((r) => r[0] as number))].sort((x, y) => x - y);

describe("a group's and the instance's pages kept whole by their request", () => {
  it('read neither the scope nor the list again after a write elsewhere', async () => {
    for (const path of LISTS()) {
      for (const shape of SHAPES) {
        const first = await answer(path, shape);
        ok(await s.put(`/projects/${elsewhere}`, { description: `elsewhere ${path} ${JSON.stringify(shape)}` }));
        ok(await s.put(`/projects/${open}`, { description: `in the group ${path}` }));
        let second: Awaited<ReturnType<typeof answer>> | undefined;
        const reads = await listReads(async () => (second = await answer(path, shape)));
        expect(second, `${path} ${JSON.stringify(shape)}`).toEqual(first);
        expect(reads, `${path} ${JSON.stringify(shape)}`).toEqual([]);
      }
    }
  });

  it("answer afresh after a write to one of the scope's records", async () => {
    for (const path of LISTS()) {
      const shape = { scope: 'all', labels: 'bug', per_page: '3' };
      const before = await answer(path, shape);
      const [project, iid] = before.rows[0] as [number, number];
      const kind = path.includes('merge_requests') ? 'merge_requests' : 'issues';
      ok(await s.put(`/projects/${project}/${kind}/${iid}`, { title: `Renamed ${path}` }));
      expect((await answer(path, shape)).rows[0][2]).toBe(`Renamed ${path}`);
      ok(await s.put(`/projects/${project}/${kind}/${iid}`, { remove_labels: 'bug' }));
      const without = await answer(path, shape);
      expect(Number(without.total)).toBe(Number(before.total) - 1);
      ok(await s.put(`/projects/${project}/${kind}/${iid}`, { title: before.rows[0][2], add_labels: 'bug' }));
      expect(await answer(path, shape)).toEqual(before);
    }
  });

  it('answer afresh after a project is archived, made private, moved out or deleted', async () => {
    const doomed = (await s.createProject({ name: 'scope-doomed', namespace_id: group, visibility: 'public' })).id;
    fill(doomed, 'Doomed');
    const parking = (await s.createGroup({ visibility: 'public' })).id;
    const shape = { scope: 'all', per_page: '100' };
    for (const token of [undefined, viewer.token]) {
      for (const path of LISTS()) {
        const before = await answer(path, shape, token);
        expect(projectsOf(before), path).toContain(doomed);
        ok(await s.post(`/projects/${doomed}/archive`));
        // Archived projects' records leave a group's lists and the instance's issues (non_archived); the instance's merge requests keep them.
        expect(projectsOf(await answer(path, shape, token)).includes(doomed), path).toBe(path === '/merge_requests');
        ok(await s.post(`/projects/${doomed}/unarchive`));
        expect(await answer(path, shape, token)).toEqual(before);
        if (token) {
          ok(await s.put(`/projects/${doomed}`, { visibility: 'private' }));
          expect(projectsOf(await answer(path, shape, token)), path).not.toContain(doomed);
          ok(await s.put(`/projects/${doomed}`, { visibility: 'public' }));
          expect(await answer(path, shape, token)).toEqual(before);
        }
        ok(await s.put(`/projects/${doomed}/transfer`, { namespace: parking }));
        expect(projectsOf(await answer(path, shape, token)).includes(doomed), path).toBe(!path.startsWith('/groups'));
        ok(await s.put(`/projects/${doomed}/transfer`, { namespace: group }));
        expect(await answer(path, shape, token)).toEqual(before);
      }
    }
    const before = await Promise.all(LISTS().map((path) => answer(path, shape)));
    ok(await s.del(`/projects/${doomed}`));
    for (const [i, path] of LISTS().entries()) {
      const after = await answer(path, shape);
      expect(projectsOf(after), path).not.toContain(doomed);
      expect(after.rows.length, path).toBeLessThan(before[i].rows.length);
    }
  });

  it("answer afresh after the caller's membership, a group's share or a feature's level changes", async () => {
    const shape = { scope: 'all', per_page: '100' };
    // A caller's pages, their view of confidential issues by their memberships too (read through the projects' listed columns).
    const lists = [`/groups/${group}/merge_requests`, '/merge_requests', `/groups/${group}/issues`, '/issues'];
    const sees = async (path: string) => projectsOf(await answer(path, shape, viewer.token));
    for (const path of lists) expect(await sees(path), path).toEqual([open]);
    ok(await s.put(`/projects/${elsewhere}`, { description: 'elsewhere, for the viewer' }));
    for (const path of lists) expect(await listReads(async () => expect(await sees(path), path).toEqual([open])), path).toEqual([]);
    await s.addMember('projects', closed, viewer.user.id, 20);
    for (const path of lists) expect(await sees(path), path).toEqual([open, closed]);
    ok(await s.del(`/projects/${closed}/members/${viewer.user.id}`));
    for (const path of lists) expect(await sees(path), path).toEqual([open]);
    const team = await s.createGroup({ visibility: 'private' });
    await s.addMember('groups', team.id, viewer.user.id, 30);
    ok(await s.post(`/projects/${closed}/share`, { group_id: team.id, group_access: 20 }));
    for (const path of lists) expect(await sees(path), path).toEqual([open, closed]);
    ok(await s.del(`/projects/${closed}/share/${team.id}`));
    for (const path of lists) expect(await sees(path), path).toEqual([open]);
    // A confidential issue: a Guest of the group does not see it, a Planner does.
    ok(await s.put(`/projects/${open}/issues/1`, { confidential: true }));
    const issueLists = [`/groups/${group}/issues`, '/issues'];
    const iids = async (path: string) => (await answer(path, shape, viewer.token)).rows.filter((r: unknown[]) => r[0] === open).map((r: unknown[]) => r[1]);
    for (const path of issueLists) expect(await iids(path), path).not.toContain(1);
    await s.addMember('groups', group, viewer.user.id, 10);
    for (const path of issueLists) expect(await iids(path), path).not.toContain(1);
    ok(await s.put(`/groups/${group}/members/${viewer.user.id}`, { access_level: 15 }));
    for (const path of issueLists) expect(await iids(path), path).toContain(1);
    ok(await s.put(`/groups/${group}/members/${viewer.user.id}`, { access_level: 10 }));
    for (const path of issueLists) expect(await iids(path), path).not.toContain(1);
    ok(await s.del(`/groups/${group}/members/${viewer.user.id}`));
    ok(await s.put(`/projects/${open}/issues/1`, { confidential: false }));
    // A feature made private to members leaves an outsider's lists (and an administrator's, disabled).
    for (const [kind, setting] of [['merge_requests', 'merge_requests_access_level'], ['issues', 'issues_access_level']] as const) {
      const mine = lists.filter((path) => path.includes(kind));
      const rootBefore = await Promise.all(mine.map((path) => answer(path, shape)));
      ok(await s.put(`/projects/${open}`, { [setting]: 'private' }));
      for (const path of mine) expect(await sees(path), path).toEqual([]);
      ok(await s.put(`/projects/${open}`, { [setting]: 'disabled' }));
      for (const path of mine) expect(projectsOf(await answer(path, shape)), path).not.toContain(open);
      ok(await s.put(`/projects/${open}`, { [setting]: 'enabled' }));
      for (const path of mine) expect(await sees(path), path).toEqual([open]);
      expect(await Promise.all(mine.map((path) => answer(path, shape)))).toEqual(rootBefore);
    }
  });

  it('keep a scope of more projects than recordsVersion counts (the instance a member sees), fresh after a record, a visibility or a membership changes', async () => {
    for (let i = 0; i < VERSIONED_PROJECTS; i++) await s.createProject({ name: `scope-wide-${i}`, visibility: 'public' });
    const shape = { scope: 'all', per_page: '100' };
    const lists = ['/issues', '/merge_requests'];
    const sees = async (path: string) => projectsOf(await answer(path, shape, viewer.token));
    for (const path of lists) expect(await sees(path), path).toEqual([open]);
    ok(await s.put(`/projects/${elsewhere}`, { description: 'elsewhere, wide' }));
    for (const path of lists) expect(await listReads(async () => expect(await sees(path), path).toEqual([open])), path).toEqual([]);
    for (const path of lists) {
      const kind = path.slice(1);
      ok(await s.put(`/projects/${open}/${kind}/2`, { title: `Wide ${kind}` }));
      expect((await answer(path, shape, viewer.token)).rows.find((r: unknown[]) => r[1] === 2)?.[2], path).toBe(`Wide ${kind}`);
    }
    ok(await s.put(`/projects/${open}`, { visibility: 'private' }));
    for (const path of lists) expect(await sees(path), path).toEqual([]);
    ok(await s.put(`/projects/${open}`, { visibility: 'public' }));
    await s.addMember('projects', closed, viewer.user.id, 20);
    for (const path of lists) expect(await sees(path), path).toEqual([open, closed]);
    ok(await s.del(`/projects/${closed}/members/${viewer.user.id}`));
    for (const path of lists) expect(await sees(path), path).toEqual([open]);
  });
});
