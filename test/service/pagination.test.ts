import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService } from '../helpers/service';

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s.stop());

/** Adds `n` issues to a project straight in SQL (the list, not the write, is under test), all at one instant. */
function seedIssues(projectId: number, n: number, createdAt = '2024-01-01T00:00:00.000Z'): void {
  const db = s.service.context.db;
  const insert = db.prepare(
    `INSERT INTO issues (project_id, iid, title, author_id, created_at, updated_at) VALUES (?, ?, ?, 1, ?, ?)`,
  );
  db.transaction(() => {
    for (let i = 1; i <= n; i++) insert.run(projectId, i, `Issue ${i}`, createdAt, createdAt);
  })();
}

const links = (header: string | null): Record<string, string> =>
  Object.fromEntries(
    (header ?? '')
      .split(', ')
      .filter(Boolean)
      .map((l) => {
        const m = /^<([^>]+)>; rel="(\w+)"$/.exec(l)!;
        return [m[2], m[1]];
      }),
  );

describe('offset pagination headers around 10,000 rows', () => {
  it('counts exactly up to 10,000 rows: X-Total, X-Total-Pages and rel="last"', async () => {
    const p = await s.createProject();
    seedIssues(p.id, 10_000);
    const res = await s.get(`/projects/${p.id}/issues`, { query: { per_page: 20, page: 2 } });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(20);
    expect(res.headers.get('x-total')).toBe('10000');
    expect(res.headers.get('x-total-pages')).toBe('500');
    expect(res.headers.get('x-page')).toBe('2');
    expect(res.headers.get('x-next-page')).toBe('3');
    expect(res.headers.get('x-prev-page')).toBe('1');
    expect(Object.keys(links(res.headers.get('link')))).toEqual(['prev', 'next', 'first', 'last']);
    expect(links(res.headers.get('link')).last).toBe(`${s.url}/api/v4/projects/${p.id}/issues?page=500&per_page=20`);
    // Past the last page: out of range (Kaminari's prev_page and next_page): counted, no previous page.
    for (const page of [501]) {
      const past = await s.get(`/projects/${p.id}/issues`, { query: { per_page: 20, page } });
      expect(past.body).toEqual([]);
      expect([past.headers.get('x-total'), past.headers.get('x-total-pages'), past.headers.get('x-page'), past.headers.get('x-next-page'), past.headers.get('x-prev-page')]).toEqual(['10000', '500', String(page), '', '']);
      expect(Object.keys(links(past.headers.get('link')))).toEqual(['first', 'last']);
    }
  });

  it('past 10,000 rows omits X-Total, X-Total-Pages and rel="last" but still says whether a next page exists', async () => {
    const p = await s.createProject();
    seedIssues(p.id, 10_001);
    const first = await s.get(`/projects/${p.id}/issues`, { query: { per_page: 100 } });
    expect(first.status).toBe(200);
    expect(first.body).toHaveLength(100);
    expect(first.body[0].iid).toBe(10_001);
    expect(first.headers.has('x-total')).toBe(false);
    expect(first.headers.has('x-total-pages')).toBe(false);
    expect(first.headers.get('x-per-page')).toBe('100');
    expect(first.headers.get('x-page')).toBe('1');
    expect(first.headers.get('x-next-page')).toBe('2');
    expect(first.headers.get('x-prev-page')).toBe('');
    expect(links(first.headers.get('link'))).toEqual({
      next: `${s.url}/api/v4/projects/${p.id}/issues?page=2&per_page=100`,
      first: `${s.url}/api/v4/projects/${p.id}/issues?page=1&per_page=100`,
    });

    const last = await s.get(`/projects/${p.id}/issues`, { query: { per_page: 100, page: 101 } });
    expect(last.body.map((i: any) => i.iid)).toEqual([1]);
    expect(last.headers.get('x-next-page')).toBe('');
    expect(last.headers.get('x-prev-page')).toBe('100');
    expect(Object.keys(links(last.headers.get('link')))).toEqual(['prev', 'first']);

    const beyond = await s.get(`/projects/${p.id}/issues`, { query: { per_page: 100, page: 102 } });
    expect(beyond.body).toEqual([]);
    expect(beyond.headers.get('x-next-page')).toBe('');
    // An empty page is out of range (PaginatableWithoutCount#out_of_range?): no previous page either.
    expect(beyond.headers.get('x-prev-page')).toBe('');
    expect(Object.keys(links(beyond.headers.get('link')))).toEqual(['first']);
  });

  it('a filter that leaves 10,000 or fewer of the rows is counted again', async () => {
    const p = await s.createProject();
    seedIssues(p.id, 10_001);
    s.service.context.db.prepare(`UPDATE issues SET state = 'closed' WHERE project_id = ? AND iid <= 3`).run(p.id);
    const closed = await s.get(`/projects/${p.id}/issues`, { query: { state: 'closed' } });
    expect(closed.headers.get('x-total')).toBe('3');
    expect(closed.headers.get('x-total-pages')).toBe('1');
    const opened = await s.get(`/projects/${p.id}/issues`, { query: { state: 'opened' } });
    expect(opened.headers.get('x-total')).toBe('9998');
  });

  it('a page past an offset of 10,000 of a shorter list is still counted, as GitLab counts whatever the page', async () => {
    // GitLab's paginate_with_limit_optimization counts the whole list (total_count_with_limit, up to 10,001) before
    // the page is read: page 600 of 3 issues says X-Total 3 as page 1 does; out of range, no next or previous page.
    const p = await s.createProject();
    seedIssues(p.id, 3);
    s.service.context.db.prepare(`UPDATE issues SET state = 'closed' WHERE project_id = ? AND iid = 1`).run(p.id);
    for (const query of [{}, { state: 'opened' }, { state: 'closed', order_by: 'title' }, { search: 'Issue', sort: 'asc' }] as Record<string, string>[]) {
      const want = query.state === 'opened' ? 2 : query.state === 'closed' ? 1 : 3;
      for (const page of [501, 600, 2500]) {
        const res = await s.get(`/projects/${p.id}/issues`, { query: { ...query, per_page: 20, page } });
        const what = `${JSON.stringify(query)} page ${page}`;
        expect(res.body, what).toEqual([]);
        expect([res.headers.get('x-total'), res.headers.get('x-total-pages'), res.headers.get('x-next-page'), res.headers.get('x-prev-page')], what).toEqual([String(want), '1', '', '']);
        const last = new URL(links(res.headers.get('link')).last);
        expect(Object.fromEntries(last.searchParams), what).toEqual({ ...query, page: '1', per_page: '20' });
      }
    }
    // Lists without counters of their own: users and groups.
    await s.createGroup();
    for (const path of ['/users', '/groups']) {
      const first = await s.get(path);
      const deep = await s.get(path, { query: { page: 600 } });
      expect(deep.body, path).toEqual([]);
      expect(deep.headers.get('x-total'), path).toBe(first.headers.get('x-total'));
      expect(Number(deep.headers.get('x-total')), path).toBeGreaterThan(0);
      expect(deep.headers.get('x-total-pages'), path).toBe(first.headers.get('x-total-pages'));
    }
  });
});

describe('ordering ties', () => {
  it('pages of rows with the same sort value never repeat or skip a row (id breaks the tie)', async () => {
    const p = await s.createProject();
    seedIssues(p.id, 45);
    const seen: number[] = [];
    for (let page = 1; page <= 5; page++) {
      const res = await s.get(`/projects/${p.id}/issues`, { query: { per_page: 10, page, order_by: 'created_at', sort: 'asc' } });
      seen.push(...res.body.map((i: any) => i.iid));
    }
    expect(seen).toEqual(Array.from({ length: 45 }, (_, i) => i + 1));
    const desc = await s.get(`/projects/${p.id}/issues`, { query: { per_page: 3 } });
    expect(desc.body.map((i: any) => i.iid)).toEqual([45, 44, 43]);
  });
});

/** Follows `rel="next"` from `path` to the end; returns every page's ids and the links seen. */
async function followKeyset(path: string, token?: string | null): Promise<{ pages: number[][]; links: string[] }> {
  const pages: number[][] = [];
  const seenLinks: string[] = [];
  let url: string | null = path;
  for (let guard = 0; url && guard < 50; guard++) {
    const res: ApiResult = await s.get(url, { token });
    expect(res.status).toBe(200);
    expect(res.headers.has('x-total')).toBe(false);
    expect(res.headers.has('x-page')).toBe(false);
    pages.push(res.body.map((x: any) => x.id));
    const next = links(res.headers.get('link')).next ?? null;
    if (next) seenLinks.push(next);
    url = next;
  }
  return { pages, links: seenLinks };
}

describe('keyset pagination', () => {
  it('projects: order_by=id pages through id_after, an empty page without Link at the end', async () => {
    const created: number[] = [];
    for (let i = 0; i < 5; i++) created.push((await s.createProject({ name: `keyset-${i}` })).id);
    const all = (await s.get('/projects', { query: { order_by: 'id', sort: 'asc', per_page: 100 } })).body.map((p: any) => p.id);
    const { pages, links: seen } = await followKeyset('/projects?pagination=keyset&order_by=id&sort=asc&per_page=2');
    expect(pages.flat()).toEqual(all);
    expect(pages[pages.length - 1]).toEqual([]);
    expect(pages.slice(0, -1).every((p) => p.length > 0)).toBe(true);
    expect(seen[0]).toBe(`${s.url}/api/v4/projects?id_after=${all[1]}&order_by=id&pagination=keyset&per_page=2&sort=asc`);
    expect(all).toEqual(expect.arrayContaining(created));
  });

  it('projects: sort=desc pages through id_before', async () => {
    const all = (await s.get('/projects', { query: { order_by: 'id', sort: 'desc', per_page: 100 } })).body.map((p: any) => p.id);
    const { pages, links: seen } = await followKeyset('/projects?pagination=keyset&order_by=id&sort=desc&per_page=3');
    expect(pages.flat()).toEqual(all);
    expect(seen[0]).toContain(`id_before=${all[2]}`);
  });

  it('projects: any other order answers 405', async () => {
    for (const query of ['pagination=keyset', 'pagination=keyset&order_by=name', 'pagination=keyset&order_by=created_at&sort=asc']) {
      const res = await s.get(`/projects?${query}`);
      expect(res.status).toBe(405);
      expect(res.body).toEqual({ error: 'Keyset pagination is not yet available for this type of request' });
    }
  });

  it('users: a cursor for every offered order, ties in the order column broken by id', async () => {
    for (let i = 0; i < 4; i++) await s.createUser({ name: 'Same Name' });
    for (const [orderBy, sort] of [
      ['name', 'asc'],
      ['name', 'desc'],
      ['username', 'asc'],
      ['id', 'desc'],
      ['created_at', 'asc'],
      ['updated_at', 'desc'],
    ]) {
      const all = (await s.get('/users', { query: { order_by: orderBy, sort, per_page: 100 } })).body.map((u: any) => u.id);
      const { pages, links: seen } = await followKeyset(`/users?pagination=keyset&order_by=${orderBy}&sort=${sort}&per_page=2`);
      expect(pages.flat()).toEqual(all);
      // One row more than the page tells whether there is a next one: no trailing empty page.
      expect(pages.every((p) => p.length > 0)).toBe(true);
      const cursor = new URL(seen[0]).searchParams.get('cursor')!;
      const decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString());
      expect(decoded._kd).toBe('n');
      expect(decoded.id).toBe(String(all[1]));
      if (orderBy !== 'id') expect(Object.keys(decoded)).toEqual([orderBy, 'id', '_kd']);
    }
  });

  it('users: a cursor that is not one answers 400', async () => {
    const res = await s.get('/users?pagination=keyset&order_by=id&cursor=%%%');
    expect(res.status).toBe(400);
  });

  it('groups: keyset for anonymous callers ordered by name ascending only; signed in, offset as usual', async () => {
    for (const name of ['kb', 'ka', 'kc']) await s.createGroup({ name, path: `keyset-${name}-${Date.now()}`, visibility: 'public' });
    const all = (await s.get('/groups', { token: null, query: { per_page: 100 } })).body.map((g: any) => g.id);
    const { pages } = await followKeyset('/groups?pagination=keyset&order_by=name&sort=asc&per_page=2', null);
    expect(pages.flat()).toEqual(all);

    const desc = await s.get('/groups?pagination=keyset&order_by=name&sort=desc', { token: null });
    expect(desc.status).toBe(405);
    expect(desc.body).toEqual({ error: 'Keyset pagination is not yet available for this type of request' });

    const signedIn = await s.get('/groups?pagination=keyset&order_by=name&sort=desc');
    expect(signedIn.status).toBe(200);
    expect(signedIn.headers.get('x-total')).not.toBeNull();
  });

  it('groups: anonymous offsets past 50,000 answer 405 and point to keyset pagination', async () => {
    const res = await s.get('/groups', { token: null, query: { page: 3000, per_page: 25 } });
    expect(res.status).toBe(405);
    expect(res.body).toEqual({
      error:
        'Offset pagination has a maximum allowed offset of 50000 for requests that return objects of type Group. ' +
        'Remaining records can be retrieved using keyset pagination.',
    });
    expect((await s.get('/groups', { query: { page: 3000, per_page: 25 } })).status).toBe(200);
  });

  it('lists without keyset ignore pagination=keyset and paginate by offset', async () => {
    const p = await s.createProject();
    seedIssues(p.id, 3);
    const res = await s.get(`/projects/${p.id}/labels`, { query: { pagination: 'keyset' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total')).toBe('0');
  });
});
