import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { pagedReads } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * A group's issue and merge request lists by created_at, updated_at or title whose SQL reads only
 * their records (their own columns, their label rows): a deep page starts at the row an earlier page
 * read (anchors at the group's records' version: the sum of its projects' list versions, the
 * projects' ids in the key), as a project's list does; a write elsewhere keeps them, a write to a
 * record moves them. Every page as the records say.
 */
let s: TestService;
let group: number;
const projects: number[] = [];
const N = 1_500;

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ visibility: 'public' })).id;
  for (const name of ['a', 'b']) projects.push((await s.createProject({ name, namespace_id: group, visibility: 'public' })).id);
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      for (const p of projects) {
        // Creation and update times out of id order, ties among them; titles with ties.
        const created = new Date(Date.UTC(2024, 0, 1) + ((i * 37) % 1_000) * 60_000).toISOString();
        const updated = new Date(Date.UTC(2024, 6, 1) + ((i * 53) % 700) * 60_000).toISOString();
        const labels = i % 4 === 1 ? ['bug', 'label-3'] : i % 3 ? ['bug'] : ['other'];
        const common = { iid: i, title: `Item ${(i * 11) % 400}`, description: null, authorId: 1, labels, createdAt: created, updatedAt: updated, importedFrom: 'none', assigneeIds: i % 10 === 0 ? [1] : [] };
        insertImportedIssue(ctx, p, { ...common, state: i % 7 === 0 ? 'closed' : 'opened', confidential: false });
        insertImportedMergeRequest(ctx, p, { ...common, state: i % 7 === 0 ? 'merged' : 'opened', sourceBranch: `f-${i}`, targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40) } as never);
      }
    }
  })();
}, 120_000);
afterAll(async () => s?.stop());

type Table = 'issues' | 'merge_requests';
type Col = 'created_at' | 'updated_at' | 'title';
interface Case { order_by: Col; sort: 'asc' | 'desc'; filtered: boolean }
interface Row { id: number; project_id: number; labels: string; assignee_ids: string; created_at: string; updated_at: string; title: string }

function want(table: Table, c: Case): number[] {
  const rows = (s.service.context.db.prepare(`SELECT * FROM ${table}`).all() as Row[]).filter((r) => {
    if (!projects.includes(r.project_id)) return false;
    if (!c.filtered) return true;
    const labels = JSON.parse(r.labels) as string[];
    return labels.includes('bug') && !labels.includes('label-3') && r.assignee_ids === '[]';
  });
  const dir = c.sort === 'asc' ? 1 : -1;
  // SQLite's BINARY order of the column, ties by id in the same direction.
  return rows.sort((a, b) => dir * (a[c.order_by] < b[c.order_by] ? -1 : a[c.order_by] > b[c.order_by] ? 1 : a.id - b.id)).map((r) => r.id);
}

const query = (c: Case): Record<string, string> => ({ order_by: c.order_by, sort: c.sort, ...(c.filtered ? { labels: 'bug', 'not[labels]': 'label-3', assignee_id: 'None' } : {}) });
const CASES: Case[] = [
  { order_by: 'updated_at', sort: 'desc', filtered: true },
  { order_by: 'created_at', sort: 'asc', filtered: true },
  { order_by: 'title', sort: 'desc', filtered: true },
  { order_by: 'updated_at', sort: 'asc', filtered: false },
];
const TABLES: Table[] = ['issues', 'merge_requests'];
const DEEP = [1, 2, 60, 61, 62, 66, 65, 70];

async function pages(table: Table, c: Case, list: number[]): Promise<void> {
  const all = want(table, c);
  for (const page of list) {
    const res = await s.get(`/groups/${group}/${table}`, { query: { ...query(c), per_page: '20', page: String(page) } });
    const what = `${table} ${JSON.stringify(c)} page ${page}`;
    expect((res.body as { id: number }[]).map((e) => e.id), what).toEqual(all.slice((page - 1) * 20, page * 20));
    expect(res.headers.get('x-total'), what).toBe(String(all.length));
    expect(res.headers.get('x-next-page'), what).toBe(page * 20 < all.length ? String(page + 1) : '');
  }
}

const checkAll = async (list = DEEP) => {
  for (const table of TABLES) for (const c of CASES) await pages(table, c, list);
};

describe("a group's list by a column of its own, deep pages from anchors", () => {
  it('pages as the records say, in turn and out of turn', async () => {
    await checkAll();
  }, 120_000);

  it('reads a deep page from the anchor of the page before, kept across writes elsewhere', async () => {
    const path = `/groups/${group}/merge_requests`;
    const q = { ...query(CASES[0]), per_page: '20' };
    const read = async (page: number) => (await pagedReads(s, async () => void (await s.get(path, { query: { ...q, page: String(page) } })))).filter((r) => r.sql.includes('FROM merge_requests x'));
    const fromAnchor = (reads: { sql: string; args: unknown[] }[]) => {
      expect(reads).toHaveLength(1);
      expect(reads[0].sql).toContain('(x.updated_at, x.id) <');
      expect(reads[0].args.at(-1)).toBe(0);
    };
    await read(56);
    fromAnchor(await read(57));
    ok(await s.put(`/projects/${projects[1]}`, { description: 'touched' }));
    const elsewhere = (await s.createProject({ name: 'elsewhere', visibility: 'public' })).id;
    ok(await s.post(`/projects/${elsewhere}/merge_requests`, { title: 'Elsewhere', source_branch: 'x', target_branch: 'main', labels: 'bug' }));
    fromAnchor(await read(58));
  });

  it('follows writes to the records and to the group', async () => {
    const [a, b] = projects;
    const db = s.service.context.db;
    // Added, updated (moved in updated_at), relabelled in and out, an assignee set, one deleted in SQL.
    ok(await s.post(`/projects/${a}/issues`, { title: 'Item new', labels: 'bug' }));
    ok(await s.post(`/projects/${b}/merge_requests`, { title: 'Item new', source_branch: 'new', target_branch: 'main', labels: 'bug' }));
    ok(await s.put(`/projects/${a}/issues/800`, { description: 'moved on' }));
    ok(await s.put(`/projects/${b}/merge_requests/801`, { labels: 'bug,label-3' }));
    ok(await s.put(`/projects/${a}/merge_requests/3`, { labels: 'bug' }));
    ok(await s.put(`/projects/${b}/issues/802`, { assignee_ids: [1] }));
    db.prepare('DELETE FROM merge_requests WHERE project_id = ? AND iid = 1000').run(a);
    await checkAll();
    // A project moved out of the group in SQL (no record written).
    const other = (await s.createGroup({ visibility: 'public' })).id;
    db.prepare('UPDATE projects SET namespace_id = ? WHERE id = ?').run(other, b);
    projects.pop();
    await checkAll([1, 2, 30, 31, 33, 32]);
  }, 120_000);
});
