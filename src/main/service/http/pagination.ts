import type { RequestContext } from './route';
import { grapeError } from './errors';

export interface Page {
  page: number;
  perPage: number;
  offset: number;
}

/** `page`/`per_page` as GitLab reads them: default 20, clamped at 100, per_page=0 refused. */
export function readPage(params: Record<string, unknown>, defaultPerPage = 20): Page {
  const parse = (name: string, fallback: number): number => {
    const raw = params[name];
    if (raw === undefined || raw === null || raw === '') return fallback;
    const s = String(raw).trim();
    if (!/^-?\d+$/.test(s)) throw grapeError(400, `${name} is invalid`);
    return Number.parseInt(s, 10);
  };
  let page = parse('page', 1);
  let perPage = parse('per_page', defaultPerPage);
  if (perPage === 0) throw grapeError(400, 'per_page has a value not allowed');
  if (perPage < 0) perPage = defaultPerPage;
  if (perPage > 100) perPage = 100;
  if (page < 1) page = 1;
  return { page, perPage, offset: (page - 1) * perPage };
}

/** Sets X-Total, X-Total-Pages, X-Per-Page, X-Page, X-Next-Page, X-Prev-Page and Link. */
export function setPaginationHeaders(rc: RequestContext, page: Page, total: number): void {
  const totalPages = Math.max(1, Math.ceil(total / page.perPage));
  const next = page.page < totalPages ? page.page + 1 : null;
  const prev = page.page > 1 ? page.page - 1 : null;
  const link = (p: number, rel: string): string => `<${pageUrl(rc, p, page.perPage)}>; rel="${rel}"`;
  const links: string[] = [];
  if (prev) links.push(link(prev, 'prev'));
  if (next) links.push(link(next, 'next'));
  links.push(link(1, 'first'));
  links.push(link(totalPages, 'last'));
  rc.reply.headers({
    'x-total': String(total),
    'x-total-pages': String(totalPages),
    'x-per-page': String(page.perPage),
    'x-page': String(page.page),
    'x-next-page': next ? String(next) : '',
    'x-prev-page': prev ? String(prev) : '',
    link: links.join(', '),
  });
}

/** The request's own URL (same scheme, host and port the client used) with page/per_page set. */
function pageUrl(rc: RequestContext, page: number, perPage: number): string {
  const query: [string, string][] = [];
  for (const [k, v] of rc.queryPairs) if (k !== 'page' && k !== 'per_page') query.push([k, v]);
  query.push(['page', String(page)], ['per_page', String(perPage)]);
  query.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const qs = query.map(([k, v]) => `${encodeURIComponent(k).replace(/%5B/g, '%5B')}=${encodeURIComponent(v)}`).join('&');
  return `${rc.baseUrl}${rc.pathname}?${qs}`;
}

/**
 * One page of a list: `count()` for the total, `rows(limit, offset)` for the page; sets the
 * headers and returns the rows.
 */
export function paginate<T>(
  rc: RequestContext,
  source: { count: () => number; rows: (limit: number, offset: number) => T[] },
  defaultPerPage = 20,
): T[] {
  const page = readPage(rc.params, defaultPerPage);
  const total = source.count();
  setPaginationHeaders(rc, page, total);
  return source.rows(page.perPage, page.offset);
}

/** Pagination of a list already in memory. */
export function paginateArray<T>(rc: RequestContext, items: T[], defaultPerPage = 20): T[] {
  return paginate(rc, { count: () => items.length, rows: (limit, offset) => items.slice(offset, offset + limit) }, defaultPerPage);
}
