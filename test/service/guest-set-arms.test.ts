import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { expectEveryPage, groupOfThree, pagedReads, restoreArmsLimits, statementReads } from '../helpers/lists';
import { insertImportedIssue } from '../../src/main/service/areas/core/imported';
import { COUNT_LIMIT } from '../../src/main/service/http/pagination';
import { SCOPE_ARMS_LIMITS } from '../../src/main/service/areas/core/order-scope-arms';
import { DUE_DATE_LIMITS } from '../../src/main/service/areas/core/order-due-date';

/**
 * A Guest's group and instance issues with a label or milestone set, by title or due date: the
 * Guest's confidentiality term (`x.confidential = 0 OR x.author_id = ? OR ...`) is no author filter,
 * so the set's projects' indexes are walked (order-scope-arms.ts setArms) or the set read and sorted
 * (idSetLists), as an administrator's; an author filter still turns them away. Every page answers
 * the issues the Guest sees (not confidential, or theirs, or assigned to them), before and after
 * writes that move confidential issues into and out of the Guest's sight.
 */
let s: TestService;
let group: number;
let projects: number[];
let guest: { id: number; token: string };
let v1: Map<number, number>;

const TITLES = ['Alpha', 'beta', 'Gamma', 'alpha', 'Zeta'];
const DUES = [null, null, '2024-03-01', '2024-01-15', '2025-07-30'];

beforeAll(async () => {
  s = await TestService.start();
  ({ group, projects } = await groupOfThree(s));
  const created = await s.createUser();
  guest = { id: created.user.id as number, token: created.token };
  await s.addMember('groups', group, guest.id, 10);
  v1 = new Map<number, number>();
  for (const project of projects) v1.set(project, (await s.post(`/projects/${project}/milestones`, { title: 'v1' })).body.id as number);
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    let k = 0;
    for (const [project, n] of [[projects[0], 31], [projects[1], 25], [projects[2], 8]] as const) {
      for (let i = 1; i <= n; i++) {
        k++;
        // Every 3rd confidential: of them, some the Guest's, some assigned to the Guest, the rest hidden from them.
        const confidential = k % 3 === 1;
        insertImportedIssue(ctx, project, {
          iid: i,
          title: `${TITLES[(k * 7) % 5]} ${k % 4}`,
          description: null,
          authorId: confidential && k % 9 === 1 ? guest.id : 1,
          assigneeIds: confidential && k % 9 === 4 ? [guest.id] : [],
          labels: [...(k % 2 === 0 ? ['bug'] : []), ...(k % 5 === 0 ? ['Feature'] : [])],
          milestoneId: k % 3 !== 0 ? v1.get(project) ?? null : null,
          state: k % 4 === 0 ? 'closed' : 'opened',
          confidential,
          dueDate: DUES[(k * 3) % 5],
          createdAt: new Date(Date.UTC(2024, 0, 1) + k * 60_000).toISOString(),
          updatedAt: new Date(Date.UTC(2024, 0, 1) + k * 60_000).toISOString(),
          importedFrom: 'none',
        });
      }
    }
  })();
}, 60_000);
afterAll(async () => s.stop());
afterEach(restoreArmsLimits);

interface Row { id: number; project_id: number; state: string; labels: string; milestone_id: number | null; title: string; due_date: string | null; author_id: number; confidential: number }

const labelled = (r: Row, ...titles: string[]): boolean => titles.every((t) => (JSON.parse(r.labels) as string[]).some((l) => l.toLowerCase() === t.toLowerCase()));

const SETS: [Record<string, string>, (r: Row) => boolean][] = [
  [{ milestone: 'v1' }, (r) => r.milestone_id !== null],
  [{ milestone: 'Any', state: 'opened' }, (r) => r.milestone_id !== null && r.state === 'opened'],
  [{ labels: 'bug' }, (r) => labelled(r, 'bug')],
  [{ labels: 'bug,feature', state: 'opened' }, (r) => labelled(r, 'bug', 'feature') && r.state === 'opened'],
];

/** The group's issues the Guest sees meeting `keep`, in `column` order (NULL lowest), ties by id, in `sort`'s direction. */
function reference(column: 'title' | 'due_date', sort: string, keep: (r: Row) => boolean): number[] {
  const assigned = new Set((s.service.context.db.prepare("SELECT issuable_id AS id FROM issuable_users WHERE issuable_type = 'Issue' AND role = 'assignee' AND user_id = ?").all(guest.id) as { id: number }[]).map((r) => r.id));
  const rows = (s.service.context.db.prepare('SELECT * FROM issues').all() as Row[]).filter(
    (r) => projects.includes(r.project_id) && (!r.confidential || r.author_id === guest.id || assigned.has(r.id)) && keep(r),
  );
  const dir = sort === 'asc' ? 1 : -1;
  const cmp = (a: string | null, b: string | null): number => (a === b ? 0 : a == null ? -1 : b == null ? 1 : a < b ? -1 : 1);
  return rows.sort((a, b) => dir * (cmp(a[column], b[column]) || a.id - b.id)).map((r) => r.id);
}

async function expectEverySet(): Promise<void> {
  for (const instance of [false, true]) {
    for (const column of ['title', 'due_date'] as const) {
      for (const sort of ['asc', 'desc']) {
        for (const [filter, keep] of SETS) {
          const path = instance ? '/issues' : `/groups/${group}/issues`;
          await expectEveryPage(s, path, { ...filter, ...(instance ? { scope: 'all' } : {}), order_by: column, sort }, reference(column, sort, keep), 4, guest.token);
        }
      }
    }
  }
}

/** The SQL of the page's read of a Guest's list. */
async function pageRead(path: string, query: Record<string, string>): Promise<string> {
  const reads = await pagedReads(s, async () => {
    const res = await s.get(path, { query, token: guest.token });
    expect(res.status).toBe(200);
  });
  return reads.map((r) => r.sql).join('\n');
}

describe("a Guest's group and instance issues with a label or milestone set, by title or due date", () => {
  it("walks the set's projects' indexes, as an administrator's list", async () => {
    SCOPE_ARMS_LIMITS.sortedUpTo = 0;
    SCOPE_ARMS_LIMITS.walkPerRead = 1_000;
    DUE_DATE_LIMITS.fewDated = 0;
    for (const [order, index] of [['title', 'issues_project_title'], ['due_date', 'issues_project_due']] as const) {
      for (const filter of [{ milestone: 'v1' }, { labels: 'bug' }] as Record<string, string>[]) {
        const sql = await pageRead(`/groups/${group}/issues`, { ...filter, order_by: order });
        expect(sql, `${order} ${JSON.stringify(filter)}`).toContain(`INDEXED BY ${index}`);
        expect(sql.split(' UNION ALL ').length, `${order} ${JSON.stringify(filter)}`).toBe(3);
      }
    }
  });

  it("reads the set and sorts it where its arms would walk more, as an administrator's list", async () => {
    SCOPE_ARMS_LIMITS.walkPerRead = 0.01;
    // Another page length than the first test's page (a page asked again whole is kept: no read).
    const reads = await statementReads(s, (sql) => sql.startsWith('SELECT x.id AS id FROM '), async () => void (await s.get(`/groups/${group}/issues`, { query: { labels: 'bug', order_by: 'title', per_page: '3' }, token: guest.token })));
    const sql = reads.map((r) => r.sql).join('\n');
    expect(sql).not.toContain('INDEXED BY issues_project_title');
    // The label's rows read (a walk of the scope would read its issues in title order).
    expect(sql).toContain('SELECT x.id AS id FROM (SELECT DISTINCT +il.issuable_id AS id FROM issuable_labels il');
  });

  it('answers every page as the records the Guest sees say, arms or sorted, before and after writes', { timeout: 180_000 }, async () => {
    for (const [sortedUpTo, walkPerRead] of [[0, 1_000], [0, 0.01], [COUNT_LIMIT, 2]]) {
      SCOPE_ARMS_LIMITS.sortedUpTo = sortedUpTo;
      SCOPE_ARMS_LIMITS.walkPerRead = walkPerRead;
      DUE_DATE_LIMITS.fewDated = 0;
      await expectEverySet();
    }
    SCOPE_ARMS_LIMITS.sortedUpTo = 0;
    SCOPE_ARMS_LIMITS.walkPerRead = 1_000;
    const db = s.service.context.db;
    const hidden = db.prepare('SELECT project_id, iid FROM issues WHERE confidential = 1 AND author_id = 1 AND assignee_ids = ? AND milestone_id IS NOT NULL ORDER BY id').all('[]') as { project_id: number; iid: number }[];
    const own = db.prepare('SELECT project_id, iid FROM issues WHERE confidential = 1 AND author_id = ? ORDER BY id').get(guest.id) as { project_id: number; iid: number };
    const open = db.prepare("SELECT project_id, iid FROM issues WHERE confidential = 0 AND labels LIKE '%bug%' AND milestone_id IS NOT NULL ORDER BY id").get() as { project_id: number; iid: number };
    // A hidden one assigned to the Guest (enters), another made public (enters), a visible one made confidential (leaves), the Guest's own made public (stays).
    expect((await s.put(`/projects/${hidden[0].project_id}/issues/${hidden[0].iid}`, { assignee_ids: [guest.id] })).status).toBe(200);
    expect((await s.put(`/projects/${hidden[1].project_id}/issues/${hidden[1].iid}`, { confidential: false })).status).toBe(200);
    expect((await s.put(`/projects/${open.project_id}/issues/${open.iid}`, { confidential: true })).status).toBe(200);
    expect((await s.put(`/projects/${own.project_id}/issues/${own.iid}`, { confidential: false })).status).toBe(200);
    // A new confidential issue assigned to the Guest, in the sets, and one hidden from them.
    for (const assignee of [[guest.id], []]) {
      const res = await s.post(`/projects/${projects[1]}/issues`, { title: 'Beta new', confidential: true, labels: 'bug,feature', milestone_id: v1.get(projects[1]), due_date: '2024-03-01', assignee_ids: assignee });
      expect(res.status).toBe(201);
    }
    await expectEverySet();
  });
});
