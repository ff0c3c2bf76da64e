import type { SortDirection } from '../../http/pagination';
import type { RequestContext } from '../../http/route';
import { type IdWalk, type Segment, segmentedRows } from './order-walk';

/**
 * `order_by=milestone_due` on issue and merge request lists (Issuable.sort_by_attribute:
 * milestone_due_asc / milestone_due_desc -> Milestoneable's order_milestone_due_asc/desc, then
 * with_order_id_desc): `milestones.due_date IS NULL, milestones.id IS NULL, milestones.due_date
 * <dir>, id DESC` over a LEFT JOIN of the record's milestone. So records whose milestone has a due
 * date come first, by that date in the asked direction; then those whose milestone has none; then
 * those without a milestone (a deleted milestone's records have none: ON DELETE SET NULL); ties,
 * and the last two groups, by id descending in both directions.
 */
export function milestoneDueOrder(sort: SortDirection): string {
  const due = '(SELECT m.due_date FROM milestones m WHERE m.id = x.milestone_id)';
  return `${due} IS NULL, x.milestone_id IS NULL, ${due} ${sort === 'asc' ? 'ASC' : 'DESC'}, x.id DESC`;
}

/** The milestones a list's records carry, past this many: sorted as before (each is a segment, counted on a deep page). */
const MILESTONE_SEGMENTS = 64;

/**
 * A page of the list in milestone_due order, read as segments (order-walk.ts): the records of the
 * milestones of each due date (in the asked direction), those of the undated milestones, then
 * those without a milestone, each in id order, descending. The milestones are those the scope's
 * filter counters (core/018, core/028) count records of in the list's state. Only the segments the
 * list's milestone filter leaves (`milestone`): milestone=None none of the milestones', Any or a
 * title not the last (each empty segment was walked to find none: a group's opened merge requests
 * with milestone=None, page 1 of 100, counted the milestone's segment over all 920,000 of them,
 * 170 ms after every write). Undefined when the list is not walked in id order (see idWalk) or
 * carries too many milestones.
 */
export function milestoneDueRows<T>(
  rc: RequestContext,
  type: 'Issue' | 'MergeRequest',
  sort: SortDirection,
  walk: IdWalk | undefined,
  counters: { sql: string; args: unknown[]; state: string | null },
  milestone: { held: 'none' | 'some'; title: string | null } | null,
): ((limit: number, offset: number) => T[]) | undefined {
  if (!walk) return undefined;
  const withoutMilestone = walk.segment('x.milestone_id IS NULL', [], 'DESC');
  if (milestone?.held === 'none') return segmentedRows<T>(rc, type, [withoutMilestone]);
  const db = rc.svc.db;
  const table = type === 'Issue' ? 'issue_filter_counts' : 'merge_request_filter_counts';
  const titled = milestone?.title != null ? ' AND milestone IN (SELECT id FROM milestones WHERE title = ?)' : '';
  const carried = db
    .prepare(`SELECT DISTINCT milestone FROM ${table} WHERE milestone > 0 AND n > 0${titled}${counters.state ? ' AND state = ?' : ''}${counters.sql} LIMIT ${MILESTONE_SEGMENTS + 1}`)
    .all(...(titled ? [milestone!.title] : []), ...(counters.state ? [counters.state] : []), ...counters.args) as { milestone: number }[];
  if (carried.length > MILESTONE_SEGMENTS) return undefined;
  const milestones = db
    .prepare('SELECT id, due_date FROM milestones WHERE id IN (SELECT value FROM json_each(?))')
    .all(JSON.stringify(carried.map((r) => r.milestone))) as { id: number; due_date: string | null }[];
  const byDate = new Map<string, number[]>();
  const undated: number[] = [];
  for (const m of milestones) {
    if (m.due_date === null) undated.push(m.id);
    else byDate.set(m.due_date, [...(byDate.get(m.due_date) ?? []), m.id]);
  }
  const dates = [...byDate.keys()].sort();
  if (sort === 'desc') dates.reverse();
  const segments: Segment[] = [
    ...dates.map((date) => walk.milestones(byDate.get(date)!, 'DESC')),
    walk.milestones(undated, 'DESC'),
    ...(milestone?.held === 'some' ? [] : [withoutMilestone]),
  ];
  return segmentedRows<T>(rc, type, segments);
}
