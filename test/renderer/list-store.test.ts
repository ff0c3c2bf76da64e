import { describe, expect, it } from 'vitest';
import { createListStore, readPageInfo, type ListQuery } from '../../src/renderer/src/stores/list';
import { fakeBridge, thingsServer, type Thing } from './fake-bridge';

const things = (q: ListQuery) => ({
  method: 'GET' as const,
  path: '/things',
  query: { order_by: q.sort?.id, sort: q.sort ? (q.sort.desc ? 'desc' : 'asc') : undefined, search: q.filter || undefined },
});

describe('the server-paginated list store', () => {
  it('asks for page and per_page and keeps what the pagination headers say', async () => {
    const bridge = fakeBridge(thingsServer(45));
    const list = createListStore<Thing>(things, { bridge });
    await list.getState().load();
    expect(bridge.requests[0].query).toMatchObject({ page: 1, per_page: 20 });
    expect(list.getState()).toMatchObject({ total: 45, totalPages: 3, nextPage: 2, prevPage: null, loaded: true, error: null });
    expect(list.getState().rows.map((r) => r.id)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    await list.getState().setPage(3);
    expect(bridge.requests[1].query).toMatchObject({ page: 3, per_page: 20 });
    expect(list.getState()).toMatchObject({ nextPage: null, prevPage: 2 });
    expect(list.getState().rows).toHaveLength(5);
  });

  it('a page past the end (its last row gone) still goes back one, where the server says no previous page', async () => {
    const list = createListStore<Thing>(things, { bridge: fakeBridge(thingsServer(20)) });
    await list.getState().setPage(2);
    expect(list.getState().rows).toEqual([]);
    expect(list.getState()).toMatchObject({ total: 20, totalPages: 1, nextPage: null, prevPage: 1 });
    await list.getState().setPage(1);
    expect(list.getState()).toMatchObject({ nextPage: null, prevPage: null });
    expect(list.getState().rows).toHaveLength(20);
  });

  it('pages without X-Total: X-Next-Page says whether there is more', async () => {
    const list = createListStore<Thing>(things, { bridge: fakeBridge(thingsServer(45, { totals: false })) });
    await list.getState().load();
    expect(list.getState()).toMatchObject({ total: null, totalPages: null, nextPage: 2 });
    await list.getState().setPage(3);
    expect(list.getState()).toMatchObject({ total: null, nextPage: null, prevPage: 2 });
  });

  it('pages without any pagination header: a full page means there may be more', async () => {
    const list = createListStore<Thing>(things, { bridge: fakeBridge(thingsServer(40, { totals: false, nextPage: false })) });
    await list.getState().load();
    expect(list.getState()).toMatchObject({ nextPage: 2, prevPage: null });
    await list.getState().setPage(2);
    expect(list.getState()).toMatchObject({ nextPage: 3, prevPage: 1 });
    await list.getState().setPage(3);
    expect(list.getState().rows).toEqual([]);
    expect(list.getState()).toMatchObject({ nextPage: null, prevPage: 2 });
  });

  it('sorting and filtering ask the server again, from page 1', async () => {
    const bridge = fakeBridge(thingsServer(45));
    const list = createListStore<Thing>(things, { bridge });
    await list.getState().setPage(2);
    await list.getState().setSort({ id: 'name', desc: true });
    expect(bridge.requests.at(-1)!.query).toMatchObject({ page: 1, order_by: 'name', sort: 'desc' });
    expect(list.getState().rows[0].name).toBe('thing-045');
    await list.getState().setFilter('thing-01');
    expect(bridge.requests.at(-1)!.query).toMatchObject({ page: 1, search: 'thing-01', order_by: 'name' });
    expect(list.getState().rows.map((r) => r.name)).toEqual(['thing-019', 'thing-018', 'thing-017', 'thing-016', 'thing-015', 'thing-014', 'thing-013', 'thing-012', 'thing-011', 'thing-010']);
  });

  it("keeps the API's error message and the rows it had", async () => {
    let fail = false;
    const server = thingsServer(5);
    const list = createListStore<Thing>(things, {
      bridge: fakeBridge((req) => (fail ? { status: 403, body: { message: '403 Forbidden' } } : server(req))),
    });
    await list.getState().load();
    fail = true;
    await list.getState().load();
    expect(list.getState()).toMatchObject({ error: '403 Forbidden', loading: false });
    expect(list.getState().rows).toHaveLength(5);
  });

  it('drops an answer that arrives after a newer request', async () => {
    const release: (() => void)[] = [];
    const server = thingsServer(45);
    const list = createListStore<Thing>(things, {
      bridge: fakeBridge((req) => new Promise((resolve) => release.push(() => resolve(server(req))))),
    });
    const first = list.getState().setPage(1);
    const second = list.getState().setPage(2);
    release[1]();
    await second;
    release[0]();
    await first;
    expect(list.getState().page).toBe(2);
    expect(list.getState().rows[0].id).toBe(21);
  });

  it('asks nothing while there is nothing to list (no project chosen)', async () => {
    const bridge = fakeBridge(thingsServer(5));
    const list = createListStore<Thing>(() => null, { bridge });
    await list.getState().load();
    expect(bridge.requests).toEqual([]);
    expect(list.getState()).toMatchObject({ rows: [], loaded: false, loading: false });
  });
});

describe('readPageInfo', () => {
  const q: ListQuery = { page: 2, perPage: 20, sort: null, filter: '' };
  it("reads GitLab's headers, an empty X-Next-Page meaning the last page", () => {
    expect(readPageInfo({ 'x-total': '40', 'x-total-pages': '2', 'x-next-page': '', 'x-prev-page': '1' }, q, 20)).toEqual({ total: 40, totalPages: 2, nextPage: null, prevPage: 1 });
  });
});
