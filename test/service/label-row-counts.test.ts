import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { expectEveryPage, pagedReads, preparedBy, queryPlan } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * A label title's set of records (idSetLists) asks the list's conditions its label rows carry too
 * (state, author, created_at, updated_at, a project's milestone) of the rows before each record is
 * read, and counts the list from the rows alone when they answer every condition (other titles,
 * with or without, asked by the row's id; the scope's projects by the row's project): no record
 * read for the count, an author's rows read by core/148's index. Every answer is the one the
 * records' own columns say (their `labels` JSON, not the label rows), every page with its headers,
 * for a project, a group, the instance (scope=all) and the administrator's own records (the
 * instance's default scope), before and after writes that move each mirrored column.
 */
let s: TestService;
let group: number;
let project: number;
let sibling: number;
let outside: number;
let milestone: number;
let authorA: number;
let authorB: number;
const N = 90;

const at = (minutes: number): string => new Date(Date.UTC(2024, 0, 1) + minutes * 60_000).toISOString();
// `bug` on every 2nd, `Bug` beside it on every 10th (two spellings, one record); label-1 every 3rd, label-3 every 5th.
const labelsOf = (i: number): string[] => [...(i % 2 === 0 ? ['bug'] : []), ...(i % 10 === 0 ? ['Bug'] : []), ...(i % 3 === 0 ? ['label-1'] : []), ...(i % 5 === 0 ? ['label-3'] : [])];

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ visibility: 'public' })).id;
  project = (await s.createProject({ name: 'labelled', namespace_id: group, visibility: 'public' })).id;
  sibling = (await s.createProject({ name: 'sibling', namespace_id: group, visibility: 'public' })).id;
  outside = (await s.createProject({ name: 'outside', visibility: 'public' })).id;
  milestone = (await s.post(`/projects/${project}/milestones`, { title: 'v1' })).body.id as number;
  authorA = (await s.createUser()).user.id;
  authorB = (await s.createUser()).user.id;
  const authorOf = (i: number): number => (i % 7 === 0 ? authorB : [1, 2].includes(i % 5) ? authorA : 1);
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (const [pid, count] of [
      [project, N],
      [sibling, 40],
      [outside, 30],
    ]) {
      for (let i = 1; i <= count; i++) {
        const common = {
          iid: i,
          title: `Record ${i}`,
          description: null,
          authorId: authorOf(i),
          // label-1 only in the group's projects (its rows all in the group's scope: their project not asked).
          labels: pid === outside ? labelsOf(i).filter((l) => l !== 'label-1') : labelsOf(i),
          milestoneId: pid === project && i % 4 !== 1 ? milestone : null,
          // Created three to a minute (ties broken by id); updated in another order.
          createdAt: at(Math.floor(i / 3) + pid * 100),
          updatedAt: at(10_000 + ((i * 37) % count)),
          importedFrom: 'none' as const,
        };
        const closed = i % 4 === 0;
        insertImportedIssue(ctx, pid, { ...common, state: closed ? 'closed' : 'opened', confidential: false });
        insertImportedMergeRequest(ctx, pid, {
          ...common,
          state: (closed ? (i % 8 === 0 ? 'merged' : 'closed') : 'opened') as 'opened',
          sourceBranch: `feature-${i}`,
          targetBranch: 'main',
          baseSha: '0'.repeat(40),
          headSha: '1'.repeat(40),
          mergedAt: closed && i % 8 === 0 ? common.updatedAt : null,
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
  author_id: number;
  state: string;
  labels: string;
  milestone_id: number | null;
  created_at: string;
  updated_at: string;
  title: string;
}
interface Want {
  projects?: number[];
  labels: string[];
  not?: string[];
  authorId?: number;
  state?: string;
  createdAfter?: string;
  createdBefore?: string;
  updatedBefore?: string;
  updatedAfter?: string;
  /** A milestone's id, or null: none (milestone=None). */
  milestone?: number | null;
  /** The list's order (created_at descending unless given), ties by id the same way. */
  order?: { by: 'created_at' | 'updated_at' | 'title'; sort: 'asc' | 'desc' };
}

/** The records as their own columns say (the labels JSON, any case), in the list's order. */
function expected(kind: Kind, w: Want): number[] {
  const rows = s.service.context.db.prepare(`SELECT id, project_id, author_id, state, labels, milestone_id, created_at, updated_at, title FROM ${kind}`).all() as Row[];
  const has = (r: Row, title: string): boolean => (JSON.parse(r.labels) as string[]).some((l) => l.toLowerCase() === title.toLowerCase());
  const kept = rows.filter(
    (r) =>
      (!w.projects || w.projects.includes(r.project_id)) &&
      w.labels.every((l) => has(r, l)) &&
      !(w.not ?? []).some((l) => has(r, l)) &&
      (w.authorId === undefined || r.author_id === w.authorId) &&
      (!w.state || r.state === w.state) &&
      (!w.createdAfter || r.created_at >= w.createdAfter) &&
      (!w.createdBefore || r.created_at <= w.createdBefore) &&
      (!w.updatedBefore || r.updated_at <= w.updatedBefore) &&
      (!w.updatedAfter || r.updated_at >= w.updatedAfter) &&
      (w.milestone === undefined || r.milestone_id === w.milestone),
  );
  const { by, sort } = w.order ?? { by: 'created_at', sort: 'desc' };
  kept.sort((p, q) => (p[by] < q[by] ? -1 : p[by] > q[by] ? 1 : p.id - q.id));
  if (sort === 'desc') kept.reverse();
  return kept.map((r) => r.id);
}

/** Each list: its path, query and the records it holds. */
function lists(kind: Kind): [string, Record<string, string>, Want][] {
  const after = at(Math.floor(40 / 3) + project * 100);
  return [
    [`/${kind}`, { scope: 'all', labels: 'bug,label-1', 'not[labels]': 'label-3', author_id: String(authorA) }, { labels: ['bug', 'label-1'], not: ['label-3'], authorId: authorA }],
    [`/${kind}`, { scope: 'all', labels: 'BUG', author_id: String(authorB), state: 'opened' }, { labels: ['bug'], authorId: authorB, state: 'opened' }],
    // The administrator's own records (the default scope: their author).
    [`/${kind}`, { labels: 'bug' }, { labels: ['bug'], authorId: 1 }],
    [`/${kind}`, { labels: 'label-1', 'not[labels]': 'Bug', state: 'opened' }, { labels: ['label-1'], not: ['bug'], authorId: 1, state: 'opened' }],
    [`/groups/${group}/${kind}`, { labels: 'label-1', created_after: after }, { projects: [project, sibling], labels: ['label-1'], createdAfter: after }],
    [`/groups/${group}/${kind}`, { labels: 'bug', created_after: after, state: 'opened', author_id: '1' }, { projects: [project, sibling], labels: ['bug'], createdAfter: after, state: 'opened', authorId: 1 }],
    [`/groups/${group}/${kind}`, { labels: 'bug,label-3', 'not[labels]': 'label-1', author_id: String(authorB) }, { projects: [project, sibling], labels: ['bug', 'label-3'], not: ['label-1'], authorId: authorB }],
    [`/projects/${project}/${kind}`, { labels: 'bug,label-1', created_before: after, state: 'opened' }, { projects: [project], labels: ['bug', 'label-1'], createdBefore: after, state: 'opened' }],
    [`/projects/${project}/${kind}`, { labels: 'bug', milestone: 'v1', author_id: String(authorA) }, { projects: [project], labels: ['bug'], milestone, authorId: authorA }],
    [`/projects/${project}/${kind}`, { labels: 'label-1', 'not[labels]': 'label-3', author_id: '1' }, { projects: [project], labels: ['label-1'], not: ['label-3'], authorId: 1 }],
    [`/projects/${project}/${kind}`, { labels: 'label-1', milestone: 'None', author_id: '1' }, { projects: [project], labels: ['label-1'], milestone: null, authorId: 1 }],
    [`/${kind}`, { scope: 'all', labels: 'bug', milestone: 'None', author_id: '1', order_by: 'title' }, { labels: ['bug'], milestone: null, authorId: 1, order: { by: 'title', sort: 'desc' } }],
    // In update order, ascending too (the rows' updated_at index, or the author's rows sorted).
    [`/groups/${group}/${kind}`, { labels: 'label-1', state: 'opened', updated_after: at(10_010), order_by: 'updated_at', sort: 'asc' }, { projects: [project, sibling], labels: ['label-1'], state: 'opened', updatedAfter: at(10_010), order: { by: 'updated_at', sort: 'asc' } }],
    [`/projects/${project}/${kind}`, { labels: 'Bug,label-1', order_by: 'updated_at', updated_before: at(10_060) }, { projects: [project], labels: ['bug', 'label-1'], updatedBefore: at(10_060), order: { by: 'updated_at', sort: 'desc' } }],
    [`/${kind}`, { scope: 'all', labels: 'bug', 'not[labels]': 'label-1', author_id: String(authorA), order_by: 'updated_at', sort: 'asc' }, { labels: ['bug'], not: ['label-1'], authorId: authorA, order: { by: 'updated_at', sort: 'asc' } }],
    // By title (no index of label rows holds it): the set's records read and sorted, counted from the rows alone.
    [`/groups/${group}/${kind}`, { labels: 'label-1', created_after: after, order_by: 'title' }, { projects: [project, sibling], labels: ['label-1'], createdAfter: after, order: { by: 'title', sort: 'desc' } }],
    [`/groups/${group}/${kind}`, { labels: 'bug,label-1', 'not[labels]': 'label-3', state: 'opened', order_by: 'title' }, { projects: [project, sibling], labels: ['bug', 'label-1'], not: ['label-3'], state: 'opened', order: { by: 'title', sort: 'desc' } }],
    [`/${kind}`, { scope: 'all', labels: 'bug,label-1', 'not[labels]': 'label-3', author_id: String(authorA), order_by: 'title', sort: 'asc' }, { labels: ['bug', 'label-1'], not: ['label-3'], authorId: authorA, order: { by: 'title', sort: 'asc' } }],
  ];
}

async function checkLists(kind: Kind): Promise<void> {
  for (const [path, query, want] of lists(kind)) {
    const ids = expected(kind, want);
    expect(ids.length, `${path} ${JSON.stringify(query)}`).toBeGreaterThan(0);
    await expectEveryPage(s, path, query, ids, 4);
  }
  // A bound no record meets: none, counted as none.
  await expectEveryPage(s, `/groups/${group}/${kind}`, { labels: 'label-1', created_after: '2030-01-01T00:00:00Z' }, [], 4);
}

/** The label rows' copies of their record's columns, as the records say. */
function expectRowsAsTheRecords(): void {
  const stale = s.service.context.db
    .prepare(
      `SELECT count(*) AS n FROM issuable_labels il
        JOIN (SELECT 'Issue' AS type, id, project_id, state, author_id, milestone_id, created_at, updated_at FROM issues
              UNION ALL SELECT 'MergeRequest', id, project_id, state, author_id, milestone_id, created_at, updated_at FROM merge_requests) x
          ON x.type = il.issuable_type AND x.id = il.issuable_id
        WHERE il.project_id IS NOT x.project_id OR il.state IS NOT x.state OR il.author_id IS NOT x.author_id OR il.milestone IS NOT x.milestone_id
          OR il.created_at IS NOT x.created_at OR il.updated_at IS NOT x.updated_at`,
    )
    .get() as { n: number };
  expect(stale.n).toBe(0);
}

describe.each(['merge_requests', 'issues'] as const)('%s by label sets with conditions their label rows carry', (kind) => {
  it('read and counted from the label rows, every page as the records say', { timeout: 120_000 }, async () => {
    let reads: { sql: string }[] = [];
    const prepared = await preparedBy(s, async () => {
      reads = await pagedReads(s, () => checkLists(kind));
    });
    const counts = prepared.filter((sql) => sql.startsWith('SELECT count(*)'));
    // No list above is counted by reading its records.
    expect(counts.length).toBeGreaterThan(0);
    for (const sql of counts) expect(sql, sql).not.toMatch(/CROSS JOIN|FROM (issues|merge_requests) x/);
    // Pages in creation or update order from the rows of the order's index: an author's, a project's, the title's.
    for (const index of ['issuable_labels_author', 'issuable_labels_created', 'issuable_labels_updated', 'issuable_labels_title_created', 'issuable_labels_title_updated']) {
      expect(reads.some((r) => r.sql.startsWith(`SELECT il.issuable_id AS id FROM issuable_labels il INDEXED BY ${index} `)), index).toBe(true);
    }
    // A title in two spellings on one record (Bug, bug): each record's lowest spelling alone.
    expect(reads.some((r) => r.sql.includes('d.title < il.title'))).toBe(true);
    const db = s.service.context.db;
    // Plans come from the statement alone (no statistics): its arguments as nulls.
    const plan = (sql: string): string => queryPlan(db, sql, ...Array.from({ length: sql.split('?').length - 1 }, () => null));
    // By title, the set's count: an author's label rows by core/148's index; a creation bound by the title's rows in creation order.
    const sets = counts.filter((sql) => sql.includes('SELECT DISTINCT +il.issuable_id AS id FROM issuable_labels il INDEXED BY'));
    // Each set's rows through the index named for its conditions (labelRowsIndexed): SQLite's own choice read every label row of the type.
    for (const sql of sets) expect(plan(sql), sql).not.toMatch(/SCAN il|SEARCH il USING (COVERING INDEX issuable_labels_project|PRIMARY KEY) \(issuable_type=\?\)/);
    // A state alone (no project to seek by) from the title's rows in creation order, which hold it: no row read from the table for it.
    const byState = sets.filter((sql) => sql.includes('+il.state = ?') && !sql.includes('il.author_id') && !sql.includes('il.created_at >= ?'));
    expect(byState.length).toBeGreaterThan(0);
    for (const sql of byState) expect(plan(sql), sql).toMatch(/SEARCH il USING (COVERING )?INDEX issuable_labels_title_created \(issuable_type=\? AND title=\?( AND created_at>\?)?\)/);
    const byAuthor = sets.find((sql) => sql.includes('il.author_id = ?') && sql.includes('NOT EXISTS'))!;
    expect(plan(byAuthor)).toMatch(/SEARCH il USING (COVERING )?INDEX issuable_labels_author \(issuable_type=\? AND author_id=\? AND title=\?/);
    const byCreated = sets.find((sql) => sql.includes('il.created_at >= ?') && !sql.includes('il.author_id'))!;
    expect(plan(byCreated)).toMatch(/SEARCH il USING (COVERING )?INDEX issuable_labels_title_created \(issuable_type=\? AND title=\? AND created_at>\?\)/);
    expect(plan(byCreated)).not.toContain('SCAN il');
  });

  it('as the records say after writes that move each column the label rows carry', { timeout: 120_000 }, async () => {
    const table = kind;
    const db = s.service.context.db;
    const some = (where: string): { id: number; iid: number; project_id: number }[] =>
      db.prepare(`SELECT id, iid, project_id FROM ${table} WHERE ${where} ORDER BY id LIMIT 3`).all() as { id: number; iid: number; project_id: number }[];
    // State through the API (closed, reopened), labels through the API (label-3 added, bug removed).
    for (const r of some(`project_id = ${project} AND state = 'opened' AND labels LIKE '%bug%'`)) {
      expect((await s.put(`/projects/${r.project_id}/${kind}/${r.iid}`, { state_event: 'close' })).status).toBe(200);
    }
    for (const r of some(`project_id = ${sibling} AND labels LIKE '%label-1%' AND labels NOT LIKE '%label-3%'`)) {
      expect((await s.put(`/projects/${r.project_id}/${kind}/${r.iid}`, { add_labels: 'label-3', remove_labels: 'bug' })).status).toBe(200);
    }
    // Author, creation time and milestone by SQL (the records' triggers keep the label rows).
    for (const r of some(`author_id = ${authorA} AND labels LIKE '%bug%'`)) db.prepare(`UPDATE ${table} SET author_id = ? WHERE id = ?`).run(authorB, r.id);
    for (const r of some(`project_id = ${project} AND labels LIKE '%label-1%'`)) db.prepare(`UPDATE ${table} SET created_at = ? WHERE id = ?`).run('2029-06-01T00:00:00.000Z', r.id);
    for (const r of some(`project_id = ${project} AND milestone_id IS NULL AND labels LIKE '%bug%'`)) db.prepare(`UPDATE ${table} SET milestone_id = ? WHERE id = ?`).run(milestone, r.id);
    // A record moved into the group's other project, and one with label-1 out of the group (its rows no longer all in the group's).
    for (const r of some(`project_id = ${outside} AND labels LIKE '%label-3%'`).slice(0, 1)) {
      db.prepare(`UPDATE ${table} SET project_id = ?, iid = ? WHERE id = ?`).run(sibling, 1000 + r.iid, r.id);
    }
    for (const r of some(`project_id = ${sibling} AND labels LIKE '%label-1%' AND labels LIKE '%bug%' AND created_at >= '${at(Math.floor(40 / 3) + project * 100)}'`).slice(0, 1)) {
      db.prepare(`UPDATE ${table} SET project_id = ?, iid = ? WHERE id = ?`).run(outside, 2000 + r.iid, r.id);
    }
    expectRowsAsTheRecords();
    await checkLists(kind);
  });
});
