/**
 * The source instance's REST API v4 as the importer reads it: the token goes in a `PRIVATE-TOKEN`
 * header (never in a URL, so it never lands in a log) and only ever to the configured origin;
 * lists are followed through their `Link: <...>; rel="next"` headers (X-Next-Page when a proxy
 * dropped Link), so a real GitLab of any supported version and another Sandlab both work.
 */

export type Query = Record<string, string | number | boolean | undefined>;

type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

/** A failed call to the source: GitLab's BulkImports::NetworkError. */
export class SourceError extends Error {
  constructor(
    message: string,
    /** HTTP status, or null when the source could not be reached. */
    readonly status: number | null,
    readonly path: string,
  ) {
    super(message);
    this.name = 'SourceError';
  }
}

export interface Page<T> {
  items: T[];
  /** X-Total when the source sends it. */
  total: number | null;
}

const REQUEST_TIMEOUT_MS = 60_000;
const RETRIES = 2;
const RETRY_STATUSES = new Set([429, 502, 503, 504]);

export class SourceClient {
  /** Base URL as configured, without a trailing slash (may carry a relative root: `https://host/gitlab`). */
  readonly base: string;
  readonly origin: string;

  constructor(
    url: string,
    private readonly token: string,
    private readonly fetchImpl: FetchLike,
    /** Checked between calls; the fetch given is expected to abort on it too (a job's fetch does). */
    private readonly signal?: AbortSignal,
  ) {
    this.base = url.replace(/\/+$/, '');
    this.origin = new URL(this.base).origin;
  }

  /** `<base>/api/v4<path>?<query>` */
  apiUrl(path: string, query: Query = {}): string {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined) qs.set(k, String(v));
    const s = qs.toString();
    return `${this.base}/api/v4${path}${s ? `?${s}` : ''}`;
  }

  /** A source web path (`/group/-/epics/1`) as a full URL, for failure records. */
  webUrl(path: string): string {
    return `${this.base}${path.startsWith('/') ? path : `/${path}`}`;
  }

  /** GET, answered with the response; non-2xx throws SourceError. */
  async get(path: string, query: Query = {}): Promise<Response> {
    return this.send(this.apiUrl(path, query));
  }

  async getJson<T>(path: string, query: Query = {}): Promise<T> {
    return this.parse<T>(await this.get(path, query), path);
  }

  /** Every page of a list, 100 records at a time, following `Link: rel="next"`. */
  async *pages<T>(path: string, query: Query = {}): AsyncGenerator<Page<T>> {
    let url: string | null = this.apiUrl(path, { ...query, per_page: 100, page: 1 });
    for (let guard = 0; url && guard < 100_000; guard++) {
      const res = await this.send(url);
      const items = await this.parse<T[]>(res, path);
      if (!Array.isArray(items)) throw new SourceError(`Unexpected response from ${path}: not a list`, res.status, path);
      const total = res.headers.get('x-total');
      yield { items, total: total !== null && /^\d+$/.test(total) ? Number(total) : null };
      url = this.nextUrl(res, url);
    }
  }

  /** How many records a list has: X-Total of a one-record page, else by walking the pages. */
  async count(path: string, query: Query = {}): Promise<number> {
    const res = await this.send(this.apiUrl(path, { ...query, per_page: 1, page: 1 }));
    const total = res.headers.get('x-total');
    await res.arrayBuffer();
    if (total !== null && /^\d+$/.test(total)) return Number(total);
    let n = 0;
    for await (const page of this.pages(path, query)) n += page.items.length;
    return n;
  }

  /** The next page's URL, kept on the configured origin so the token never leaves it. */
  private nextUrl(res: Response, current: string): string | null {
    const link = res.headers.get('link');
    const next = link ? /<([^>]+)>;\s*rel="next"/.exec(link)?.[1] : undefined;
    if (next) {
      const u = new URL(next, current);
      return `${this.origin}${u.pathname}${u.search}`;
    }
    const nextPage = res.headers.get('x-next-page');
    if (nextPage && /^\d+$/.test(nextPage)) {
      const u = new URL(current);
      u.searchParams.set('page', nextPage);
      return u.toString();
    }
    return null;
  }

  private async send(url: string): Promise<Response> {
    const path = new URL(url).pathname;
    let redirects = 0;
    for (let attempt = 0; ; attempt++) {
      this.signal?.throwIfAborted();
      let res: Response;
      try {
        res = await this.fetchImpl(url, {
          headers: { 'private-token': this.token, accept: 'application/json' },
          redirect: 'manual',
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
      } catch (err) {
        if (this.signal?.aborted) throw this.signal.reason;
        if (attempt < RETRIES) {
          await pause(250 * 4 ** attempt);
          continue;
        }
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        const reason = cause?.code ?? cause?.message ?? (err instanceof Error ? err.message : String(err));
        throw new SourceError(`Failed to connect to ${this.origin}${path} (${reason})`, null, path);
      }
      if (res.ok) return res;
      const location = res.status >= 300 && res.status < 400 ? res.headers.get('location') : null;
      if (location && redirects < 2) {
        // Followed only on the same origin: the token header must never go to another host.
        const target = new URL(location, url);
        await res.arrayBuffer().catch(() => undefined);
        if (target.origin !== this.origin) throw new SourceError(`The source redirected ${path} to another host (${target.origin})`, res.status, path);
        url = target.toString();
        redirects++;
        attempt--;
        continue;
      }
      if (RETRY_STATUSES.has(res.status) && attempt < RETRIES) {
        await res.arrayBuffer().catch(() => undefined);
        await pause(retryDelay(res, attempt));
        continue;
      }
      const body = (await res.text().catch(() => '')).slice(0, 200);
      throw new SourceError(`Unsuccessful response ${res.status} from ${path}. Body: ${body}`, res.status, path);
    }
  }

  private async parse<T>(res: Response, path: string): Promise<T> {
    const text = await res.text();
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new SourceError(`Unexpected response from ${path}: not JSON`, res.status, path);
    }
  }
}

function retryDelay(res: Response, attempt: number): number {
  const after = Number(res.headers.get('retry-after'));
  return Number.isFinite(after) && after > 0 ? Math.min(after, 10) * 1000 : 250 * 4 ** attempt;
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
