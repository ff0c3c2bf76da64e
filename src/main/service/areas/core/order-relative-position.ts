import type { SortDirection } from '../../http/pagination';
import type { RequestContext } from '../../http/route';
import { type IdWalk, segmentedRows } from './order-walk';

/**
 * `order_by=relative_position` on issue lists. GitLab (Issue.sort_by_attribute):
 * relative_position_asc is `relative_position ASC NULLS LAST, id ASC`; relative_position_desc is
 * no order of its own (Sortable.order_by falls back to `all`), so with_order_id_desc alone: id
 * descending. Every issue GitLab creates is placed at the end of its root namespace's positions
 * (Issues::PlacementWorker, the oldest unplaced first), and Sandlab has no way to move one (no
 * reorder endpoint, no boards): an issue's position is its creation's place, so a project's or a
 * group's positions run in id order, and relative_position_asc is id ascending.
 */
export function relativePositionOrder(sort: SortDirection): string {
  return sort === 'asc' ? 'x.id ASC' : 'x.id DESC';
}

/** A page of the list in relative_position order: the list walked in id order (see idWalk), or undefined. */
export function relativePositionRows<T>(rc: RequestContext, sort: SortDirection, walk: IdWalk | undefined): ((limit: number, offset: number) => T[]) | undefined {
  return walk && segmentedRows<T>(rc, 'Issue', [walk.segment('1', [], sort === 'asc' ? 'ASC' : 'DESC', undefined, true)]);
}
