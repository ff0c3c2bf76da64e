import type { RequestContext } from '../../http/route';
import { COUNT_LIMIT, countUpTo } from '../../http/pagination';
import { type Db, tableVersion } from '../../db/connection';
import { MEMORY_BUDGET } from '../../memory';
import { type Scope, lastListWrite, listVersion } from './workitems';

/** A count past COUNT_LIMIT is walked this much further, so that it stays past it through as many writes. */
export const PAST_LIMIT_MARGIN = 1_000;

/**
 * The capped count of an issue or merge request list whose SQL reads nothing but the list's own
 * table (own columns, date lags, milestone ids: readsOnly), remembered across writes: a write
 * moves a project's list version (core/019, core/020: every insert, update and delete of its
 * records) or the instance's write log (core/041) by one and changes the count by one at most, so
 * a count of N found at one version is at least N - (versions since) at a later one
 * (countAtLeast). Past COUNT_LIMIT that is all the answer says ("more than"; X-Total
 * omitted), so the count walks PAST_LIMIT_MARGIN further once and is not walked again for as many
 * writes: 10,001 index entries were 0.4-1 ms of every date-filtered or milestone=Any page at a
 * million records. Undefined (counted as before) for another cap or a count that reads other
 * tables (labels' rows, epics, memberships, a group's projects) or the clock.
 */
export function issuableCountPastLimit(rc: RequestContext, type: 'Issue' | 'MergeRequest', scope: Scope): (from: string, args: unknown[], cap: number) => number | undefined {
  const db = rc.svc.db;
  const table = type === 'Issue' ? 'issues' : 'merge_requests';
  const projectId = scope.projectId;
  const records = projectId !== undefined ? () => listVersion(rc, type, projectId) : () => lastListWrite(db);
  return (from, args, cap) => {
    if (cap !== COUNT_LIMIT + 1) return undefined;
    // An issue's epic link (epic_id filters) moves epics/015's version: one link written changes one issue's membership.
    const links = type === 'Issue' && !readsOnly(from, table) && readsOnly(from, table, EPIC_LINKS);
    if (!links && !readsOnly(from, table)) return undefined;
    const version = links ? () => records() + tableVersionOf(db, EPIC_LINKS) : records;
    const key = JSON.stringify(['past limit', projectId ?? null, from, args]);
    return Math.min(cap, countAtLeast(db, key, version, () => countUpTo(db, from, args, cap + PAST_LIMIT_MARGIN)));
  };
}

/** Counts found past COUNT_LIMIT per database: key -> the version and the count then. */
const pastLimit = new WeakMap<Db, Map<string, { version: number; matches: number }>>();

/**
 * `count()`, or a lower bound past COUNT_LIMIT: a count past it found at one version, less the
 * versions since (a version moves by one with each write, which adds or drops one record at most).
 * Only counts past COUNT_LIMIT are kept; not inside a transaction (it may roll back).
 */
function countAtLeast(db: Db, key: string, version: () => number, count: () => number): number {
  if (db.inTransaction) return count();
  let lists = pastLimit.get(db);
  if (!lists) pastLimit.set(db, (lists = new Map()));
  const now = version();
  const known = lists.get(key);
  if (known && now >= known.version && known.matches - (now - known.version) > COUNT_LIMIT) return known.matches - (now - known.version);
  const matches = count();
  if (matches <= COUNT_LIMIT) lists.delete(key);
  else {
    if (!known && lists.size >= MEMORY_BUDGET.largeLists) lists.clear();
    lists.set(key, { version: now, matches });
  }
  return matches;
}

/**
 * A count of a project's records (`from` reading its table alone), up to `cap`, or a lower bound
 * past COUNT_LIMIT remembered as issuableCountPastLimit's (walked PAST_LIMIT_MARGIN further once).
 */
export function projectRecordsAtLeast(rc: RequestContext, type: 'Issue' | 'MergeRequest', projectId: number, from: string, args: unknown[], cap: number): number {
  const db = rc.svc.db;
  const key = JSON.stringify(['past limit', projectId, from, args]);
  return countAtLeast(db, key, () => listVersion(rc, type, projectId), () => countUpTo(db, from, args, cap + PAST_LIMIT_MARGIN));
}

/** The issues' epic links, versioned by epics/015. */
const EPIC_LINKS = 'epic_issues';

/** A table's version in table_versions (core/099, epics/015; 0 before its migration). */
function tableVersionOf(db: Db, name: string): number {
  return tableVersion(db, name) ?? 0;
}

/** Every table `sql` reads (after FROM or JOIN) is `table` (or `also`), and it names no time that moves on its own. */
export function readsOnly(sql: string, table: string, also?: string): boolean {
  if (/'now'|current_(date|time|timestamp)|random\(/i.test(sql)) return false;
  // A comma join is not looked into; a FROM followed by a subquery's parenthesis reads what the subquery's own FROMs name.
  if (/\bFROM\s+\w+(\s+(AS\s+)?\w+)?(\s+INDEXED\s+BY\s+\w+)?\s*,/i.test(sql)) return false;
  for (const m of sql.matchAll(/\b(?:FROM|JOIN)\s+([^\s(),]+)/gi)) if (m[1] !== table && m[1] !== also) return false;
  return true;
}
