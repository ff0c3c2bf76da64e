import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService, ok } from '../helpers/service';
import { expectPagesOf, pagedReads } from '../helpers/lists';
import { insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * A group's (or an administrator's instance) list whose SQL reads only its records (scope anchors:
 * recordsVersion, the sum of its projects' list versions, their ids in the key) keeps a page's
 * rows while that version holds (PageAnchors.rowsAtVersion): a write elsewhere reads no page again;
 * a write to any column of a record of the scope, through the API or in SQL, or a project
 * archived, reads it again. Every page, header and field as the records say.
 */
let s: TestService;
let group: number;
let projects: number[];
let outside: number;

const N = 240;
const createdAt = (i: number): string => new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString();

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ path: 'rows-group', visibility: 'public' })).id;
  projects = [(await s.createProject({ name: 'rows-one', namespace_id: group, visibility: 'public' })).id, (await s.createProject({ name: 'rows-two', namespace_id: group, visibility: 'public' })).id];
  outside = (await s.createProject({ name: 'rows-outside', visibility: 'public' })).id;
  const ctx = s.service.context;
  const mr = (projectId: number, i: number) =>
    insertImportedMergeRequest(ctx, projectId, {
      iid: i,
      title: `Change ${i}`,
      description: `Body ${i}`,
      state: i % 4 === 0 ? 'closed' : 'opened',
      authorId: 1,
      labels: i % 2 === 0 ? ['bug'] : [],
      sourceBranch: `feature-${i}`,
      targetBranch: 'main',
      baseSha: '0'.repeat(40),
      headSha: '1'.repeat(40),
      createdAt: createdAt(i),
      updatedAt: createdAt(i),
      importedFrom: 'none',
    });
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) mr(projects[i % 2], i);
    mr(outside, 1);
  })();
}, 120_000);
afterAll(async () => s.stop());

interface Row {
  id: number;
  title: string;
  description: string;
}
/** The group's unarchived projects' open merge requests labelled bug, newest first. */
function want(): Row[] {
  return s.service.context.db
    .prepare(
      `SELECT x.id, x.title, x.description FROM merge_requests x JOIN projects p ON p.id = x.project_id WHERE p.namespace_id = ? AND p.archived = 0 AND x.state = 'opened'
         AND x.milestone_id IS NULL AND EXISTS (SELECT 1 FROM json_each(x.labels) WHERE value = 'bug') ORDER BY x.created_at DESC, x.id DESC`,
    )
    .all(group) as Row[];
}

const query = { state: 'opened', labels: 'bug', milestone: 'None' };
const fields = (res: ApiResult): Row[] => res.body.map((x: any) => ({ id: x.id, title: x.title, description: x.description }));

/** Pages 1 and 2 (ids, headers and fields as the records say), and the paged reads they made. */
async function pages(label: string): Promise<unknown[]> {
  const list = want();
  return pagedReads(s, async () => {
    await expectPagesOf(s, `/groups/${group}/merge_requests`, query, list.map((r) => r.id), [1, 2], label);
    for (const page of [1, 2]) {
      const res = await s.get(`/groups/${group}/merge_requests`, { query: { ...query, per_page: '20', page: String(page) } });
      expect(fields(res), `${label} page ${page}`).toEqual(list.slice((page - 1) * 20, page * 20));
    }
  });
}

describe("a scope's page kept at its records' version", () => {
  it('reads no page again after writes elsewhere; again after a write to any column of a record of the group, in SQL too, or a project archived', async () => {
    expect(await pages('first')).not.toEqual([]);
    // Writes elsewhere: a project of the group, a merge request outside it.
    ok(await s.put(`/projects/${projects[0]}`, { description: 'moved on' }));
    ok(await s.put(`/projects/${outside}/merge_requests/1`, { description: 'elsewhere' }));
    expect(await pages('after writes elsewhere')).toEqual([]);
    // A description on page 1 (neither the list's filters nor its order): its rows read again.
    const first = want()[3];
    const iid = (s.service.context.db.prepare('SELECT iid, project_id FROM merge_requests WHERE id = ?').get(first.id) as { iid: number; project_id: number });
    ok(await s.put(`/projects/${iid.project_id}/merge_requests/${iid.iid}`, { description: 'Rewritten' }));
    expect(await pages('after a description written')).not.toEqual([]);
    expect(await pages('again')).toEqual([]);
    // A title written in SQL.
    s.service.context.db.prepare("UPDATE merge_requests SET title = 'Renamed in SQL' WHERE id = ?").run(want()[25].id);
    expect(await pages('after a title written in SQL')).not.toEqual([]);
    // A project archived writes no record: the other key, its records gone from the page.
    ok(await s.post(`/projects/${projects[1]}/archive`, {}));
    expect(await pages('one project archived')).not.toEqual([]);
  });
});
