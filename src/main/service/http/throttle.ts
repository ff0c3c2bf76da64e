import type { Reply } from './server';
import { MEMORY_BUDGET } from '../memory';

/**
 * GitLab's API rate limits (Rack::Attack `throttle_authenticated_api` / `throttle_unauthenticated_api`,
 * lib/gitlab/rack_attack.rb): fixed windows of `period` seconds, counted per user (signed in) or
 * per IP (anonymous); past the limit, 429 with a plain-text body (`rate_limiting_response_text`,
 * default "Retry later") and the RateLimit-* and Retry-After headers. Off unless an administrator
 * enables them in the application settings, as in GitLab.
 */
export interface Throttle {
  enabled: boolean;
  periodSeconds: number;
  requestsPerPeriod: number;
}

export interface RateLimits {
  authenticated: Throttle;
  unauthenticated: Throttle;
  responseText: string;
}

/** Windows kept before old ones are swept (one per user or IP that called this window). */
const MAX_TRACKED = MEMORY_BUDGET.rateLimitWindows;

export class RateLimiter {
  private readonly windows = new Map<string, { window: number; count: number }>();

  constructor(private readonly now: () => Date) {}

  /**
   * Counts one API request of `user` (or, anonymous, of the request's IP) and answers 429 on
   * `reply` when it is over its limit. Returns true when it answered.
   */
  refuse(limits: RateLimits, user: number | null, reply: Reply): boolean {
    const name = user === null ? 'throttle_unauthenticated_api' : 'throttle_authenticated_api';
    const throttle = user === null ? limits.unauthenticated : limits.authenticated;
    if (!throttle.enabled) return false;
    const period = Math.max(1, throttle.periodSeconds);
    const epoch = Math.floor(this.now().getTime() / 1000);
    const window = Math.floor(epoch / period);
    const key = `${name}:${user ?? reply.request.ip}`;
    let entry = this.windows.get(key);
    if (!entry || entry.window !== window) {
      if (!entry && this.windows.size >= MAX_TRACKED) this.sweep(window);
      entry = { window, count: 0 };
      this.windows.set(key, entry);
    }
    entry.count++;
    const limit = throttle.requestsPerPeriod;
    if (entry.count <= limit) return false;
    const retryAfter = period - (epoch % period);
    const reset = new Date((epoch + retryAfter) * 1000);
    reply
      .code(429)
      .headers({
        'content-type': 'text/plain',
        'ratelimit-name': name,
        'ratelimit-limit': String(Math.ceil((limit * 60) / period)),
        'ratelimit-observed': String(entry.count),
        'ratelimit-remaining': String(Math.max(0, limit - entry.count)),
        'ratelimit-reset': String(epoch + retryAfter),
        'ratelimit-resettime': reset.toUTCString(),
        'retry-after': String(retryAfter),
      })
      .send(`${limits.responseText || 'Retry later'}\n`);
    return true;
  }

  private sweep(current: number): void {
    for (const [key, entry] of this.windows) if (entry.window !== current) this.windows.delete(key);
    if (this.windows.size >= MAX_TRACKED) this.windows.clear();
  }
}
