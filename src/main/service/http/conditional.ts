import type { RequestContext } from './route';
import { apiError } from './errors';

/**
 * Conditional deletes: GitLab's `destroy_conditionally!` / `check_unmodified_since!`
 * (lib/api/helpers.rb). A DELETE carrying `If-Unmodified-Since` is refused with 412
 * `{"message":"412 Precondition Failed"}` when the record changed after that time. A missing or
 * unparsable header is ignored, as GitLab rescues the parse error and carries on.
 *
 * How to use it in a delete route that GitLab's API code wraps in `destroy_conditionally!`: call it
 * at the same point GitLab does (after loading the record and the permission checks that come
 * before it), with the timestamp GitLab compares — the record's `updated_at`, or what the route
 * passes as `last_updated:` (tags: the commit's authored date):
 *
 *   const label = findOwnLabel(rc, parent, ref);
 *   checkUnmodifiedSince(rc, label.updated_at);
 *   inTransaction(rc.svc.db, () => deleteLabel(rc.svc, label));
 */
export function checkUnmodifiedSince(rc: RequestContext, lastModified: string | null | undefined): void {
  const header = rc.req.headers['if-unmodified-since'];
  const since = parseHeaderTime(Array.isArray(header) ? header[0] : header);
  if (since === null || !lastModified) return;
  const modified = Date.parse(lastModified);
  if (!Number.isNaN(modified) && modified > since) throw apiError(412, '412 Precondition Failed');
}

/** Ends with a zone Date.parse reads: Z, GMT/UTC/UT, a US abbreviation (EST) or an offset (+02:00, -0500). */
const EXPLICIT_ZONE = /(?:\d[zZ]|\b(?:GMT|UTC|UT|[ECMP][SD]T)|[+-]\d{2}:?\d{2})\s*$/i;
/** A bare ISO date, which Date.parse already reads as UTC midnight. */
const ISO_DATE = /^\s*\d{4}-\d{2}-\d{2}\s*$/;

/**
 * Ruby's `Time.parse` takes the HTTP date (`Wed, 21 Oct 2015 07:28:00 GMT`), ISO 8601 and looser
 * forms; a time without a zone is the server's local time, which is UTC on GitLab's servers (and
 * must not depend on the laptop's zone here). Milliseconds since the epoch, or null.
 */
export function parseHeaderTime(value: string | undefined): number | null {
  if (!value || !value.trim()) return null;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return null;
  if (EXPLICIT_ZONE.test(value) || ISO_DATE.test(value)) return ms;
  return ms - new Date(ms).getTimezoneOffset() * 60_000;
}
