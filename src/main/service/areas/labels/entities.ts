import type { EntityContext } from '../core/entities';
import { markdownField } from '../../markdown/markdown';
import { type LabelCounts, type LabelRow, isSubscribed, labelCounts } from './labels';
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
  const out: Record<string, unknown> = { ...labelBasic(l) };
  if (view.counts) Object.assign(out, view.counts === true ? labelCounts(ec.svc, l, ec.user) : view.counts);
  out.subscribed = isSubscribed(ec.svc, l, ec.user);
  if (view.fromProject) {
    out.priority = l.priority;
    out.is_project_label = l.project_id !== null;
  }
  out.archived = false;
  return out;
}
