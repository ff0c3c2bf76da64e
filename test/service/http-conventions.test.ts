import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
  for (let i = 0; i < 5; i++) await s.createProject({ name: `page-${i}` });
});
afterAll(async () => s.stop());

describe('pagination', () => {
  it('sends every X- header and a Link with prev, next, first and last', async () => {
    const res = await s.get('/projects', { query: { per_page: 2, page: 2, order_by: 'id', sort: 'asc' } });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(2);
    expect(res.headers.get('x-total')).toBe('5');
    expect(res.headers.get('x-total-pages')).toBe('3');
    expect(res.headers.get('x-per-page')).toBe('2');
    expect(res.headers.get('x-page')).toBe('2');
    expect(res.headers.get('x-next-page')).toBe('3');
    expect(res.headers.get('x-prev-page')).toBe('1');
    const link = res.headers.get('link')!;
    const base = `${s.url}/api/v4/projects?order_by=id&page=`;
    expect(link).toBe(
      [
        `<${base}1&per_page=2&sort=asc>; rel="prev"`,
        `<${base}3&per_page=2&sort=asc>; rel="next"`,
        `<${base}1&per_page=2&sort=asc>; rel="first"`,
        `<${base}3&per_page=2&sort=asc>; rel="last"`,
      ].join(', '),
    );
  });

  it("links keep every other parameter, sorted by name (repeats in their order) and encoded, with page and per_page in their places", async () => {
    const query = 'zeta=1&search=page&order_by=id&sort=asc&per_page=2&page=2&pagination=offset&a%5Bb%5D=%C3%A9+y&labels[]=b&labels[]=a&page_x=%2F';
    const res = await s.get(`/projects?${query}`);
    expect(res.status).toBe(200);
    const others = 'a%5Bb%5D=%C3%A9%20y&labels%5B%5D=b&labels%5B%5D=a&order_by=id';
    const after = 'page_x=%2F&pagination=offset';
    const url = (page: number) => `<${s.url}/api/v4/projects?${others}&page=${page}&${after}&per_page=2&search=page&sort=asc&zeta=1>`;
    expect(res.headers.get('link')).toBe(`${url(1)}; rel="prev", ${url(3)}; rel="next", ${url(1)}; rel="first", ${url(3)}; rel="last"`);
    // Only the two paging parameters: nothing before or after them.
    const bare = await s.get('/projects?page=2&per_page=2');
    expect(bare.headers.get('link')).toBe(
      [1, 3, 1, 3].map((p, i) => `<${s.url}/api/v4/projects?page=${p}&per_page=2>; rel="${['prev', 'next', 'first', 'last'][i]}"`).join(', '),
    );
  });

  it('leaves X-Next-Page empty on the last page and X-Prev-Page empty on the first', async () => {
    const last = await s.get('/projects', { query: { per_page: 2, page: 3 } });
    expect(last.headers.get('x-next-page')).toBe('');
    expect(last.headers.get('link')).not.toContain('rel="next"');
    const first = await s.get('/projects', { query: { per_page: 2 } });
    expect(first.headers.get('x-prev-page')).toBe('');
  });

  it('defaults to 20 per page and clamps per_page at 100', async () => {
    expect((await s.get('/projects')).headers.get('x-per-page')).toBe('20');
    expect((await s.get('/projects', { query: { per_page: 500 } })).headers.get('x-per-page')).toBe('100');
  });

  it('answers an empty list with one total page', async () => {
    const res = await s.get('/projects', { query: { search: 'no-such-thing' } });
    expect(res.body).toEqual([]);
    expect(res.headers.get('x-total')).toBe('0');
    expect(res.headers.get('x-total-pages')).toBe('1');
  });

  it('refuses per_page=0 and non-integers as Grape does', async () => {
    const zero = await s.get('/projects', { query: { per_page: 0 } });
    expect(zero.status).toBe(400);
    expect(zero.body).toEqual({ error: 'per_page has a value not allowed' });
    const bad = await s.get('/projects', { query: { page: 'abc' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'page is invalid' });
  });
});

describe('routing and bodies', () => {
  it('answers unknown routes with {"error":"404 Not Found"} and /api/v3 with 410', async () => {
    const res = await s.get('/nope/nothing');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: '404 Not Found' });
    const v3 = await s.get(`${s.url}/api/v3/projects`);
    expect(v3.status).toBe(410);
    expect(v3.body).toEqual({ error: 'API V3 is no longer supported. Use API V4 instead.' });
  });

  it('answers a known path with another method as 405 with Allow', async () => {
    const res = await s.api('PATCH', '/user');
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ error: '405 Not Allowed' });
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    const encoded = await s.api('PATCH', '/projects/a%2Fb');
    expect(encoded.status).toBe(405);
    expect(encoded.headers.get('allow')).toContain('PUT');
  });

  it('sends exactly Content-Type: application/json and the security headers', async () => {
    const res = await s.get('/version');
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('routes on URL-encoded full paths, case-insensitively', async () => {
    const g = await s.createGroup({ path: 'enc-group' });
    const sub = await s.createGroup({ path: 'Sub.Group', parent_id: g.id });
    const p = await s.createProject({ name: 'My Project', namespace_id: sub.id });
    expect(p.path_with_namespace).toBe('enc-group/Sub.Group/my-project');
    const byPath = await s.get('/projects/enc-group%2Fsub.group%2Fmy-project');
    expect(byPath.status).toBe(200);
    expect(byPath.body.id).toBe(p.id);
    const grp = await s.get('/groups/enc-group%2FSub.Group');
    expect(grp.body.id).toBe(sub.id);
    expect((await s.get('/projects/enc-group%2Fnope')).body).toEqual({ message: '404 Project Not Found' });
  });

  it('merges form bodies with name[] arrays and the query string', async () => {
    const p = await s.createProject();
    const res = await s.api('POST', `/projects/${p.id}/issues?title=From%20query`, {
      form: { 'assignee_ids[]': ['1'], labels: 'x,y' },
    });
    expect(res.status).toBe(201);
    expect(res.body.title).toBe('From query');
    expect(res.body.assignees.map((a: any) => a.id)).toEqual([1]);
    expect(res.body.labels).toEqual(['x', 'y']);
  });

  it('reports every missing parameter at once, joined with ", "', async () => {
    const res = await s.post('/users', {});
    expect(res.status).toBe(400);
    // Grape order: email, then at_least_one_of :password, :reset_password, :force_random_password, then name, username.
    expect(res.body).toEqual({
      error:
        'email is missing, password, reset_password, force_random_password are missing, at least one parameter must be provided, name is missing, username is missing',
    });
  });

  it('reports an invalid enumeration value', async () => {
    const res = await s.post('/projects', { name: 'x', visibility: 'secret' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'visibility does not have a valid value' });
  });

  it('answers malformed JSON with 400, not 500', async () => {
    const res = await fetch(`${s.url}/api/v4/projects`, {
      method: 'POST',
      headers: { 'private-token': 'glpat-test-root-token-000000', 'content-type': 'application/json' },
      body: '{"name": ',
    });
    expect(res.status).toBe(400);
  });
});
