import type { EntityContext } from '../core/entities';
import { markdownField } from '../../markdown/markdown';
import { type LabelCounts, type LabelRow, isSubscribed, labelCounts, subscribedLabelIds } from './labels';
import { textColorFor } from './colors';

/** LabelBasic: what issues' and epics' `with_labels_details` show. */
export function labelBasic(l: LabelRow): Record<string, unknown> {
  return {
    id: l.id,
    name: l.title,
    description: l.description,
    description_html: markdownField(l.description),
    text_color: textColorFor(l.color),
    color: l.color,
  };
}

export interface LabelView {
  /** open/closed issue and open merge request counts: computed here (true) or precomputed. */
  counts: boolean | LabelCounts;
  /** Seen from a project: adds `priority` and `is_project_label`. */
  fromProject: boolean;
}

/** GroupLabel / ProjectLabel. */
export function label(ec: EntityContext, l: LabelRow, view: LabelView): Record<string, unknown> {
  const counts = view.counts === true ? labelCounts(ec.svc, l, ec.user) : view.counts || undefined;
  return labelEntity(l, counts, isSubscribed(ec.svc, l, ec.user), view.fromProject);
}

/** A page of labels (`counts`: each label's when the list shows them), the viewer's subscriptions read for the page at once. */
export function labels(ec: EntityContext, rows: LabelRow[], counts: Map<number, LabelCounts> | null, fromProject: boolean): Record<string, unknown>[] {
  const subscribed = subscribedLabelIds(ec.svc, rows, ec.user);
  return rows.map((l) => labelEntity(l, counts?.get(l.id), subscribed.has(l.id), fromProject));
}

/** One literal: the fields a view leaves out are `undefined`, which JSON leaves out too. */
function labelEntity(l: LabelRow, counts: LabelCounts | undefined, subscribed: boolean, fromProject: boolean): Record<string, unknown> {
  return {
    id: l.id,
    name: l.title,
    description: l.description,
    description_html: markdownField(l.description),
    text_color: textColorFor(l.color),
    color: l.color,
    open_issues_count: counts?.open_issues_count,
    closed_issues_count: counts?.closed_issues_count,
    open_merge_requests_count: counts?.open_merge_requests_count,
    subscribed,
    priority: fromProject ? l.priority : undefined,
    is_project_label: fromProject ? l.project_id !== null : undefined,
    archived: false,
  };
}
