import type { ApiRequest } from '../../src/shared/ipc';
import type { Bridge, BridgeResponse } from '../../src/renderer/src/bridge';

export interface FakeAnswer {
  status?: number;
  headers?: Record<string, string>;
  body: unknown;
}

/** A Bridge whose API is a function of the request; every request is recorded. */
export function fakeBridge(answer: (req: ApiRequest) => FakeAnswer | Promise<FakeAnswer>): Bridge & { requests: ApiRequest[] } {
  const requests: ApiRequest[] = [];
  async function api<T>(req: ApiRequest): Promise<BridgeResponse<T>> {
    requests.push(req);
    const a = await answer(req);
    return { status: a.status ?? 200, headers: a.headers ?? {}, body: a.body as T };
  }
  return {
    kind: 'http',
    desktop: null,
    requests,
    isReady: () => true,
    api,
    upload: (req) => api(req),
    status: async () => ({ url: 'http://127.0.0.1:1', listening: true, error: null, version: '17.9.0' }),
    onJobProgress: () => () => {},
  };
}

export interface Thing {
  id: number;
  name: string;
}

/** `count` things named thing-001..., served the way GitLab pages and sorts a list. */
export function thingsServer(count: number, opts: { totals?: boolean; nextPage?: boolean } = {}) {
  const all: Thing[] = Array.from({ length: count }, (_, i) => ({ id: i + 1, name: `thing-${String(i + 1).padStart(3, '0')}` }));
  return (req: ApiRequest): FakeAnswer => {
    const q = req.query ?? {};
    const page = Number(q.page ?? 1);
    const perPage = Number(q.per_page ?? 20);
    let rows = all.filter((t) => !q.search || t.name.includes(String(q.search)));
    if (q.order_by === 'name') rows = [...rows].sort((a, b) => a.name.localeCompare(b.name) * (q.sort === 'desc' ? -1 : 1));
    const totalPages = Math.max(1, Math.ceil(rows.length / perPage));
    const headers: Record<string, string> = { 'x-page': String(page), 'x-per-page': String(perPage) };
    if (opts.totals !== false) Object.assign(headers, { 'x-total': String(rows.length), 'x-total-pages': String(totalPages) });
    if (opts.nextPage !== false) {
      headers['x-next-page'] = page < totalPages ? String(page + 1) : '';
      // Out of range past the last page (Kaminari): no previous page, as GitLab.
      headers['x-prev-page'] = page > 1 && page <= totalPages ? String(page - 1) : '';
    }
    return { headers, body: rows.slice((page - 1) * perPage, page * perPage) };
  };
}
