import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';

/**
 * The read back from the end (f46fc52, anchoredRows' `length`) reaches every list whose count is
 * exact from counters, not only labels, snippets and epics (deep-pages-from-end): a project's issues
 * by state or author (issuable_state_counts, issue_filter_counts), its merge requests, its events
 * (event_counts, event_target_counts). A counter that disagreed with the rows by one would now shift
 * a near-end page by a row (the forward read only sent a wrong X-Total). Pinned for those lists,
 * with ties on the order column (created_at, updated_at: the tie order by id must be the forward
 * read's), per_page 20, 100 and 1, pages near the end read first, the last and past it, against the
 * records and with their headers, before and after records are created, closed, made confidential,
 * moved out and deleted (a deleted issue takes its events along: core/375).
 */
let s: TestService;
let project: number;
let other: number;
let author = 0;
let outsider = '';
const N = 1_300;
const at = (minutes: number): string => new Date(Date.UTC(2024, 0, 1) + minutes * 60_000).toISOString();
const db = () => s.service.context.db;
const ids = (sql: string): number[] => (db().prepare(sql).all() as { id: number }[]).map((r) => r.id);

beforeAll(async () => {
  s = await TestService.start();
  const group = (await s.createGroup({ visibility: 'public' })).id;
  project = (await s.createProject({ namespace_id: group, visibility: 'public' })).id;
  other = (await s.createProject({ namespace_id: group, visibility: 'public' })).id;
  author = (await s.createUser()).user.id;
  outsider = (await s.createUser()).token;
  const issue = db().prepare(
    `INSERT INTO issues (project_id, iid, title, state, author_id, confidential, labels, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, '[]', ?, ?)`,
  );
  const mr = db().prepare(
    `INSERT INTO merge_requests (project_id, iid, title, state, author_id, labels, source_branch, target_branch, source_project_id, target_project_id, base_sha, start_sha, head_sha, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, '[]', ?, 'main', ?, ?, 'a', 'a', 'a', ?, ?)`,
  );
  const event = db().prepare("INSERT INTO events (project_id, author_id, action, target_type, created_at) VALUES (?, 1, ?, ?, ?)");
  db().transaction(() => {
    for (let i = 1; i <= N; i++) {
      // created_at ties three records at a time, updated_at four (out of id order).
      issue.run(project, i, `issue ${i}`, i % 4 === 0 ? 'closed' : 'opened', i % 7 ? author : 1, i % 9 === 0 ? 1 : 0, at(Math.floor(i / 3)), at(Math.floor(((i * 37) % N) / 4)));
      mr.run(project, i, `mr ${i}`, ['opened', 'closed', 'merged', 'locked'][i % 4], i % 3 === 0 ? author : 1, `b${i}`, project, project, at(Math.floor(i / 3)), at(Math.floor(((i * 37) % N) / 4)));
      event.run(project, i % 5 ? 'created' : 'closed', i % 6 ? 'Issue' : null, at(i));
    }
  })();
}, 60_000);
afterAll(async () => s.stop());

interface List {
  path: string;
  query: Record<string, string>;
  token?: string;
  want: () => number[];
}

const LISTS = (): List[] => [
  { path: `/projects/${project}/issues`, query: {}, want: () => ids(`SELECT id FROM issues WHERE project_id = ${project} ORDER BY created_at DESC, id DESC`) },
  {
    path: `/projects/${project}/issues`,
    query: { order_by: 'updated_at', sort: 'asc' },
    want: () => ids(`SELECT id FROM issues WHERE project_id = ${project} ORDER BY updated_at ASC, id ASC`),
  },
  {
    path: `/projects/${project}/issues`,
    query: { author_id: String(author) },
    want: () => ids(`SELECT id FROM issues WHERE project_id = ${project} AND author_id = ${author} ORDER BY created_at DESC, id DESC`),
  },
  { path: `/projects/${project}/merge_requests`, query: {}, token: outsider, want: () => ids(`SELECT id FROM merge_requests WHERE project_id = ${project} ORDER BY created_at DESC, id DESC`) },
  {
    path: `/projects/${project}/merge_requests`,
    query: { order_by: 'updated_at', sort: 'asc' },
    want: () => ids(`SELECT id FROM merge_requests WHERE project_id = ${project} ORDER BY updated_at ASC, id ASC`),
  },
  { path: `/projects/${project}/events`, query: {}, want: () => ids(`SELECT id FROM events WHERE project_id = ${project} ORDER BY id DESC`) },
  { path: `/projects/${project}/events`, query: { sort: 'asc', target_type: 'issue' }, want: () => ids(`SELECT id FROM events WHERE project_id = ${project} AND target_type = 'Issue' ORDER BY id ASC`) },
];

async function expectNearTheEnd(): Promise<void> {
  for (const l of LISTS()) {
    const want = l.want();
    expect(want.length, l.path).toBeGreaterThan(1_000);
    for (const perPage of [20, 100, 1]) {
      const last = Math.ceil(want.length / perPage);
      // Near the end first (no anchor near), then in turn, jumped back, the last and past it.
      const pages = perPage === 1 ? [last - 1, last, last - 7, last + 1] : [last - 1, last - 2, last, last + 1, Math.ceil(1_000 / perPage) + 2, last - 1];
      for (const page of pages) {
        const what = `${l.token ? 'outsider ' : ''}${l.path} ${JSON.stringify(l.query)} per_page ${perPage} page ${page}`;
        const res = await s.get(l.path, { token: l.token, query: { ...l.query, per_page: String(perPage), page: String(page) } });
        expect(res.status, what).toBe(200);
        expect((res.body as { id: number }[]).map((r) => r.id), what).toEqual(want.slice((page - 1) * perPage, page * perPage));
        expect(res.headers.get('x-total'), what).toBe(String(want.length));
        expect(res.headers.get('x-total-pages'), what).toBe(String(last));
        expect(res.headers.get('x-next-page'), what).toBe(page < last ? String(page + 1) : '');
        expect(res.headers.get('x-prev-page'), what).toBe(page > 1 && page <= last ? String(page - 1) : '');
      }
    }
  }
}

describe('deep pages near the end of exactly counted issue, merge request and event lists', () => {
  it('answer as the records say, through creates, state changes, moves and deletes', async () => {
    await expectNearTheEnd();
    // New records (the newest: the front of the default order, the end of updated_at asc).
    ok(await s.post(`/projects/${project}/issues`, { title: 'new one', confidential: true }));
    await expectNearTheEnd();
    // Closed, made confidential: records move between the counters' keys.
    ok(await s.put(`/projects/${project}/issues/3`, { state_event: 'close' }));
    ok(await s.put(`/projects/${project}/issues/6`, { confidential: true }));
    ok(await s.put(`/projects/${project}/merge_requests/5`, { state_event: 'close' }));
    await expectNearTheEnd();
    // Moved out (the old one stays, closed) and deleted near both ends of each order.
    ok(await s.post(`/projects/${project}/issues/12/move`, { to_project_id: other }));
    for (const iid of [1, 2, N - 1, 600]) expect((await s.del(`/projects/${project}/issues/${iid}`)).status).toBe(204);
    for (const iid of [1, N]) expect((await s.del(`/projects/${project}/merge_requests/${iid}`)).status).toBe(204);
    await expectNearTheEnd();
  }, 300_000);
});
