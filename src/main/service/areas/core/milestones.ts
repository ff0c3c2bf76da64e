import type { ServiceContext } from '../../context';
import type { RequestContext } from '../../http/route';
import { apiError, recordNotFound } from '../../http/errors';
import { recordEvent } from './events';
import { type Namespace, findNamespaceById, selfAndAncestorIds } from './namespaces';
import type { Project } from './projects';
import { isoTime, today } from './time';
import { rubyHash } from './routes/groups';

export interface MilestoneRow {
  id: number;
  iid: number;
  project_id: number | null;
  group_id: number | null;
  title: string;
  description: string | null;
  state: 'active' | 'closed';
  start_date: string | null;
  due_date: string | null;
  created_at: string;
  updated_at: string;
}

/** Whose milestones a route works on. */
export type MilestoneParent = { kind: 'project'; project: Project } | { kind: 'group'; group: Namespace };

export function findMilestoneById(svc: ServiceContext, id: number): MilestoneRow | undefined {
  return svc.db.prepare('SELECT * FROM milestones WHERE id = ?').get(id) as MilestoneRow | undefined;
}

/** `parent.milestones.find(id)`: a milestone of exactly this project or group, else 404 Not found. */
export function findParentMilestone(svc: ServiceContext, parent: MilestoneParent, ref: string): MilestoneRow {
  const row = /^\d+$/.test(ref)
    ? (svc.db
        .prepare(`SELECT * FROM milestones WHERE id = ? AND ${parent.kind === 'project' ? 'project_id' : 'group_id'} = ?`)
        .get(Number(ref), parent.kind === 'project' ? parent.project.id : parent.group.id) as MilestoneRow | undefined)
    : undefined;
  if (!row) throw recordNotFound();
  return row;
}

/** The project's group and the groups above it (whose milestones the project's issues may use). */
export function projectGroupIds(svc: ServiceContext, project: Project): number[] {
  const ns = findNamespaceById(svc, project.namespace_id)!;
  return ns.kind === 'group' ? selfAndAncestorIds(svc, ns) : [];
}

/**
 * A milestone an issue or merge request of `project` may carry: the project's own or one of its
 * groups' (Issuable::Callbacks::Milestone drops anything else).
 */
export function milestoneInScope(svc: ServiceContext, project: Project, id: number): MilestoneRow | undefined {
  const m = findMilestoneById(svc, id);
  if (!m) return undefined;
  if (m.project_id === project.id) return m;
  return m.group_id !== null && projectGroupIds(svc, project).includes(m.group_id) ? m : undefined;
}

/** The project's or its groups' milestone of this title, first in `order`. */
function milestoneOfTitle(svc: ServiceContext, project: Project, title: string, order: string): MilestoneRow | undefined {
  const groups = projectGroupIds(svc, project);
  return svc.db
    .prepare(`SELECT * FROM milestones WHERE title = ? AND (project_id = ? OR group_id IN (${groups.map(() => '?').join(',') || 'NULL'})) ORDER BY ${order} LIMIT 1`)
    .get(title, project.id, ...groups) as MilestoneRow | undefined;
}

/**
 * MilestonesFinder's default order (due_date_asc, then with_order_id_desc): the earliest due date,
 * none last, then the newest.
 */
export const MILESTONES_FINDER_ORDER = 'due_date IS NULL, due_date, id DESC';

/** A milestone of the project or its groups by title (`milestone` on issue create/update). */
export function milestoneInScopeByTitle(svc: ServiceContext, project: Project, title: string): MilestoneRow | undefined {
  return milestoneOfTitle(svc, project, title, 'project_id IS NULL, id');
}

/** MilestonesFinder by title among the project's and its groups' (a moved or cloned issue's: WorkItems::DataSync::Widgets::Milestone#by_title). */
export function milestoneFoundByTitle(svc: ServiceContext, project: Project, title: string): MilestoneRow | undefined {
  return milestoneOfTitle(svc, project, title, MILESTONES_FINDER_ORDER);
}

export interface MilestoneFields {
  title?: string;
  description?: string | null;
  start_date?: string | null;
  due_date?: string | null;
}

/** Dates as the model casts strings: a valid YYYY-MM-DD (or a longer time) keeps its day, anything else is nil. */
export function castDate(value: string | null | undefined): string | null | undefined {
  if (value === undefined || value === null) return value;
  const m = /^\s*(\d{4,})-(\d{1,2})-(\d{1,2})/.exec(value);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return null;
  return `${String(y).padStart(4, '0')}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/** Timebox validations; a title must not be used by the project and its group, or the group and its projects. */
function validate(
  svc: ServiceContext,
  parent: MilestoneParent,
  m: Omit<MilestoneFields, 'title'> & { title: string | null },
  selfId: number | null,
  titleChanged = true,
): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  if (!m.title) errors.title = ["can't be blank"];
  else if (titleChanged && titleTaken(svc, parent, m.title, selfId)) errors.title = ['already being used for another group or project milestone.'];
  if (m.start_date && m.due_date && m.due_date <= m.start_date) errors.due_date = ['must be greater than start date'];
  if (m.start_date && m.start_date > '9999-12-31') errors.start_date = ['date must not be after 9999-12-31'];
  if (m.due_date && m.due_date > '9999-12-31') (errors.due_date ??= []).push('date must not be after 9999-12-31');
  return errors;
}

function titleTaken(svc: ServiceContext, parent: MilestoneParent, title: string, selfId: number | null): boolean {
  let sql: string;
  let args: unknown[];
  if (parent.kind === 'project') {
    const ns = findNamespaceById(svc, parent.project.namespace_id)!;
    sql = 'project_id = ? OR group_id = ?';
    args = [parent.project.id, ns.kind === 'group' ? ns.id : null];
  } else {
    sql = 'group_id = ? OR project_id IN (SELECT id FROM projects WHERE namespace_id = ?)';
    args = [parent.group.id, parent.group.id];
  }
  return !!svc.db.prepare(`SELECT 1 FROM milestones WHERE (${sql}) AND title = ? AND id IS NOT ?`).get(...args, title, selfId);
}

/** Timebox#title=: HTML is stripped, entities unescaped, and the ends trimmed (strip_attributes). */
export function sanitizeTitle(value: string): string {
  return value
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .trim();
}

const parentColumns = (parent: MilestoneParent) =>
  parent.kind === 'project' ? { column: 'project_id', id: parent.project.id } : { column: 'group_id', id: parent.group.id };

/**
 * The activity event of a milestone's create, close, reopen or destroy: a project milestone's only,
 * as Milestones::CreateService, CloseService, ReopenService and DestroyService record (a group has
 * no milestone events). Call inside the write's transaction.
 */
export function recordMilestoneEvent(rc: RequestContext, parent: MilestoneParent, action: 'created' | 'closed' | 'reopened' | 'destroyed', m: MilestoneRow): void {
  if (parent.kind !== 'project') return;
  recordEvent(rc.svc, { action, authorId: rc.requireUser().id, projectId: parent.project.id, targetType: 'Milestone', targetId: m.id, targetIid: m.iid, targetTitle: m.title });
}

/**
 * Milestones::DestroyService#log_destroy_event_for: the `destroyed` event, then every event of the
 * milestone loses its target (Event#target_iid and #target_title read nil without one). Call inside
 * the transaction, before the row goes.
 */
export function recordMilestoneDestroyed(rc: RequestContext, parent: MilestoneParent, m: MilestoneRow): void {
  if (parent.kind !== 'project') return;
  recordMilestoneEvent(rc, parent, 'destroyed', m);
  rc.svc.db.prepare("UPDATE events SET target_id = NULL, target_iid = NULL, target_title = NULL WHERE target_type = 'Milestone' AND target_id = ?").run(m.id);
}

/** Milestones::CreateService; validation failures answer 400 "Failed to create milestone {...}". Call inside a transaction. */
export function createMilestone(rc: RequestContext, parent: MilestoneParent, input: MilestoneFields & { title: string }): MilestoneRow {
  const fields = {
    title: sanitizeTitle(input.title) || null,
    description: input.description ?? null,
    start_date: castDate(input.start_date) ?? null,
    due_date: castDate(input.due_date) ?? null,
  };
  const errors = validate(rc.svc, parent, fields, null);
  if (Object.keys(errors).length) throw apiError(400, `Failed to create milestone ${rubyHash(errors)}`);
  const { column, id } = parentColumns(parent);
  const iid = (rc.svc.db.prepare(`SELECT coalesce(max(iid), 0) + 1 AS n FROM milestones WHERE ${column} = ?`).get(id) as { n: number }).n;
  const now = isoTime(rc.svc.now());
  const info = rc.svc.db
    .prepare(`INSERT INTO milestones (iid, ${column}, title, description, start_date, due_date, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
    .run(iid, id, fields.title, fields.description, fields.start_date, fields.due_date, now, now);
  const row = findMilestoneById(rc.svc, Number(info.lastInsertRowid))!;
  recordMilestoneEvent(rc, parent, 'created', row);
  return row;
}

/** Milestones::UpdateService with `state_event` close/activate. Call inside a transaction. */
export function updateMilestone(
  rc: RequestContext,
  parent: MilestoneParent,
  current: MilestoneRow,
  input: MilestoneFields & { state_event?: 'close' | 'activate' },
): MilestoneRow {
  // Timebox#title= ignores blank values: the title stays.
  const title = (typeof input.title === 'string' && sanitizeTitle(input.title)) || current.title;
  const fields = {
    title,
    description: input.description === undefined ? current.description : input.description,
    start_date: input.start_date === undefined ? current.start_date : (castDate(input.start_date) ?? null),
    due_date: input.due_date === undefined ? current.due_date : (castDate(input.due_date) ?? null),
  };
  // uniqueness_of_title runs only when the title changes.
  const errors = validate(rc.svc, parent, fields, current.id, title !== current.title);
  if (Object.keys(errors).length) throw apiError(400, `Failed to update milestone ${rubyHash(errors)}`);
  let state = current.state;
  if (input.state_event === 'close' && state === 'active') state = 'closed';
  if (input.state_event === 'activate' && state === 'closed') state = 'active';
  const changed =
    fields.title !== current.title ||
    fields.description !== current.description ||
    fields.start_date !== current.start_date ||
    fields.due_date !== current.due_date ||
    state !== current.state;
  if (!changed) return current;
  rc.svc.db
    .prepare('UPDATE milestones SET title = ?, description = ?, start_date = ?, due_date = ?, state = ?, updated_at = ? WHERE id = ?')
    .run(fields.title, fields.description, fields.start_date, fields.due_date, state, isoTime(rc.svc.now()), current.id);
  const updated = findMilestoneById(rc.svc, current.id)!;
  if (state !== current.state) recordMilestoneEvent(rc, parent, state === 'closed' ? 'closed' : 'reopened', updated);
  return updated;
}

/** Is the milestone past its due date (Milestoneish#expired?). */
export function milestoneExpired(svc: ServiceContext, m: MilestoneRow): boolean {
  return m.due_date !== null && m.due_date < today(svc);
}
