import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { expectEveryPage, pagedReads, preparedBy, queryPlan } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * labels=a,b and labels=a&not[labels]=b counted from the label pair counters (core/092) instead
 * of walking the rarer title's rows: the counters must equal the pairs the records' own label
 * lists give through every write, and each list's rows, order, X-Total and paging headers must be
 * the records' answer, for a project, its group and the instance, an administrator and a caller
 * who sees no confidential issue; where a record could count twice (a title in two spellings) the
 * list is counted as before.
 */
let s: TestService;
let group: number;
let proj: number;
let sibling: number;
let other: number;
let guestToken = '';
const N = 150;

const at = (minutes: number): string => new Date(Date.UTC(2024, 0, 1) + minutes * 60_000).toISOString();
/** `bug` on every 2nd record, `ux` on every 3rd, `rare` on every 7th. */
const labelsOf = (i: number): string[] => [...(i % 2 === 0 ? ['bug'] : []), ...(i % 3 === 0 ? ['ux'] : []), ...(i % 7 === 0 ? ['rare'] : [])];

beforeAll(async () => {
  s = await TestService.start();
  guestToken = (await s.createUser()).token;
  group = (await s.createGroup({ visibility: 'public' })).id;
  proj = (await s.createProject({ name: 'proj', namespace_id: group, visibility: 'public' })).id;
  sibling = (await s.createProject({ name: 'sibling', namespace_id: group, visibility: 'public' })).id;
  other = (await s.createProject({ name: 'other', visibility: 'public' })).id;
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      const common = { iid: i, title: `Record ${i % 17}`, description: null, authorId: 1, assigneeIds: [], labels: labelsOf(i), createdAt: at(Math.floor(i / 3)), updatedAt: at(500 - (i % 40)), importedFrom: 'none' as const };
      insertImportedIssue(ctx, proj, { ...common, state: i % 4 === 0 ? 'closed' : 'opened', confidential: i % 5 === 0 });
      insertImportedMergeRequest(ctx, proj, { ...common, state: i % 4 === 0 ? 'merged' : 'opened', reviewerIds: [], sourceBranch: `f-${i}`, targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40) });
    }
    for (let i = 1; i <= 12; i++) {
      const common = { iid: i, title: `Sibling ${i}`, description: null, authorId: 1, assigneeIds: [], labels: labelsOf(i + 1), createdAt: at(i * 7), updatedAt: at(i), importedFrom: 'none' as const };
      insertImportedIssue(ctx, sibling, { ...common, state: 'opened', confidential: i === 5 });
      insertImportedIssue(ctx, other, { ...common, state: 'closed', confidential: false });
    }
  })();
}, 120_000);
afterAll(async () => s.stop());

/** Every pair of titles the records' own label lists give, by type, lower-cased titles, project, state and confidentiality. */
function pairsOfRecords(): Record<string, number> {
  const db = s.service.context.db;
  const counted: Record<string, number> = {};
  for (const [type, table] of [['Issue', 'issues'], ['MergeRequest', 'merge_requests']] as const) {
    const rows = db.prepare(`SELECT project_id, state, ${table === 'issues' ? 'confidential' : '0 AS confidential'}, labels FROM ${table}`).all() as { project_id: number; state: string; confidential: number; labels: string }[];
    for (const r of rows) {
      const titles = [...new Set(JSON.parse(r.labels) as string[])].sort();
      for (let i = 0; i < titles.length; i++) {
        for (let j = i + 1; j < titles.length; j++) {
          const key = [type, titles[i].toLowerCase(), titles[j].toLowerCase(), r.project_id, r.state, r.confidential].join('|');
          counted[key] = (counted[key] ?? 0) + 1;
        }
      }
    }
  }
  return counted;
}

/** The pair counters, in the same terms. */
function pairCounters(): Record<string, number> {
  const rows = s.service.context.db
    .prepare('SELECT issuable_type, lower(a) AS a, lower(b) AS b, project_id, state, confidential, sum(n) AS n FROM label_pair_counts GROUP BY 1, 2, 3, 4, 5, 6 HAVING sum(n) != 0')
    .all() as { issuable_type: string; a: string; b: string; project_id: number; state: string; confidential: number; n: number }[];
  return Object.fromEntries(rows.map((r) => [[r.issuable_type, r.a, r.b, r.project_id, r.state, r.confidential].join('|'), r.n]));
}

/** A label title on the record's own JSON list, ASCII case-insensitively. */
const carries = (title: string): string => `EXISTS (SELECT 1 FROM json_each(x.labels) WHERE lower(value) = lower('${title}'))`;

/** The records' answer: their ids, newest first (the list's default order). */
function truth(table: string, projects: number[], where: string, guest: boolean): number[] {
  const visible = guest && table === 'issues' ? ' AND x.confidential = 0' : '';
  return (
    s.service.context.db.prepare(`SELECT x.id FROM ${table} x WHERE x.project_id IN (${projects.join(',')}) AND ${where}${visible} ORDER BY x.created_at DESC, x.id DESC`).all() as { id: number }[]
  ).map((r) => r.id);
}

const CASES: { query: Record<string, string>; where: string }[] = [
  { query: { labels: 'bug,ux' }, where: `${carries('bug')} AND ${carries('ux')}` },
  { query: { labels: 'UX,Bug', state: 'opened' }, where: `${carries('bug')} AND ${carries('ux')} AND x.state = 'opened'` },
  { query: { labels: 'rare,bug' }, where: `${carries('bug')} AND ${carries('rare')}` },
  { query: { labels: 'ux', 'not[labels]': 'bug' }, where: `${carries('ux')} AND NOT ${carries('bug')}` },
  { query: { labels: 'bug', 'not[labels]': 'RARE', state: 'opened' }, where: `${carries('bug')} AND NOT ${carries('rare')} AND x.state = 'opened'` },
  { query: { labels: 'bug,nothing' }, where: '0' },
  { query: { labels: 'nothing', 'not[labels]': 'bug' }, where: '0' },
];

/** Filters labelTitlesList reads with the titles (issues' confidential=) or leaves to the label sets (a branch). */
const MORE_CASES: Record<'issues' | 'merge_requests', { query: Record<string, string>; where: string }[]> = {
  issues: [
    { query: { labels: 'bug,ux', confidential: 'false' }, where: `${carries('bug')} AND ${carries('ux')} AND x.confidential = 0` },
    { query: { labels: 'ux', 'not[labels]': 'bug', confidential: 'true' }, where: `${carries('ux')} AND NOT ${carries('bug')} AND x.confidential = 1` },
    { query: { labels: 'rare', confidential: 'false' }, where: `${carries('rare')} AND x.confidential = 0` },
    { query: { labels: 'bug', confidential: 'true' }, where: `${carries('bug')} AND x.confidential = 1` },
  ],
  merge_requests: [{ query: { labels: 'bug,ux', target_branch: 'main', state: 'opened' }, where: `${carries('bug')} AND ${carries('ux')} AND x.target_branch = 'main' AND x.state = 'opened'` }],
};

/** Every case's every page as the records say: project, group and instance; administrator and guest. */
async function expectEveryCase(): Promise<void> {
  for (const kind of ['issues', 'merge_requests'] as const) {
    for (const c of [...CASES, ...MORE_CASES[kind]]) {
      await expectEveryPage(s, `/projects/${proj}/${kind}`, c.query, truth(kind, [proj], c.where, false), 9);
      await expectEveryPage(s, `/groups/${group}/${kind}`, c.query, truth(kind, [proj, sibling], c.where, false), 9);
      await expectEveryPage(s, `/${kind}`, { ...c.query, scope: 'all' }, truth(kind, [proj, sibling, other], c.where, false), 9);
      if (kind !== 'issues') continue;
      await expectEveryPage(s, `/projects/${proj}/issues`, c.query, truth(kind, [proj], c.where, true), 9, guestToken);
      await expectEveryPage(s, `/groups/${group}/issues`, c.query, truth(kind, [proj, sibling], c.where, true), 9, guestToken);
      await expectEveryPage(s, '/issues', { ...c.query, scope: 'all' }, truth(kind, [proj, sibling, other], c.where, true), 9, guestToken);
    }
  }
}

describe('label pair counters (core/092)', () => {
  it('equal the pairs the records carry, through labels set, added and removed, closes, confidentiality, moves and deletes', async () => {
    expect(pairCounters()).toEqual(pairsOfRecords());
    ok(await s.put(`/projects/${proj}/issues/1`, { labels: 'bug,ux,rare' }));
    ok(await s.put(`/projects/${proj}/issues/2`, { add_labels: 'ux' }));
    ok(await s.put(`/projects/${proj}/issues/6`, { remove_labels: 'bug' }));
    ok(await s.put(`/projects/${proj}/issues/12`, { state_event: 'close' }));
    ok(await s.put(`/projects/${proj}/issues/20`, { state_event: 'reopen' }));
    ok(await s.put(`/projects/${proj}/issues/18`, { confidential: true }));
    ok(await s.put(`/projects/${proj}/issues/30`, { confidential: false }));
    ok(await s.put(`/projects/${proj}/merge_requests/6`, { labels: 'ux' }));
    ok(await s.put(`/projects/${proj}/merge_requests/14`, { state_event: 'close' }));
    ok(await s.post(`/projects/${proj}/issues`, { title: 'New', labels: 'rare,ux,bug' }));
    ok(await s.post(`/projects/${proj}/merge_requests`, { title: 'New', source_branch: 'n', target_branch: 'main', labels: 'bug,rare' }));
    expect((await s.del(`/projects/${proj}/issues/42`)).status).toBe(204);
    // A move between projects (the label rows follow their record's project).
    s.service.context.db.prepare('UPDATE issues SET project_id = ?, iid = 103 WHERE project_id = ? AND iid = 3').run(other, sibling);
    expect(pairCounters()).toEqual(pairsOfRecords());
    await expectEveryCase();
  }, 120_000);

  it('count labels=a,b and labels=a&not[labels]=b from the counters: no row is counted', async () => {
    const db = s.service.context.db;
    for (const path of [`/projects/${proj}/issues`, `/groups/${group}/merge_requests`, '/issues']) {
      for (const query of [{ labels: 'bug,ux' }, { labels: 'ux', 'not[labels]': 'bug', state: 'opened' }] as Record<string, string>[]) {
        const statements = await preparedBy(s, async () => void ok(await s.get(path, { query: { ...query, scope: 'all' } })));
        const where = `${path} ${JSON.stringify(query)}`;
        expect(statements.filter((sql) => /count\(\*\)/.test(sql)), where).toEqual([]);
        const pairs = statements.filter((sql) => /FROM label_pair_counts/.test(sql));
        expect(pairs.length, where).toBe(1);
        // The plan, whatever the values: one null for each parameter.
        const plan = queryPlan(db, pairs[0], ...(pairs[0].match(/\?/g) ?? []).map(() => null));
        expect(plan, where).toMatch(/SEARCH label_pair_counts USING PRIMARY KEY \(issuable_type=\? AND a=\? AND b=\?/);
        expect(plan, where).not.toMatch(/SCAN label_pair_counts/);
      }
    }
  });

  it('read a group\'s or the instance\'s page from the rarer title\'s label rows in order, each record checked, never a set sorted', async () => {
    const db = s.service.context.db;
    for (const kind of ['issues', 'merge_requests']) {
      for (const [path, query] of [
        [`/groups/${group}/${kind}`, { labels: 'bug,rare' }],
        [`/${kind}`, { labels: 'rare', 'not[labels]': 'bug', scope: 'all' }],
        [`/${kind}`, { labels: 'bug,rare', order_by: 'updated_at', sort: 'asc', scope: 'all' }],
      ] as [string, Record<string, string>][]) {
        const reads = await pagedReads(s, async () => void ok(await s.get(path, { query })));
        const where = `${path} ${JSON.stringify(query)}`;
        expect(reads.length, where).toBe(1);
        const plan = queryPlan(db, reads[0].sql, ...reads[0].args);
        expect(plan, where).toMatch(/^SEARCH il USING (COVERING )?INDEX issuable_labels_title_(created|updated) \(issuable_type=\? AND title=\?/);
        expect(plan, where).not.toMatch(/TEMP B-TREE|SCAN/);
        // rare is on fewer records than bug: its rows are walked.
        expect(reads[0].args[0], where).toBe('rare');
      }
    }
  });

  it('in title order, asks the other titles on the rarer title\'s rows before their records are read', async () => {
    const db = s.service.context.db;
    for (const path of [`/projects/${proj}/issues`, `/groups/${group}/merge_requests`]) {
      const reads = await pagedReads(s, async () => void ok(await s.get(path, { query: { labels: 'bug,ux,rare', order_by: 'title' } })));
      expect(reads.length, path).toBe(1);
      // The set's rows (the rarest title's) and, inside the same subquery, the two other titles asked by id.
      const inner = /FROM \(SELECT DISTINCT \+il\.issuable_id AS id (.*?)\) s CROSS JOIN/s.exec(reads[0].sql)?.[1] ?? '';
      expect(inner.match(/EXISTS \(SELECT 1 FROM issuable_labels p /g)?.length, path).toBe(2);
      expect(reads[0].args.slice(0, 3), path).toEqual(['rare', 'bug', 'ux']);
      const plan = queryPlan(db, reads[0].sql, ...reads[0].args);
      // Each title asked by an index seek, before the records are looked up.
      const asked = plan.search(/SEARCH p (EXISTS )?USING (COVERING INDEX issuable_labels_title|PRIMARY KEY) \(issuable_type=\? AND (title=\? AND issuable_id=\?|issuable_id=\? AND title=\?)\)/);
      expect(asked, path).toBeGreaterThan(0);
      expect(asked, path).toBeLessThan(plan.indexOf('SEARCH x USING INTEGER PRIMARY KEY (rowid=?)'));
    }
  });

  it('a project\'s deep pages start from a row an earlier page read while its records are unwritten; every page as the records say', async () => {
    const ctx = s.service.context;
    const deep = (await s.createProject({ name: 'deep', namespace_id: group, visibility: 'public' })).id;
    ctx.db.transaction(() => {
      for (let i = 1; i <= 1_500; i++) {
        const common = { iid: i, title: `Deep ${i}`, description: null, authorId: 1, assigneeIds: [], labels: i % 10 ? ['a', 'b'] : ['a'], createdAt: at(Math.floor(i / 2)), updatedAt: at(3_000 - (i % 70)), importedFrom: 'none' as const };
        insertImportedIssue(ctx, deep, { ...common, state: 'opened', confidential: false });
        insertImportedMergeRequest(ctx, deep, { ...common, state: 'opened', reviewerIds: [], sourceBranch: `d-${i}`, targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40) });
      }
    })();
    for (const kind of ['issues', 'merge_requests'] as const) {
      for (const [query, order] of [
        [{ labels: 'a,b' }, 'x.created_at DESC, x.id DESC'],
        [{ labels: 'b', 'not[labels]': 'x', order_by: 'updated_at', sort: 'asc' }, 'x.updated_at ASC, x.id ASC'],
      ] as [Record<string, string>, string][]) {
        const path = `/projects/${deep}/${kind}`;
        const where = query['not[labels]'] ? `${carries('b')} AND NOT ${carries('x')}` : `${carries('a')} AND ${carries('b')}`;
        const read = async (): Promise<number> => {
          const want = (ctx.db.prepare(`SELECT x.id FROM ${kind} x WHERE x.project_id = ? AND ${where} ORDER BY ${order}`).all(deep) as { id: number }[]).map((r) => r.id);
          const reads = await pagedReads(s, async () => {
            // Pages asked again at another length (a page of the same offset and length is kept whole at the version: SqlList.keptRows).
            for (const [n, per] of [[11, 100], [12, 100], [13, 100], [23, 50], [14, 100], [21, 50]]) {
              const res = await s.get(path, { query: { ...query, per_page: String(per), page: String(n) } });
              expect(res.headers.get('x-total'), path).toBe(String(want.length));
              expect((res.body as { id: number }[]).map((r) => r.id), `${path} ${JSON.stringify(query)} page ${n}`).toEqual(want.slice((n - 1) * per, n * per));
            }
          });
          return reads.filter((r) => /\(il\.(created|updated)_at, il\.issuable_id\) [<>]/.test(r.sql)).length;
        };
        expect(await read(), path).toBeGreaterThan(3);
        // A write to the project's records: the anchors are forgotten, the pages still the records'.
        ctx.db.prepare(`UPDATE ${kind} SET labels = '["a"]' WHERE project_id = ? AND iid = 1450`).run(deep);
        ctx.db.prepare(`UPDATE ${kind} SET created_at = ?, updated_at = ? WHERE project_id = ? AND iid = 300`).run(at(5_000), at(10), deep);
        expect(await read(), path).toBeGreaterThan(3);
      }
    }
  }, 120_000);

  it('reads the titles\' rows, never the records in list order, with a filter labelTitlesList leaves to the label sets', async () => {
    const db = s.service.context.db;
    for (const [path, query] of [
      [`/projects/${proj}/issues`, { labels: 'bug,ux', confidential: 'false' }],
      [`/groups/${group}/issues`, { labels: 'bug,ux', confidential: 'false' }],
      [`/projects/${proj}/issues`, { labels: 'rare', confidential: 'false' }],
      // One rare title over many projects: its set, not the group's records walked in order.
      [`/groups/${group}/issues`, { labels: 'rare' }],
      ['/merge_requests', { labels: 'rare', scope: 'all', order_by: 'title' }],
      [`/projects/${proj}/merge_requests`, { labels: 'bug,ux', target_branch: 'main' }],
      [`/groups/${group}/merge_requests`, { labels: 'bug,ux', target_branch: 'main' }],
    ] as [string, Record<string, string>][]) {
      const reads = await pagedReads(s, async () => void ok(await s.get(path, { query })));
      expect(reads.length, path).toBe(1);
      const plan = queryPlan(db, reads[0].sql, ...reads[0].args);
      // The first table read is a title's label rows (a set's, or labelTitlesList's walk).
      const first = plan.split('\n').find((line) => /^(SEARCH|SCAN) /.test(line));
      expect(first, `${path} ${JSON.stringify(query)}`).toMatch(/^SEARCH il USING (COVERING )?INDEX issuable_labels_/);
      expect(plan, `${path} ${JSON.stringify(query)}`).not.toMatch(/SCAN x|INDEX (issues|merge_requests)_project_created/);
    }
  });

  it('counts as before where a record could count twice: a title in two spellings in the scope', async () => {
    const relabel = s.service.context.db.prepare('UPDATE issues SET labels = ? WHERE project_id = ? AND iid = ?');
    relabel.run('["Bug","bug","ux"]', sibling, 2);
    relabel.run('["BUG","ux"]', sibling, 4);
    expect(pairCounters()).toEqual(pairsOfRecords());
    const path = `/groups/${group}/issues`;
    const statements = await preparedBy(s, async () => void ok(await s.get(path, { query: { labels: 'bug,ux' } })));
    expect(statements.some((sql) => /FROM label_pair_counts/.test(sql))).toBe(false);
    await expectEveryCase();
  }, 120_000);
});
