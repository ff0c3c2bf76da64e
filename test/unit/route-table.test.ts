import { describe, expect, it } from 'vitest';
import { RouteTable } from '../../src/main/service/http/router';
import { MEMORY_BUDGET } from '../../src/main/service/memory';

/**
 * The route table remembers the paths it resolved (http/router.ts): a path seen before must
 * resolve exactly as a fresh walk would, whatever was added or asked in between.
 */
const found = (t: RouteTable<string>, method: string, url: string) => {
  const r = t.find(method, url);
  return r && r.kind === 'found' ? { route: r.route, params: r.params } : r;
};

describe('the route table resolving a path it saw before', () => {
  it('gives each request its own parameters, decoded as the first time', () => {
    const t = new RouteTable<string>();
    t.add('GET', '/projects/:id/badges/:badge_id', 'badge');
    const first = t.find('GET', '/projects/a%2Fb/badges/7?x=1');
    expect(first).toEqual({ kind: 'found', route: 'badge', params: { id: 'a/b', badge_id: '7' } });
    if (first?.kind === 'found') first.params.id = 'changed by a handler';
    expect(found(t, 'GET', '/projects/a%2Fb/badges/7?y=2')).toEqual({ route: 'badge', params: { id: 'a/b', badge_id: '7' } });
    expect(found(t, 'GET', '/projects/a%2Fb/badges/8')).toEqual({ route: 'badge', params: { id: 'a/b', badge_id: '8' } });
  });

  it('makes parameters plain objects with the route names in path order, the last of two equal names winning at its first place', () => {
    const t = new RouteTable<string>();
    t.add('GET', '/a/:b_id/c/:id', 'order');
    t.add('GET', '/twice/:id/again/:id', 'twice');
    t.add('GET', '/odd/:__proto__/:constructor/:x-y', 'odd');
    t.add('GET', '/files/:id/*', 'rest');
    const params = (url: string) => {
      const r = t.find('GET', url);
      return r?.kind === 'found' ? r.params : null;
    };
    const order = params('/a/1/c/2')!;
    expect([Object.keys(order), Object.getPrototypeOf(order) === Object.prototype]).toEqual([['b_id', 'id'], true]);
    expect(JSON.stringify(params('/twice/1/again/2'))).toBe('{"id":"2"}');
    const odd = params('/odd/p/c/xy')!;
    expect(Object.getPrototypeOf(odd)).toBe(Object.prototype);
    expect(Object.keys(odd)).toEqual(['constructor', 'x-y']);
    expect([odd.constructor, odd['x-y']]).toEqual(['c', 'xy']);
    expect(JSON.stringify(params('/files/7/a/b%20c'))).toBe('{"id":"7","*":"a/b c"}');
  });

  it('finds a route added after the path was resolved (to nothing, then to a parameter route)', () => {
    const t = new RouteTable<string>();
    expect(t.find('GET', '/version')).toBeNull();
    t.add('GET', '/:name', 'param');
    expect(found(t, 'GET', '/version')).toEqual({ route: 'param', params: { name: 'version' } });
    t.add('GET', '/version', 'static');
    expect(found(t, 'GET', '/version')).toEqual({ route: 'static', params: {} });
    expect(t.methodsMatching('/version', ['GET', 'POST'])).toEqual(['GET']);
    t.add('POST', '/version', 'post');
    expect(t.methodsMatching('/version', ['GET', 'POST'])).toEqual(['GET', 'POST']);
  });

  it('names the whole target, query included, in every bad URL answer', () => {
    const t = new RouteTable<string>();
    t.add('GET', '/a/:x', 'a');
    expect(t.find('GET', '/a/%zz?q=1')).toEqual({ kind: 'badUrl', path: '/a/%zz?q=1' });
    expect(t.find('GET', '/a/%zz?q=2')).toEqual({ kind: 'badUrl', path: '/a/%zz?q=2' });
    expect(t.find('GET', `/a/${'x'.repeat(3000)}`)).toEqual({ kind: 'tooLong', path: `/a/${'x'.repeat(3000)}` });
  });

  it('resolves every path right past the bound of remembered paths', () => {
    const t = new RouteTable<string>();
    t.add('GET', '/items/:id', 'item');
    for (let i = 0; i < 5000; i++) expect(found(t, 'GET', `/items/${i}`)).toEqual({ route: 'item', params: { id: String(i) } });
    expect(found(t, 'GET', '/items/3')).toEqual({ route: 'item', params: { id: '3' } });
  });
});

describe("the route table's memory of paths", () => {
  /** How many paths `method`'s tree remembers (http/router.ts Tree.memo). */
  const remembered = (t: RouteTable<string>, method: string): number => (t as unknown as { trees: Map<string, { memo: Map<string, unknown> }> }).trees.get(method)!.memo.size;

  it('stays within its budget while a crawler asks thousands of distinct paths, and keeps no over-long one', () => {
    const t = new RouteTable<string>();
    t.add('GET', '/projects/:id/issues/:iid', 'issue');
    for (let i = 0; i < 3 * MEMORY_BUDGET.routePaths; i++) {
      expect(found(t, 'GET', `/projects/${i}/issues/${i}?page=${i}`)).toEqual({ route: 'issue', params: { id: String(i), iid: String(i) } });
      expect(remembered(t, 'GET')).toBeLessThanOrEqual(MEMORY_BUDGET.routePaths);
    }
    const before = remembered(t, 'GET');
    const long = 'x'.repeat(MEMORY_BUDGET.routePathMaxLength);
    expect(found(t, 'GET', `/projects/${long}/issues/1`)).toEqual({ route: 'issue', params: { id: long, iid: '1' } });
    expect(remembered(t, 'GET')).toBe(before);
  });
});

describe('the route table refusing what it cannot hold, as each route is added', () => {
  it('throws for a pattern already added for the method, whatever its parameters are named, before any lookup', () => {
    const t = new RouteTable<string>();
    t.add('GET', '/projects/:id/badges/:badge_id', 'badge');
    t.add('GET', '/projects/:id/archive.:format', 'archive');
    t.add('GET', '/files/:id/*', 'rest');
    t.add('POST', '/projects/:id/badges/:badge_id', 'another method');
    t.add('GET', '/projects/:id/badges/all', 'a static beside the parameter');
    t.add('GET', '/projects/:id/archive', 'no prefix');
    expect(() => t.add('GET', '/projects/:project_id/badges/:id', 'again')).toThrow("Method 'GET' already declared for route '/projects/:project_id/badges/:id'");
    expect(() => t.add('GET', '//projects/:p/badges/:b/', 'again')).toThrow('already declared');
    expect(() => t.add('GET', '/projects/:x/archive.:y', 'again')).toThrow('already declared');
    expect(() => t.add('GET', '/files/:x/*', 'again')).toThrow('already declared');
    expect(() => t.add('GET', '/files/:x/a/*/b', 'misplaced')).toThrow("route /files/:x/a/*/b: '*' must end the pattern");
    // The first of each stays; the refused ones left nothing behind.
    expect(found(t, 'GET', '/projects/7/badges/8')).toEqual({ route: 'badge', params: { id: '7', badge_id: '8' } });
    expect(found(t, 'GET', '/projects/7/badges/all')).toEqual({ route: 'a static beside the parameter', params: { id: '7' } });
    expect(found(t, 'GET', '/projects/7/archive.zip')).toEqual({ route: 'archive', params: { id: '7', format: 'zip' } });
    expect(found(t, 'GET', '/projects/7/archive')).toEqual({ route: 'no prefix', params: { id: '7' } });
    expect(found(t, 'GET', '/files/7/a/b')).toEqual({ route: 'rest', params: { id: '7', '*': 'a/b' } });
    expect(found(t, 'GET', '/files/7/a/x/b')).toEqual({ route: 'rest', params: { id: '7', '*': 'a/x/b' } });
    expect(t.methodsMatching('/projects/7/badges/8', ['GET', 'POST', 'PUT'])).toEqual(['GET', 'POST']);
  });
});
