import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, TestService } from '../helpers/service';
import { expectEveryPage, queryPlan, statementReads } from '../helpers/lists';
import { FILTERED_WALK, ORDER_WALK_LIMITS } from '../../src/main/service/areas/core/order-walk';

/**
 * A computed order's list with other filters and a required label title (order-walk.ts filteredWalk,
 * workitems.ts labelRowsFallback): when the walk of the ids falls short of the page, the rarest
 * title's label rows are read in issuable_id order (issuable_labels_title), each record's other
 * filters checked, instead of every match sorted by id, when those rows are fewer than the records
 * the filter counters give for the sort (scope, state, author, milestone=None) and the list has no
 * other filter. Every page and its headers as the ORDER BY sort answers them (FILTERED_WALK.filtered
 * = false), with the walk's span lowered so that it always falls short.
 */
let s: TestService;
let group: number;
let alpha: number;
let beta: number;
let root: number;
let voter: { user: { id: number }; token: string };

beforeAll(async () => {
  s = await TestService.start();
  root = ok(await s.get('/user')).id;
  voter = await s.createUser();
  group = ok(await s.post('/groups', { name: 'lw', path: 'lw', visibility: 'public' })).id;
  alpha = ok(await s.post('/projects', { name: 'alpha', namespace_id: group, visibility: 'public' })).id;
  beta = ok(await s.post('/projects', { name: 'beta', namespace_id: group, visibility: 'public' })).id;
  await s.addMember('groups', group, voter.user.id, 30);
  // A group label and a project label of one title in two spellings: a record may carry both (two label rows).
  ok(await s.post(`/groups/${group}/labels`, { name: 'Bug', color: '#ff0000' }));
  ok(await s.post(`/projects/${alpha}/labels`, { name: 'bug', color: '#00ff00' }));
  const milestone = ok(await s.post(`/projects/${alpha}/milestones`, { title: 'm1', due_date: '2026-03-01' })).id as number;
  for (let n = 0; n < 30; n++) {
    const project = n % 3 ? alpha : beta;
    const labels = [['bug'], ['Bug'], ['bug', 'Bug', 'other'], ['other'], []][n % 5].join(',');
    const due = n % 4 === 1 ? { due_date: ['2026-02-01', '2026-01-10'][n % 2] } : {};
    const issue = ok(await s.post(`/projects/${project}/issues`, { title: `issue ${n}`, labels, ...due, ...(n % 6 === 0 && project === alpha ? { milestone_id: milestone } : {}) }));
    const mr = ok(await s.post(`/projects/${project}/merge_requests`, { title: `mr ${n}`, labels, source_branch: `b${n}`, target_branch: 'main' }));
    for (const [kind, record] of [['issues', issue], ['merge_requests', mr]] as const) {
      const base = `/projects/${project}/${kind}/${record.iid}`;
      if (n % 3 === 1) ok(await s.post(`${base}/award_emoji`, { name: 'thumbsup' }, { token: voter.token }));
      if (n % 7 === 2) ok(await s.put(base, { state_event: 'close' }));
    }
  }
  // Another author's few records with the title: their list has fewer records than the title has rows.
  for (let n = 0; n < 3; n++) {
    ok(await s.post(`/projects/${alpha}/issues`, { title: `voter issue ${n}`, labels: 'bug' }, { token: voter.token }));
    ok(await s.post(`/projects/${alpha}/merge_requests`, { title: `voter mr ${n}`, labels: 'bug', source_branch: `v${n}`, target_branch: 'main' }, { token: voter.token }));
  }
}, 180_000);
afterAll(async () => s?.stop());

const LABEL_ROWS_READ = 'FROM issuable_labels il INDEXED BY issuable_labels_title CROSS JOIN';

const sorted = async (path: string, query: Record<string, string>): Promise<number[]> => {
  FILTERED_WALK.filtered = false;
  try {
    const res = await s.get(path, { query: { ...query, per_page: '100' } });
    expect(res.status).toBe(200);
    return (res.body as { id: number }[]).map((r) => r.id);
  } finally {
    FILTERED_WALK.filtered = true;
  }
};

/** Every page of the list as the sort answers it, the walk falling short at every page; the label-row reads. */
async function labelRowReads(path: string, query: Record<string, string>): Promise<{ sql: string; args: unknown[] }[]> {
  const want = await sorted(path, query);
  Object.assign(FILTERED_WALK, { span: 1, spanPerRow: 0 });
  try {
    return await statementReads(s, (sql) => sql.includes(LABEL_ROWS_READ), () => expectEveryPage(s, path, query, want, 3));
  } finally {
    Object.assign(FILTERED_WALK, { span: 20_000, spanPerRow: 8 });
  }
}

describe('filtered walk: a required label title', () => {
  it("a walk that falls short reads the title's label rows in id order (no sort), every page as the ORDER BY sort answers it", async () => {
    const lists: [string, string, Record<string, string>][] = [
      ['issues', '/issues', { scope: 'all' }],
      ['issues', `/groups/${group}/issues`, {}],
      ['issues', `/projects/${alpha}/issues`, {}],
      ['merge_requests', '/merge_requests', { scope: 'all' }],
      ['merge_requests', `/groups/${group}/merge_requests`, {}],
    ];
    const filters: Record<string, string>[] = [{ labels: 'bug' }, { labels: 'BUG', state: 'opened' }, { labels: 'bug', author_id: '' }, { labels: 'bug', search: 'issue 1' }, { labels: 'bug', milestone: 'None' }];
    const orders = { issues: ['relative_position', 'popularity', 'due_date'], merge_requests: ['popularity'] } as Record<string, string[]>;
    let compared = 0;
    const reads: { sql: string; args: unknown[] }[] = [];
    for (const [kind, path, extra] of lists) {
      for (const order of orders[kind]) {
        // due_date is walked in id order over many projects with a date bound or an author.
        for (const filter of order === 'due_date' ? [{ labels: 'bug', created_after: '2000-01-01T00:00:00Z' }, { labels: 'bug', author_id: '' }] : filters) {
          for (const sort of ['asc', 'desc'] as const) {
            const query = { ...extra, ...filter, order_by: order, sort, ...(filter.author_id === '' ? { author_id: String(root) } : {}) };
            reads.push(...(await labelRowReads(path, query)));
            compared += (await sorted(path, query)).length;
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(300);
    // The title's rows read, for both types and every order; each in the index's id order, the record by its id, no sort.
    expect(reads.length).toBeGreaterThan(50);
    for (const type of ['Issue', 'MergeRequest']) expect(reads.some((r) => r.sql.includes(`il.issuable_type = '${type}'`))).toBe(true);
    for (const read of reads.slice(0, 10)) {
      const plan = queryPlan(s.service.context.db, read.sql, ...read.args);
      expect(plan).toMatch(/SEARCH il USING COVERING INDEX issuable_labels_title \(issuable_type=\? AND title=\?/);
      expect(plan).toMatch(/SEARCH x USING INTEGER PRIMARY KEY \(rowid=\?\)/);
      expect(plan).not.toMatch(/TEMP B-TREE/);
    }
  }, 600_000);

  it('several titles (required, not): the rarest required title\'s rows are read', async () => {
    // `other` (12 rows) is rarer than bug (24 rows, some records carrying both spellings).
    for (const [path, extra] of [['/issues', { scope: 'all', order_by: 'relative_position' }], [`/groups/${group}/merge_requests`, { order_by: 'popularity' }]] as const) {
      for (const sort of ['asc', 'desc']) {
        const both = await labelRowReads(path, { ...extra, sort, labels: 'bug,other' });
        expect(both.length).toBeGreaterThan(0);
        expect(both.every((r) => r.args[0] === 'other')).toBe(true);
        const without = await labelRowReads(path, { ...extra, sort, labels: 'Bug', 'not[labels]': 'other', milestone: 'None' });
        expect(without.length).toBeGreaterThan(0);
        expect(without.every((r) => r.args[0] === 'Bug')).toBe(true);
      }
    }
  }, 120_000);

  it("the list's matches are sorted when the title has more rows than the records the sort reads, or another filter narrows them", async () => {
    // The voter's 3 records with bug against bug's 27 rows: their few records read and sorted.
    for (const [path, extra] of [['/issues', { scope: 'all', order_by: 'relative_position' }], [`/projects/${alpha}/issues`, { order_by: 'popularity' }], ['/merge_requests', { scope: 'all', order_by: 'popularity' }]] as const) {
      for (const sort of ['asc', 'desc']) {
        expect(await labelRowReads(path, { ...extra, sort, labels: 'bug', author_id: String(voter.user.id) })).toEqual([]);
        // A search (read by its own index): not sized by the counters.
        expect(await labelRowReads(path, { ...extra, sort, labels: 'bug', search: 'voter' })).toEqual([]);
      }
    }
    // The same lists by root, whose records outnumber bug's rows: read by the title's rows.
    expect((await labelRowReads('/issues', { scope: 'all', order_by: 'relative_position', labels: 'bug', author_id: String(root) })).length).toBeGreaterThan(0);
  }, 120_000);

  it("a list read through its label set (idSetLists' page) is sorted at once, not first read in a window of ids that reads the whole set too", async () => {
    const setRead = (sql: string): boolean => sql.startsWith('SELECT x.id AS id FROM (SELECT DISTINCT') && / OFFSET \?$/.test(sql);
    const lists: [string, Record<string, string>][] = [
      [`/projects/${alpha}/merge_requests`, { labels: 'bug,other', milestone: 'None', order_by: 'popularity' }],
      [`/projects/${alpha}/issues`, { labels: 'bug,other', milestone: 'None', order_by: 'relative_position' }],
    ];
    let setReads = 0;
    for (const [path, list] of lists) {
      for (const sort of ['asc', 'desc']) {
        const query = { ...list, sort };
        const want = await sorted(path, query);
        expect(want.length).toBeGreaterThan(2);
        Object.assign(FILTERED_WALK, { span: 1, spanPerRow: 0 });
        try {
          for (let page = 1; page <= Math.ceil(want.length / 2); page++) {
            let res: Awaited<ReturnType<typeof s.get>> | undefined;
            const reads = await statementReads(s, setRead, async () => void (res = await s.get(path, { query: { ...query, per_page: '2', page: String(page) } })));
            const what = `${path} ${JSON.stringify(query)} page ${page}`;
            expect((res!.body as { id: number }[]).map((r) => r.id), what).toEqual(want.slice((page - 1) * 2, page * 2));
            // At most one read of the set, in the order's sort (a window of ids is where a walk of the records starts, not a set's read).
            expect(reads.length, what).toBeLessThanOrEqual(1);
            expect(reads.filter((r) => /x\.id [<>] \?/.test(r.sql)), what).toEqual([]);
            setReads += reads.length;
          }
        } finally {
          Object.assign(FILTERED_WALK, { span: 20_000, spanPerRow: 8 });
        }
      }
    }
    expect(setReads).toBeGreaterThan(3);
  }, 120_000);

  it("deep pages start at the title's rows' anchors, which writes to the records and their labels let go", async () => {
    const lists: [string, Record<string, string>][] = [
      ['/issues', { scope: 'all', order_by: 'relative_position', labels: 'bug', state: 'opened' }],
      [`/projects/${alpha}/issues`, { order_by: 'popularity', labels: 'bug' }],
      [`/groups/${group}/merge_requests`, { order_by: 'popularity', labels: 'bug', sort: 'asc' }],
    ];
    const anchored: { sql: string; args: unknown[] }[] = [];
    ORDER_WALK_LIMITS.anchoredFrom = 0;
    try {
      const everyList = async () => {
        for (const [path, query] of lists) anchored.push(...(await labelRowReads(path, query)).filter((r) => /il\.issuable_id [<>] \?/.test(r.sql)));
      };
      await everyList();
      // Records early in each list lose the title or are closed, a new one gains it: the pages after them move.
      const records = async ([path, query]: [string, Record<string, string>]) => {
        FILTERED_WALK.filtered = false;
        try {
          return ok(await s.get(path, { query: { ...query, per_page: '100' } })) as { iid: number; project_id: number }[];
        } finally {
          FILTERED_WALK.filtered = true;
        }
      };
      const kinds = ['issues', 'issues', 'merge_requests'];
      for (const [i, list] of lists.entries()) {
        const listed = await records(list);
        ok(await s.put(`/projects/${listed[3].project_id}/${kinds[i]}/${listed[3].iid}`, { remove_labels: 'bug,Bug' }));
        ok(await s.put(`/projects/${listed[4].project_id}/${kinds[i]}/${listed[4].iid}`, { state_event: 'close' }));
      }
      ok(await s.post(`/projects/${alpha}/issues`, { title: 'a new bug', labels: 'bug' }));
      // Deep pages first (reading in turn would set each page's anchor afresh before the next).
      Object.assign(FILTERED_WALK, { span: 1, spanPerRow: 0 });
      try {
        for (const [path, query] of lists) {
          const want = await sorted(path, query);
          for (let page = Math.ceil(want.length / 3); page >= 1; page--) {
            const res = await s.get(path, { query: { ...query, per_page: '3', page: String(page) } });
            expect((res.body as { id: number }[]).map((r) => r.id), `${path} ${JSON.stringify(query)} page ${page}`).toEqual(want.slice((page - 1) * 3, page * 3));
          }
        }
      } finally {
        Object.assign(FILTERED_WALK, { span: 20_000, spanPerRow: 8, filtered: true });
      }
      await everyList();
    } finally {
      ORDER_WALK_LIMITS.anchoredFrom = 1_000;
    }
    expect(anchored.length).toBeGreaterThan(5);
  }, 120_000);

  it("a Guest (below Planner) or anonymous caller: their confidential view checked on each record of the title's rows, every page and count as the sort answers them", async () => {
    const guest = await s.createUser();
    const reporter = await s.createUser();
    await s.addMember('groups', group, guest.user.id, 10);
    await s.addMember('groups', group, reporter.user.id, 20);
    // Confidential issues with the title: root's (hidden from all three), the Guest's own, one assigned to the Guest.
    const confidential = async (title: string, token?: string, more: Record<string, unknown> = {}) =>
      ok(await s.post(`/projects/${alpha}/issues`, { title, labels: 'bug', confidential: true, ...more }, { token })).id as number;
    const hidden = await confidential('secret bug');
    const own = await confidential('guest secret bug', guest.token);
    const assigned = await confidential('assigned secret bug', undefined, { assignee_ids: [guest.user.id] });
    const callers: [string, string | null, number[], number[]][] = [
      // name, token, confidential ids seen, unseen
      ['guest', guest.token, [own, assigned], [hidden]],
      // A Reporter is above Planner: every confidential issue of the group's projects.
      ['reporter', reporter.token, [hidden, own, assigned], []],
      ['anonymous', null, [], [hidden, own, assigned]],
    ];
    const lists: [string, Record<string, string>][] = [
      [`/projects/${alpha}/issues`, { order_by: 'popularity', labels: 'bug' }],
      [`/projects/${alpha}/issues`, { order_by: 'relative_position', labels: 'bug', milestone: 'None' }],
      [`/groups/${group}/issues`, { order_by: 'relative_position', labels: 'bug', state: 'opened' }],
      ['/issues', { scope: 'all', order_by: 'popularity', labels: 'Bug' }],
    ];
    for (const [name, token, seen, unseen] of callers) {
      let labelRows = 0;
      for (const [path, list] of lists) {
        for (const sort of ['asc', 'desc']) {
          const query = { ...list, sort };
          const what = `${name} ${path} ${JSON.stringify(query)}`;
          FILTERED_WALK.filtered = false;
          let want: number[];
          try {
            want = (ok(await s.get(path, { token, query: { ...query, per_page: '100' } })) as { id: number }[]).map((r) => r.id);
          } finally {
            FILTERED_WALK.filtered = true;
          }
          expect(want.length, what).toBeGreaterThan(6);
          for (const id of seen) if (path !== `/groups/${group}/issues` || list.state !== 'closed') expect(want, what).toContain(id);
          for (const id of unseen) expect(want, what).not.toContain(id);
          Object.assign(FILTERED_WALK, { span: 1, spanPerRow: 0 });
          try {
            labelRows += (await statementReads(s, (sql) => sql.includes(LABEL_ROWS_READ), () => expectEveryPage(s, path, query, want, 3, token))).length;
          } finally {
            Object.assign(FILTERED_WALK, { span: 20_000, spanPerRow: 8 });
          }
        }
      }
      // The title's rows read for each caller (a Guest's or anonymous caller's view no filter that narrows the records read).
      expect(labelRows, name).toBeGreaterThan(8);
    }
  }, 300_000);
});
