import type { SortDirection } from '../../http/pagination';

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
