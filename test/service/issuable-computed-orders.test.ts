import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, TestService } from '../helpers/service';
import { expectEveryPage, pagedReads, preparedBy, queryPlan, statementReads } from '../helpers/lists';
import { FILTERED_WALK, ORDER_WALK_LIMITS } from '../../src/main/service/areas/core/order-walk';
import { SCOPE_ARMS_LIMITS } from '../../src/main/service/areas/core/order-scope-arms';

/**
 * Issue and merge request orders on something besides the record's own columns, as GitLab's
 * Issuable.sort_by_attribute (+ Issue's) answers them: `popularity` (thumbsup award emoji on the
 * record), `relative_position` (issues: ascending is the placement order, GitLab's descending is
 * id descending), `milestone_due` (dated milestones by due date, then undated milestones, then no
 * milestone). Ties by id descending in both directions (with_order_id_desc), except
 * relative_position asc (id ascending); and issues' `due_date` (a column, mostly NULL: over many
 * projects read as the undated in id order and the few dated sorted; NULL lowest, ties by id, both
 * in the asked direction). Project, group and instance lists, both sorts, a state,
 * every page with its headers.
 */
let s: TestService;
let group: number;
let alpha: number;
let beta: number;
let root: number;
let voter: string;

type Kind = 'issues' | 'merge_requests';
interface Row { id: number; project_id: number; state: string; milestone_id: number | null; confidential?: number; due_date?: string | null }
const db = () => s.service.context.db;
const TYPE = { issues: 'Issue', merge_requests: 'MergeRequest' } as const;

function records(kind: Kind, projects: number[], state: string | null, anonymous: boolean): Row[] {
  const rows = db().prepare(`SELECT * FROM ${kind}`).all() as Row[];
  return rows.filter((r) => projects.includes(r.project_id) && (state === null || r.state === state) && !(anonymous && r.confidential));
}
const byIdDesc = (a: Row, b: Row) => b.id - a.id;

function upvotes(kind: Kind): Map<number, number> {
  const rows = db().prepare("SELECT awardable_id AS id, count(*) AS n FROM award_emoji WHERE awardable_type = ? AND name = 'thumbsup' GROUP BY awardable_id").all(TYPE[kind]) as { id: number; n: number }[];
  return new Map(rows.map((r) => [r.id, r.n]));
}

function expected(kind: Kind, order: string, sort: 'asc' | 'desc', projects: number[], state: string | null, anonymous = false): number[] {
  const rows = records(kind, projects, state, anonymous);
  const dir = sort === 'asc' ? 1 : -1;
  if (order === 'popularity') {
    const up = upvotes(kind);
    rows.sort((a, b) => dir * ((up.get(a.id) ?? 0) - (up.get(b.id) ?? 0)) || byIdDesc(a, b));
  } else if (order === 'due_date') {
    // x.due_date <dir>, x.id <dir>: NULL the lowest.
    const key = (r: Row) => r.due_date ?? '';
    rows.sort((a, b) => dir * (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.id - b.id));
  } else if (order === 'relative_position') {
    rows.sort((a, b) => dir * (a.id - b.id));
  } else {
    const due = new Map((db().prepare('SELECT id, due_date FROM milestones').all() as { id: number; due_date: string | null }[]).map((m) => [m.id, m.due_date]));
    const key = (r: Row) => (r.milestone_id === null ? 2 : due.get(r.milestone_id) ? 0 : 1);
    rows.sort((a, b) => {
      const [ka, kb] = [key(a), key(b)];
      if (ka !== kb) return ka - kb;
      if (ka === 0) {
        const [da, dd] = [due.get(a.milestone_id!)!, due.get(b.milestone_id!)!];
        if (da !== dd) return dir * (da < dd ? -1 : 1);
      }
      return byIdDesc(a, b);
    });
  }
  return rows.map((r) => r.id);
}

beforeAll(async () => {
  s = await TestService.start();
  const voters = [];
  for (let n = 0; n < 3; n++) voters.push(await s.createUser());
  group = ok(await s.post('/groups', { name: 'ord', path: 'ord', visibility: 'public' })).id;
  alpha = ok(await s.post('/projects', { name: 'alpha', namespace_id: group, visibility: 'public' })).id;
  beta = ok(await s.post('/projects', { name: 'beta', namespace_id: group, visibility: 'public' })).id;
  for (const v of voters) await s.addMember('groups', group, v.user.id, 30);
  voter = voters[0].token;
  root = ok(await s.get('/user')).id;
  // Milestones: two on one date (ties), a later and an earlier one, one without a date, a group's.
  const milestone = async (project: number, title: string, due?: string) => ok(await s.post(`/projects/${project}/milestones`, { title, ...(due ? { due_date: due } : {}) })).id as number;
  const ms = {
    [alpha]: [await milestone(alpha, 'a1', '2026-03-01'), await milestone(alpha, 'a2', '2026-03-01'), await milestone(alpha, 'a3', '2026-05-01'), await milestone(alpha, 'a4')],
    [beta]: [await milestone(beta, 'b1', '2026-01-15'), await milestone(beta, 'b2')],
  };
  const groupMilestone = ok(await s.post(`/groups/${group}/milestones`, { title: 'g1', due_date: '2026-04-01' })).id as number;
  for (let n = 0; n < 22; n++) {
    const project = n % 3 ? alpha : beta;
    const choices = [...ms[project], groupMilestone, null, null];
    const milestoneId = choices[(n * 5) % choices.length];
    // Some issues dated back (an administrator's created_at): creation dates out of id order.
    const dated = n % 6 === 1 ? { created_at: `2020-01-0${1 + (n % 9)}T00:00:00Z` } : {};
    // A few confidential ones, which an anonymous caller does not see (the counters count them).
    // Due dates on a few issues, two on one date (ties); the rest none (NULL: lowest).
    const due = n % 4 === 1 ? { due_date: ['2026-02-01', '2026-02-01', '2026-01-10'][n % 3] } : {};
    const issue = ok(await s.post(`/projects/${project}/issues`, { title: `issue ${n}`, ...dated, ...due, confidential: n % 7 === 4, ...(milestoneId ? { milestone_id: milestoneId } : {}) }));
    const mr = ok(await s.post(`/projects/${project}/merge_requests`, { title: `mr ${n}`, source_branch: `b${n}`, target_branch: 'main', ...(milestoneId ? { milestone_id: milestoneId } : {}) }));
    // Upvotes 0-3 (ties on each count), `+1` stored as thumbsup; thumbsdown and awards on notes do not count.
    const votes = [0, 2, 0, 1, 3, 1, 0][n % 7];
    for (const [kind, record] of [['issues', issue], ['merge_requests', mr]] as const) {
      const base = `/projects/${project}/${kind}/${record.iid}`;
      for (let v = 0; v < votes; v++) ok(await s.post(`${base}/award_emoji`, { name: v === 1 ? '+1' : 'thumbsup' }, { token: voters[v].token }));
      if (n % 4 === 0) {
        ok(await s.post(`${base}/award_emoji`, { name: 'thumbsdown' }, { token: voters[0].token }));
        const note = ok(await s.post(`${base}/notes`, { body: 'note' }));
        for (const v of voters) ok(await s.post(`${base}/notes/${note.id}/award_emoji`, { name: 'thumbsup' }, { token: v.token }));
      }
      if (n % 5 === 2) ok(await s.put(base, { state_event: 'close' }));
    }
  }
}, 180_000);
afterAll(async () => s?.stop());

// The whole-list tests read every page of dozens of lists: 80-120 s on 2 cores beside other work. A
// test past its timeout keeps running in the background and its writes land in the next test's
// lists (seen as X-Total 27 for 26 rows in 'other filters' after 'deep pages...' timed out), so
// they get room enough never to time out on a busy machine.
const WHOLE_LIST_TIMEOUT = 600_000;

const ORDERS = { issues: ['popularity', 'relative_position', 'milestone_due'], merge_requests: ['popularity', 'milestone_due'] } as const;

describe('computed orders', () => {
  for (const kind of ['issues', 'merge_requests'] as const) {
    for (const order of ORDERS[kind]) {
      it(`${kind} order_by=${order}: project, group and instance lists, asc and desc, with and without state=opened, every page`, async () => {
        // Read in id order in parts (a list with a state at most), and sorted by the ORDER BY (an
        // author filter that keeps every record; the instance's list of a user who is no administrator).
        const lists: [string, number[], Record<string, string>, string?][] = [
          [`/projects/${alpha}/${kind}`, [alpha], {}],
          [`/groups/${group}/${kind}`, [alpha, beta], {}],
          [`/${kind}`, [alpha, beta], { scope: 'all' }],
          [`/projects/${alpha}/${kind}`, [alpha], { author_id: String(root) }],
          [`/groups/${group}/${kind}`, [alpha, beta], { author_id: String(root) }],
          [`/${kind}`, [alpha, beta], { scope: 'all' }, voter],
          // Anonymous: the confidential issues left out, so not counted from the counters.
          [`/projects/${alpha}/${kind}`, [alpha], {}, ''],
          [`/groups/${group}/${kind}`, [alpha, beta], {}, ''],
        ];
        for (const [path, projects, extra, token] of lists) {
          for (const sort of ['asc', 'desc'] as const) {
            for (const state of [null, 'opened']) {
              const query = { ...extra, order_by: order, sort, ...(state ? { state } : {}) };
              await expectEveryPage(s, path, query, expected(kind, order, sort, projects, state, token === ''), 4, token);
            }
          }
        }
      });
    }
  }

  it("issues order_by=due_date: project, group and instance lists, asc and desc, a state, an author, anonymous, other filters, every page", async () => {
    const lists: [string, number[], Record<string, string>, string?][] = [
      [`/projects/${alpha}/issues`, [alpha], {}],
      [`/groups/${group}/issues`, [alpha, beta], {}],
      ['/issues', [alpha, beta], { scope: 'all' }],
      [`/projects/${alpha}/issues`, [alpha], { author_id: String(root) }],
      [`/projects/${alpha}/issues`, [alpha], {}, ''],
      [`/groups/${group}/issues`, [alpha, beta], {}, ''],
    ];
    for (const [path, projects, extra, token] of lists) {
      for (const sort of ['asc', 'desc'] as const) {
        for (const state of [null, 'opened', 'closed']) {
          const query = { ...extra, order_by: 'due_date', sort, ...(state ? { state } : {}) };
          await expectEveryPage(s, path, query, expected('issues', 'due_date', sort, projects, state, token === ''), 4, token);
        }
      }
    }
    // Other filters (walked with them, or their matches sorted): as the ORDER BY's sort answers.
    for (const filter of [{ 'not[labels]': 'nothing' }, { milestone: 'None' }, { milestone: 'a1' }, { search: 'issue 1' }, { confidential: 'false' }] as Record<string, string>[]) {
      for (const [path, , extra, token] of lists) {
        for (const sort of ['asc', 'desc'] as const) {
          const query = { ...extra, ...filter, order_by: 'due_date', sort };
          FILTERED_WALK.filtered = false;
          let want: number[];
          try {
            want = (ok(await s.get(path, { token, query: { ...query, per_page: '100' } })) as { id: number }[]).map((r) => r.id);
          } finally {
            FILTERED_WALK.filtered = true;
          }
          await expectEveryPage(s, path, query, want, 3, token);
        }
      }
    }
    // Over many projects, the undated walked in id order by the (project, state, id) index; the dated read by the due-date index.
    const reads = await pagedReads(s, async () => void ok(await s.get(`/groups/${group}/issues`, { query: { state: 'opened', order_by: 'due_date', page: '2', per_page: '3' } })));
    expect(reads.map((r) => r.sql).join('\n')).toContain('INDEXED BY issues_project_state_id');
    expect(reads.map((r) => r.sql).join('\n')).not.toContain('ORDER BY x.due_date');
  }, WHOLE_LIST_TIMEOUT);

  it("issues order_by=due_date of an author that no author arms read (/issues' created_by_me, author_id; the instance's many projects): walked in id order, every page", async () => {
    // Root wrote every issue: the author's list is the scope's whole list. Read as chosen (here a few
    // projects: author arms, order-scope-arms.ts), then with the arms declined, as over many projects.
    const lists: [string, Record<string, string>][] = [
      ['/issues', {}],
      ['/issues', { scope: 'all', author_id: String(root) }],
      [`/groups/${group}/issues`, { author_id: String(root) }],
    ];
    const walkPerRead = SCOPE_ARMS_LIMITS.walkPerRead;
    try {
      for (const perRead of [walkPerRead, 0]) {
        SCOPE_ARMS_LIMITS.walkPerRead = perRead;
        for (const [path, extra] of lists) {
          for (const sort of ['asc', 'desc'] as const) {
            for (const state of [null, 'opened', 'closed']) {
              const query = { ...extra, order_by: 'due_date', sort, ...(state ? { state } : {}) };
              await expectEveryPage(s, path, query, expected('issues', 'due_date', sort, [alpha, beta], state, false), 4);
            }
          }
        }
      }
      // No arms: the undated walked in id order (the list's statement NOT INDEXED), the dated by the
      // due-date index, no sort of every match by the due date (the instance's opened issues page 2
      // on a million: 250 ms).
      for (const [path, extra] of lists) {
        const reads = await statementReads(s, () => true, async () => void ok(await s.get(path, { query: { ...extra, state: 'opened', order_by: 'due_date', page: '2', per_page: '3' } })));
        const sql = reads.map((r) => r.sql).join('\n');
        expect(sql).toContain('INDEXED BY issues_due');
        expect(sql).toContain('NOT INDEXED');
        expect(sql).not.toMatch(/ORDER BY x\.due_date DESC, x\.id DESC LIMIT/);
      }
    } finally {
      SCOPE_ARMS_LIMITS.walkPerRead = walkPerRead;
    }
  }, WHOLE_LIST_TIMEOUT);

  it('sort defaults to desc; the orders hold ties, nulls and groups as GitLab (spot checks against hand-read rows)', async () => {
    // popularity desc: the most upvoted first; relative_position with the default sort: id descending.
    const top = (await s.get(`/projects/${alpha}/issues`, { query: { order_by: 'popularity', per_page: '100' } })).body as { id: number; upvotes: number }[];
    expect(top[0].upvotes).toBe(3);
    expect(top.map((i) => i.upvotes)).toEqual([...top.map((i) => i.upvotes)].sort((a, b) => b - a));
    const ids = ((await s.get(`/projects/${alpha}/issues`, { query: { order_by: 'relative_position', per_page: '100' } })).body as { id: number }[]).map((i) => i.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    // milestone_due: dated milestones first (by date), undated, then none, whichever the sort.
    for (const sort of ['asc', 'desc']) {
      const rows = (await s.get(`/projects/${alpha}/merge_requests`, { query: { order_by: 'milestone_due', sort, per_page: '100' } })).body as { milestone: { due_date: string | null } | null }[];
      const group = (r: (typeof rows)[number]) => (r.milestone === null ? 2 : r.milestone.due_date ? 0 : 1);
      expect(rows.map(group)).toEqual([...rows.map(group)].sort());
      expect(rows.at(-1)!.milestone).toBeNull();
      const dates = rows.filter((r) => r.milestone?.due_date).map((r) => r.milestone!.due_date!);
      expect(dates).toEqual([...dates].sort((a, b) => (sort === 'asc' ? a.localeCompare(b) : b.localeCompare(a))));
    }
  });

  it("reads a list with a state at most in id order in parts, by core/103's (project, state, id) index: no sort of every record", async () => {
    for (const [kind, order] of [['issues', 'popularity'], ['issues', 'relative_position'], ['issues', 'milestone_due'], ['merge_requests', 'popularity'], ['merge_requests', 'milestone_due']] as const) {
      for (const query of [{}, { state: 'opened' }] as Record<string, string>[]) {
        ok(await s.get(`/projects/${alpha}/issues`, { query: { order_by: 'relative_position', sort: 'asc', per_page: '3', page: '3' } }));
      const reads = await pagedReads(s, async () => void ok(await s.get(`/projects/${alpha}/${kind}`, { query: { ...query, order_by: order, page: '2', per_page: '5' } })));
        const text = reads.map((r) => r.sql).join('\n');
        expect(text, `${kind} ${order} ${JSON.stringify(query)}`).toContain(`INDEXED BY ${kind}_project_state_id`);
        expect(text).not.toContain('ORDER BY (SELECT');
        expect(text).not.toContain('ORDER BY x.id DESC, x.id');
      }
    }
    const plan = queryPlan(db(), `SELECT x.id AS id FROM issues x INDEXED BY issues_project_state_id WHERE x.project_id = ? AND x.state = ? AND x.project_id = ? AND 1 ORDER BY x.id DESC LIMIT 5 OFFSET ?`, alpha, 'opened', alpha, 0);
    expect(plan).toMatch(/SEARCH x USING (COVERING )?INDEX issues_project_state_id \(project_id=\? AND state=\?\)/);
    expect(plan).not.toContain('TEMP B-TREE');
    // A milestone's records of a project and a state: core/105's index alone, in id order.
    const arm = queryPlan(db(), `SELECT x.id AS id FROM issues x INDEXED BY issues_milestone_project_state WHERE x.milestone_id > 0 AND x.milestone_id = ? AND x.project_id = ? AND x.state = ? AND x.project_id = ? AND 1 ORDER BY x.id DESC LIMIT 5 OFFSET ?`, 1, alpha, 'opened', alpha, 0);
    expect(arm).toMatch(/SEARCH x USING COVERING INDEX issues_milestone_project_state \(milestone_id=\? AND project_id=\? AND state=\?\)/);
    expect(arm).not.toContain('TEMP B-TREE');
    const upvoted = queryPlan(db(), "SELECT awardable_id AS id, count(*) AS n FROM award_emoji INDEXED BY award_emoji_upvotes WHERE awardable_type = 'Issue' AND name = 'thumbsup' GROUP BY awardable_id");
    expect(upvoted).not.toContain('TEMP B-TREE');
  });

  it('deep pages start after the id before them that an earlier page read (anchors at the walked projects\' version); writes that move records move them', async () => {
    ORDER_WALK_LIMITS.anchoredFrom = 0;
    try {
      const lists: [string, number[], string?, Record<string, string>?][] = [
        [`/projects/${alpha}`, [alpha]],
        [`/groups/${group}`, [alpha, beta]],
        [`/projects/${alpha}`, [alpha], ''],
        // An author filter (every record is root's): the list walked with its filters (filteredWalk), anchored.
        [`/projects/${alpha}`, [alpha], undefined, { author_id: String(root) }],
      ];
      // Every page twice: the second walk reads each page from the anchors the first one left.
      const check = async (step: string) => {
        for (const kind of ['issues', 'merge_requests'] as const) {
          for (const order of ORDERS[kind]) {
            for (const [path, projects, token, filter] of lists) {
              for (const sort of ['asc', 'desc'] as const) {
                for (const state of [null, 'opened']) {
                  const query = { ...filter, order_by: order, sort, ...(state ? { state } : {}) };
                  const want = expected(kind, order, sort, projects, state, token === '');
                  // Last page first: each page from the anchors an earlier walk left (a walk in turn
                  // anchors each page on the one before it, whatever was remembered), then every page in turn.
                  for (let page = Math.ceil(want.length / 3); page >= 1; page--) {
                    const ids = ((await s.get(`${path}/${kind}`, { token, query: { ...query, per_page: '3', page: String(page) } })).body as { id: number }[]).map((r) => r.id);
                    expect(ids, `${step}: ${path}/${kind} ${JSON.stringify(query)} page ${page}`).toEqual(want.slice((page - 1) * 3, page * 3));
                  }
                  await expectEveryPage(s, `${path}/${kind}`, query, want, 3, token).catch((e: Error) => { throw new Error(`${step}: ${e.message}`); });
                }
              }
            }
          }
        }
      };
      await check('first');
      // A deep page read after the one before it: from the anchor, no offset walked.
      ok(await s.get(`/projects/${alpha}/issues`, { query: { order_by: 'relative_position', sort: 'asc', per_page: '3', page: '3' } }));
      const reads = await pagedReads(s, async () => void ok(await s.get(`/projects/${alpha}/issues`, { query: { order_by: 'relative_position', sort: 'asc', per_page: '3', page: '4' } })));
      expect(reads.map((r) => r.sql).join('\n')).toContain('AND x.id > ?');
      expect(reads.at(-1)!.args.at(-1)).toBe(0);
      const iid = async (project: number, kind: Kind, state: string) =>
        ((await s.get(`/projects/${project}/${kind}`, { query: { state, order_by: 'created_at', sort: 'asc', per_page: '5', page: '2' } })).body as { iid: number }[])[0].iid;
      const milestones = new Map(((await s.get(`/projects/${alpha}/milestones`)).body as { id: number; title: string }[]).map((m) => [m.title, m.id]));
      for (const kind of ['issues', 'merge_requests'] as const) {
        // An edit that moves nothing; a record closed (leaves the state's walk) and reopened; moved to
        // another milestone (only the milestone's segments change: a description edit's version, not the
        // order's); upvoted; a new record; and the same in the group's other project.
        ok(await s.put(`/projects/${alpha}/${kind}/${await iid(alpha, kind, 'opened')}`, { description: 'edited' }));
        await check(`${kind} description`);
        const closed = await iid(alpha, kind, 'opened');
        ok(await s.put(`/projects/${alpha}/${kind}/${closed}`, { state_event: 'close' }));
        await check(`${kind} closed`);
        ok(await s.put(`/projects/${alpha}/${kind}/${closed}`, { state_event: 'reopen' }));
        await check(`${kind} reopened`);
        // The newest records of a milestone (each first in its segment, before every anchor) moved to another.
        const newest = async (milestone: string) =>
          ((await s.get(`/projects/${alpha}/${kind}`, { query: { milestone, order_by: 'created_at', per_page: '1' } })).body as { iid: number }[])[0].iid;
        // A milestone of a few records (segments deeper than a page of one).
        for (let n = 0; n < 4; n++) {
          ok(await s.post(`/projects/${alpha}/${kind}`, { title: `a3 ${n}`, milestone_id: milestones.get('a3'), ...(kind === 'merge_requests' ? { source_branch: `a3-${n}`, target_branch: 'main' } : {}) }));
        }
        for (const [from, to] of [['a1', 'a3'], ['a3', 'a1'], ['a3', 'a2'], ['a3', 'a4'], ['a2', null]] as const) {
          const moved = await newest(from);
          // One record a page: an anchor at every offset of every segment.
          for (const sort of ['asc', 'desc'] as const) await expectEveryPage(s, `/projects/${alpha}/${kind}`, { order_by: 'milestone_due', sort }, expected(kind, 'milestone_due', sort, [alpha], null), 1);
          ok(await s.put(`/projects/${alpha}/${kind}/${moved}`, { milestone_id: to === null ? 0 : milestones.get(to) }));
          await check(`${kind} milestone ${from} -> ${to}`);
        }
        ok(await s.put(`/projects/${beta}/${kind}/${await iid(beta, kind, 'opened')}`, { milestone_id: 0 }));
        await check(`${kind} beta milestone`);
        ok(await s.post(`/projects/${beta}/${kind}/${await iid(beta, kind, 'opened')}/award_emoji`, { name: 'thumbsup' }));
        await check(`${kind} upvoted`);
        ok(await s.post(`/projects/${beta}/${kind}`, { title: 'new', ...(kind === 'merge_requests' ? { source_branch: 'anchored', target_branch: 'main' } : {}) }));
        await check(`${kind} new`);
      }
    } finally {
      ORDER_WALK_LIMITS.anchoredFrom = 1_000;
    }
  }, WHOLE_LIST_TIMEOUT);

  it('other filters: the list walked in id order with its filters (or its matches sorted by id) answers as the ORDER BY sort does, every page', async () => {
    const filters: Record<Kind, Record<string, string>[]> = {
      issues: [
        { author_id: '' },
        { search: 'issue' },
        { confidential: 'false' },
        { milestone: 'a1' },
        { milestone: 'None' },
        { milestone: 'Any' },
        { created_after: '2025-01-01T00:00:00Z' },
        { assignee_id: 'None', search: 'issue 1' },
        { my_reaction_emoji: 'thumbsup' },
        { 'not[milestone]': 'a3' },
      ],
      merge_requests: [{ author_id: '' }, { search: 'mr' }, { milestone: 'a1' }, { milestone: 'None' }, { created_after: '2025-01-01T00:00:00Z' }, { my_reaction_emoji: 'thumbsup' }, { target_branch: 'main' }],
    };
    const lists: [string, Record<string, string>, string?][] = [
      [`/projects/${alpha}`, {}],
      [`/groups/${group}`, {}],
      ['', { scope: 'all' }],
      [`/projects/${alpha}`, {}, voter],
      ['', { scope: 'all' }, voter],
      [`/groups/${group}`, {}, ''],
    ];
    const sorted = async (path: string, query: Record<string, string>, token?: string) => {
      FILTERED_WALK.filtered = false;
      try {
        const res = await s.get(path, { token, query: { ...query, per_page: '100' } });
        expect(res.status).toBe(200);
        return (res.body as { id: number }[]).map((r) => r.id);
      } finally {
        FILTERED_WALK.filtered = true;
      }
    };
    let compared = 0;
    for (const [span, spanPerRow] of [[20_000, 8], [1, 0]]) {
      // The walk finds every page (a span past every id), or none but pages of the list's first ids (sorted).
      Object.assign(FILTERED_WALK, { span, spanPerRow });
      try {
        for (const kind of ['issues', 'merge_requests'] as const) {
          for (const order of ORDERS[kind]) {
            for (const [prefix, extra, token] of lists) {
              for (const filter of filters[kind]) {
                for (const sort of ['asc', 'desc'] as const) {
                  const query = { ...extra, ...filter, order_by: order, sort, ...(filter.author_id === '' ? { author_id: String(root) } : {}) };
                  const path = `${prefix}/${kind}`;
                  const want = await sorted(path, query, token);
                  await expectEveryPage(s, path, query, want, 3, token);
                  compared += want.length;
                }
              }
            }
          }
        }
      } finally {
        Object.assign(FILTERED_WALK, { span: 20_000, spanPerRow: 8 });
      }
    }
    expect(compared).toBeGreaterThan(1000);
  }, WHOLE_LIST_TIMEOUT);

  it("milestone_due reads only the segments the list's state and milestone filter leave records in, every page as the records say", async () => {
    // milestone=None: no milestone's segment (a group's opened merge requests counted one over every
    // opened record to find none, 170 ms at a million); Any or a title: not the records without one;
    // a state: not the milestones no record of that state carries (the filter counters say so).
    const titles = new Map((db().prepare('SELECT id, title FROM milestones').all() as { id: number; title: string }[]).map((m) => [m.id, m.title]));
    const cases: [string, (r: Row) => boolean][] = [
      ['None', (r) => r.milestone_id === null],
      ['Any', (r) => r.milestone_id !== null],
      ['a1', (r) => r.milestone_id !== null && titles.get(r.milestone_id) === 'a1'],
    ];
    const lists: [string, number[], Record<string, string>][] = [
      [`/groups/${group}`, [alpha, beta], {}],
      ['', [alpha, beta], { scope: 'all' }],
      [`/projects/${alpha}`, [alpha], {}],
    ];
    // Segments read: a milestone's (json_each of its ids, or its index), the records without one (`AND x.milestone_id IS NULL`, no parenthesis).
    const segmentReads = async (path: string, query: Record<string, string>) => {
      // Page lengths expectEveryPage did not read (a group's or the instance's page is kept at its records' version: scopePageKept).
      const reads = await statementReads(s, (sql) => /count\(\*\)|LIMIT \d+ OFFSET \?$/.test(sql), async () => void ok(await s.get(path, { query: { ...query, per_page: '4' } })), 'all');
      const counts = await statementReads(s, (sql) => /count\(\*\)/.test(sql), async () => void ok(await s.get(path, { query: { ...query, per_page: '5' } })), 'get');
      const all = [...reads, ...counts];
      const milestones = all.flatMap((r) => (r.sql.includes('json_each') ? r.args.filter((a): a is string => typeof a === 'string' && a.startsWith('[')).flatMap((a) => JSON.parse(a) as number[]) : []));
      return { milestones: new Set([...milestones, ...all.filter((r) => /INDEXED BY \w+_milestone/.test(r.sql)).map((r) => r.args[0] as number)]), none: all.some((r) => / AND x\.milestone_id IS NULL/.test(r.sql)) };
    };
    for (const kind of ['issues', 'merge_requests'] as const) {
      for (const [prefix, projects, extra] of lists) {
        const path = `${prefix}/${kind}`;
        for (const sort of ['asc', 'desc'] as const) {
          for (const [milestone, holds] of cases) {
            const query = { ...extra, milestone, 'not[labels]': 'nothing', order_by: 'milestone_due', sort };
            const keep = new Set(records(kind, projects, null, false).filter(holds).map((r) => r.id));
            await expectEveryPage(s, path, query, expected(kind, 'milestone_due', sort, projects, null).filter((id) => keep.has(id)), 3);
            const read = await segmentReads(path, query);
            if (milestone === 'None') expect([read.milestones.size, read.none], `${path} ${JSON.stringify(query)}`).toEqual([0, true]);
            else expect([read.milestones.size > 0, read.none], `${path} ${JSON.stringify(query)}`).toEqual([true, false]);
            if (milestone === 'a1') expect([...read.milestones].every((id) => titles.get(id) === 'a1'), `${path} ${JSON.stringify(query)}`).toBe(true);
          }
          // A state with other filters: the milestones its records carry, none other.
          const query = { ...extra, state: 'closed', 'not[labels]': 'nothing', order_by: 'milestone_due', sort };
          const closed = records(kind, projects, 'closed', false);
          await expectEveryPage(s, path, query, expected(kind, 'milestone_due', sort, projects, 'closed'), 3);
          const carried = new Set(closed.map((r) => r.milestone_id));
          const others = records(kind, projects, null, false).filter((r) => r.milestone_id !== null && !carried.has(r.milestone_id));
          expect(others.length).toBeGreaterThan(0);
          const read = await segmentReads(path, query);
          expect([...read.milestones].filter((id) => !carried.has(id)), `${path} ${JSON.stringify(query)}`).toEqual([]);
        }
      }
    }
  }, WHOLE_LIST_TIMEOUT);

  it("a project of no more records than the walk's span has its matches sorted by id, not the table's ids walked", async () => {
    // Past the upvoted records (their own segment): the rest's walk.
    const query = { 'not[labels]': 'nothing', created_after: '2000-01-01T00:00:00Z', order_by: 'popularity', per_page: '3', page: '4' };
    // After a write elsewhere (read answers are remembered until one).
    // Each time at another length from the same row (a page read before is kept whole at the version: SqlList.keptRows).
    const walked = async (perPage: number): Promise<string[]> => {
      ok(await s.put(`/projects/${beta}`, { description: `walked ${Math.random()}` }));
      const sql = await preparedBy(s, async () => void ok(await s.get(`/projects/${alpha}/issues`, { query: { ...query, per_page: String(perPage), page: String(9 / perPage + 1) } })));
      return sql.filter((q) => q.includes('NOT INDEXED'));
    };
    expect(await walked(3)).toEqual([]);
    // A span short of the project's records: the walk goes first again.
    Object.assign(FILTERED_WALK, { span: 1, spanPerRow: 0 });
    try {
      expect((await walked(9)).length).toBeGreaterThan(0);
    } finally {
      Object.assign(FILTERED_WALK, { span: 20_000, spanPerRow: 8 });
    }
  });
});
