import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { queryPlan } from '../helpers/lists';
import { rememberedRowsHeld } from '../../src/main/service/db/connection';

// Issue and merge-request pages read their ids in the list's order, and their rows by id from
// memory while core/041's write log names none of them written since (db/written-rows.ts). These
// tests pin that every write to a row, through the API or straight in SQL (the log's triggers see
// both), shows on the next page, each row as its own GET shows it; that a log which no longer
// holds every write since, or a write rolled back, is read right; and that the ids-first reads
// take the plans the row reads took (plans come from a query's shape alone: the same at scale).

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s?.stop());

const db = () => s.service.context.db;
const sql = (text: string, ...args: unknown[]) => db().prepare(text).run(...args);

/** Fields a single merge request's GET adds to the list entity (mergeRequestDetail), and `subscribed` of a single issue. */
const DETAIL_ONLY = new Set([
  'subscribed',
  'changes_count',
  'latest_build_started_at',
  'latest_build_finished_at',
  'first_deployed_to_production_at',
  'pipeline',
  'head_pipeline',
  'diff_refs',
  'merge_error',
  'first_contribution',
  'user',
]);
/** A read of whole rows by id (rowsByIds', through one JSON text: readTableRows; or a list's own). */
const rowsById = (table: string) => (t: string): boolean => new RegExp(`^SELECT ((x\\.)?\\*|json_group_array\\(json_array\\(.*\\)\\) AS page) FROM ${table}( x)? WHERE (x\\.)?id IN`).test(t);
const listed = (own: Record<string, unknown>): string => JSON.stringify(Object.fromEntries(Object.entries(own).filter(([k]) => !DETAIL_ONLY.has(k))));

/** Statements prepared while `work` runs (every read prepares: the cache hands back the same statement). */
async function prepared(work: () => Promise<unknown>): Promise<string[]> {
  const d = db();
  const prepare = d.prepare;
  const seen: string[] = [];
  d.prepare = ((text: string) => (seen.push(text), prepare(text))) as typeof d.prepare;
  try {
    await work();
  } finally {
    d.prepare = prepare;
  }
  return seen;
}

describe.each([
  ['issues', 'issues'],
  ['merge_requests', 'merge_requests'],
] as const)('%s pages with rows remembered by id', (path, table) => {
  let project: any;
  let other: any;
  let reporter: { user: any; token: string };
  let guest: { user: any; token: string };
  let milestone: any;
  const records: any[] = [];
  let touches = 0;

  /** The page, as text, and each row against its own GET. */
  const page = async (query = 'per_page=100', token?: string): Promise<any[]> => {
    const res = await s.get(`/projects/${project.id}/${path}?${query}`, { token });
    expect(res.status).toBe(200);
    expect(res.text).toBe(JSON.stringify(res.body));
    for (const row of res.body) expect(JSON.stringify(row)).toBe(listed(ok(await s.get(`/projects/${project.id}/${path}/${row.iid}`, { token }))));
    return res.body;
  };
  const elsewhere = async (): Promise<void> => void ok(await s.put(`/projects/${other.id}`, { description: `elsewhere ${++touches}` }));
  /** The page read twice, a write elsewhere before each (its rows are remembered, then handed out again), then `change`, a write elsewhere and the page. */
  const after = async (change: () => Promise<unknown> | unknown, query?: string, token?: string): Promise<any[]> => {
    for (let i = 0; i < 2; i++) {
      await elsewhere();
      await page(query, token);
    }
    await change();
    await elsewhere();
    return page(query, token);
  };
  const byIid = (rows: any[], iid: number): any => rows.find((r) => r.iid === iid);

  beforeAll(async () => {
    project = await s.createProject({ visibility: 'private' });
    other = await s.createProject();
    reporter = await s.createUser();
    await s.addMember('projects', project.id, reporter.user.id, 20);
    guest = await s.createUser();
    await s.addMember('projects', project.id, guest.user.id, 10);
    milestone = ok(await s.post(`/projects/${project.id}/milestones`, { title: 'v1' }));
    const bodies: Record<string, unknown>[] = [
      {},
      { assignee_ids: [reporter.user.id], milestone_id: milestone.id, labels: 'bug,ui', description: 'Every part present: ünïcödé \u2028 "quoted"' },
      { description: 'Closed later' },
      { confidential: true },
    ];
    for (const [i, body] of bodies.entries()) {
      const extra = path === 'merge_requests' ? { source_branch: `feature-${i}`, target_branch: 'main' } : {};
      records.push(ok(await s.post(`/projects/${project.id}/${path}`, { title: `Record ${i}`, ...extra, ...body })));
    }
    ok(await s.put(`/projects/${project.id}/${path}/${records[2].iid}`, { state_event: 'close' }));
  });

  it('reads an unchanged page by ids alone after a write elsewhere', async () => {
    // Two of the four records a page; a write to a record off the page moves the list's version (the page is not kept
    // whole), so its ids are read again and its rows come from memory.
    const twoNewest = (): ReturnType<typeof s.get> => s.get(`/projects/${project.id}/${path}?per_page=2`);
    await elsewhere();
    await page('per_page=2');
    sql(`UPDATE ${table} SET title = ? WHERE id = ?`, 'Only this one', records[0].id);
    const statements = await prepared(twoNewest);
    expect(statements.some((t) => t.startsWith(`SELECT x.id AS id FROM ${table} x`))).toBe(true);
    expect(statements.filter(rowsById(table))).toEqual([]);
    // One row of the page written: that row alone is read again.
    sql(`UPDATE ${table} SET title = ? WHERE id = ?`, 'Newest retitled', records[3].id);
    const again = await prepared(twoNewest);
    expect(again.filter(rowsById(table))).toHaveLength(1);
    expect(byIid(await page('per_page=2'), records[3].iid).title).toBe('Newest retitled');
    expect(byIid(await page(), records[0].iid).title).toBe('Only this one');
  });

  it('shows every column written in SQL without updated_at, for the administrator and a Reporter', async () => {
    const changes: [string, unknown, (row: any) => unknown, unknown][] = [
      ['title', 'Retitled in SQL', (r) => r.title, 'Retitled in SQL'],
      ['description', 'Described in SQL', (r) => r.description, 'Described in SQL'],
      ['labels', '["sql-label"]', (r) => r.labels, ['sql-label']],
      ['discussion_locked', 1, (r) => r.discussion_locked, true],
      ['milestone_id', null, (r) => r.milestone, null],
      ['imported_from', 'github', (r) => r.imported_from, 'github'],
    ];
    for (const [column, value, read, shown] of changes) {
      for (const token of [undefined, reporter.token]) {
        const target = records[1];
        const before = (db().prepare(`SELECT ${column} AS v FROM ${table} WHERE id = ?`).get(target.id) as { v: unknown }).v;
        const rows = await after(() => sql(`UPDATE ${table} SET ${column} = ? WHERE id = ?`, value, target.id), 'per_page=100', token);
        expect(read(byIid(rows, target.iid)), column).toEqual(shown);
        sql(`UPDATE ${table} SET ${column} = ? WHERE id = ?`, before, target.id);
      }
    }
  });

  it('shows writes through the API, rows that leave and join the list, and confidentiality to a Guest', async () => {
    let rows = await after(() => s.put(`/projects/${project.id}/${path}/${records[0].iid}`, { title: 'Through the API', labels: 'api' }));
    expect(byIid(rows, records[0].iid)).toMatchObject({ title: 'Through the API', labels: ['api'] });
    rows = await after(() => sql(`DELETE FROM ${table} WHERE id = ?`, records[2].id));
    expect(byIid(rows, records[2].iid)).toBeUndefined();
    const extra = path === 'merge_requests' ? { source_branch: 'feature-new', target_branch: 'main' } : {};
    let added: any;
    rows = await after(async () => (added = ok(await s.post(`/projects/${project.id}/${path}`, { title: 'Joined', ...extra }))));
    expect(rows[0].iid).toBe(added.iid);
    // Made confidential in SQL (issues): a Guest no longer sees it; the administrator does.
    if (path === 'issues') {
      rows = await after(() => sql('UPDATE issues SET confidential = 1 WHERE id = ?', added.id), 'per_page=100', guest.token);
      expect(byIid(rows, added.iid)).toBeUndefined();
      expect(byIid(await page(), added.iid).confidential).toBe(true);
    }
    // Moved to another project in SQL: gone from this page.
    rows = await after(() => sql(`UPDATE ${table} SET project_id = ? WHERE id = ?`, other.id, added.id));
    expect(byIid(rows, added.iid)).toBeUndefined();
  });

  it('reads the rows again when the log no longer holds every write since, and keeps a rolled-back write out', async () => {
    await elsewhere();
    await page();
    // The change, then more writes than the log keeps (1,000) to another record: its entry is gone.
    sql(`UPDATE ${table} SET title = ? WHERE id = ?`, 'Before the log turned over', records[1].id);
    const stmt = db().prepare(`UPDATE ${table} SET title = title WHERE id = ?`);
    db().transaction(() => {
      for (let i = 0; i < 1_001; i++) stmt.run(records[0].id);
    })();
    await elsewhere();
    expect(byIid(await page(), records[1].iid).title).toBe('Before the log turned over');
    // A write inside a transaction that rolls back: the page reads as before, and the next real write shows.
    expect(() =>
      db().transaction(() => {
        sql(`UPDATE ${table} SET title = ? WHERE id = ?`, 'Rolled back', records[1].id);
        throw new Error('roll back');
      })(),
    ).toThrow('roll back');
    await elsewhere();
    expect(byIid(await page(), records[1].iid).title).toBe('Before the log turned over');
    sql(`UPDATE ${table} SET title = ? WHERE id = ?`, 'After the rollback', records[1].id);
    await elsewhere();
    expect(byIid(await page(), records[1].iid).title).toBe('After the rollback');
  });

  it("a label's page (read from the label rows) takes rows from memory too, and shows a row written in SQL", async () => {
    ok(await s.put(`/projects/${project.id}/${path}/${records[3].iid}`, { labels: 'paged' }));
    const labelled = async (query = ''): Promise<any> => {
      const res = await s.get(`/projects/${project.id}/${path}?labels=paged${query}`);
      expect(res.status).toBe(200);
      expect(res.body.map((r: any) => r.iid)).toEqual([records[3].iid]);
      expect(JSON.stringify(res.body[0])).toBe(listed(ok(await s.get(`/projects/${project.id}/${path}/${records[3].iid}`))));
      return res.body[0];
    };
    await elsewhere();
    await labelled();
    await elsewhere();
    // Another page length: the same page is kept whole; this one reads the label rows, its rows from memory.
    const statements = await prepared(() => labelled('&per_page=19'));
    expect(statements.some((t) => t.includes('FROM issuable_labels il INDEXED BY'))).toBe(true);
    expect(statements.filter(rowsById(table))).toEqual([]);
    sql(`UPDATE ${table} SET title = ? WHERE id = ?`, 'Labelled and retitled', records[3].id);
    await elsewhere();
    expect((await labelled()).title).toBe('Labelled and retitled');
  });

  it('pages in every order and size read the same rows as the list in SQL', async () => {
    const all = (await page('per_page=100&order_by=created_at&sort=asc')).map((r) => r.iid);
    expect(all).toEqual([...all].sort((a, b) => a - b));
    for (const query of ['per_page=1&page=2', 'per_page=2&page=2&sort=asc', 'order_by=title&per_page=2', 'order_by=updated_at&per_page=3&page=1', 'state=opened', 'labels=api']) {
      await elsewhere();
      const res = await s.get(`/projects/${project.id}/${path}?${query}`);
      expect(res.status).toBe(200);
      await elsewhere();
      const again = await s.get(`/projects/${project.id}/${path}?${query}`);
      expect(again.text).toBe(res.text);
      for (const h of ['x-total', 'x-total-pages', 'x-next-page', 'x-prev-page', 'link']) expect(again.headers.get(h)).toBe(res.headers.get(h));
    }
  });
});

describe('ids-first list reads', () => {
  it("hold a page's counts (notes, thumbs) once, by the page's lookup, not as the statement's answer too", async () => {
    const project = await s.createProject();
    // 41 issues: the oldest alone on page 3, the next 20 (page 2 of 20) plain, the newest 20 (page 1) each with a note and a thumbs up.
    const issues: any[] = [];
    for (let i = 0; i < 41; i++) issues.push(ok(await s.post(`/projects/${project.id}/issues`, { title: `Counted ${i}` })));
    for (const issue of issues.slice(21)) {
      ok(await s.post(`/projects/${project.id}/issues/${issue.iid}/notes`, { body: 'A note' }));
      ok(await s.post(`/projects/${project.id}/issues/${issue.iid}/award_emoji`, { name: 'thumbsup' }));
    }
    const list = async (query: string): Promise<any[]> => {
      const res = await s.get(`/projects/${project.id}/issues?${query}`);
      expect(res.status).toBe(200);
      return res.body;
    };
    // Every row, count and lookup but the pages of 20's counts read once first.
    for (let page = 1; page <= 5; page++) await list(`per_page=10&page=${page}`);
    const held = async (query: string): Promise<{ rows: any[]; held: number }> => {
      const before = rememberedRowsHeld(db());
      const rows = await list(query);
      return { rows, held: rememberedRowsHeld(db()) - before };
    };
    const counted = await held('per_page=20&page=1');
    const plain = await held('per_page=20&page=2');
    expect(counted.rows.map((r) => [r.iid, r.user_notes_count, r.upvotes])).toEqual(issues.slice(21).reverse().map((i) => [i.iid, 1, 1]));
    expect(plain.rows.map((r) => [r.iid, r.user_notes_count, r.upvotes])).toEqual(issues.slice(1, 21).reverse().map((i) => [i.iid, 0, 0]));
    // The same statements held the same rows for both pages: none of the 40 rows of the first's counts.
    expect(counted.held).toBe(plain.held);
  });

  it("read the write log's entries since a page's rows by the log's sequence, not every entry of the type", async () => {
    const group = await s.createGroup();
    const project = await s.createProject({ namespace_id: group.id, initialize_with_readme: true });
    const issue = ok(await s.post(`/projects/${project.id}/issues`, { title: 'Logged crash' }));
    const mr = ok(await s.post(`/projects/${project.id}/merge_requests`, { title: 'Logged crash', source_branch: 'logged', target_branch: 'main' }));
    const statements = await prepared(async () => {
      for (let i = 0; i < 2; i++) {
        ok(await s.put(`/projects/${project.id}/issues/${issue.iid}`, { description: `written ${i}` }));
        ok(await s.put(`/projects/${project.id}/merge_requests/${mr.iid}`, { description: `written ${i}` }));
        for (const kind of ['issues', 'merge_requests'])
          for (const base of [`/projects/${project.id}/${kind}`, `/groups/${group.id}/${kind}`, `/${kind}`]) {
            await s.get(base);
            await s.get(`${base}?search=crash`);
          }
      }
    });
    const reads = [...new Set(statements.filter((t) => /FROM issuable_list_writes WHERE seq > \?/.test(t)))];
    // rowsByIds' (db/written-rows.ts) for each type; and the statement a remembered search walk over
    // many projects reads its records written since with (workitems.ts, written as it is there).
    expect(reads.length).toBeGreaterThanOrEqual(2);
    reads.push('SELECT issuable_id AS id FROM issuable_list_writes WHERE seq > ? AND +issuable_type = ? LIMIT 201');
    for (const text of reads) {
      const plan = queryPlan(db(), text, ...new Array((text.match(/\?/g) ?? []).length).fill(1));
      expect(plan, text).toBe('SEARCH issuable_list_writes USING INTEGER PRIMARY KEY (rowid>?)');
    }
  });

  it('take the plan the row reads take (a covering index aside), for every scope, filter and order', async () => {
    const group = await s.createGroup();
    const project = await s.createProject({ namespace_id: group.id });
    const viewer = await s.createUser();
    await s.addMember('projects', project.id, viewer.user.id, 10);
    const queries = ['', 'per_page=100', 'page=3', 'state=opened', 'state=closed', 'labels=bug', 'state=opened&labels=bug', 'author_id=1', 'milestone=v1', 'order_by=updated_at&sort=asc', 'order_by=title', 'sort=asc', 'confidential=true', 'assignee_id=1', 'not[labels]=bug'];
    const statements = await prepared(async () => {
      for (const kind of ['issues', 'merge_requests'])
        for (const base of [`/projects/${project.id}/${kind}`, `/groups/${group.id}/${kind}`, `/${kind}`])
          for (const q of queries) for (const token of [undefined, viewer.token]) await s.get(`${base}?${q}`, { token });
    });
    const idsFirst = [...new Set(statements.filter((t) => /^SELECT x\.id AS id FROM (issues|merge_requests) x /.test(t)))];
    expect(idsFirst.length).toBeGreaterThan(20);
    const plan = (text: string): string =>
      queryPlan(db(), text, ...new Array((text.match(/\?/g) ?? []).length).fill(1)).replaceAll('COVERING INDEX', 'INDEX');
    const differ = idsFirst
      .map((text) => ({ text, ids: plan(text), rows: plan(text.replace(/^SELECT x\.id AS id/, 'SELECT x.*')) }))
      .filter((p) => p.ids !== p.rows)
      // A sort the index cannot give: the ids read its order's values from the index that holds them, the rows from the table.
      .filter((p) => !(p.ids.includes('USE TEMP B-TREE FOR ORDER BY') && p.rows.includes('USE TEMP B-TREE FOR ORDER BY')));
    expect(differ).toEqual([]);
  });
});
