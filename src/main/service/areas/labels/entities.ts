import { unchangedEntity } from '../../db/connection';
import type { EntityContext } from '../core/entities';
import { markdownField } from '../../markdown/markdown';
import { type LabelCounts, type LabelRow, findLabelByTitle, isSubscribed, labelCounts, subscribedLabelIds } from './labels';
import type { ServiceContext } from '../../context';
import { findProjectById } from '../core/projects';
import { textColorFor } from './colors';
import { groupLabelPriorities } from './priorities';

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
  /** That project (a group label's priority is the one it has there: label_priorities). */
  projectId?: number;
}

/** GroupLabel / ProjectLabel. */
export function label(ec: EntityContext, l: LabelRow, view: LabelView): Record<string, unknown> {
  const counts = view.counts === true ? labelCounts(ec.svc, l, ec.user) : view.counts || undefined;
  return labelEntity(l, counts, isSubscribed(ec.svc, l, ec.user), view.fromProject, groupPrioritiesOf(ec.svc, [l], view.fromProject ? view.projectId : undefined));
}

/** The page's group labels' priorities in the project it is seen from. */
function groupPrioritiesOf(svc: ServiceContext, rows: LabelRow[], projectId: number | undefined): Map<number, number> | undefined {
  if (projectId === undefined) return undefined;
  return groupLabelPriorities(svc.db, projectId, rows.filter((l) => l.group_id !== null).map((l) => l.id));
}

/**
 * A page of labels (`counts`: each label's when the list shows them), the viewer's subscriptions
 * read for the page at once. A label whose row, counts, subscription and priority read as at its
 * last build keeps that entity and its JSON text (unchangedEntity): a page of 100 was built and
 * serialized anew after any write elsewhere (most of its CPU over an empty page's).
 */
export function labels(ec: EntityContext, rows: LabelRow[], counts: Map<number, LabelCounts> | null, fromProject: boolean, projectId?: number): Record<string, unknown>[] {
  const subscribed = subscribedLabelIds(ec.svc, rows, ec.user);
  const priorities = groupPrioritiesOf(ec.svc, rows, fromProject ? projectId : undefined);
  // The view (seen from a project or a group) in the key; everything else labelEntity reads besides the row in the inputs.
  const view = fromProject ? 'project' : 'group';
  return rows.map((l) => {
    const c = counts?.get(l.id);
    const isSubscribed = subscribed.has(l.id);
    const priority = l.project_id === null ? (priorities?.get(l.id) ?? null) : null;
    return unchangedEntity(ec.svc.db, 'label', `${l.id}:${view}`, l as unknown as Record<string, unknown>, [c ?? null, isSubscribed, priority], () =>
      labelEntity(l, c, isSubscribed, fromProject, priorities),
    );
  });
}

/** One literal: the fields a view leaves out are `undefined`, which JSON leaves out too. */
function labelEntity(l: LabelRow, counts: LabelCounts | undefined, subscribed: boolean, fromProject: boolean, groupPriorities?: Map<number, number>): Record<string, unknown> {
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
    priority: fromProject ? (l.project_id === null ? (groupPriorities?.get(l.id) ?? null) : l.priority) : undefined,
    is_project_label: fromProject ? l.project_id !== null : undefined,
    archived: false,
  };
}

/**
 * A page of issue or merge request entities as `with_labels_details=true` shows them (Entities::Issue,
 * MergeRequestBasic): each label title as its LabelBasic among the labels available to the record's
 * project (a title no label has any more: its name alone, as epics show it). New objects: the
 * entities handed in are kept (remembered) as they are.
 */
export function withLabelsDetails(svc: ServiceContext, page: Record<string, unknown>[]): Record<string, unknown>[] {
  const found = new Map<string, Record<string, unknown>>();
  return page.map((record) => {
    const projectId = record.project_id as number;
    const project = findProjectById(svc, projectId);
    const labels = (record.labels as string[]).map((title) => {
      const key = `${projectId}\0${title}`;
      let basic = found.get(key);
      if (!basic) {
        const row = project ? findLabelByTitle(svc, { kind: 'project', project }, title) : undefined;
        found.set(key, (basic = row ? labelBasic(row) : { id: null, name: title }));
      }
      return basic;
    });
    return { ...record, labels };
  });
}
