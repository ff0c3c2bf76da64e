import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { expectPagesOf, pagedReads } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * A group's (and an administrator's instance) lists read from a label title's rows (labelRowsPage:
 * one title; labelTitlesList: a pair, a title less another) by created_at or updated_at: a deep
 * page starts at the row an earlier page read (anchors at the scope's records' version: the sum of
 * its projects' list versions, their ids in the key; the instance's write log), as a project's
 * does; a write elsewhere keeps them, a write to a record moves them. Every page and header as
 * the records say.
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
        // Creation and update times out of id order, with ties.
        const created = new Date(Date.UTC(2024, 0, 1) + ((i * 37) % 900) * 60_000).toISOString();
        const updated = new Date(Date.UTC(2024, 6, 1) + ((i * 53) % 600) * 60_000).toISOString();
        const labels = i % 2 === 1 ? ['bug', 'label-3'] : i % 3 ? ['bug'] : ['other'];
        const common = { iid: i, title: `Item ${i}`, description: null, authorId: 1, labels, createdAt: created, updatedAt: updated, importedFrom: 'none', assigneeIds: [] };
        insertImportedIssue(ctx, p, { ...common, state: i % 7 === 0 ? 'closed' : 'opened', confidential: false });
        insertImportedMergeRequest(ctx, p, { ...common, state: i % 7 === 0 ? 'merged' : 'opened', sourceBranch: `f-${i}`, targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40) } as never);
      }
    }
  })();
}, 120_000);
afterAll(async () => s?.stop());

type Table = 'issues' | 'merge_requests';
type Col = 'created_at' | 'updated_at';
interface Case { table: Table; instance: boolean; order_by: Col; sort: 'asc' | 'desc'; labels: 'one' | 'pair' | 'without' }
interface Row { id: number; project_id: number; labels: string; created_at: string; updated_at: string }

function want(c: Case): number[] {
  const rows = (s.service.context.db.prepare(`SELECT * FROM ${c.table}`).all() as Row[]).filter((r) => {
    if (!c.instance && !projects.includes(r.project_id)) return false;
    const labels = JSON.parse(r.labels) as string[];
    return labels.includes('bug') && (c.labels === 'one' || (c.labels === 'pair' ? labels.includes('label-3') : !labels.includes('label-3')));
  });
  const dir = c.sort === 'asc' ? 1 : -1;
  return rows.sort((a, b) => dir * (a[c.order_by] < b[c.order_by] ? -1 : a[c.order_by] > b[c.order_by] ? 1 : a.id - b.id)).map((r) => r.id);
}

const query = (c: Case): Record<string, string> => ({
  order_by: c.order_by,
  sort: c.sort,
  ...(c.labels === 'one' ? { labels: 'bug' } : c.labels === 'pair' ? { labels: 'bug,label-3' } : { labels: 'bug', 'not[labels]': 'label-3' }),
  ...(c.instance ? { scope: 'all' } : {}),
});
const path = (c: Case) => (c.instance ? `/${c.table}` : `/groups/${group}/${c.table}`);
const CASES: Case[] = [
  { table: 'merge_requests', instance: false, order_by: 'created_at', sort: 'desc', labels: 'one' },
  { table: 'merge_requests', instance: false, order_by: 'updated_at', sort: 'asc', labels: 'one' },
  { table: 'merge_requests', instance: true, order_by: 'created_at', sort: 'asc', labels: 'one' },
  { table: 'issues', instance: true, order_by: 'updated_at', sort: 'desc', labels: 'one' },
  { table: 'issues', instance: false, order_by: 'created_at', sort: 'desc', labels: 'without' },
  { table: 'merge_requests', instance: false, order_by: 'updated_at', sort: 'desc', labels: 'pair' },
];
const DEEP = [1, 2, 60, 61, 62, 66, 65, 70];

const pages = (c: Case, list: number[]) => expectPagesOf(s, path(c), query(c), want(c), list, JSON.stringify(c));

const checkAll = async (list = DEEP) => {
  for (const c of CASES) await pages(c, list);
};

describe('lists of a scope read from label rows, deep pages from anchors', () => {
  it('pages as the records say, in turn and out of turn', async () => {
    await checkAll();
  }, 120_000);

  it('reads a deep page from the anchor of the page before, kept across writes elsewhere', async () => {
    for (const c of [CASES[0], CASES[5]]) {
      const q = { ...query(c), per_page: '20' };
      const read = async (page: number) => (await pagedReads(s, async () => void (await s.get(path(c), { query: { ...q, page: String(page) } })))).filter((r) => r.sql.includes('FROM issuable_labels il'));
      const fromAnchor = (reads: { sql: string; args: unknown[] }[]) => {
        expect(reads, JSON.stringify(c)).toHaveLength(1);
        expect(reads[0].sql).toContain(`(il.${c.order_by}, il.issuable_id) ${c.sort === 'asc' ? '>' : '<'}`);
        expect(reads[0].args.at(-1)).toBe(0);
      };
      await read(56);
      fromAnchor(await read(57));
      ok(await s.put(`/projects/${projects[1]}`, { description: `touched ${c.order_by}` }));
      const elsewhere = (await s.createProject({ name: `elsewhere-${c.order_by}`, visibility: 'public' })).id;
      ok(await s.post(`/projects/${elsewhere}/merge_requests`, { title: 'Elsewhere', source_branch: 'x', target_branch: 'main', labels: 'bug,label-3' }));
      fromAnchor(await read(58));
    }
  });

  it('follows writes to the records and to the group', async () => {
    const [a, b] = projects;
    const db = s.service.context.db;
    // Added, updated (moved in updated_at), relabelled in and out, one deleted in SQL.
    ok(await s.post(`/projects/${a}/issues`, { title: 'Item new', labels: 'bug' }));
    ok(await s.post(`/projects/${b}/merge_requests`, { title: 'Item new', source_branch: 'new', target_branch: 'main', labels: 'bug' }));
    ok(await s.put(`/projects/${a}/issues/800`, { description: 'moved on' }));
    ok(await s.put(`/projects/${b}/merge_requests/801`, { labels: 'bug,label-3' }));
    ok(await s.put(`/projects/${a}/merge_requests/3`, { labels: 'bug' }));
    ok(await s.put(`/projects/${b}/merge_requests/802`, { description: 'moved on' }));
    db.prepare('DELETE FROM merge_requests WHERE project_id = ? AND iid = 1000').run(a);
    await checkAll();
    // A project moved out of the group in SQL (no record written).
    const other = (await s.createGroup({ visibility: 'public' })).id;
    db.prepare('UPDATE projects SET namespace_id = ? WHERE id = ?').run(other, b);
    projects.pop();
    await checkAll([1, 2, 51, 52, 54, 53, 62]);
  }, 120_000);
});
