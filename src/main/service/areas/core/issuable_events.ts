import type { ServiceContext } from '../../context';
import { createLabel, findLabelByTitle } from '../labels/labels';
import { DEFAULT_LABEL_COLOR } from '../labels/colors';
import type { Project } from './projects';
import type { User } from './users';
import type { MergeRequestRow } from './entities';
import { canReadProject } from './access';
import { refreshClosingIssues } from './closing';
import { createAssignmentTodos, createTodo, markAllTodosDone, markTodosDoneFor, mentionedUsernames } from './todos';
import { isoTime } from './time';
import { type SystemNoteSnapshot, writeSystemNotes } from './system_notes';

export type IssuableType = 'Issue' | 'MergeRequest';

/**
 * Resource label events for a label list change (ResourceEvents::ChangeLabelsService). Labels an
 * issue or merge request names but the project does not have yet are created as project labels,
 * as GitLab's Labels::FindOrCreateService does. Call inside a transaction.
 */
export function recordLabelChanges(
  svc: ServiceContext,
  project: Project,
  type: IssuableType,
  issuableId: number,
  before: string[],
  after: string[],
  userId: number,
): void {
  const parent = { kind: 'project' as const, project };
  const added = after.filter((t) => !before.includes(t)).map((title) => (findLabelByTitle(svc, parent, title) ?? createLabel(svc, parent, { title, color: DEFAULT_LABEL_COLOR })).id);
  const removed = before.filter((t) => !after.includes(t)).flatMap((title) => findLabelByTitle(svc, parent, title)?.id ?? []);
  recordLabelEvents(svc, type, issuableId, added, removed, userId);
}

/** One label change's resource label events by label id: the added, then the removed (ResourceEvents::ChangeLabelsService). */
export function recordLabelEvents(svc: ServiceContext, type: IssuableType, issuableId: number, added: number[], removed: number[], userId: number): void {
  const now = isoTime(svc.now());
  const insert = svc.db.prepare(
    'INSERT INTO resource_label_events (issuable_type, issuable_id, user_id, label_id, action, created_at) VALUES (?, ?, ?, ?, ?, ?)',
  );
  for (const id of added) insert.run(type, issuableId, userId, id, 'add', now);
  for (const id of removed) insert.run(type, issuableId, userId, id, 'remove', now);
}

/** A resource state event: closed, reopened, merged (ResourceEvents::ChangeStateService). */
export function recordStateEvent(
  svc: ServiceContext,
  type: IssuableType,
  issuableId: number,
  state: 'closed' | 'reopened' | 'merged',
  userId: number,
  /** The merge request whose merge closed an issue. */
  sourceMergeRequestId: number | null = null,
): void {
  svc.db
    .prepare('INSERT INTO resource_state_events (issuable_type, issuable_id, user_id, state, source_merge_request_id, created_at) VALUES (?, ?, ?, ?, ?, ?)')
    .run(type, issuableId, userId, state, sourceMergeRequestId, isoTime(svc.now()));
}

/** A resource weight event for an issue whose weight changed. */
export function recordWeightEvent(svc: ServiceContext, issueId: number, weight: number | null, userId: number): void {
  svc.db
    .prepare('INSERT INTO resource_weight_events (issue_id, user_id, weight, created_at) VALUES (?, ?, ?, ?)')
    .run(issueId, userId, weight, isoTime(svc.now()));
}

/**
 * updated_at after a PUT to an issue or merge request, as GitLab's IssuableBaseService#update
 * saves: with any parameter besides state_event (`touches`) it sets updated_by to the caller, and
 * the record is saved (updated_at moved) only if some column changed, updated_by included. A PUT
 * repeating the values by the user who last updated the record then leaves updated_at as it was.
 * `before` is the row before the write, the write (and its milestone) done; call inside its transaction.
 */
export function keepUpdatedAtUnlessChanged(
  svc: ServiceContext,
  table: 'issues' | 'merge_requests',
  before: { id: number; updated_at: string },
  userId: number,
  touches: boolean,
): void {
  const was = before as unknown as Record<string, unknown>;
  const after = svc.db.prepare(`SELECT * FROM ${table} WHERE id = ?`).get(before.id) as Record<string, unknown>;
  const changed = Object.keys(after).some((c) => c !== 'updated_at' && c !== 'updated_by_id' && after[c] !== was[c]);
  if (touches && after.updated_by_id !== userId) svc.db.prepare(`UPDATE ${table} SET updated_by_id = ? WHERE id = ?`).run(userId, before.id);
  else if (!changed && after.updated_at !== before.updated_at) {
    svc.db.prepare(`UPDATE ${table} SET updated_at = ? WHERE id = ?`).run(before.updated_at, before.id);
  }
}

/** Whether a PUT's declared parameters go beyond state_event (which the close and reopen services take away first). */
export const touchesRecord = (p: Record<string, unknown>): boolean => Object.keys(p).some((k) => k !== 'state_event');

interface IssuableSnapshot extends SystemNoteSnapshot {
  state: string;
  labels: string;
  weight?: number | null;
}

/**
 * What GitLab's Issues/MergeRequests create and update services do besides saving: system notes, resource label,
 * state and weight events, assignment, review and mention to-dos, settling to-dos, and (for merge
 * requests) the closing-issue links. `before` is null on create. Call inside the write's transaction.
 */
export function afterIssuableWrite(
  svc: ServiceContext,
  project: Project,
  type: IssuableType,
  before: IssuableSnapshot | null,
  after: IssuableSnapshot,
  userId: number,
): void {
  writeSystemNotes(svc, type, before, after, userId);
  recordLabelChanges(svc, project, type, after.id, before ? (JSON.parse(before.labels) as string[]) : [], JSON.parse(after.labels) as string[], userId);
  if (before && before.state !== after.state) {
    recordStateEvent(svc, type, after.id, after.state === 'opened' ? 'reopened' : (after.state as 'closed' | 'merged'), userId);
  }
  // EE CommonSystemNotesService#handle_weight_change is not gated by is_update: a create with a weight records it too.
  if (type === 'Issue' && (before ? before.weight !== after.weight : after.weight != null)) recordWeightEvent(svc, after.id, after.weight ?? null, userId);
  if (before) markTodosDoneFor(svc, userId, type, after.id);
  if (after.state === 'closed' || after.state === 'merged') markAllTodosDone(svc, type, after.id);
  else createNewTodos(svc, project, type, before, after, userId);
  if (type === 'MergeRequest') refreshClosingIssues(svc, after as unknown as MergeRequestRow);
}

/**
 * The to-dos a write makes on an open record (TodoService#new_issuable, #update_issuable): assigned
 * and review requested for those added, mentioned or directly addressed for new @mentions in the
 * description. `before` is null for a new record.
 */
export function createNewTodos(svc: ServiceContext, project: Project, type: IssuableType, before: IssuableSnapshot | null, after: IssuableSnapshot, userId: number): void {
  const list = (json: string | undefined): number[] => JSON.parse(json ?? '[]') as number[];
  const target = { type, id: after.id, projectId: project.id, groupId: null };
  const oldAssignees = before ? list(before.assignee_ids) : [];
  createAssignmentTodos(svc, target, userId, list(after.assignee_ids).filter((id) => !oldAssignees.includes(id)), 'assigned');
  if (type === 'MergeRequest') {
    const oldReviewers = before ? list(before.reviewer_ids) : [];
    createAssignmentTodos(svc, target, userId, list(after.reviewer_ids).filter((id) => !oldReviewers.includes(id)), 'review_requested');
  }
  const oldMentions = new Set(mentionedUsernames(before?.description));
  for (const name of mentionedUsernames(after.description)) {
    if (oldMentions.has(name)) continue;
    const u = svc.db.prepare("SELECT * FROM users WHERE lower(username) = ? AND state = 'active'").get(name) as User | undefined;
    if (!u || u.id === userId || !canReadProject(svc, u, project)) continue;
    const directly = new RegExp(`^@${name}\\b`, 'i').test(after.description ?? '');
    createTodo(svc, target, u.id, userId, directly ? 'directly_addressed' : 'mentioned');
  }
}
