import type { SortDirection } from '../../http/pagination';

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
