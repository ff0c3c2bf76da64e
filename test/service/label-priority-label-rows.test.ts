import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { statementReads } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * A project's issues and merge requests with one label by order_by=label_priority where no label of
 * the project is prioritized but the filter's own (left out of the order): newest id first, read from
 * the title's label rows alone (order-label-priority.ts labelRowsIds), of one state from anchors, of
 * several merged. Every page (deep ones past the anchors' offset) and header as the records say, for
 * an administrator and a Guest (who sees only some confidential issues), before and after writes that
 * create, relabel, close, make confidential and delete records, a write elsewhere, the Guest made a
 * Reporter and back, and a label prioritized (the filter's: the same order; another: its records first).
 */
let s: TestService;
let project: number;
let other: number;
let guest: { id: number; token: string };
const N = 3_600;

beforeAll(async () => {
  s = await TestService.start();
  project = (await s.createProject({ name: 'prioritized', visibility: 'public' })).id as number;
  other = (await s.createProject({ name: 'other', visibility: 'public' })).id as number;
  const g = await s.createUser();
  guest = { id: g.user.id as number, token: g.token };
  await s.addMember('projects', project, guest.id, 10);
  for (const name of ['bug', 'feature']) ok(await s.post(`/projects/${project}/labels`, { name, color: '#FF0000' }));
  ok(await s.post(`/projects/${other}/issues`, { title: 'Elsewhere', labels: 'bug' }));
  const ctx = s.service.context;
  // Labels: bug on most, in two spellings on some (one record both), feature on some; ids and creation orders differ.
  const labels = (k: number): string[] => [...(k % 3 !== 0 ? [k % 17 === 1 ? 'Bug' : 'bug'] : []), ...(k % 85 === 1 ? ['bug'] : []), ...(k % 5 === 0 ? ['feature'] : [])];
  const at = (k: number): string => new Date(Date.UTC(2024, 0, 1) + ((k * 37) % N) * 60_000).toISOString();
  ctx.db.transaction(() => {
    for (let k = 1; k <= N; k++) {
      insertImportedIssue(ctx, project, {
        iid: k, title: `Issue ${k}`, description: null, authorId: k % 11 === 0 ? guest.id : 1, labels: labels(k),
        state: k % 4 === 0 ? 'closed' : 'opened', confidential: k % 7 === 0, createdAt: at(k), updatedAt: at(k), importedFrom: 'none',
      });
      insertImportedMergeRequest(ctx, project, {
        iid: k, title: `MR ${k}`, description: null, authorId: 1, labels: labels(k), state: k % 4 === 0 ? 'closed' : k % 4 === 1 ? 'merged' : 'opened',
        sourceBranch: `b${k}`, targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40), createdAt: at(k), updatedAt: at(k), importedFrom: 'none',
      });
    }
  })();
}, 120_000);
afterAll(async () => s?.stop());

interface Row { id: number; state: string; labels: string; author_id: number; confidential?: number }
type Caller = { id: number; token: string } | null;

/** The list as the records say: label `title` (ASCII case-insensitively), `state`, the caller's view, by highest priority (not `title`'s) then newest id. */
function reference(table: 'issues' | 'merge_requests', title: string, state: string | undefined, caller: Caller, sort: string): number[] {
  const db = s.service.context.db;
  const priority = new Map((db.prepare('SELECT title, priority FROM labels WHERE project_id = ? AND priority IS NOT NULL').all(project) as { title: string; priority: number }[]).map((l) => [l.title, l.priority]));
  const level = caller ? ((db.prepare("SELECT max(access_level) AS n FROM members WHERE source_type = 'Project' AND source_id = ? AND user_id = ?").get(project, caller.id) as { n: number | null }).n ?? 0) : 0;
  const rows = (db.prepare(`SELECT * FROM ${table} WHERE project_id = ?`).all(project) as Row[]).filter((r) => {
    const titles = JSON.parse(r.labels) as string[];
    const seen = !r.confidential || caller === null || r.author_id === caller.id || level >= 15;
    return titles.some((t) => t.toLowerCase() === title.toLowerCase()) && (!state || r.state === state) && seen;
  });
  const key = (r: Row): number | null => {
    const ps = (JSON.parse(r.labels) as string[]).filter((t) => t !== title && priority.has(t)).map((t) => priority.get(t)!);
    return ps.length ? Math.min(...ps) : null;
  };
  const dir = sort === 'asc' ? 1 : -1;
  return rows
    .sort((a, b) => {
      const [ka, kb] = [key(a), key(b)];
      if (ka !== kb) return ka === null ? 1 : kb === null ? -1 : (ka - kb) * dir;
      return b.id - a.id;
    })
    .map((r) => r.id);
}

const LISTS: { table: 'issues' | 'merge_requests'; title: string; state?: string; sort: string }[] = [
  { table: 'merge_requests', title: 'bug', sort: 'desc' },
  { table: 'merge_requests', title: 'BUG', state: 'opened', sort: 'asc' },
  { table: 'merge_requests', title: 'bug', state: 'merged', sort: 'desc' },
  { table: 'issues', title: 'bug', sort: 'desc' },
  { table: 'issues', title: 'Bug', state: 'opened', sort: 'desc' },
  { table: 'issues', title: 'bug', state: 'closed', sort: 'asc' },
  { table: 'issues', title: 'feature', sort: 'desc' },
];

/** Pages 1, 2, two past the anchors' offset, the last and the one past it, of every list for each caller: ids and headers. */
async function expectEveryList(): Promise<void> {
  for (const caller of [null, guest]) {
    for (const { table, title, state, sort } of LISTS) {
      const want = reference(table, title, state, caller, sort);
      const perPage = 50;
      const pages = Math.max(1, Math.ceil(want.length / perPage));
      for (const page of [...new Set([1, 2, 21, 22, pages, pages + 1])]) {
        const query = { labels: title, order_by: 'label_priority', sort, per_page: String(perPage), page: String(page), ...(state ? { state } : {}) };
        const res = await s.get(`/projects/${project}/${table}`, { query, token: caller?.token });
        const what = `${caller ? 'guest' : 'admin'} ${table} ${JSON.stringify(query)}`;
        expect(res.status, what).toBe(200);
        expect((res.body as { id: number }[]).map((r) => r.id), what).toEqual(want.slice((page - 1) * perPage, page * perPage));
        expect(res.headers.get('x-total'), what).toBe(String(want.length));
        expect(res.headers.get('x-total-pages'), what).toBe(String(pages));
        expect(res.headers.get('x-next-page'), what).toBe(page < pages ? String(page + 1) : '');
        expect(res.headers.get('x-prev-page'), what).toBe(page > 1 && page <= pages ? String(page - 1) : '');
      }
    }
  }
}

describe('order_by=label_priority with no label prioritized but the filter\'s', () => {
  it('reads a label\'s list from its label rows, no record walked, for an administrator and a Guest', async () => {
    for (const [table, state, caller] of [['merge_requests', undefined, null], ['merge_requests', 'opened', null], ['issues', 'opened', null], ['issues', undefined, guest], ['issues', 'closed', guest]] as const) {
      const query = { labels: 'bug', order_by: 'label_priority', per_page: '50', page: state === 'closed' ? '5' : '21', ...(state ? { state } : {}) };
      const reads = await statementReads(s, (sql) => /LIMIT \d+ OFFSET \?$/.test(sql), async () => {
        expect((await s.get(`/projects/${project}/${table}`, { query, token: caller?.token })).status).toBe(200);
      });
      // Every paged read is of the label rows (a Guest's confidential issues alone looked up).
      expect(reads.length, table).toBeGreaterThan(0);
      for (const { sql } of reads) expect(sql, table).toMatch(/^SELECT il\.issuable_id AS id FROM issuable_labels il INDEXED BY issuable_labels_project /);
      if (caller) expect(reads[0].sql).toContain('il.issuable_id NOT IN (SELECT c.id FROM issues c WHERE c.project_id = ');
    }
  });

  it('answers every page and header as the records say, before and after writes', { timeout: 300_000 }, async () => {
    await expectEveryList();
    const put = async (table: string, iid: number, body: Record<string, unknown>): Promise<void> => expect((await s.put(`/projects/${project}/${table}/${iid}`, body)).status).toBe(200);
    // Relabelled (a spelling added, the label removed, given), closed and reopened, made confidential.
    await put('issues', 1, { add_labels: 'Bug' });
    await put('issues', 2, { remove_labels: 'bug' });
    await put('issues', 3, { labels: 'bug,feature' });
    await put('issues', 5, { state_event: 'close' });
    await put('issues', 8, { state_event: 'reopen' });
    await put('issues', 10, { confidential: true });
    await put('issues', 14, { confidential: false });
    await put('merge_requests', 2, { remove_labels: 'bug' });
    await put('merge_requests', 3, { add_labels: 'bug' });
    await put('merge_requests', 6, { state_event: 'close' });
    await put('merge_requests', 4, { state_event: 'reopen' });
    for (const confidential of [false, true]) ok(await s.post(`/projects/${project}/issues`, { title: 'new', labels: 'bug', confidential }));
    expect((await s.del(`/projects/${project}/issues/20`)).status).toBe(204);
    expect((await s.del(`/projects/${project}/merge_requests/20`)).status).toBe(204);
    await expectEveryList();
    // A write elsewhere: the anchors read before still hold.
    ok(await s.put(`/projects/${other}/issues/1`, { labels: 'bug,feature' }));
    await expectEveryList();
    // The filter's own label prioritized: left out of the order, the same list.
    const labelId = async (name: string): Promise<number> => ((await s.get(`/projects/${project}/labels`)).body as { id: number; name: string }[]).find((l) => l.name === name)!.id;
    ok(await s.put(`/projects/${project}/labels/${await labelId('bug')}`, { priority: 1 }));
    await expectEveryList();
    // The Guest made a Reporter (sees every confidential issue), then a Guest again: no issue written.
    ok(await s.put(`/projects/${project}/members/${guest.id}`, { access_level: 20 }));
    await expectEveryList();
    ok(await s.put(`/projects/${project}/members/${guest.id}`, { access_level: 10 }));
    await expectEveryList();
    // Another label prioritized: its records first.
    ok(await s.put(`/projects/${project}/labels/${await labelId('feature')}`, { priority: 2 }));
    await expectEveryList();
  });
});
