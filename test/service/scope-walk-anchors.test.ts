import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { expectPagesOf, pagedReads } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * A group's (and an administrator's instance) list walked by id with filters (filteredWalk:
 * popularity's rest, a label title) reads a deep page from the anchor an earlier page left, at the
 * scope's records' version (recordsVersion: the sum of its projects' list versions, their ids in
 * the key; the instance's write log), as a project's walk does: a write elsewhere keeps them, a
 * write to a record moves them. Every page and header as the records say.
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
        const at = new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString();
        const labels = i % 3 ? ['bug'] : ['other'];
        const common = { iid: i, title: `Item ${i}`, description: null, authorId: 1, labels, createdAt: at, updatedAt: at, importedFrom: 'none', assigneeIds: [] };
        insertImportedIssue(ctx, p, { ...common, state: i % 7 === 0 ? 'closed' : 'opened', confidential: false });
        insertImportedMergeRequest(ctx, p, { ...common, state: i % 7 === 0 ? 'merged' : 'opened', sourceBranch: `f-${i}`, targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40) } as never);
      }
    }
  })();
  // A few upvoted records: they come first, the rest by id.
  for (const iid of [5, 700]) ok(await s.post(`/projects/${projects[0]}/merge_requests/${iid}/award_emoji`, { name: 'thumbsup' }));
  ok(await s.post(`/projects/${projects[1]}/issues/8/award_emoji`, { name: 'thumbsup' }));
}, 120_000);
afterAll(async () => s?.stop());

type Table = 'issues' | 'merge_requests';
interface Case { table: Table; instance: boolean }
interface Row { id: number; project_id: number; labels: string }

function want(c: Case): number[] {
  const db = s.service.context.db;
  const type = c.table === 'issues' ? 'Issue' : 'MergeRequest';
  const up = new Map((db.prepare(`SELECT awardable_id AS id, count(*) AS n FROM award_emoji WHERE awardable_type = ? AND name = 'thumbsup' GROUP BY awardable_id`).all(type) as { id: number; n: number }[]).map((r) => [r.id, r.n]));
  const rows = (db.prepare(`SELECT id, project_id, labels FROM ${c.table}`).all() as Row[]).filter((r) => (c.instance || projects.includes(r.project_id)) && (JSON.parse(r.labels) as string[]).includes('bug'));
  return rows.sort((a, b) => (up.get(b.id) ?? 0) - (up.get(a.id) ?? 0) || b.id - a.id).map((r) => r.id);
}

const query = (c: Case): Record<string, string> => ({ labels: 'bug', order_by: 'popularity', ...(c.instance ? { scope: 'all' } : {}) });
const path = (c: Case) => (c.instance ? `/${c.table}` : `/groups/${group}/${c.table}`);
const CASES: Case[] = [
  { table: 'merge_requests', instance: false },
  { table: 'issues', instance: false },
  { table: 'merge_requests', instance: true },
];
const DEEP = [1, 2, 60, 61, 62, 66, 65, 70, 101];

const pages = (c: Case, list: number[]) => expectPagesOf(s, path(c), query(c), want(c), list, JSON.stringify(c));

const checkAll = async (list = DEEP) => {
  for (const c of CASES) await pages(c, list);
};

describe("a scope's filtered walk by id, deep pages from anchors", () => {
  it('pages as the records say, in turn and out of turn', async () => {
    await checkAll();
  }, 120_000);

  it('reads a deep page from the anchor of the page before, kept across writes elsewhere', async () => {
    const c = CASES[0];
    const q = { ...query(c), per_page: '20' };
    const read = async (page: number) => (await pagedReads(s, async () => void (await s.get(path(c), { query: { ...q, page: String(page) } })))).filter((r) => r.sql.includes('FROM merge_requests x'));
    const fromAnchor = (reads: { sql: string; args: unknown[] }[]) => {
      expect(reads).toHaveLength(1);
      expect(reads[0].sql).toContain('AND x.id < ?');
      expect(reads[0].args.at(-1)).toBe(0);
    };
    await read(56);
    fromAnchor(await read(57));
    ok(await s.put(`/projects/${projects[1]}`, { description: 'touched' }));
    const elsewhere = (await s.createProject({ name: 'elsewhere', visibility: 'public' })).id;
    ok(await s.post(`/projects/${elsewhere}/issues`, { title: 'Elsewhere', labels: 'bug' }));
    fromAnchor(await read(58));
    // A record of the group relabelled into the list near its start (no id added): the anchors move with it.
    ok(await s.put(`/projects/${projects[0]}/merge_requests/1500`, { labels: 'bug' }));
    await pages(c, [58, 57, 59]);
  });

  it('follows writes to the records and to the group', async () => {
    const [a, b] = projects;
    const db = s.service.context.db;
    ok(await s.post(`/projects/${a}/issues`, { title: 'Item new', labels: 'bug' }));
    ok(await s.post(`/projects/${b}/merge_requests`, { title: 'Item new', source_branch: 'new', target_branch: 'main', labels: 'bug' }));
    ok(await s.put(`/projects/${b}/merge_requests/801`, { labels: 'other' }));
    ok(await s.put(`/projects/${a}/merge_requests/3`, { labels: 'bug' }));
    ok(await s.put(`/projects/${a}/issues/4`, { labels: 'other' }));
    db.prepare('DELETE FROM merge_requests WHERE project_id = ? AND iid = 2').run(a);
    await checkAll();
    // A project moved out of the group in SQL (no record written).
    const other = (await s.createGroup({ visibility: 'public' })).id;
    db.prepare('UPDATE projects SET namespace_id = ? WHERE id = ?').run(other, b);
    projects.pop();
    await checkAll([1, 2, 51, 52, 54, 53, 62]);
  }, 120_000);
});
