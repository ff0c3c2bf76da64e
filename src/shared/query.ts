import type { QueryValue } from './ipc';

/** Rack-style query string for the API: arrays as `name[]=a&name[]=b`; '' when empty, else `?...`. */
export function buildQueryString(query: Record<string, QueryValue | undefined> | undefined): string {
  const usp = new URLSearchParams();
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v === undefined) continue;
    if (Array.isArray(v)) for (const x of v) usp.append(`${k}[]`, String(x));
    else usp.append(k, String(v));
  }
  const s = usp.toString();
  return s ? `?${s}` : '';
}
