import { setTimeout as delay } from 'node:timers/promises';

/**
 * The one way importers talk to a provider: the service's injectable `fetch`, the provider's
 * credentials on every request, its rate limits honoured (`X-RateLimit-Remaining`/`-Reset`,
 * `Retry-After`), and its failures turned into errors the import can name.
 */

/** The provider answered with an error status. */
export class ProviderError extends Error {
  constructor(
    readonly provider: string,
    readonly status: number,
    /** The provider's own message, when its body carries one. */
    readonly detail: string,
    readonly body: string,
  ) {
    super(`${provider} answered ${status}${detail ? `: ${detail}` : ''}`);
  }
}

/** The provider could not be reached at all (refused, DNS, TLS, a timeout). */
export class ProviderUnreachable extends Error {
  constructor(
    readonly provider: string,
    readonly url: string,
    cause: unknown,
  ) {
    super(`${provider} could not be reached at ${new URL(url).origin}: ${(cause as Error)?.message ?? String(cause)}`);
  }
}

/** The provider's rate limit is spent and resets later than we are willing to wait. */
export class RateLimitError extends Error {
  constructor(
    readonly provider: string,
    readonly resetAt: Date,
  ) {
    super(`${provider} API rate limit exceeded; it resets at ${resetAt.toISOString()}`);
  }
}

export interface ProviderHttpOptions {
  /** Shown in messages: 'GitHub', 'Bitbucket Server', 'Bitbucket'. */
  provider: string;
  fetch: typeof fetch;
  now: () => Date;
  /** Sent on every request (Authorization, Accept). */
  headers: Record<string, string>;
  /** Aborts a running request and any rate-limit wait (cancel). */
  signal?: AbortSignal;
  /**
   * The longest rate-limit wait we sit out before giving up (ms). 0 at the start of an import,
   * which answers 429 at once, as GitLab does.
   */
  maxRateLimitWaitMs: number;
  /** Per request. */
  timeoutMs?: number;
}

export interface ProviderResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

export class ProviderHttp {
  /** When the provider last told us its budget is spent: no request before this time. */
  private blockedUntil = 0;

  constructor(readonly options: ProviderHttpOptions) {}

  get provider(): string {
    return this.options.provider;
  }

  /** GET a JSON document. Waits out short rate limits; throws the errors above. */
  async getJson<T = unknown>(url: string): Promise<ProviderResponse<T>> {
    const res = await this.request(url);
    const text = await res.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      throw new ProviderError(this.provider, res.status, 'the answer is not JSON', text.slice(0, 500));
    }
    return { status: res.status, headers: res.headers, body: body as T };
  }

  /** GET raw text (a gist file, an attachment's bytes as text). */
  async getText(url: string, withCredentials = true): Promise<string> {
    const res = await this.request(url, withCredentials);
    return res.text();
  }

  /** GET raw bytes (attachments). */
  async getBytes(url: string, withCredentials = true): Promise<{ bytes: Buffer; contentType: string | null }> {
    const res = await this.request(url, withCredentials);
    return { bytes: Buffer.from(await res.arrayBuffer()), contentType: res.headers.get('content-type') };
  }

  private async request(url: string, withCredentials = true): Promise<Response> {
    for (;;) {
      await this.waitForBudget();
      let res: Response;
      try {
        const signals = [AbortSignal.timeout(this.options.timeoutMs ?? 60_000), ...(this.options.signal ? [this.options.signal] : [])];
        res = await this.options.fetch(url, {
          headers: withCredentials ? this.options.headers : {},
          signal: AbortSignal.any(signals),
          redirect: 'follow',
        });
      } catch (err) {
        if (this.options.signal?.aborted) throw this.options.signal.reason ?? err;
        throw new ProviderUnreachable(this.provider, url, err);
      }
      const limitedUntil = this.rateLimitedUntil(res);
      if (limitedUntil !== null) {
        await res.body?.cancel();
        this.blockedUntil = limitedUntil;
        continue; // waitForBudget waits or throws
      }
      if (!res.ok) {
        const text = await res.text();
        throw new ProviderError(this.provider, res.status, errorDetail(text), text.slice(0, 2000));
      }
      return res;
    }
  }

  /**
   * A rate-limited answer: 429, or 403 with no budget left (GitHub's primary limit). Returns when
   * the provider says we may try again; also remembers a spent budget on a successful answer.
   */
  private rateLimitedUntil(res: Response): number | null {
    const now = this.options.now().getTime();
    const remaining = res.headers.get('x-ratelimit-remaining');
    const reset = Number(res.headers.get('x-ratelimit-reset'));
    const retryAfter = res.headers.get('retry-after');
    const resetAt = retryAfter !== null ? retryAfterTime(retryAfter, now) : remaining === '0' && reset ? reset * 1000 : null;
    if (res.status === 429 || (res.status === 403 && (remaining === '0' || retryAfter !== null))) return resetAt ?? now + 60_000;
    // A good answer that spent the last request: the next one must wait for the reset.
    if (res.ok && remaining === '0' && reset) this.blockedUntil = reset * 1000;
    return null;
  }

  private async waitForBudget(): Promise<void> {
    const wait = this.blockedUntil - this.options.now().getTime();
    if (wait <= 0) return;
    if (wait > this.options.maxRateLimitWaitMs) throw new RateLimitError(this.provider, new Date(this.blockedUntil));
    await delay(wait, undefined, { signal: this.options.signal });
    this.blockedUntil = 0;
  }
}

function retryAfterTime(value: string, now: number): number {
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return now + Math.max(0, seconds) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? now + 60_000 : at;
}

/** The message a provider put in its error body: GitHub's `message`, Bitbucket's `errors[0].message` or `error.message`. */
function errorDetail(text: string): string {
  try {
    const body = JSON.parse(text) as { message?: unknown; errors?: { message?: unknown }[]; error?: { message?: unknown } };
    const m = body.message ?? body.errors?.[0]?.message ?? body.error?.message;
    return typeof m === 'string' ? m : '';
  } catch {
    return '';
  }
}

/** `Authorization: Basic` for a username and a password or token. */
export function basicAuthorization(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

/** `base + path` with a query string (pairs keep repeated keys, as Bitbucket's `state=` needs). */
export function urlWithQuery(base: string, path: string, query: Record<string, string | number> | [string, string | number][] = {}): string {
  const pairs = Array.isArray(query) ? query : Object.entries(query);
  const q = new URLSearchParams(pairs.map(([k, v]): [string, string] => [k, String(v)]));
  return `${base}${path}${q.size ? `?${q}` : ''}`;
}

/** An http(s) URL with a host: what a provider's base URL or hostname must be. */
export function isHttpUrl(url: string): boolean {
  try {
    const parsed = new URL(url);
    return (parsed.protocol === 'http:' || parsed.protocol === 'https:') && !!parsed.hostname;
  } catch {
    return false;
  }
}
