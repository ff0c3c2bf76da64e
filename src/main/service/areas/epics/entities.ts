import { sameTableVersions, tableVersionsOf, unchangedEntity, unchangedPage } from '../../db/connection';
import type { EntityContext } from '../core/entities';
import { namespaceBasic, namespaceWebUrl, userBasicById } from '../core/entities';
import { type Namespace, findNamespaceById } from '../core/namespaces';
import { labelBasic } from '../labels/entities';
import { textColorFor } from '../labels/colors';
import { type LabelRow, findLabelById, groupLabelsByTitle } from '../labels/labels';
import { type AwardCounts, type AwardRow, type EpicRow, type LabelEventRow, type TodoRow, awardCountsOf, canAdminEpic, canAdminGroupEpics, epicDatesFrom, inheritsDates } from './epics';

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

/**
 * What epics show of other rows, read for a whole page at once (one query per table, not one per
 * epic): their parents, the children their dates come from, their thumbs, and per group the
 * labels `with_labels_details` shows and whether the viewer administers its epics.
 */
interface EpicPage {
  parents: Map<number, EpicRow>;
  children: Map<number, EpicRow[]>;
  awards: Map<number, AwardCounts>;
  labels: Map<number, Map<string, LabelRow>>;
  admin: Map<number, boolean>;
  /** Authors (UserBasic), each built once for the page. */
  authors: Map<number | null, Record<string, unknown> | null>;
}

const NO_AWARDS: AwardCounts = { upvotes: 0, downvotes: 0 };
const NO_CHILDREN: EpicRow[] = [];

function epicPage(ec: EntityContext, rows: EpicRow[], view: EpicView): EpicPage {
  const db = ec.svc.db;
  const byId = (sql: string, ids: number[]): EpicRow[] => (ids.length ? (db.prepare(sql).all(JSON.stringify(ids)) as EpicRow[]) : []);
  const parentIds = [...new Set(rows.map((e) => e.parent_id).filter((id): id is number => id !== null))];
  const parents = new Map(byId('SELECT * FROM epics WHERE id IN (SELECT value FROM json_each(?))', parentIds).map((p) => [p.id, p]));
  const children = new Map<number, EpicRow[]>();
  const inheriting = rows.filter(inheritsDates).map((e) => e.id);
  // By parent, each in turn (CROSS JOIN keeps the order): with `IN (...)` SQLite may read every epic instead.
  for (const child of byId('SELECT c.* FROM json_each(?) j CROSS JOIN epics c ON c.parent_id = j.value', inheriting)) {
    const list = children.get(child.parent_id!);
    if (list) list.push(child);
    else children.set(child.parent_id!, [child]);
  }
  const labels = new Map<number, Map<string, LabelRow>>();
  if (view.withLabelsDetails) {
    // Each title resolves the same among more titles: one read per group for the titles of all its epics.
    const titles = new Map<number, Set<string>>();
    for (const e of rows) for (const n of JSON.parse(e.labels) as string[]) (titles.get(e.group_id) ?? titles.set(e.group_id, new Set()).get(e.group_id)!).add(n);
    for (const [groupId, names] of titles) labels.set(groupId, groupLabelsByTitle(ec.svc, findNamespaceById(ec.svc, groupId)!, [...names]));
  }
  return { parents, children, awards: awardCountsOf(ec.svc, rows.map((e) => e.id)), labels, admin: new Map(), authors: new Map() };
}

export function epic(ec: EntityContext, e: EpicRow, view: EpicView): Record<string, unknown> {
  return epics(ec, [e], view)[0];
}

/**
 * The epic entity for each row of a page, what they show of other rows read for the page at once
 * (EpicPage). In a list, an epic whose row and parts (EpicParts) read as when its entity was built
 * keeps that entity and its JSON text (unchangedEntity) across writes elsewhere.
 */
export function epics(ec: EntityContext, rows: EpicRow[], view: EpicView): Record<string, unknown>[] {
  if (view.single) {
    const page = epicPage(ec, rows, view);
    return rows.map((e) => buildEpic(ec, e, view, epicParts(ec, e, view, page)));
  }
  const db = ec.svc.db;
  const shared = `${ec.user?.id ?? 0}:${ec.baseUrl}:${view.from.id}:${view.withLabelsDetails ? 1 : 0}`;
  // A page whose rows (the same frozen objects: rowsByIds) and inputs read as when it was built is handed out again, checked once per page after a write.
  const current = (inputs: EpicPageInputs): boolean =>
    sameTableVersions(db, EPIC_PAGE_TABLES, inputs.versions) && inputs.admin.every(([groupId, admin]) => canAdminGroupEpics(ec.svc, ec.user, groupId) === admin);
  return unchangedPage(db, 'epic-page', shared, rows, current, () => {
    const versions = tableVersionsOf(db, EPIC_PAGE_TABLES);
    const page = epicPage(ec, rows, view);
    const entities = rows.map((e) => {
      const parts = epicParts(ec, e, view, page);
      return unchangedEntity(db, 'epic', `${e.id}:${shared}`, e as unknown as Record<string, unknown>, parts, () => buildEpic(ec, e, view, parts));
    });
    return { entities, inputs: { versions, admin: [...page.admin] } };
  });
}

/**
 * The tables a page of epics reads besides its rows (core/099's versions): its parents and the
 * children its dates come from, its authors (UserBasic: the user's row alone), thumbs, label
 * details, and its groups' paths.
 */
const EPIC_PAGE_TABLES = ['epics', 'users', 'epic_award_emoji', 'labels', 'namespaces'] as const;

/** What a page of epics read besides its rows and the view: EPIC_PAGE_TABLES' versions, read first, and whether the viewer administers each group's epics. */
interface EpicPageInputs {
  versions: (number | undefined)[];
  admin: [number, boolean][];
}

/** What an epic shows of other records and tables: everything buildEpic reads besides the row, the view and the request. */
interface EpicParts {
  fullPath: string;
  webUrl: string;
  relative: string;
  parent: { iid: number; group_id: number } | null;
  dates: ReturnType<typeof epicDatesFrom>;
  labels: unknown[];
  awards: AwardCounts;
  admin: boolean;
  author: Record<string, unknown> | null;
}

function epicParts(ec: EntityContext, e: EpicRow, view: EpicView, page: EpicPage): EpicParts {
  const group = findNamespaceById(ec.svc, e.group_id)!;
  const parent = e.parent_id ? page.parents.get(e.parent_id) : undefined;
  const names = (JSON.parse(e.labels) as string[]).sort();
  let labels: unknown[] = names;
  if (view.withLabelsDetails) {
    const found = page.labels.get(e.group_id)!;
    labels = names.map((n) => (found.has(n) ? labelBasic(found.get(n)!) : { id: null, name: n }));
  }
  let admin = page.admin.get(e.group_id);
  if (admin === undefined) page.admin.set(e.group_id, (admin = canAdminEpic(ec.svc, ec.user, e)));
  let author = page.authors.get(e.author_id);
  if (author === undefined) page.authors.set(e.author_id, (author = userBasicById(ec, e.author_id)));
  return {
    fullPath: group.full_path,
    webUrl: `${namespaceWebUrl(ec, group)}/-/epics/${e.iid}`,
    relative: relativeRef(e, group, view.from),
    parent: parent ? { iid: parent.iid, group_id: parent.group_id } : null,
    dates: epicDatesFrom(ec.svc, e, page.children.get(e.id) ?? NO_CHILDREN),
    labels,
    awards: page.awards.get(e.id) ?? NO_AWARDS,
    admin,
    author,
  };
}

/** The epic entity of a row and its parts (epicParts): reads nothing else, but `subscribed` for a single epic. */
function buildEpic(ec: EntityContext, e: EpicRow, view: EpicView, parts: EpicParts): Record<string, unknown> {
  const { parent, dates, awards, admin } = parts;
  const api = `${ec.baseUrl}/api/v4`;
  // One literal: the fields this viewer does not get are `undefined`, which JSON leaves out, and
  // every epic of a page has one shape (Object.assign after it made each a slower dictionary).
  return {
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
    author: parts.author,
    start_date: dates.start_date,
    end_date: dates.due_date,
    due_date: dates.due_date,
    state: e.state,
    web_url: parts.webUrl,
    reference: shortRef(e),
    references: { short: shortRef(e), relative: parts.relative, full: `${parts.fullPath}${shortRef(e)}` },
    created_at: e.created_at,
    updated_at: e.updated_at,
    closed_at: e.closed_at,
    labels: parts.labels,
    upvotes: awards.upvotes,
    downvotes: awards.downvotes,
    work_item_id: null,
    imported: e.imported_from !== 'none',
    imported_from: e.imported_from,
    _links: {
      self: `${api}/groups/${e.group_id}/epics/${e.iid}`,
      epic_issues: `${api}/groups/${e.group_id}/epics/${e.iid}/issues`,
      group: `${api}/groups/${e.group_id}`,
      parent: parent ? `${api}/groups/${parent.group_id}/epics/${parent.iid}` : null,
    },
    // The deprecated *_from_milestones: GitLab's Epic model answers the rolled-up date when the
    // date is not fixed, else the sourcing milestone's (none here: Sandlab epics have no milestones).
    start_date_is_fixed: admin ? !!e.start_date_is_fixed : undefined,
    start_date_fixed: admin ? e.start_date_fixed : undefined,
    start_date_from_milestones: admin ? (e.start_date_is_fixed ? null : dates.start_date) : undefined,
    start_date_from_inherited_source: admin ? dates.start_date_from_inherited_source : undefined,
    due_date_is_fixed: admin ? !!e.due_date_is_fixed : undefined,
    due_date_fixed: admin ? e.due_date_fixed : undefined,
    due_date_from_milestones: admin ? (e.due_date_is_fixed ? null : dates.due_date) : undefined,
    due_date_from_inherited_source: admin ? dates.due_date_from_inherited_source : undefined,
    subscribed: view.single ? participates(ec, e) : undefined,
  };
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
