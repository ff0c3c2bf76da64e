import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { expectPagesOf, statementReads } from '../helpers/lists';
import { insertImportedIssue } from '../../src/main/service/areas/core/imported';

/**
 * A common term's walk of a project's list (searchWalkRows) with filters besides the search (a
 * label, a state, a date) on the records' own columns and label rows is remembered as the search
 * alone's is (searchWalkKept): a write elsewhere walks nothing again; a write to a record of the
 * project is seen (walked again, or the walk patched by the records written). Every page and
 * header as the index says.
 */
let s: TestService;
let project: number;
let other: number;

const N = 1_500;
// `task` in three records of five, `bug` on nine of ten (more than the matches: the walk goes first).
const titleOf = (i: number): string => (i % 5 < 2 ? `Report ${i}` : `Task ${String((i * 7) % 1000).padStart(3, '0')}`);
const createdAt = (i: number): string => new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString();

beforeAll(async () => {
  s = await TestService.start();
  project = (await s.createProject({ name: 'walk-kept', visibility: 'public' })).id;
  other = (await s.createProject({ name: 'walk-other', visibility: 'public' })).id;
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      insertImportedIssue(ctx, project, {
        iid: i,
        title: titleOf(i),
        description: null,
        state: i % 4 === 0 ? 'closed' : 'opened',
        authorId: 1,
        labels: i % 10 === 0 ? [] : ['bug'],
        confidential: false,
        createdAt: createdAt(i),
        updatedAt: createdAt(i),
        importedFrom: 'none',
      });
    }
    insertImportedIssue(ctx, other, { iid: 1, title: 'Task elsewhere', description: null, state: 'opened', authorId: 1, labels: ['bug'], confidential: false, createdAt: createdAt(1), updatedAt: createdAt(1), importedFrom: 'none' });
  })();
}, 120_000);
afterAll(async () => s.stop());

const AFTER = createdAt(200);
function want(order: string): number[] {
  const rows = s.service.context.db
    .prepare(
      `SELECT x.id FROM issues x WHERE x.project_id = ? AND x.created_at >= ? AND EXISTS (SELECT 1 FROM json_each(x.labels) WHERE value = 'bug')
         AND EXISTS (SELECT 1 FROM issues_search s WHERE s.issues_search MATCH ? AND s.rowid = (x.project_id << 32) + x.id) ORDER BY ${order}`,
    )
    .all(project, AFTER, '{title description} : "task"') as { id: number }[];
  return rows.map((r) => r.id);
}

const windows = (fn: () => Promise<void>) => statementReads(s, (sql) => sql.includes('json_group_array(id) AS ids'), fn, 'get');

describe("a search's walk with other filters, remembered", () => {
  it('walks nothing again after a write elsewhere; sees a write to a record of the project; every page and header as the index says', async () => {
    const path = `/projects/${project}/issues`;
    for (const [query, order] of [
      [{ order_by: 'title', sort: 'desc' }, 'x.title DESC, x.id DESC'],
      [{ order_by: 'created_at', sort: 'desc' }, 'x.created_at DESC, x.id DESC'],
    ] as [Record<string, string>, string][]) {
      const q = { ...query, search: 'task', labels: 'bug', created_after: AFTER };
      const label = JSON.stringify(query);
      let list = want(order);
      expect(list.length).toBeGreaterThan(500);
      expect(list.length).toBeLessThan(1_000);
      // Pages within the walk (its first 1,000 matches) deep enough that it reads fewer records than
      // the label's set (idSetLists' bound, sqrt(wanted x records), past the matches).
      const pages = [28, 30, 34];
      expect(await windows(() => expectPagesOf(s, path, q, list, pages, `${label} first`)), label).not.toEqual([]);
      ok(await s.put(`/projects/${project}`, { description: `moved on ${label}` }));
      ok(await s.put(`/projects/${other}/issues/1`, { title: `Task elsewhere ${label}` }));
      expect(await windows(() => expectPagesOf(s, path, q, list, pages, `${label} after writes elsewhere`)), label).toEqual([]);
      // A record on page 2 loses the label; one without it gains it (its title first in the order).
      const out = list[570];
      const outIid = (s.service.context.db.prepare('SELECT iid FROM issues WHERE id = ?').get(out) as { iid: number }).iid;
      ok(await s.put(`/projects/${project}/issues/${outIid}`, { remove_labels: 'bug' }));
      const into = (s.service.context.db.prepare("SELECT id, iid FROM issues WHERE project_id = ? AND labels = '[]' AND created_at >= ? ORDER BY id DESC LIMIT 1").get(project, AFTER) as { id: number; iid: number });
      ok(await s.put(`/projects/${project}/issues/${into.iid}`, { add_labels: 'bug', title: `Task zzz ${label}` }));
      list = want(order);
      expect(list).not.toContain(out);
      expect(list).toContain(into.id);
      await expectPagesOf(s, path, q, list, pages, `${label} after writes to the project`);
      expect(await windows(() => expectPagesOf(s, path, q, list, pages, `${label} again`)), label).toEqual([]);
    }
  });
});
