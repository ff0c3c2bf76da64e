import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService } from '../helpers/service';
import { expectCounted, expectEveryPage, pagedReads, preparedBy } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * Issues and merge requests by one label and an author, and by one label in updated_at order:
 * label rows carry their record's author and updated_at (core/054), so the first is counted from
 * label-author counters instead of walking the author's records, and the second reads the
 * label's rows in updated_at order instead of walking the list past records without the label.
 * Every answer is the one the records say: each list is compared, page by page with its paging
 * headers, against a fresh query of the records' own columns (their `labels` JSON, not the label
 * rows), for a project, a group and the instance, before and after every kind of write.
 */
let s: TestService;
let group: number;
let project: number;
let sibling: number;
let authorA: { id: number; token: string };
let authorB: { id: number; token: string };
const N = 150;

const at = (minutes: number): string => new Date(Date.UTC(2024, 0, 1) + minutes * 60_000).toISOString();
// Created in iid order, three to a minute; updated in another order, two to a minute (ties broken by id).
const createdAt = (i: number): string => at(Math.floor(i / 3));
const updatedAt = (i: number): string => at(1_000 + Math.floor(((i * 37) % N) / 2));
const stateOf = (i: number, type: 'Issue' | 'MergeRequest'): string => (i % 7 === 0 ? (type === 'MergeRequest' && i % 2 ? 'merged' : 'closed') : 'opened');
// `other` in one spelling on every 3rd; `bug` on every 4th, `Bug` beside it on every 20th (two spellings); none among the newest 20.
const labelsOf = (i: number): string[] =>
  i > N - 20 ? ['misc'] : [...(i % 3 === 0 ? ['other'] : []), ...(i % 4 === 0 ? ['bug'] : []), ...(i % 20 === 0 ? ['Bug'] : [])];

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ visibility: 'public' })).id;
  project = (await s.createProject({ name: 'big', namespace_id: group, visibility: 'public' })).id;
  sibling = (await s.createProject({ name: 'sibling', namespace_id: group, visibility: 'public' })).id;
  const a = await s.createUser();
  const b = await s.createUser();
  authorA = { id: a.user.id, token: a.token };
  authorB = { id: b.user.id, token: b.token };
  const authorOf = (i: number): number => (i % 5 === 0 ? authorB.id : i % 2 ? authorA.id : 1);
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (const [pid, count] of [
      [project, N],
      [sibling, 40],
    ]) {
      for (let i = 1; i <= count; i++) {
        const common = { iid: i, title: `Record ${i}`, description: null, authorId: authorOf(i), labels: labelsOf(i), createdAt: createdAt(i), updatedAt: updatedAt(i), importedFrom: 'none' as const };
        insertImportedIssue(ctx, pid, { ...common, state: stateOf(i, 'Issue') as 'opened', confidential: i % 6 === 0 });
        insertImportedMergeRequest(ctx, pid, {
          ...common,
          state: stateOf(i, 'MergeRequest') as 'opened',
          sourceBranch: `feature-${i}`,
          targetBranch: 'main',
          baseSha: '0'.repeat(40),
          headSha: '1'.repeat(40),
        });
      }
    }
  })();
}, 60_000);
afterAll(async () => s.stop());

type Kind = 'issues' | 'merge_requests';
interface Row {
  id: number;
  project_id: number;
  author_id: number | null;
  state: string;
  confidential: number;
  created_at: string;
  updated_at: string;
}

/** The records as their own columns say, filtered and ordered as the list is asked for. */
function expected(kind: Kind, where: { projects: number[]; label: string; authorId?: number; state?: string; viewer?: number | 'anonymous' }, order: 'created_at' | 'updated_at', sort: 'asc' | 'desc'): number[] {
  const db = s.service.context.db;
  const rows = db
    .prepare(
      `SELECT id, project_id, author_id, state, ${kind === 'issues' ? 'confidential' : '0 AS confidential'}, created_at, updated_at FROM ${kind} x
        WHERE EXISTS (SELECT 1 FROM json_each(x.labels) WHERE lower(value) = lower(?))`,
    )
    .all(where.label) as Row[];
  const seen = (r: Row): boolean =>
    where.viewer === undefined || !r.confidential || (where.viewer !== 'anonymous' && r.author_id === where.viewer);
  const kept = rows.filter(
    (r) => where.projects.includes(r.project_id) && (where.authorId === undefined || r.author_id === where.authorId) && (!where.state || r.state === where.state) && seen(r),
  );
  kept.sort((p, q) => (p[order] < q[order] ? -1 : p[order] > q[order] ? 1 : p.id - q.id));
  if (sort === 'desc') kept.reverse();
  return kept.map((r) => r.id);
}

const ids = (res: ApiResult): number[] => res.body.map((x: any) => x.id);

/** label_author_counts against a fresh count of the label rows joined to their records. */
function expectAuthorCountersAsTheRecords(): void {
  const db = s.service.context.db;
  const fresh = db
    .prepare(
      `SELECT il.issuable_type, x.project_id, x.author_id, il.title, x.state, x.confidential, count(*) AS n FROM issuable_labels il
        JOIN (SELECT 'Issue' AS type, id, project_id, author_id, state, confidential FROM issues
              UNION ALL SELECT 'MergeRequest', id, project_id, author_id, state, 0 FROM merge_requests) x
          ON x.type = il.issuable_type AND x.id = il.issuable_id
        WHERE x.author_id IS NOT NULL GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6`,
    )
    .all();
  const kept = db.prepare('SELECT issuable_type, project_id, author_id, title, state, confidential, n FROM label_author_counts WHERE n != 0 ORDER BY 1, 2, 3, 4, 5, 6').all();
  expect(kept).toEqual(fresh);
  // The label rows' own copies of the record's author and updated_at.
  const stale = db
    .prepare(
      `SELECT count(*) AS n FROM issuable_labels il
        JOIN (SELECT 'Issue' AS type, id, author_id, updated_at FROM issues UNION ALL SELECT 'MergeRequest', id, author_id, updated_at FROM merge_requests) x
          ON x.type = il.issuable_type AND x.id = il.issuable_id
        WHERE il.author_id IS NOT x.author_id OR il.updated_at IS NOT x.updated_at`,
    )
    .get() as { n: number };
  expect(stale.n).toBe(0);
}

/** The project's lists by label and author, every caller's view, both sorts, with a state, any case. */
async function checkAuthorLists(kind: Kind): Promise<void> {
  const path = `/projects/${project}/${kind}`;
  for (const label of ['other', 'OTHER', 'bug', 'misc', 'none-such']) {
    for (const author of [authorA.id, authorB.id, 1]) {
      await expectEveryPage(s, path, { labels: label, author_id: String(author) }, expected(kind, { projects: [project], label, authorId: author }, 'created_at', 'desc'), 7);
    }
  }
  await expectEveryPage(s, path, { labels: 'other', author_id: String(authorA.id), state: 'closed', sort: 'asc' }, expected(kind, { projects: [project], label: 'other', authorId: authorA.id, state: 'closed' }, 'created_at', 'asc'), 3);
  await expectEveryPage(s, path, { labels: 'other', author_id: String(authorB.id), state: 'opened' }, expected(kind, { projects: [project], label: 'other', authorId: authorB.id, state: 'opened' }, 'created_at', 'desc'), 4);
  if (kind === 'issues') {
    // Confidential issues: their author sees their own, another user and an anonymous caller none.
    for (const [token, viewer] of [
      [authorA.token, authorA.id],
      [authorB.token, authorB.id],
      [undefined, 'anonymous'],
    ] as const) {
      for (const author of [authorA.id, authorB.id]) {
        const want = expected(kind, { projects: [project], label: 'other', authorId: author, viewer }, 'created_at', 'desc');
        const res = await s.get(path, { query: { labels: 'other', author_id: String(author), per_page: '5' }, token: token ?? '' });
        expectCounted(res, want.length, 5);
        expect(ids(res)).toEqual(want.slice(0, 5));
      }
    }
  }
  // A group's list and the instance's (walked, not counted by the project's counters).
  await expectEveryPage(s, `/groups/${group}/${kind}`, { labels: 'other', author_id: String(authorA.id) }, expected(kind, { projects: [project, sibling], label: 'other', authorId: authorA.id }, 'created_at', 'desc'), 9);
  await expectEveryPage(s, `/${kind}`, { scope: 'all', labels: 'other', author_id: String(authorB.id) }, expected(kind, { projects: [project, sibling], label: 'other', authorId: authorB.id }, 'created_at', 'desc'), 9);
}

/** The lists by label in updated_at order: a project's, a group's and the instance's, both sorts, with a state. */
async function checkUpdatedLists(kind: Kind): Promise<void> {
  for (const [path, projects] of [
    [`/projects/${project}/${kind}`, [project]],
    [`/groups/${group}/${kind}`, [project, sibling]],
    [`/${kind}?scope=all`, [project, sibling]],
  ] as const) {
    const [p, q] = path.split('?');
    const base: Record<string, string> = q ? { scope: 'all' } : {};
    for (const sort of ['desc', 'asc'] as const) {
      await expectEveryPage(s, p, { ...base, labels: 'other', order_by: 'updated_at', sort }, expected(kind, { projects: [...projects], label: 'other' }, 'updated_at', sort), 11);
    }
    await expectEveryPage(s, p, { ...base, labels: 'Bug', order_by: 'updated_at' }, expected(kind, { projects: [...projects], label: 'bug' }, 'updated_at', 'desc'), 8);
    await expectEveryPage(s, p, { ...base, labels: 'other', order_by: 'updated_at', state: 'opened', sort: 'asc' }, expected(kind, { projects: [...projects], label: 'other', state: 'opened' }, 'updated_at', 'asc'), 10);
  }
  if (kind === 'issues') {
    const want = expected(kind, { projects: [project], label: 'other', viewer: authorA.id }, 'updated_at', 'desc');
    const res = await s.get(`/projects/${project}/issues`, { query: { labels: 'other', order_by: 'updated_at', per_page: '100' }, token: authorA.token });
    expectCounted(res, want.length, 100);
    expect(ids(res)).toEqual(want);
  }
}

describe.each(['merge_requests', 'issues'] as const)('%s by one label and an author', (kind) => {
  it('counted from the label-author counters, every page and view as the records say', { timeout: 120_000 }, async () => {
    const counts = await preparedBy(s, () => checkAuthorLists(kind));
    expect(counts.some((sql) => sql.includes('label_author_counts'))).toBe(true);
    // A title of one spelling is never counted by walking the author's records in the project.
    const prepared = await preparedBy(s, async () => {
      await s.get(`/projects/${project}/${kind}`, { query: { labels: 'other', author_id: String(authorA.id) } });
    });
    expect(prepared.filter((sql) => sql.includes('count(*)'))).toEqual([]);
    expectAuthorCountersAsTheRecords();
  });

  it('in updated_at order from the label rows, every page as the records say', { timeout: 120_000 }, async () => {
    const reads = await pagedReads(s, () => checkUpdatedLists(kind));
    expect(reads.some((r) => r.sql.includes('INDEXED BY issuable_labels_updated'))).toBe(true);
    expect(reads.some((r) => r.sql.includes('INDEXED BY issuable_labels_title_updated'))).toBe(true);
  });
});

describe('a list whose length the counters know', () => {
  it('reads no more rows than it has left, and nothing at or past its end (the same answers)', { timeout: 120_000 }, async () => {
    for (const kind of ['issues', 'merge_requests'] as const) {
      const path = `/projects/${project}/${kind}`;
      for (const [query, want] of [
        // Counted from the label-author counters (core/054), and from the filter counters by author and state.
        [{ labels: 'other', author_id: String(authorA.id) }, expected(kind, { projects: [project], label: 'other', authorId: authorA.id }, 'created_at', 'desc')],
        [{ author_id: String(authorB.id), state: 'closed' }, (() => {
          const db = s.service.context.db;
          return (db.prepare(`SELECT id FROM ${kind} WHERE project_id = ? AND author_id = ? AND state = 'closed' ORDER BY created_at DESC, id DESC`).all(project, authorB.id) as { id: number }[]).map((r) => r.id);
        })()],
        [{ labels: 'misc', author_id: String(authorB.id), state: 'opened' }, expected(kind, { projects: [project], label: 'misc', authorId: authorB.id, state: 'opened' }, 'created_at', 'desc')],
        [{ labels: 'none-such', author_id: String(authorB.id) }, []],
      ] as const) {
        expect(want.length).toBeLessThan(40);
        const per = 4;
        const reads = await pagedReads(s, () => expectEveryPage(s, path, query, [...want], per));
        // One read per page holding rows, each of the rows left (one more only while a next page exists).
        const limits = reads.map((r) => Number(/LIMIT (\d+) OFFSET \?$/.exec(r.sql)![1]));
        const pages = Math.ceil(want.length / per);
        expect(limits).toEqual(Array.from({ length: pages }, (_, k) => Math.min(per + 1, want.length - k * per)));
      }
    }
  });
});

let deep: number;
let deepMilestone: number;

describe('deep pages of a label list', () => {
  it('start from a row an earlier page read, while the project is unwritten; every page as the records say', { timeout: 180_000 }, async () => {
    const ctx = s.service.context;
    deep = (await s.createProject({ name: 'deep', namespace_id: group, visibility: 'public' })).id;
    deepMilestone = (await s.post(`/projects/${deep}/milestones`, { title: 'v1' })).body.id;
    ctx.db.transaction(() => {
      for (let i = 1; i <= 1_500; i++) {
        const common = {
          iid: i, title: `Deep ${i}`, description: null, authorId: 1, labels: i % 5 ? ['deep'] : [], milestoneId: i % 7 ? deepMilestone : null,
          createdAt: createdAt(i), updatedAt: updatedAt(i % N), importedFrom: 'none' as const,
        };
        insertImportedIssue(ctx, deep, { ...common, state: 'opened', confidential: i % 50 === 1 });
        insertImportedMergeRequest(ctx, deep, { ...common, state: 'opened', sourceBranch: `deep-${i}`, targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40) });
      }
    })();
    for (const kind of ['issues', 'merge_requests'] as const) {
      const path = `/projects/${deep}/${kind}`;
      for (const [order, sort] of [
        ['created_at', 'desc'],
        ['updated_at', 'asc'],
      ] as const) {
        const pages = async (token?: string, viewer?: number | 'anonymous'): Promise<{ sql: string }[]> =>
          pagedReads(s, async () => {
            const want = expected(kind, { projects: [deep], label: 'deep', viewer }, order, sort);
            // Read in turn from page 10 on, then the two deep pages asked again at other lengths (a page of the same
            // offset and length is kept whole at the version: SqlList.keptRows; 1,200 records: page 13, past the end, reads nothing).
            for (const [n, per] of [[10, 100], [11, 100], [12, 100], [13, 100], [23, 50], [21, 50], [45, 25], [41, 25], [56, 20]]) {
              const res = await s.get(path, { query: { labels: 'deep', order_by: order, sort, per_page: String(per), page: String(n) }, token: token ?? (viewer === 'anonymous' ? '' : undefined) });
              expectCounted(res, want.length, per);
              expect(ids(res)).toEqual(want.slice((n - 1) * per, n * per));
            }
          });
        const anchored = (reads: { sql: string }[]): number => reads.filter((r) => r.sql.includes(`(il.${order}, il.issuable_id) `)).length;
        expect(anchored(await pages())).toBeGreaterThan(4);
        const anonymous = anchored(await pages(undefined, 'anonymous'));
        // A caller whose view of issues memberships decide reads by offset.
        const member = anchored(await pages(authorA.token, kind === 'issues' ? authorA.id : undefined));
        if (kind === 'issues') {
          expect(anonymous).toBeGreaterThan(4);
          expect(member).toBe(0);
        }
        // Merge requests: every caller's list is the administrator's (no view of its own), its pages kept whole at the version (SqlList.keptRows).
        // A write to the project's records: the anchors are forgotten, the pages still the records'.
        const db = ctx.db;
        db.prepare(`UPDATE ${kind} SET labels = '["deep"]' WHERE project_id = ? AND iid = 1495`).run(deep);
        db.prepare(`UPDATE ${kind} SET updated_at = ? WHERE project_id = ? AND iid = 300`).run('2030-01-01T00:00:00.000Z', deep);
        db.prepare(`UPDATE ${kind} SET created_at = ? WHERE project_id = ? AND iid = 600`).run('2000-01-01T00:00:00.000Z', deep);
        await pages();
      }
    }
  });
});

describe('deep pages of a label list read by walking the records (an author, another order)', () => {
  it('from a row an earlier page read while the records are unwritten and the caller\'s view stays; every page as the records say', { timeout: 180_000 }, async () => {
    const db = s.service.context.db;
    for (const kind of ['issues', 'merge_requests'] as const) {
      const path = `/projects/${deep}/${kind}`;
      for (const [query, order] of [
        [{ labels: 'deep', author_id: '1' }, 'x.created_at DESC, x.id DESC'],
        [{ labels: 'deep', order_by: 'title', sort: 'asc' }, 'x.title ASC, x.id ASC'],
      ] as const) {
        const column = order.split(' ')[0];
        const want = (viewer?: number): number[] =>
          (
            db
              .prepare(
                `SELECT id FROM ${kind} x WHERE project_id = ? AND EXISTS (SELECT 1 FROM json_each(x.labels) WHERE value = 'deep')
                  ${kind === 'issues' && viewer !== undefined ? 'AND (x.confidential = 0 OR x.author_id = ?)' : ''} ORDER BY ${order}`,
              )
              .all(deep, ...(kind === 'issues' && viewer !== undefined ? [viewer] : [])) as { id: number }[]
          ).map((r) => r.id);
        const pages = async (expectedIds: number[], token?: string): Promise<{ sql: string }[]> =>
          pagedReads(s, async () => {
            for (const n of [12, 11, 12, 10, 11]) {
              const res = await s.get(path, { query: { ...query, per_page: '100', page: String(n) }, token });
              expectCounted(res, expectedIds.length, 100);
              expect(ids(res)).toEqual(expectedIds.slice((n - 1) * 100, n * 100));
            }
          });
        const anchored = (reads: { sql: string }[]): number => reads.filter((r) => r.sql.includes(`(${column}, x.id) `)).length;
        expect(anchored(await pages(want()))).toBeGreaterThan(1);
        db.prepare(`UPDATE ${kind} SET labels = '[]' WHERE project_id = ? AND iid = 201`).run(deep);
        db.prepare(`UPDATE ${kind} SET labels = '["deep"]' WHERE project_id = ? AND iid = 205`).run(deep);
        await pages(want());
        await pages(want(authorA.id), authorA.token);
      }
    }
    // A caller who becomes a Planner sees the confidential issues without an issue written.
    const member = await s.post(`/projects/${deep}/members`, { user_id: authorA.id, access_level: 15 });
    expect(member.status).toBe(201);
    const all = (db.prepare(`SELECT id FROM issues x WHERE project_id = ? AND EXISTS (SELECT 1 FROM json_each(x.labels) WHERE value = 'deep') ORDER BY title ASC, id ASC`).all(deep) as { id: number }[]).map((r) => r.id);
    for (const n of [12, 11]) {
      const res = await s.get(`/projects/${deep}/issues`, { query: { labels: 'deep', order_by: 'title', sort: 'asc', per_page: '100', page: String(n) }, token: authorA.token });
      expectCounted(res, all.length, 100);
      expect(ids(res)).toEqual(all.slice((n - 1) * 100, n * 100));
    }
  });
});

describe('deep pages by a milestone title', () => {
  it('the one milestone the records carry: from a row an earlier page read while the records are unwritten; a rename reads anew', { timeout: 180_000 }, async () => {
    const db = s.service.context.db;
    for (const kind of ['issues', 'merge_requests'] as const) {
      const path = `/projects/${deep}/${kind}`;
      const onMilestone = (): number[] =>
        (db.prepare(`SELECT id FROM ${kind} WHERE project_id = ? AND milestone_id = ? ORDER BY created_at DESC, id DESC`).all(deep, deepMilestone) as { id: number }[]).map((r) => r.id);
      // Deepest first too: an anchor a later page would set again must not be one a write moved.
      const pages = async (title: string, want: number[]): Promise<{ sql: string }[]> =>
        pagedReads(s, async () => {
          // Pages asked again at other lengths (a page of the same offset and length is kept whole at the version: SqlList.keptRows).
          for (const [n, per] of [[13, 100], [11, 100], [12, 100], [25, 50], [23, 50], [21, 50], [14, 100]]) {
            const res = await s.get(path, { query: { milestone: title, per_page: String(per), page: String(n) } });
            expectCounted(res, want.length, per);
            expect(ids(res)).toEqual(want.slice((n - 1) * per, n * per));
          }
        });
      const anchored = (reads: { sql: string }[]): number => reads.filter((r) => r.sql.includes('(x.created_at, x.id) ')).length;
      expect(onMilestone().length).toBeGreaterThan(1_250);
      expect(anchored(await pages('v1', onMilestone()))).toBeGreaterThan(3);
      // Records written: one off the milestone deep in the list, one redated to its end.
      db.prepare(`UPDATE ${kind} SET milestone_id = NULL WHERE project_id = ? AND iid = 150`).run(deep);
      db.prepare(`UPDATE ${kind} SET created_at = ? WHERE project_id = ? AND iid = 1400`).run('2001-01-01T00:00:00.000Z', deep);
      await pages('v1', onMilestone());
      db.prepare(`UPDATE ${kind} SET milestone_id = ? WHERE project_id = ? AND iid = 150`).run(deepMilestone, deep);
      await pages('v1', onMilestone());
    }
    // Renamed: no record written, the title names other records (none), the new title these.
    expect((await s.put(`/projects/${deep}/milestones/${deepMilestone}`, { title: 'v9' })).status).toBe(200);
    for (const kind of ['issues', 'merge_requests'] as const) {
      expectCounted(await s.get(`/projects/${deep}/${kind}`, { query: { milestone: 'v1', per_page: '100', page: '12' } }), 0, 100);
      const res = await s.get(`/projects/${deep}/${kind}`, { query: { milestone: 'v9', per_page: '100', page: '12' } });
      const want = (db.prepare(`SELECT id FROM ${kind} WHERE project_id = ? AND milestone_id = ? ORDER BY created_at DESC, id DESC`).all(deep, deepMilestone) as { id: number }[]).map((r) => r.id);
      expectCounted(res, want.length, 100);
      expect(ids(res)).toEqual(want.slice(1_100, 1_200));
    }
    expect((await s.put(`/projects/${deep}/milestones/${deepMilestone}`, { title: 'v1' })).status).toBe(200);
  });
});

describe('writes the label rows follow', () => {
  it('an edit, a new author, labels added and removed, a close, a move, an author cleared, a create and a delete', { timeout: 180_000 }, async () => {
    const db = s.service.context.db;
    const check = async (): Promise<void> => {
      for (const kind of ['merge_requests', 'issues'] as const) {
        await checkAuthorLists(kind);
        await checkUpdatedLists(kind);
      }
      expectAuthorCountersAsTheRecords();
    };
    // Through the API: an edit moves updated_at; labels; a close.
    expect((await s.put(`/projects/${project}/merge_requests/30`, { title: 'Retitled' })).status).toBe(200);
    expect((await s.put(`/projects/${project}/issues/30`, { description: 'edited' })).status).toBe(200);
    expect((await s.put(`/projects/${project}/merge_requests/31`, { add_labels: 'other' })).status).toBe(200);
    expect((await s.put(`/projects/${project}/issues/33`, { remove_labels: 'other' })).status).toBe(200);
    expect((await s.put(`/projects/${project}/issues/45`, { state_event: 'close' })).status).toBe(200);
    expect((await s.put(`/projects/${project}/merge_requests/45`, { state_event: 'close' })).status).toBe(200);
    await check();
    // Without the API: a new author, a new updated_at, a move to the sibling, an author cleared (a deleted user's SET NULL).
    for (const table of ['issues', 'merge_requests']) {
      db.prepare(`UPDATE ${table} SET author_id = ? WHERE project_id = ? AND iid = 9`).run(authorB.id, project);
      db.prepare(`UPDATE ${table} SET updated_at = ? WHERE project_id = ? AND iid = 12`).run('2030-01-01T00:00:00.000Z', project);
      db.prepare(`UPDATE ${table} SET updated_at = ? WHERE project_id = ? AND iid = 15`).run('2000-01-01T00:00:00.000Z', project);
      db.prepare(`UPDATE ${table} SET project_id = ?, iid = 1000 WHERE project_id = ? AND iid = 21`).run(sibling, project);
      db.prepare(`UPDATE ${table} SET author_id = NULL WHERE project_id = ? AND iid = 27`).run(project);
    }
    await check();
    // A new record as authorA (labelled), a deleted one.
    const made = await s.post(`/projects/${project}/issues`, { title: 'Fresh', labels: 'other,Bug', confidential: true }, { token: authorA.token });
    expect(made.status).toBe(201);
    const mr = await s.post(`/projects/${project}/merge_requests`, { title: 'Fresh', source_branch: 'fresh', target_branch: 'main', labels: 'other' });
    expect(mr.status).toBe(201);
    db.prepare('UPDATE merge_requests SET author_id = ? WHERE id = ?').run(authorA.id, mr.body.id);
    expect((await s.del(`/projects/${project}/issues/39`)).status).toBe(204);
    expect((await s.del(`/projects/${project}/merge_requests/39`)).status).toBe(204);
    await check();
  });
});

describe('by one label and an author over many projects (a group, the instance)', () => {
  it("counted from the label-author counters of the scope's projects (core/075), every page and view as the records say", { timeout: 240_000 }, async () => {
    // A project outside the group: the group's lists leave its records out, the instance's keep them.
    const outside = (await s.createProject({ name: 'outside', visibility: 'public' })).id;
    const ctx = s.service.context;
    ctx.db.transaction(() => {
      for (let i = 1; i <= 30; i++) {
        const common = { iid: i, title: `Outside ${i}`, description: null, authorId: i % 2 ? authorA.id : authorB.id, labels: i % 3 ? ['other'] : ['misc'], createdAt: createdAt(i * 5), updatedAt: updatedAt(i), importedFrom: 'none' as const };
        insertImportedIssue(ctx, outside, { ...common, state: stateOf(i, 'Issue') as 'opened', confidential: i % 4 === 0 });
        insertImportedMergeRequest(ctx, outside, { ...common, state: stateOf(i, 'MergeRequest') as 'opened', sourceBranch: `o-${i}`, targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40) });
      }
    })();
    const inGroup = [project, sibling];
    const everywhere = [project, sibling, outside];
    for (const kind of ['merge_requests', 'issues'] as const) {
      const counts = await preparedBy(s, async () => {
        for (const label of ['other', 'OTHER', 'misc', 'none-such']) {
          for (const author of [authorA.id, authorB.id, 1]) {
            await expectEveryPage(s, `/groups/${group}/${kind}`, { labels: label, author_id: String(author) }, expected(kind, { projects: inGroup, label, authorId: author }, 'created_at', 'desc'), 9);
            await expectEveryPage(s, `/${kind}`, { scope: 'all', labels: label, author_id: String(author) }, expected(kind, { projects: everywhere, label, authorId: author }, 'created_at', 'desc'), 9);
          }
        }
        await expectEveryPage(s, `/groups/${group}/${kind}`, { labels: 'other', author_id: String(authorA.id), state: 'closed', sort: 'asc' }, expected(kind, { projects: inGroup, label: 'other', authorId: authorA.id, state: 'closed' }, 'created_at', 'asc'), 3);
        await expectEveryPage(s, `/${kind}`, { scope: 'all', labels: 'other', author_id: String(authorB.id), state: 'opened' }, expected(kind, { projects: everywhere, label: 'other', authorId: authorB.id, state: 'opened' }, 'created_at', 'desc'), 4);
      });
      expect(counts.some((sql) => sql.includes('INDEXED BY label_author_counts_author'))).toBe(true);
      // One spelling: never counted by walking the author's records.
      const walked = await preparedBy(s, async () => {
        await s.get(`/groups/${group}/${kind}`, { query: { labels: 'other', author_id: String(authorA.id) } });
        await s.get(`/${kind}`, { query: { scope: 'all', labels: 'other', author_id: String(authorA.id) } });
      });
      expect(walked.filter((sql) => sql.includes('count(*)'))).toEqual([]);
      // Two spellings of `bug` (a record carrying both would count twice): walked, the same answers.
      await expectEveryPage(s, `/groups/${group}/${kind}`, { labels: 'bug', author_id: '1' }, expected(kind, { projects: inGroup, label: 'bug', authorId: 1 }, 'created_at', 'desc'), 9);
      await expectEveryPage(s, `/${kind}`, { scope: 'all', labels: 'BUG', author_id: String(authorB.id) }, expected(kind, { projects: everywhere, label: 'bug', authorId: authorB.id }, 'created_at', 'desc'), 9);
    }
    // Confidential issues: their author sees their own, another user and an anonymous caller none (walked when any is hidden).
    for (const [token, viewer] of [
      [authorA.token, authorA.id],
      [authorB.token, authorB.id],
      [undefined, 'anonymous'],
    ] as const) {
      for (const author of [authorA.id, authorB.id]) {
        await expectEveryPage(s, `/groups/${group}/issues`, { labels: 'other', author_id: String(author) }, expected('issues', { projects: inGroup, label: 'other', authorId: author, viewer }, 'created_at', 'desc'), 9, token ?? '');
        if (token) await expectEveryPage(s, '/issues', { scope: 'all', labels: 'other', author_id: String(author) }, expected('issues', { projects: everywhere, label: 'other', authorId: author, viewer }, 'created_at', 'desc'), 9, token);
      }
    }
    // The plan: the counters read by author and title, not every counter row.
    const plan = (ctx.db.prepare("EXPLAIN QUERY PLAN SELECT sum(n) FROM label_author_counts INDEXED BY label_author_counts_author WHERE issuable_type = 'Issue' AND author_id = 1 AND title = 'other' AND state = 'opened'").all() as { detail: string }[]).map((r) => r.detail).join('\n');
    expect(plan).toContain('USING INDEX label_author_counts_author (issuable_type=? AND author_id=? AND title=? AND state=?)');
    ctx.db.prepare('DELETE FROM issues WHERE project_id = ?').run(outside);
    ctx.db.prepare('DELETE FROM merge_requests WHERE project_id = ?').run(outside);
  });
});
