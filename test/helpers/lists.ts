import { expect } from 'vitest';
import type { ApiResult, TestService } from './service';
import { COUNT_LIMIT } from '../../src/main/service/http/pagination';
import { SCOPE_ARMS_LIMITS } from '../../src/main/service/areas/core/order-scope-arms';
import { DUE_DATE_LIMITS } from '../../src/main/service/areas/core/order-due-date';

/** A counted list page: X-Total, X-Total-Pages and a rel="last" link. */
export function expectCounted(res: ApiResult, total: number, perPage: number): void {
  expect(res.status).toBe(200);
  expect(res.headers.get('x-total')).toBe(String(total));
  expect(res.headers.get('x-total-pages')).toBe(String(Math.max(1, Math.ceil(total / perPage))));
  expect(res.headers.get('link')).toContain('rel="last"');
}

/** A list past 10,000 rows, as GitLab answers it: no X-Total, X-Total-Pages or rel="last", still the next page. */
export function expectUncounted(res: ApiResult, nextPage: string): void {
  expect(res.status).toBe(200);
  expect(res.headers.has('x-total')).toBe(false);
  expect(res.headers.has('x-total-pages')).toBe(false);
  expect(res.headers.get('link')).not.toContain('rel="last"');
  expect(res.headers.get('x-next-page')).toBe(nextPage);
}

/**
 * Runs `fn` and returns every paged read of a list (`... LIMIT n OFFSET ?`) the service made:
 * its SQL and arguments, the last argument being the number of rows the read skipped.
 */
export async function pagedReads(s: TestService, fn: () => Promise<void>): Promise<{ sql: string; args: unknown[] }[]> {
  return statementReads(s, (sql) => /LIMIT \d+ OFFSET \?$/.test(sql), fn);
}

type StatementRead = 'all' | 'get' | 'iterate';

/** Each `all` (or `get`, `iterate`) call, with its SQL and arguments, of the statements `matches` picks that the service prepared while `fn` ran. */
export async function statementReads(
  s: TestService,
  matches: (sql: string) => boolean,
  fn: () => Promise<unknown>,
  method: StatementRead | readonly StatementRead[] = 'all',
): Promise<{ sql: string; args: unknown[] }[]> {
  const methods: readonly string[] = typeof method === 'string' ? [method] : method;
  const db = s.service.context.db;
  const prepare = db.prepare;
  const seen: { sql: string; args: unknown[] }[] = [];
  db.prepare = ((sql: string) => {
    const stmt = prepare.call(db, sql);
    if (!matches(sql)) return stmt;
    return new Proxy(stmt, {
      get(target, key) {
        const value = Reflect.get(target, key, target) as unknown;
        if (typeof key === 'string' && methods.includes(key)) return (...args: unknown[]) => (seen.push({ sql, args }), (value as (...a: unknown[]) => unknown).apply(target, args));
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  }) as typeof db.prepare;
  try {
    await fn();
  } finally {
    db.prepare = prepare;
  }
  return seen;
}

/** The SQL statements the service prepared while `fn` ran (a statement is prepared at each use). */
export async function preparedBy(s: TestService, fn: () => unknown): Promise<string[]> {
  const db = s.service.context.db;
  const prepare = db.prepare;
  const seen: string[] = [];
  db.prepare = ((sql: string) => (seen.push(sql), prepare.call(db, sql))) as typeof db.prepare;
  try {
    await fn();
  } finally {
    db.prepare = prepare;
  }
  return seen;
}

/** Anything that prepares SQL: better-sqlite3's Database or the service's Db. */
type Prepares = { prepare(sql: string): { all(...args: unknown[]): unknown } };

/** SQLite's plan for `sql` run with `args` (EXPLAIN QUERY PLAN), one step per line. */
export function queryPlan(db: Prepares, sql: string, ...args: unknown[]): string {
  return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as { detail: string }[]).map((r) => r.detail).join('\n');
}

/**
 * Reads every page of a list in turn, and one past the end, checking each page's ids against
 * `want` and its headers: X-Total, X-Total-Pages, X-Page, X-Next-Page, X-Prev-Page, Link next and last
 * (as root, or the caller `token` names; null: anonymous).
 */
export async function expectEveryPage(s: TestService, path: string, query: Record<string, string | string[]>, want: number[], perPage: number, token?: string | null): Promise<void> {
  const pages = Math.max(1, Math.ceil(want.length / perPage));
  for (let page = 1; page <= pages + 1; page++) {
    const res = await s.get(path, { token, query: { ...query, per_page: String(perPage), page: String(page) } });
    expectCounted(res, want.length, perPage);
    expect((res.body as { id: number }[]).map((e) => e.id), `${path} ${JSON.stringify(query)} page ${page}`).toEqual(
      want.slice((page - 1) * perPage, page * perPage),
    );
    expect(res.headers.get('x-page')).toBe(String(page));
    expect(res.headers.get('x-next-page')).toBe(page < pages ? String(page + 1) : '');
    // The page past the last is out of range (Kaminari): no previous page.
    expect(res.headers.get('x-prev-page')).toBe(page > 1 && page <= pages ? String(page - 1) : '');
    if (page < pages) expect(res.headers.get('link')).toMatch(new RegExp(`[?&]page=${page + 1}&per_page=${perPage}[^>]*>; rel="next"`));
    expect(res.headers.get('link')).toMatch(new RegExp(`[?&]page=${pages}&per_page=${perPage}[^>]*>; rel="last"`));
  }
}

/** Pages 1, 2, `deep` and the last of 100 of a list past 10,000 rows: the ids, no totals, no last page, the next page. */
export async function expectUncountedPages(s: TestService, path: string, q: Record<string, string>, ids: number[], deep: number): Promise<void> {
  expect(ids.length).toBeGreaterThan(10_000);
  const last = Math.ceil(ids.length / 100);
  for (const page of [1, 2, deep, last]) {
    const res = await s.get(path, { query: { ...q, per_page: '100', page: String(page) } });
    const what = `${path} ${JSON.stringify(q)} page ${page}`;
    expect(res.status, what).toBe(200);
    expect((res.body as { id: number }[]).map((e) => e.id), what).toEqual(ids.slice((page - 1) * 100, page * 100));
    expect(res.headers.has('x-total'), what).toBe(false);
    expect(res.headers.has('x-total-pages'), what).toBe(false);
    expect(res.headers.get('link') ?? '', what).not.toContain('rel="last"');
    expect(res.headers.get('x-next-page'), what).toBe(page < last ? String(page + 1) : '');
    expect(res.headers.get('x-prev-page'), what).toBe(page > 1 ? String(page - 1) : '');
  }
}

/**
 * Reads the pages of `list` (in any order, deep ones included) of 20 each, checking each page's
 * ids against `want` and its headers: X-Total, X-Total-Pages, X-Next-Page, X-Prev-Page and the
 * last page in Link.
 */
export async function expectPagesOf(s: TestService, path: string, query: Record<string, string>, want: number[], list: number[], label: string): Promise<void> {
  const last = Math.max(1, Math.ceil(want.length / 20));
  for (const page of list) {
    const res = await s.get(path, { query: { ...query, per_page: '20', page: String(page) } });
    const what = `${label} page ${page}`;
    expect((res.body as { id: number }[]).map((e) => e.id), what).toEqual(want.slice((page - 1) * 20, page * 20));
    expect(res.headers.get('x-total'), what).toBe(String(want.length));
    expect(res.headers.get('x-total-pages'), what).toBe(String(last));
    expect(res.headers.get('x-next-page'), what).toBe(page * 20 < want.length ? String(page + 1) : '');
    // A page past the end is out of range (Kaminari): no previous page.
    expect(res.headers.get('x-prev-page'), what).toBe(page > 1 && page <= last ? String(page - 1) : '');
    expect(res.headers.get('link') ?? '', what).toContain(`page=${last}`);
  }
}

/** A page's status, pagination headers and body as one text, to compare two reads of it. */
function pageAnswer(res: ApiResult): string {
  return [res.status, ...['x-total', 'x-total-pages', 'x-page', 'x-per-page', 'x-next-page', 'x-prev-page', 'link'].map((h) => res.headers.get(h)), res.text].join('\n');
}

/**
 * Every path for every caller (a token, undefined for the administrator, null for anonymous) read
 * twice over (kept, then handed out again), each the text read with nothing kept: inside a
 * savepoint, where the service keeps nothing. `ok`: each answer is a 200 too.
 */
export async function expectAsReadAfresh(s: TestService, what: string, callers: (string | null | undefined)[], paths: string[], ok = true): Promise<void> {
  const db = s.service.context.db;
  const fresh = new Map<string, string>();
  db.prepare('SAVEPOINT afresh').run();
  try {
    for (const token of callers) for (const path of paths) fresh.set(`${token}|${path}`, pageAnswer(await s.get(path, { token })));
  } finally {
    db.prepare('RELEASE afresh').run();
  }
  for (let round = 0; round < 2; round++)
    for (const token of callers)
      for (const path of paths) {
        const res = await s.get(path, { token });
        if (ok) expect(res.status).toBe(200);
        expect({ what, round, token, path, text: pageAnswer(res) }).toEqual({ what, round, token, path, text: fresh.get(`${token}|${path}`) });
      }
}

/** As root: a public group of three public projects (one, two, three) and a public project outside it, for lists read per project (arms). */
/** Puts back the limits a test of a scope's arms lowers (order-scope-arms.ts, order-due-date.ts) to their defaults. */
export function restoreArmsLimits(): void {
  SCOPE_ARMS_LIMITS.sortedUpTo = COUNT_LIMIT;
  SCOPE_ARMS_LIMITS.walkPerRead = 2;
  DUE_DATE_LIMITS.fewDated = 1_000;
}

export async function groupOfThree(s: TestService): Promise<{ group: number; projects: number[]; outside: number }> {
  const group = (await s.createGroup({ visibility: 'public' })).id as number;
  const projects: number[] = [];
  for (const name of ['one', 'two', 'three']) projects.push((await s.createProject({ name, namespace_id: group, visibility: 'public' })).id as number);
  return { group, projects, outside: (await s.createProject({ name: 'outside', visibility: 'public' })).id as number };
}

/** The ids of `rows` in merged_at order (NULL lowest, as SQLite), ties by id in the same direction. */
export function idsByMergedAt(rows: { id: number; merged_at: string | null }[], sort: 'asc' | 'desc'): number[] {
  const dir = sort === 'asc' ? 1 : -1;
  const key = (r: { merged_at: string | null }): string => r.merged_at ?? '';
  return [...rows].sort((a, b) => dir * (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : a.id - b.id)).map((r) => r.id);
}
