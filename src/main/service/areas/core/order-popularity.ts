import type { SortDirection } from '../../http/pagination';
import type { RequestContext } from '../../http/route';
import { type IdWalk, type Segment, joinedSegments, segmentedRows } from './order-walk';

/**
 * `order_by=popularity` on issue and merge request lists (Issuable.sort_by_attribute:
 * popularity_desc / popularity_asc -> order_upvotes_desc / order_upvotes_asc, then
 * with_order_id_desc): by the record's upvotes, the "thumbsup" award emoji on the record itself
 * (Issue#upvotes_count, kept from AwardEmoji.upvotes; merge requests count their award_emoji rows
 * named thumbsup: `+1` is stored as thumbsup), in the asked direction, ties by id descending in
 * both directions.
 */
export function popularityOrder(type: 'Issue' | 'MergeRequest', sort: SortDirection): string {
  return `${upvotesOf(type)} ${sort === 'asc' ? 'ASC' : 'DESC'}, x.id DESC`;
}

/** The upvotes of record `x`: what the entities answer as `upvotes`. */
export function upvotesOf(type: 'Issue' | 'MergeRequest'): string {
  return `(SELECT count(*) FROM award_emoji a WHERE a.awardable_type = '${type}' AND a.awardable_id = x.id AND a.name = 'thumbsup')`;
}

/** Upvoted records of a list between which the rest is walked as id ranges, up to this many. */
const RANGED_UPVOTED = 32;

/** Upvoted records of a list left out of the rest's walk by their ids, up to this many. */
const FEW_UPVOTED = 1_000;

/**
 * A page of the list in popularity order, read as two segments (order-walk.ts): the list's
 * upvoted records (core/104's index of thumbsup awards: read whole, the few of them, and sorted),
 * and the rest, none upvoted, in id order. Descending: the upvoted first; ascending: the rest
 * (0 upvotes) first. Undefined when the list is not walked in id order (see idWalk).
 */
export function popularityRows<T>(
  rc: RequestContext,
  type: 'Issue' | 'MergeRequest',
  sort: SortDirection,
  walk: IdWalk | undefined,
  where: string[],
  args: unknown[],
): ((limit: number, offset: number) => T[]) | undefined {
  if (!walk) return undefined;
  const table = type === 'Issue' ? 'issues' : 'merge_requests';
  let upvoted: number[] | undefined;
  const readUpvoted = (): number[] => {
    const rows = rc.svc.db
      .prepare(
        `SELECT x.id AS id, u.n AS n FROM (SELECT awardable_id AS id, count(*) AS n FROM award_emoji INDEXED BY award_emoji_upvotes
          WHERE awardable_type = ? AND name = 'thumbsup' GROUP BY awardable_id) u CROSS JOIN ${table} x ON x.id = u.id WHERE ${where.join(' AND ')}`,
      )
      .all(type, ...args) as { id: number; n: number }[];
    const dir = sort === 'asc' ? 1 : -1;
    return rows.sort((a, b) => dir * (a.n - b.n) || b.id - a.id).map((r) => r.id);
  };
  const up: Segment = {
    count: (cap) => Math.min(cap, (upvoted ??= readUpvoted()).length),
    ids: (limit, offset) => (upvoted ??= readUpvoted()).slice(offset, offset + limit),
  };
  // The rest: the list less its upvoted records, when its size is known from the counters.
  const restCount = (): number | undefined => {
    const total = walk.total();
    return total === undefined ? undefined : total - (upvoted ??= readUpvoted()).length;
  };
  // The rest leaves the list's upvoted records out: a handful as the id ranges between them, each
  // walked by the index alone from its bound (page 2500 with 16 upvoted: 8.5 -> ~4.5 ms); more by
  // their ids, checked on each record's index entry; many by asking each record's awards.
  const few = (upvoted ??= readUpvoted()).length <= FEW_UPVOTED;
  const bounds = [...upvoted].sort((a, b) => b - a);
  const ranges = [null, ...bounds].map((above, k) => {
    const below = k < bounds.length ? bounds[k] : null;
    const cond = [above === null ? null : 'x.id < ?', below === null ? null : 'x.id > ?'].filter((c) => c !== null).join(' AND ') || '1';
    return walk.segment(cond, [above, below].filter((b) => b !== null), 'DESC', undefined, true);
  });
  // A filtered walk: one segment (each range would be counted by its own walk).
  const rest = upvoted.length <= RANGED_UPVOTED && !walk.filtered
    ? joinedSegments(ranges, restCount)
    : few
    ? walk.segment('x.id NOT IN (SELECT value FROM json_each(?))', [JSON.stringify(upvoted)], 'DESC', restCount, true)
    : walk.segment(`NOT EXISTS (SELECT 1 FROM award_emoji a INDEXED BY award_emoji_upvotes WHERE a.awardable_type = '${type}' AND a.awardable_id = x.id AND a.name = 'thumbsup')`, [], 'DESC', restCount);
  return segmentedRows<T>(rc, type, sort === 'asc' ? [rest, up] : [up, rest]);
}
