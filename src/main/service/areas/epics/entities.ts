import type { EntityContext } from '../core/entities';
import { namespaceBasic, namespaceWebUrl, userBasicById } from '../core/entities';
import { type Namespace, findNamespaceById } from '../core/namespaces';
import { findLabelById, groupLabelsByTitle } from '../labels/labels';
import { labelBasic } from '../labels/entities';
import { textColorFor } from '../labels/colors';
import { type AwardRow, type EpicRow, type LabelEventRow, type TodoRow, awardCounts, canAdminEpic, epicDates, findEpicById } from './epics';

export interface EpicView {
  /** The group the epic is requested through (`references.relative`). */
  from: Namespace;
  /** Single-epic GET adds `subscribed`. */
  single?: boolean;
  withLabelsDetails?: boolean;
}

const shortRef = (e: EpicRow): string => `&${e.iid}`;

/** `&iid` within the same group, `path&iid` from anywhere else. */
function relativeRef(e: EpicRow, epicGroup: Namespace, from: Namespace): string {
  return epicGroup.id === from.id ? shortRef(e) : `${epicGroup.full_path}${shortRef(e)}`;
}

/** The participant rule for `subscribed`: author or commenter. */
function participates(ec: EntityContext, e: EpicRow): boolean {
  if (!ec.user) return false;
  if (e.author_id === ec.user.id) return true;
  return !!ec.svc.db.prepare("SELECT 1 FROM notes WHERE noteable_type = 'Epic' AND noteable_id = ? AND author_id = ? LIMIT 1").get(e.id, ec.user.id);
}

export function epic(ec: EntityContext, e: EpicRow, view: EpicView): Record<string, unknown> {
  const group = findNamespaceById(ec.svc, e.group_id)!;
  const parent = e.parent_id ? findEpicById(ec.svc, e.parent_id) : undefined;
  const dates = epicDates(ec.svc, e);
  const api = `${ec.baseUrl}/api/v4`;
  const webUrl = `${namespaceWebUrl(ec, group)}/-/epics/${e.iid}`;
  const names = (JSON.parse(e.labels) as string[]).sort();
  let labels: unknown[] = names;
  if (view.withLabelsDetails) {
    const found = groupLabelsByTitle(ec.svc, group, names);
    labels = names.map((n) => (found.has(n) ? labelBasic(found.get(n)!) : { id: null, name: n }));
  }
  const out: Record<string, unknown> = {
    id: e.id,
    iid: e.iid,
    color: e.color,
    text_color: textColorFor(e.color),
    group_id: e.group_id,
    parent_id: e.parent_id,
    parent_iid: parent?.iid ?? null,
    title: e.title,
    description: e.description,
    confidential: !!e.confidential,
    author: userBasicById(ec, e.author_id),
    start_date: dates.start_date,
    end_date: dates.due_date,
    due_date: dates.due_date,
    state: e.state,
    web_url: webUrl,
    reference: shortRef(e),
    references: { short: shortRef(e), relative: relativeRef(e, group, view.from), full: `${group.full_path}${shortRef(e)}` },
    created_at: e.created_at,
    updated_at: e.updated_at,
    closed_at: e.closed_at,
    labels,
    ...awardCounts(ec.svc, e.id),
    work_item_id: null,
    imported: e.imported_from !== 'none',
    imported_from: e.imported_from,
    _links: {
      self: `${api}/groups/${e.group_id}/epics/${e.iid}`,
      epic_issues: `${api}/groups/${e.group_id}/epics/${e.iid}/issues`,
      group: `${api}/groups/${e.group_id}`,
      parent: parent ? `${api}/groups/${parent.group_id}/epics/${parent.iid}` : null,
    },
  };
  if (canAdminEpic(ec.svc, ec.user, e)) {
    // The deprecated *_from_milestones: GitLab's Epic model answers the rolled-up date when the
    // date is not fixed, else the sourcing milestone's (none here: Sandlab epics have no milestones).
    Object.assign(out, {
      start_date_is_fixed: !!e.start_date_is_fixed,
      start_date_fixed: e.start_date_fixed,
      start_date_from_milestones: e.start_date_is_fixed ? null : dates.start_date,
      start_date_from_inherited_source: dates.start_date_from_inherited_source,
      due_date_is_fixed: !!e.due_date_is_fixed,
      due_date_fixed: e.due_date_fixed,
      due_date_from_milestones: e.due_date_is_fixed ? null : dates.due_date,
      due_date_from_inherited_source: dates.due_date_from_inherited_source,
    });
  }
  if (view.single) out.subscribed = participates(ec, e);
  return out;
}

/** Todo entity of a "marked" epic to-do. */
export function todo(ec: EntityContext, t: TodoRow, e: EpicRow): Record<string, unknown> {
  const group = findNamespaceById(ec.svc, e.group_id)!;
  return {
    id: t.id,
    group: namespaceBasic(ec, group),
    project: null,
    author: userBasicById(ec, t.author_id),
    action_name: t.action,
    target_type: 'Epic',
    target: epic(ec, e, { from: group }),
    target_url: `${namespaceWebUrl(ec, group)}/-/epics/${e.iid}`,
    body: e.title,
    state: t.state,
    created_at: t.created_at,
    updated_at: t.updated_at,
  };
}

export function awardEmoji(ec: EntityContext, a: AwardRow, e: EpicRow): Record<string, unknown> {
  return {
    id: a.id,
    name: a.name,
    user: userBasicById(ec, a.user_id),
    created_at: a.created_at,
    updated_at: a.updated_at,
    awardable_id: e.id,
    awardable_type: 'Epic',
    url: null,
  };
}

/** ResourceLabelEvent; `label` is null once the label is deleted. */
export function labelEvent(ec: EntityContext, ev: LabelEventRow, e: EpicRow): Record<string, unknown> {
  const l = ev.label_id === null ? undefined : findLabelById(ec.svc, ev.label_id);
  return {
    id: ev.id,
    user: ev.user_id === null ? null : userBasicById(ec, ev.user_id),
    created_at: ev.created_at,
    resource_type: 'Epic',
    resource_id: e.id,
    label: l ? labelBasic(l) : null,
    action: ev.action,
  };
}
