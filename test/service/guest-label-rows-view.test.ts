import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { expectEveryPage, statementReads } from '../helpers/lists';
import { insertImportedIssue } from '../../src/main/service/areas/core/imported';

/**
 * A project's issues by label read from the label rows (labelRowsPage, labelTitlesList, labelRowsCount)
 * for callers who may not see every confidential issue (a Guest, a non-member, anonymous): their view
 * is asked of the label rows (a row whose issue is not one of the project's confidential issues holds
 * without its issue read; the others are checked on their issue). Every page and count answers the
 * issues each caller sees, before and after writes that make issues confidential or public, assign
 * them, add and remove labels, move and delete them, and a member joins and leaves.
 */
let s: TestService;
let project: number;
let other: number;
let guest: { id: number; token: string };
let outsider: { id: number; token: string };

beforeAll(async () => {
  s = await TestService.start();
  project = (await s.createProject({ name: 'labelled', visibility: 'public' })).id as number;
  other = (await s.createProject({ name: 'other', visibility: 'public' })).id as number;
  const g = await s.createUser();
  guest = { id: g.user.id as number, token: g.token };
  const o = await s.createUser();
  outsider = { id: o.user.id as number, token: o.token };
  await s.addMember('projects', project, guest.id, 10);
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let k = 1; k <= 60; k++) {
      // Every 3rd confidential: some the Guest's, some assigned to the Guest, some the outsider's, the rest hidden.
      const confidential = k % 3 === 1;
      insertImportedIssue(ctx, project, {
        iid: k,
        title: `Issue ${k}`,
        description: null,
        authorId: confidential && k % 9 === 1 ? guest.id : confidential && k % 9 === 7 && k < 20 ? outsider.id : 1,
        assigneeIds: confidential && k % 9 === 4 && k < 20 ? [guest.id] : [],
        labels: [...(k % 2 === 0 || k % 3 === 1 ? ['bug'] : []), ...(k % 5 < 2 ? ['Feature'] : [])],
        state: k % 4 === 0 ? 'closed' : 'opened',
        confidential,
        // Creation and update orders differ (ties included: by id).
        createdAt: new Date(Date.UTC(2024, 0, 1) + k * 60_000).toISOString(),
        updatedAt: new Date(Date.UTC(2024, 1, 1) + ((k * 7) % 13) * 60_000).toISOString(),
        importedFrom: 'none',
      });
    }
  })();
}, 60_000);
afterAll(async () => s.stop());

interface Row { id: number; project_id: number; state: string; labels: string; author_id: number; confidential: number; created_at: string; updated_at: string }

const labelled = (r: Row, title: string): boolean => (JSON.parse(r.labels) as string[]).some((l) => l.toLowerCase() === title.toLowerCase());

const LISTS: [Record<string, string | string[]>, (r: Row) => boolean][] = [
  [{ labels: 'bug' }, (r) => labelled(r, 'bug')],
  [{ labels: 'bug', state: 'opened' }, (r) => labelled(r, 'bug') && r.state === 'opened'],
  [{ labels: 'feature', state: 'closed' }, (r) => labelled(r, 'feature') && r.state === 'closed'],
  [{ labels: 'bug', confidential: 'false' }, (r) => labelled(r, 'bug') && !r.confidential],
  [{ labels: 'bug,feature' }, (r) => labelled(r, 'bug') && labelled(r, 'feature')],
  [{ labels: 'bug', 'not[labels]': 'feature', state: 'opened' }, (r) => labelled(r, 'bug') && !labelled(r, 'feature') && r.state === 'opened'],
];

type Caller = { id: number; token: string } | null;

/** The project's issues `caller` sees meeting `keep`, by `column` in `sort`'s direction, ties by id. */
function reference(caller: Caller, column: 'created_at' | 'updated_at', sort: string, keep: (r: Row) => boolean): number[] {
  const db = s.service.context.db;
  const assigned = new Set(caller ? (db.prepare("SELECT issuable_id AS id FROM issuable_users WHERE issuable_type = 'Issue' AND role = 'assignee' AND user_id = ?").all(caller.id) as { id: number }[]).map((r) => r.id) : []);
  const level = caller ? ((db.prepare("SELECT max(access_level) AS n FROM members WHERE source_type = 'Project' AND source_id = ? AND user_id = ?").get(project, caller.id) as { n: number | null }).n ?? 0) : 0;
  const rows = (db.prepare('SELECT * FROM issues WHERE project_id = ?').all(project) as Row[]).filter(
    (r) => (!r.confidential || level >= 15 || (caller && (r.author_id === caller.id || assigned.has(r.id)))) && keep(r),
  );
  const dir = sort === 'asc' ? 1 : -1;
  return rows.sort((a, b) => dir * (a[column] < b[column] ? -1 : a[column] > b[column] ? 1 : a.id - b.id)).map((r) => r.id);
}

async function expectEveryList(): Promise<void> {
  for (const caller of [guest, outsider, null]) {
    for (const [column, sort] of [['created_at', 'desc'], ['updated_at', 'asc']] as const) {
      for (const [filter, keep] of LISTS) {
        await expectEveryPage(s, `/projects/${project}/issues`, { ...filter, order_by: column, sort }, reference(caller, column, sort, keep), 4, caller?.token ?? null);
      }
    }
  }
}

describe("a project's issues by label for callers who do not see every confidential issue", () => {
  it('asks the caller\'s view of the label rows, reading only the confidential ones\' issues', async () => {
    for (const query of [{ labels: 'bug', per_page: '3' }, { labels: 'bug,feature', per_page: '3' }]) {
      const reads = await statementReads(s, (sql) => sql.includes('FROM issuable_labels il'), async () => {
        expect((await s.get(`/projects/${project}/issues`, { query, token: guest.token })).status).toBe(200);
      }, ['all', 'get']);
      const sql = reads.map((r) => r.sql).join('\n');
      expect(sql, JSON.stringify(query)).toContain('il.issuable_id NOT IN (SELECT c.id FROM issues c WHERE c.project_id = ');
      expect(sql, JSON.stringify(query)).not.toContain('CROSS JOIN issues x');
    }
  });

  it('answers every page and count as the issues each caller sees, before and after writes', { timeout: 180_000 }, async () => {
    await expectEveryList();
    const db = s.service.context.db;
    const iids = (where: string, ...args: unknown[]): number[] => (db.prepare(`SELECT iid FROM issues WHERE project_id = ? AND ${where} ORDER BY id`).all(project, ...args) as { iid: number }[]).map((r) => r.iid);
    const hidden = iids("confidential = 1 AND author_id = 1 AND assignee_ids = '[]' AND labels LIKE '%bug%'");
    const open = iids("confidential = 0 AND labels LIKE '%bug%'");
    const own = iids('confidential = 1 AND author_id = ?', guest.id);
    const put = async (iid: number, body: Record<string, unknown>): Promise<void> => expect((await s.put(`/projects/${project}/issues/${iid}`, body)).status).toBe(200);
    // Confidential made public, public made confidential, the Guest assigned to a hidden one and unassigned from theirs.
    await put(hidden[0], { confidential: false });
    await put(open[0], { confidential: true });
    await put(open[1], { confidential: true, assignee_ids: [guest.id] });
    await put(hidden[1], { assignee_ids: [guest.id] });
    await put(iids('confidential = 1 AND assignee_ids = ?', JSON.stringify([guest.id]))[0], { assignee_ids: [] });
    await expectEveryList();
    // Labels added to and removed from confidential issues; a new confidential one and a public one.
    await put(hidden[2], { add_labels: 'feature' });
    await put(own[0], { remove_labels: 'bug' });
    await put(hidden[3], { labels: 'feature' });
    for (const confidential of [true, false]) expect((await s.post(`/projects/${project}/issues`, { title: 'new', confidential, labels: 'bug,feature' })).status).toBe(201);
    await expectEveryList();
    // A confidential one moved out, another deleted; a public one moved in from the other project made confidential.
    expect((await s.post(`/projects/${project}/issues/${hidden[4]}/move`, { to_project_id: other })).status).toBe(201);
    expect((await s.del(`/projects/${project}/issues/${hidden[5]}`)).status).toBe(204);
    const there = (await s.post(`/projects/${other}/issues`, { title: 'there', confidential: true, labels: 'bug' })).body.iid as number;
    expect((await s.post(`/projects/${other}/issues/${there}/move`, { to_project_id: project })).status).toBe(201);
    await expectEveryList();
    // The outsider joins as a Reporter (sees every confidential issue), the Guest leaves (a non-member), then both back.
    await s.addMember('projects', project, outsider.id, 20);
    expect((await s.del(`/projects/${project}/members/${guest.id}`)).status).toBe(204);
    await expectEveryList();
    expect((await s.del(`/projects/${project}/members/${outsider.id}`)).status).toBe(204);
    await s.addMember('projects', project, guest.id, 10);
    await expectEveryList();
  });
});
