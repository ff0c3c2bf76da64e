import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { expectPagesOf, preparedBy } from '../helpers/lists';
import { insertImportedIssue } from '../../src/main/service/areas/core/imported';

/**
 * A common ASCII term's list past its walk's pages, read by checking records in the list's order
 * (checkedList): the ids walked and the count are kept at the records' version (recordsVersion:
 * the sum of a group's projects' list versions, their ids in the key) while the list reads only
 * the records, their label rows and their full-text index. A write elsewhere reads neither again;
 * a write to a record of the group, or a project leaving it, does. Every page and header is the
 * index's answer in the list's order, before and after.
 */
let s: TestService;
let group: number;
let projects: number[];
let outside: number;
let third: number;

// More than 10,000 records of the group hold `task` (the checked list's plan); most are unassigned.
const N = 10_600;
const titleOf = (i: number): string => (i % 53 === 0 ? `Report ${i}` : `Task ${String((i * 7) % 1000).padStart(3, '0')}`);
const createdAt = (i: number): string => new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString();

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ path: 'kept-group', visibility: 'public' })).id;
  projects = [(await s.createProject({ name: 'kept-one', namespace_id: group, visibility: 'public' })).id, (await s.createProject({ name: 'kept-two', namespace_id: group, visibility: 'public' })).id];
  outside = (await s.createProject({ name: 'kept-outside', visibility: 'public' })).id;
  // A third project of the group, its 300 records spread over the list's order.
  third = (await s.createProject({ name: 'kept-three', namespace_id: group, visibility: 'public' })).id;
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      insertImportedIssue(ctx, projects[i % 2], {
        iid: Math.ceil(i / 2),
        title: titleOf(i),
        description: i % 11 === 0 ? 'a task in the description' : null,
        state: i % 4 === 0 ? 'closed' : 'opened',
        authorId: 1,
        labels: i % 3 === 0 ? ['bug'] : [],
        assigneeIds: i % 9 === 0 ? [1] : [],
        confidential: false,
        createdAt: createdAt(i),
        updatedAt: createdAt(i),
        importedFrom: 'none',
      });
    }
    for (let i = 1; i <= 300; i++) {
      insertImportedIssue(ctx, third, { iid: i, title: `Task ${String((i * 37) % 1000).padStart(3, '0')} three`, description: null, state: 'opened', authorId: 1, labels: [], confidential: false, createdAt: createdAt(N + i), updatedAt: createdAt(N + i), importedFrom: 'none' });
    }
    insertImportedIssue(ctx, outside, { iid: 1, title: 'Task outside', description: null, state: 'opened', authorId: 1, labels: [], confidential: false, createdAt: createdAt(1), updatedAt: createdAt(1), importedFrom: 'none' });
  })();
}, 120_000);
afterAll(async () => s.stop());

/** The group's unarchived projects' open, unassigned issues the index matches for `task`, by title then id, descending. */
function want(): number[] {
  const rows = s.service.context.db
    .prepare(
      `SELECT x.id FROM issues x JOIN projects p ON p.id = x.project_id WHERE p.namespace_id = ? AND p.archived = 0 AND x.state = 'opened' AND x.assignee_ids = '[]'
         AND EXISTS (SELECT 1 FROM issues_search s WHERE s.issues_search MATCH ? AND s.rowid = (x.project_id << 32) + x.id) ORDER BY x.title DESC, x.id DESC`,
    )
    .all(group, '{title description} : "task"') as { id: number }[];
  return rows.map((r) => r.id);
}

const path = (): string => `/groups/${group}/issues`;
const query = { state: 'opened', assignee_id: 'None', search: 'task', order_by: 'title', sort: 'desc' };
// Past the walk's first 1,000 matches: the checked list.
const PAGES = [60, 61, 200, 300];
const CHECKED = /^SELECT (json_group_array\(id\)|count\(\*\)) AS value FROM \(SELECT id FROM \(SELECT x\.id AS id, \(\(x\.title LIKE/;
const checkedReads = async (fn: () => Promise<void>): Promise<string[]> => (await preparedBy(s, fn)).filter((sql) => CHECKED.test(sql));

describe("a common term's checked list, kept at the records' version", () => {
  it('reads no record again after a write elsewhere; again after a write to a record of the group or a project leaving it; every page and header as the index says', async () => {
    const instance = s.service.context.db.prepare('SELECT count(*) AS n FROM issues_search s WHERE s.issues_search MATCH ?').get('{title description} : "task"') as { n: number };
    expect(instance.n).toBeGreaterThan(10_000);
    let list = want();
    expect(list.length).toBeGreaterThan(6_000);
    // First: walked and counted by checking records.
    expect(await checkedReads(() => expectPagesOf(s, path(), query, list, PAGES, 'first'))).not.toEqual([]);
    // Writes elsewhere (a project of the group, an issue outside it): nothing read again.
    expect((await s.put(`/projects/${projects[0]}`, { description: 'moved on' })).status).toBe(200);
    expect((await s.put(`/projects/${outside}/issues/1`, { title: 'Task outside, renamed' })).status).toBe(200);
    expect(await checkedReads(() => expectPagesOf(s, path(), query, list, PAGES, 'after writes elsewhere'))).toEqual([]);
    // A record of the group retitled to the top of the order, another assigned (out of the list): read again.
    const moved = list[1_500];
    const movedIid = (s.service.context.db.prepare('SELECT project_id, iid FROM issues WHERE id = ?').get(moved) as { project_id: number; iid: number });
    expect((await s.put(`/projects/${movedIid.project_id}/issues/${movedIid.iid}`, { title: 'Task zzz first' })).status).toBe(200);
    const gone = list[4_000];
    const goneIid = (s.service.context.db.prepare('SELECT project_id, iid FROM issues WHERE id = ?').get(gone) as { project_id: number; iid: number });
    expect((await s.put(`/projects/${goneIid.project_id}/issues/${goneIid.iid}`, { assignee_ids: [1] })).status).toBe(200);
    list = want();
    expect(list[0]).toBe(moved);
    expect(list).not.toContain(gone);
    expect(await checkedReads(() => expectPagesOf(s, path(), query, list, PAGES, 'after writes to the group'))).not.toEqual([]);
    expect(await checkedReads(() => expectPagesOf(s, path(), query, list, PAGES, 'again'))).toEqual([]);
    // A project archived (out of the group's list) writes no record: another key, read again.
    expect((await s.post(`/projects/${third}/archive`, {})).status).toBe(201);
    const before = list;
    list = want();
    expect(list.length).toBe(before.length - 300);
    expect(await checkedReads(() => expectPagesOf(s, path(), query, list, [...PAGES, Math.ceil(list.length / 20)], 'one project archived'))).not.toEqual([]);
  });
});
