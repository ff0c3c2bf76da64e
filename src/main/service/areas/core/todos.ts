import type { ServiceContext } from '../../context';
import { isoTime } from './time';

/** Todo::ACTION_NAMES: GitLab's action codes and the names the API shows. */
export const TODO_ACTIONS = {
  assigned: 1,
  mentioned: 2,
  build_failed: 3,
  marked: 4,
  approval_required: 5,
  unmergeable: 6,
  directly_addressed: 7,
  merge_train_removed: 8,
  review_requested: 9,
  member_access_requested: 10,
  review_submitted: 11,
} as const;
export type TodoActionName = keyof typeof TODO_ACTIONS;
export const TODO_ACTION_NAMES = Object.keys(TODO_ACTIONS) as TodoActionName[];
export const todoActionName = (code: number): string => TODO_ACTION_NAMES.find((n) => TODO_ACTIONS[n] === code) ?? 'marked';

/** Targets a to-do can point at (TodosFinder.todo_types, those Sandlab has). */
export const TODO_TARGET_TYPES = ['Issue', 'MergeRequest', 'Epic'] as const;
export type TodoTargetType = (typeof TODO_TARGET_TYPES)[number];

export interface TodoRow {
  id: number;
  user_id: number;
  author_id: number | null;
  project_id: number | null;
  group_id: number | null;
  target_type: TodoTargetType;
  target_id: number;
  action: number;
  note_id: number | null;
  state: 'pending' | 'done';
  created_at: string;
  updated_at: string;
}

export interface TodoTarget {
  type: TodoTargetType;
  id: number;
  projectId: number | null;
  groupId: number | null;
}

export function findTodo(svc: ServiceContext, id: number): TodoRow | undefined {
  return svc.db.prepare('SELECT * FROM todos WHERE id = ?').get(id) as TodoRow | undefined;
}

/** Creates a pending to-do for one user (call inside a transaction). */
export function createTodo(svc: ServiceContext, target: TodoTarget, userId: number, authorId: number, action: TodoActionName, noteId: number | null = null): TodoRow {
  const now = isoTime(svc.now());
  const info = svc.db
    .prepare(
      `INSERT INTO todos (user_id, author_id, project_id, group_id, target_type, target_id, action, note_id, state, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
    )
    .run(userId, authorId, target.projectId, target.groupId, target.type, target.id, TODO_ACTIONS[action], noteId, now, now);
  return findTodo(svc, Number(info.lastInsertRowid))!;
}

/**
 * TodoService#mark_todo: the user's own "marked" to-do on the target, or null when a pending one
 * already exists (the API then answers 304).
 */
export function markTodo(svc: ServiceContext, target: TodoTarget, userId: number): TodoRow | null {
  const pending = svc.db
    .prepare("SELECT 1 FROM todos WHERE user_id = ? AND target_type = ? AND target_id = ? AND action = ? AND state = 'pending'")
    .get(userId, target.type, target.id, TODO_ACTIONS.marked);
  return pending ? null : createTodo(svc, target, userId, userId, 'marked');
}

/** A user acting on a target settles their own pending to-dos there (TodoService#mark_pending_todos_as_done). */
export function markTodosDoneFor(svc: ServiceContext, userId: number, type: TodoTargetType, id: number): void {
  svc.db
    .prepare("UPDATE todos SET state = 'done', updated_at = ? WHERE user_id = ? AND target_type = ? AND target_id = ? AND state = 'pending'")
    .run(isoTime(svc.now()), userId, type, id);
}

/** Closing or merging a target settles everyone's to-dos on it (TodoService#resolve_todos_for_target). */
export function markAllTodosDone(svc: ServiceContext, type: TodoTargetType, id: number): void {
  svc.db
    .prepare("UPDATE todos SET state = 'done', updated_at = ? WHERE target_type = ? AND target_id = ? AND state = 'pending'")
    .run(isoTime(svc.now()), type, id);
}

/** Assignment (and review request) to-dos for newly added users other than the actor. */
export function createAssignmentTodos(svc: ServiceContext, target: TodoTarget, actorId: number, added: number[], action: 'assigned' | 'review_requested'): void {
  for (const userId of new Set(added)) if (userId !== actorId) createTodo(svc, target, userId, actorId, action);
}

/** @username mentions in a text. */
export function mentionedUsernames(text: string | null | undefined): string[] {
  if (!text) return [];
  return [...new Set([...text.matchAll(/(?:^|[^\w@.])@([a-zA-Z0-9_][a-zA-Z0-9_.-]*[a-zA-Z0-9_]|[a-zA-Z0-9_])/g)].map((m) => m[1].toLowerCase()))];
}
