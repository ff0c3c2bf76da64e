import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ApiRequest } from '../../../shared/ipc';
import { apiOk, bridge as defaultBridge, type Bridge } from '../bridge';
import { errorText } from '../lib/format';

/** What a list asks the API for: GitLab's page/per_page, one sort column, a filter text. */
export interface ListQuery {
  page: number;
  perPage: number;
  /** A column id the API can order by, or null for the API's default order. */
  sort: { id: string; desc: boolean } | null;
  filter: string;
}

/** One page as the API described it. Totals are null when the API leaves them out (GitLab does past 10,000 rows). */
export interface PageInfo {
  total: number | null;
  totalPages: number | null;
  nextPage: number | null;
  prevPage: number | null;
}

export interface ListState<T> extends ListQuery, PageInfo {
  rows: T[];
  loading: boolean;
  /** The API's message when the last load failed. */
  error: string | null;
  /** False until the first answer: tells "loading" from "empty". */
  loaded: boolean;
  load(): Promise<void>;
  setPage(page: number): Promise<void>;
  setPerPage(perPage: number): Promise<void>;
  setSort(sort: ListQuery['sort']): Promise<void>;
  setFilter(filter: string): Promise<void>;
  /** Back to page 1 with no rows (the request's context, e.g. the project, changed). */
  clear(): void;
}

/** Builds the request for a page, or null when there is nothing to list yet (no project chosen). */
export type ListRequest = (q: ListQuery) => ApiRequest | null;

const header = (headers: Record<string, string>, name: string): number | null => {
  const v = headers[name];
  if (v === undefined || v.trim() === '') return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
};

/**
 * Reads GitLab's pagination headers. Without X-Total the list still pages: X-Next-Page says whether
 * a next page exists, and where even that is missing a full page is taken to mean "maybe more".
 */
export function readPageInfo(headers: Record<string, string>, query: ListQuery, rowCount: number): PageInfo {
  const total = header(headers, 'x-total');
  const totalPages = header(headers, 'x-total-pages');
  let nextPage = header(headers, 'x-next-page');
  if (!('x-next-page' in headers)) nextPage = rowCount >= query.perPage ? query.page + 1 : null;
  // A page past the end (its last row deleted) is out of range: GitLab sends no previous page there, the table still goes back one.
  const prevPage = header(headers, 'x-prev-page') ?? (query.page > 1 && (!('x-prev-page' in headers) || rowCount === 0) ? query.page - 1 : null);
  return { total, totalPages, nextPage, prevPage };
}

/**
 * A server-paginated list: the state a DataTable shows and the actions its controls call. Every
 * change of page, size, sort or filter asks the API again; an answer that arrives after a newer
 * request was made is dropped.
 */
export function createListStore<T>(request: ListRequest, opts: { perPage?: number; sort?: ListQuery['sort']; bridge?: Bridge } = {}): StoreApi<ListState<T>> {
  const api = opts.bridge ?? defaultBridge;
  let generation = 0;
  return createStore<ListState<T>>((set, get) => {
    const reload = (patch: Partial<ListQuery>): Promise<void> => {
      set(patch);
      return get().load();
    };
    return {
      page: 1,
      perPage: opts.perPage ?? 20,
      sort: opts.sort ?? null,
      filter: '',
      rows: [],
      total: null,
      totalPages: null,
      nextPage: null,
      prevPage: null,
      loading: false,
      error: null,
      loaded: false,
      async load() {
        const { page, perPage, sort, filter } = get();
        const query = { page, perPage, sort, filter };
        const req = request(query);
        const mine = ++generation;
        if (!req) {
          set({ rows: [], total: null, totalPages: null, nextPage: null, prevPage: null, loading: false, error: null, loaded: false });
          return;
        }
        set({ loading: true, error: null });
        try {
          const res = await apiOk<T[]>(api, { ...req, query: { ...req.query, page, per_page: perPage } });
          if (mine !== generation) return;
          const rows = Array.isArray(res.body) ? res.body : [];
          set({ rows, ...readPageInfo(res.headers, query, rows.length), loading: false, loaded: true });
        } catch (err) {
          if (mine !== generation) return;
          set({ loading: false, error: errorText(err), loaded: true });
        }
      },
      setPage: (page) => reload({ page: Math.max(1, page) }),
      setPerPage: (perPage) => reload({ perPage, page: 1 }),
      setSort: (sort) => reload({ sort, page: 1 }),
      setFilter: (filter) => reload({ filter, page: 1 }),
      clear() {
        generation++;
        set({ page: 1, rows: [], total: null, totalPages: null, nextPage: null, prevPage: null, loading: false, error: null, loaded: false });
      },
    };
  });
}
