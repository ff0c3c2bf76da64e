import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { statementReads } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * A project's list whose SQL reads only its records (their own columns, label rows, a milestone's
 * title) and tables with versions keeps a page's rows at the project's list version and those
 * versions (SqlList.keptRows, workitems.ts scopePageKept): after a write elsewhere the page reads
 * none of its rows again; after any write to one of the project's records, or a milestone's new
 * title, it shows the list as its records say (ids, the fields the rows show, X-Total).
 */
let s: TestService;
let project: number;
let other: number;
let milestone: number;
let author: number;
const N = 60;
const at = (i: number): string => new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString();

beforeAll(async () => {
  s = await TestService.start();
  project = (await s.createProject({ name: 'rows-at', visibility: 'public' })).id;
  other = (await s.createProject({ name: 'rows-at-other', visibility: 'public' })).id;
  milestone = ok(await s.post(`/projects/${project}/milestones`, { title: 'v1' })).id;
  author = (await s.createUser()).user.id;
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      const common = {
        iid: i,
        title: i % 3 === 0 ? `Report ${i}` : `Task ${(i * 7) % 50}`,
        description: null,
        state: i % 4 === 0 ? ('closed' as const) : ('opened' as const),
        authorId: i % 2 ? 1 : author,
        labels: i % 3 === 1 ? [] : ['bug'],
        milestoneId: i % 2 ? milestone : null,
        createdAt: at(i),
        // Updated in another order than created.
        updatedAt: at((i * 37) % N),
        importedFrom: 'none',
      };
      insertImportedIssue(ctx, project, { ...common, confidential: false });
      insertImportedMergeRequest(ctx, project, { ...common, sourceBranch: `b-${i}`, targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40) });
    }
  })();
}, 60_000);
afterAll(async () => s.stop());

const SHAPES: Record<string, string>[] = [
  {},
  { labels: 'bug' },
  { state: 'opened', labels: 'bug' },
  { author_id: '1' },
  { search: 'task' },
  { updated_after: at(10) },
  { order_by: 'updated_at', created_before: at(50) },
  { order_by: 'title', sort: 'asc' },
  { milestone: 'v1' },
  { labels: 'bug', state: 'opened', sort: 'asc' },
];

const kinds = ['issues', 'merge_requests'] as const;

interface Row { id: number; title: string; state: string; author_id: number; labels: string; milestone_id: number | null; created_at: string; updated_at: string }

/** The list `shape` asks for, from the records themselves: ids in order, and the fields a page shows of them. */
function expected(kind: (typeof kinds)[number], shape: Record<string, string>): Row[] {
  const db = s.service.context.db;
  const v1 = (db.prepare("SELECT id FROM milestones WHERE project_id = ? AND title = 'v1'").get(project) as { id: number } | undefined)?.id;
  let rows = db.prepare(`SELECT * FROM ${kind} WHERE project_id = ?`).all(project) as Row[];
  rows = rows.filter(
    (r) =>
      (!shape.state || r.state === shape.state) &&
      (!shape.labels || (JSON.parse(r.labels) as string[]).includes(shape.labels)) &&
      (!shape.author_id || r.author_id === Number(shape.author_id)) &&
      (!shape.search || r.title.toLowerCase().includes(shape.search)) &&
      (!shape.updated_after || r.updated_at >= shape.updated_after) &&
      (!shape.created_before || r.created_at <= shape.created_before) &&
      (!shape.milestone || (v1 !== undefined && r.milestone_id === v1)),
  );
  const col = (shape.order_by ?? 'created_at') as 'created_at' | 'updated_at' | 'title';
  const dir = shape.sort === 'asc' ? 1 : -1;
  return rows.sort((a, b) => (a[col] < b[col] ? -dir : a[col] > b[col] ? dir : (a.id - b.id) * dir));
}

/** The kept page (5 rows, page 2) of each shape against its records: ids, the fields the rows show, X-Total. */
async function expectKept(kind: (typeof kinds)[number], label: string): Promise<void> {
  for (const shape of SHAPES) {
    const what = `${kind} ${JSON.stringify(shape)} ${label}`;
    const res = await s.get(`/projects/${project}/${kind}`, { query: { ...shape, per_page: '5', page: '2' } });
    expect(res.status, what).toBe(200);
    const want = expected(kind, shape);
    const shown = (r: any) => [r.id, r.title, r.state, r.updated_at, [...r.labels].sort().join(), r.milestone?.id ?? null];
    expect(res.body.map(shown), what).toEqual(want.slice(5, 10).map((r) => [r.id, r.title, r.state, r.updated_at, (JSON.parse(r.labels) as string[]).sort().join(), r.milestone_id]));
    expect(res.headers.get('x-total'), what).toBe(String(want.length));
  }
}

/** The statements that read a page's rows (by LIMIT and OFFSET, or by id from a list of them) while `fn` ran. */
const rowReads = (fn: () => Promise<unknown>) => statementReads(s, (sql) => /OFFSET \?$/.test(sql) || /\bjson_each\(\?\)/.test(sql), fn);

describe("a project's list pages kept at its list version", () => {
  it('read no row again after a write elsewhere', async () => {
    for (const kind of kinds) {
      for (const shape of SHAPES) ok(await s.get(`/projects/${project}/${kind}`, { query: { ...shape, per_page: '5', page: '2' } }));
      ok(await s.put(`/projects/${other}`, { description: `elsewhere ${kind}` }));
      const reads = await rowReads(async () => {
        for (const shape of SHAPES) ok(await s.get(`/projects/${project}/${kind}`, { query: { ...shape, per_page: '5', page: '2' } }));
      });
      expect(reads.map((r) => r.sql), kind).toEqual([]);
    }
  });

  it('keep a page asked between reads of more pages than their bound: the least recently asked go first', async () => {
    // Thirty other pages (per_page 2), the kept page asked again after every five, each time after
    // a write elsewhere (so the answer itself is not kept): it is never read again. Clearing every
    // kept page at the bound (20) read it again after the twentieth.
    const hot = () => s.get(`/projects/${project}/issues`, { query: { per_page: '5', page: '2' } });
    const want = expected('issues', {}).map((r) => r.id);
    ok(await hot());
    for (let i = 1; i <= 30; i++) {
      const res = ok(await s.get(`/projects/${project}/issues`, { query: { per_page: '2', page: String(i) } }));
      expect(res.map((r: { id: number }) => r.id)).toEqual(want.slice(2 * (i - 1), 2 * i));
      if (i % 5) continue;
      ok(await s.put(`/projects/${other}`, { description: `between pages ${i}` }));
      const reads = await rowReads(async () => expect(ok(await hot()).map((r: { id: number }) => r.id)).toEqual(want.slice(5, 10)));
      expect(reads.map((r) => r.sql), `after ${i} pages`).toEqual([]);
    }
  });

  it("show every write to the project's records, and a milestone's new title, as its records say", async () => {
    const sql = s.service.context.db;
    for (const kind of kinds) {
      const path = `/projects/${project}/${kind}`;
      const one = kind === 'issues' ? 'issues' : 'merge_requests';
      await expectKept(kind, 'first');
      const writes: [string, () => Promise<unknown>][] = [
        ['a title', async () => ok(await s.put(`${path}/7`, { title: 'Task renamed' }))],
        ['a label removed', async () => ok(await s.put(`${path}/8`, { remove_labels: 'bug' }))],
        ['a label added', async () => ok(await s.put(`${path}/10`, { add_labels: 'bug' }))],
        ['closed', async () => ok(await s.put(`${path}/9`, { state_event: 'close' }))],
        ['a milestone unset', async () => ok(await s.put(`${path}/11`, { milestone_id: 0 }))],
        ['created', async () => ok(await s.post(path, { title: 'Task new', labels: 'bug', milestone_id: milestone, ...(kind === 'issues' ? {} : { source_branch: 'new', target_branch: 'main' }) }))],
        ['updated_at in SQL', async () => sql.prepare(`UPDATE ${one} SET updated_at = ? WHERE project_id = ? AND iid = 12`).run(at(N + 5), project)],
        ['a title in SQL', async () => sql.prepare(`UPDATE ${one} SET title = 'Aaa task' WHERE project_id = ? AND iid = 13`).run(project)],
        ['deleted', async () => sql.prepare(`DELETE FROM ${one} WHERE project_id = ? AND iid = 14`).run(project)],
        ["the milestone's title", async () => ok(await s.put(`/projects/${project}/milestones/${milestone}`, { title: `v1-${kind}` }))],
        ['the title back', async () => ok(await s.put(`/projects/${project}/milestones/${milestone}`, { title: 'v1' }))],
      ];
      for (const [label, write] of writes) {
        await write();
        await expectKept(kind, `after ${label}`);
      }
    }
  });
});

describe("a common term's search kept at the project's list version", () => {
  // `task` in three titles of five: a walk of the full-text index in the list's order (searchWalkRows).
  const M = 1_500;
  let busy: number;
  beforeAll(async () => {
    busy = (await s.createProject({ name: 'rows-at-search', visibility: 'public' })).id;
    const ctx = s.service.context;
    ctx.db.transaction(() => {
      for (let i = 1; i <= M; i++) {
        const common = { iid: i, title: i % 5 < 2 ? `Report ${i}` : `Task ${i}`, description: null, state: 'opened' as const, authorId: 1, labels: i % 10 ? ['bug'] : [], createdAt: at(i), updatedAt: at(i), importedFrom: 'none' };
        insertImportedIssue(ctx, busy, { ...common, confidential: false });
        insertImportedMergeRequest(ctx, busy, { ...common, sourceBranch: `s-${i}`, targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40) });
      }
    })();
  }, 60_000);

  /** The matches in the list's order, from the records. */
  const matches = (kind: (typeof kinds)[number], labels: boolean): number[] =>
    (s.service.context.db.prepare(`SELECT id, labels FROM ${kind} WHERE project_id = ? AND lower(title) LIKE '%task%' ORDER BY created_at DESC, id DESC`).all(busy) as { id: number; labels: string }[])
      .filter((r) => !labels || (JSON.parse(r.labels) as string[]).includes('bug'))
      .map((r) => r.id);

  it('reads no row again after a write elsewhere, and shows a title written in or out of the term', async () => {
    for (const kind of kinds) {
      for (const query of [{ search: 'task' }, { search: 'task', labels: 'bug' }] as Record<string, string>[]) {
        const page = async (): Promise<number[]> => {
          const res = await s.get(`/projects/${busy}/${kind}`, { query: { ...query, page: '3' } });
          expect(res.status).toBe(200);
          return res.body.map((r: { id: number }) => r.id);
        };
        const want = (): number[] => matches(kind, !!query.labels).slice(40, 60);
        expect(await page()).toEqual(want());
        ok(await s.put(`/projects/${other}`, { description: `search ${kind} ${JSON.stringify(query)}` }));
        const reads = await rowReads(async () => expect(await page()).toEqual(want()));
        expect(reads.map((r) => r.sql), kind).toEqual([]);
        // A match on the page leaves the term; a record before the page joins it.
        const out = want()[5];
        s.service.context.db.prepare(`UPDATE ${kind} SET title = 'Report out' WHERE id = ?`).run(out);
        expect(await page()).toEqual(want());
        const before = (s.service.context.db.prepare(`SELECT id FROM ${kind} WHERE project_id = ? AND title LIKE 'Report %' ORDER BY created_at DESC LIMIT 1`).get(busy) as { id: number }).id;
        ok(await s.put(`/projects/${busy}/${kind}/${(s.service.context.db.prepare(`SELECT iid FROM ${kind} WHERE id = ?`).get(before) as { iid: number }).iid}`, { title: 'Task joined' }));
        expect(await page()).toEqual(want());
      }
    }
  });
});
