import { Gitlab } from '@gitbeaker/rest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createService } from '../../src/main/service';
import { insertImportedIssue } from '../../src/main/service/areas/core/imported';
import { COMPAT_ROOT_TOKEN, type Served, runGo, runPython, runRuby, startServe } from './harness';

/**
 * How real clients page through lists, small and past 10,000 rows: offset pages to the end (past
 * 10,000 rows GitLab omits X-Total, X-Total-Pages and rel="last" but keeps X-Next-Page and the next
 * link), a page past the end (Kaminari's out of range: no previous page), and keyset pagination
 * where GitLab offers it (projects by id_after/id_before, users by cursor, anonymous groups by name).
 */
const BIG_ISSUES = 10_030;
let served: Served;
let big: number;
let small: number;
let projectIds: number[];
let publicGroups: { id: number; name: string }[];

beforeAll(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sandlab-compat-paging-'));
  const svc = await createService({ dataDir, port: 0, rootToken: COMPAT_ROOT_TOKEN });
  const url = await svc.listen();
  const api = async (method: string, path: string, body?: unknown): Promise<any> => {
    const res = await fetch(`${url}/api/v4${path}`, {
      method,
      headers: { 'private-token': COMPAT_ROOT_TOKEN, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json();
  };
  try {
    // Public groups whose names sort apart from their ids (keyset by name for anonymous callers).
    publicGroups = [];
    for (const name of ['Paging Delta', 'Paging Alpha', 'Paging Charlie', 'Paging Bravo', 'Paging Echo']) {
      const g = await api('POST', '/groups', { name, path: name.toLowerCase().replace(' ', '-'), visibility: 'public' });
      publicGroups.push({ id: g.id, name });
    }
    big = (await api('POST', '/projects', { name: 'big', namespace_id: publicGroups[0].id })).id;
    small = (await api('POST', '/projects', { name: 'small', namespace_id: publicGroups[0].id })).id;
    for (let i = 0; i < 9; i++) await api('POST', '/projects', { name: `paging-${i}` });
    projectIds = (await api('GET', '/projects?per_page=100')).map((p: { id: number }) => p.id);
    for (let i = 0; i < 7; i++) await api('POST', `/projects/${small}/issues`, { title: `small ${i}` });
    for (const name of ['zed', 'amy', 'kim', 'bob', 'lee', 'dan', 'eve', 'max']) {
      await api('POST', '/users', { username: `paging-${name}`, name: `Paging ${name}`, email: `${name}@paging.example.com`, password: 'paging-password-1234' });
    }
    // Past COUNT_LIMIT in bulk, as an importer writes them (iid order is created_at order).
    const at = (i: number): string => new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString();
    svc.context.db.transaction(() => {
      for (let iid = 1; iid <= BIG_ISSUES; iid++) {
        insertImportedIssue(svc.context, big, { iid, title: `issue ${iid}`, description: null, state: 'opened', authorId: 1, createdAt: at(iid), updatedAt: at(iid), importedFrom: 'none' });
      }
    })();
  } finally {
    await svc.close();
  }
  served = await startServe(dataDir);
}, 120_000);
afterAll(async () => served?.stop());

describe('python-gitlab 3.12 pages', () => {
  it('past 10,000 rows: iterator and get_all walk every page to the end, no total, no warning', () => {
    const out = runPython(
      served,
      `
p = gl.projects.get(${big}, lazy=True)
it = p.issues.list(iterator=True, per_page=100)
head = [next(it).iid for _ in range(250)]
every = [x.iid for x in p.issues.list(get_all=True, per_page=100)]
last = p.issues.list(iterator=True, per_page=100, page=101)
last_iids = [x.iid for x in last]
past = p.issues.list(iterator=True, per_page=100, page=102)
past_iids = [x.iid for x in past]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    p.issues.list(per_page=5)
print(json.dumps({"head": head == list(range(${BIG_ISSUES}, ${BIG_ISSUES} - 250, -1)),
                  "at": [it.current_page, it.next_page, it.prev_page, it.total, it.total_pages, it.per_page],
                  "every": every == list(range(${BIG_ISSUES}, 0, -1)),
                  "last": [len(last_iids), last_iids[-1], last.current_page, last.next_page, last.prev_page, last.total],
                  "past": [past_iids, past.current_page, past.next_page, past.prev_page, past.total],
                  "warning": [str(w.message).split(". ")[1] for w in caught]}))
`,
    );
    expect(out).toEqual({
      head: true,
      at: [3, 4, 2, null, null, 100],
      every: true,
      last: [30, 1, 101, null, 100, null],
      past: [[], 102, null, null, null],
      warning: ['Your query returned 5 of many items'],
    });
  });

  it('a counted list: totals, the last page, a page past the end with no previous page', () => {
    const out = runPython(
      served,
      `
p = gl.projects.get(${small}, lazy=True)
it = p.issues.list(iterator=True, per_page=3)
iids = [x.iid for x in it]
past = p.issues.list(iterator=True, per_page=3, page=4)
past_iids = [x.iid for x in past]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    p.issues.list(per_page=3)
print(json.dumps({"iids": iids, "at": [it.current_page, it.next_page, it.prev_page, it.total, it.total_pages],
                  "past": [past_iids, past.current_page, past.next_page, past.prev_page, past.total, past.total_pages],
                  "warning": [str(w.message).split(". ")[1] for w in caught]}))
`,
    );
    expect(out).toEqual({
      iids: [7, 6, 5, 4, 3, 2, 1],
      at: [3, null, 2, 7, 3],
      past: [[], 4, null, null, 7, 3],
      warning: ['Your query returned 3 of 7 items'],
    });
  });

  it('pagination="keyset": projects through id_after/id_before, users through a cursor, each page in order', () => {
    const out = runPython(
      served,
      `
asc = [x.id for x in gl.projects.list(pagination="keyset", order_by="id", sort="asc", per_page=4, iterator=True)]
desc = [x.id for x in gl.projects.list(pagination="keyset", order_by="id", sort="desc", per_page=4, get_all=True)]
first = gl.http_request("get", "/projects", query_data={"pagination": "keyset", "order_by": "id", "sort": "asc", "per_page": 4})
users = {}
for order in ["id", "name", "username", "created_at", "updated_at"]:
    for sort in ["asc", "desc"]:
        keyset = [u.id for u in gl.users.list(pagination="keyset", order_by=order, sort=sort, per_page=3, iterator=True)]
        offset = [u.id for u in gl.users.list(order_by=order, sort=sort, per_page=3, get_all=True)]
        users[order + " " + sort] = keyset == offset and len(keyset) == 9
by_name = [u.username for u in gl.users.list(pagination="keyset", order_by="name", sort="asc", per_page=3, iterator=True)]
print(json.dumps({"asc": asc, "desc": desc, "link": first.headers["Link"],
                  "headers": sorted(h.lower() for h in first.headers if h.lower().startswith("x-") and h.lower() not in ("x-content-type-options", "x-frame-options")),
                  "users": users, "by_name": by_name}))
`,
    );
    const sorted = [...projectIds].sort((a, b) => a - b);
    expect(out.asc).toEqual(sorted);
    expect(out.desc).toEqual([...sorted].reverse());
    expect(out.link).toBe(`<${served.url}/api/v4/projects?id_after=${sorted[3]}&order_by=id&pagination=keyset&per_page=4&sort=asc>; rel="next"`);
    expect(out.headers).toEqual([]);
    expect(Object.values(out.users)).toEqual(Array(10).fill(true));
    // root is Administrator.
    expect(out.by_name).toEqual(['root', 'paging-amy', 'paging-bob', 'paging-dan', 'paging-eve', 'paging-kim', 'paging-lee', 'paging-max', 'paging-zed']);
  });
});

describe('@gitbeaker/rest 43 pages', () => {
  let api: InstanceType<typeof Gitlab>;
  beforeAll(() => {
    api = new Gitlab({ host: served.url, token: served.token });
  });

  it('past 10,000 rows: maxPages stops where asked, no maxPages reads to the end, paginationInfo without totals', async () => {
    const three = await api.Issues.all({ projectId: big, perPage: 100, maxPages: 3, showExpanded: true });
    expect(three.data.map((i) => i.iid)).toEqual(Array.from({ length: 300 }, (_, k) => BIG_ISSUES - k));
    expect(three.paginationInfo).toMatchObject({ next: 4, current: 3, previous: 2, perPage: 100 });
    expect([three.paginationInfo.total, three.paginationInfo.totalPages]).toEqual([NaN, NaN]);
    const every = await api.Issues.all({ projectId: big, perPage: 100 });
    expect(every.map((i) => i.iid)).toEqual(Array.from({ length: BIG_ISSUES }, (_, k) => BIG_ISSUES - k));
    const past = await api.Issues.all({ projectId: big, perPage: 100, page: 102, showExpanded: true });
    expect(past.data).toEqual([]);
    expect(past.paginationInfo).toMatchObject({ next: null, current: 102, previous: null, perPage: 100 });
  });

  it('a counted list: paginationInfo totals; past the end, no previous page', async () => {
    const all = await api.Issues.all({ projectId: small, perPage: 3 });
    expect(all.map((i) => i.iid)).toEqual([7, 6, 5, 4, 3, 2, 1]);
    const last = await api.Issues.all({ projectId: small, perPage: 3, page: 3, showExpanded: true });
    expect(last.paginationInfo).toEqual({ total: 7, next: null, current: 3, previous: 2, perPage: 3, totalPages: 3 });
    const past = await api.Issues.all({ projectId: small, perPage: 3, page: 4, showExpanded: true });
    expect(past.data).toEqual([]);
    expect(past.paginationInfo).toEqual({ total: 7, next: null, current: 4, previous: null, perPage: 3, totalPages: 3 });
  });

  it("pagination: 'keyset' follows the next link: projects, users, and an anonymous caller's groups by name", async () => {
    const sorted = [...projectIds].sort((a, b) => a - b);
    const two = await api.Projects.all({ pagination: 'keyset', orderBy: 'id', sort: 'asc', perPage: 4, maxPages: 2 });
    expect(two.map((p) => p.id)).toEqual(sorted.slice(0, 8));
    const desc = await api.Projects.all({ pagination: 'keyset', orderBy: 'id', sort: 'desc', perPage: 4 });
    expect(desc.map((p) => p.id)).toEqual([...sorted].reverse());
    const users = await api.Users.all({ pagination: 'keyset', orderBy: 'name', sort: 'desc', perPage: 2 });
    const offset = await api.Users.all({ orderBy: 'name', sort: 'desc', perPage: 2 });
    expect(users.map((u) => u.id)).toEqual(offset.map((u) => u.id));
    expect(users).toHaveLength(9);
    const anonymous = new Gitlab({ host: served.url });
    const groups = await anonymous.Groups.all({ pagination: 'keyset', orderBy: 'name', sort: 'asc', perPage: 2 });
    expect(groups.map((g) => g.name)).toEqual([...publicGroups.map((g) => g.name)].sort());
    // Groups offer no other keyset order: GitLab's 405.
    await expect(anonymous.Groups.all({ pagination: 'keyset', orderBy: 'id', sort: 'asc', perPage: 2 })).rejects.toMatchObject({
      cause: { response: { status: 405 } },
    });
  });
});

describe('go-gitlab 0.73 pages', () => {
  it('walks resp.NextPage to the end past 10,000 rows, counts a small list, and a page past the end has no previous page', () => {
    const out = runGo(
      served,
      `
	type page struct{ N, Current, Next, Prev, Total, Pages int }
	seen := map[int]bool{}
	var pages []page
	opt := &gitlab.ListProjectIssuesOptions{ListOptions: gitlab.ListOptions{PerPage: 100}}
	for {
		is, resp, err := git.Issues.ListProjectIssues(${big}, opt)
		must(err)
		for _, i := range is {
			seen[i.IID] = true
		}
		pages = append(pages, page{len(is), resp.CurrentPage, resp.NextPage, resp.PreviousPage, resp.TotalItems, resp.TotalPages})
		if resp.NextPage == 0 {
			break
		}
		opt.Page = resp.NextPage
	}
	at := func(project, perPage, n int) page {
		is, resp, err := git.Issues.ListProjectIssues(project, &gitlab.ListProjectIssuesOptions{ListOptions: gitlab.ListOptions{PerPage: perPage, Page: n}})
		must(err)
		return page{len(is), resp.CurrentPage, resp.NextPage, resp.PreviousPage, resp.TotalItems, resp.TotalPages}
	}
	return map[string]any{"pages": len(pages), "seen": len(seen), "first": pages[0], "last": pages[len(pages)-1],
		"past": at(${big}, 100, 102), "small": at(${small}, 3, 2), "smallPast": at(${small}, 3, 4)}`,
    );
    const page = (N: number, Current: number, Next: number, Prev: number, Total: number, Pages: number) => ({ N, Current, Next, Prev, Total, Pages });
    expect(out).toEqual({
      pages: 101,
      seen: BIG_ISSUES,
      first: page(100, 1, 2, 0, 0, 0),
      last: page(30, 101, 0, 100, 0, 0),
      past: page(0, 102, 0, 0, 0, 0),
      small: page(3, 2, 3, 1, 7, 3),
      smallPast: page(0, 4, 0, 0, 7, 3),
    });
  });
});

describe('the Ruby gitlab gem 4.17 pages', () => {
  it('each_page, lazy_paginate and auto_paginate follow the Link header to the end; past the end there is no prev link', () => {
    const out = runRuby(
      served,
      `
first = gl.issues(${big}, per_page: 100)
pages = 0
iids = []
first.each_page { |pg| pages += 1; iids.concat(pg.map(&:iid)) }
lazy = gl.issues(${big}, per_page: 100).lazy_paginate.take(250).map(&:iid).to_a
small = gl.issues(${small}, per_page: 3)
past = gl.issues(${small}, per_page: 3, page: 4)
big_past = gl.issues(${big}, per_page: 100, page: 102)
keyset = gl.projects(per_page: 4, pagination: "keyset", order_by: "id", sort: "asc").auto_paginate.map(&:id)
puts JSON.generate(
  pages: pages, all: iids == (1..${BIG_ISSUES}).to_a.reverse,
  big_first: [first.has_next_page?, first.has_last_page?, first.has_prev_page?],
  lazy: lazy == (${BIG_ISSUES - 249}..${BIG_ISSUES}).to_a.reverse,
  small: small.auto_paginate.map(&:iid), small_last: small.last_page.map(&:iid),
  past: [past.size, past.has_prev_page?, past.has_next_page?, past.has_first_page?, past.has_last_page?],
  big_past: [big_past.size, big_past.has_prev_page?, big_past.has_next_page?, big_past.has_first_page?, big_past.has_last_page?],
  keyset: keyset
)`,
    );
    expect(out).toEqual({
      pages: 101,
      all: true,
      big_first: [true, false, false],
      lazy: true,
      small: [7, 6, 5, 4, 3, 2, 1],
      small_last: [1],
      past: [0, false, false, true, true],
      big_past: [0, false, false, true, false],
      keyset: [...projectIds].sort((a, b) => a - b),
    });
  });
});
