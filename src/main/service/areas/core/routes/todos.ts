import type { RequestContext, Router } from '../../../http/route';
import { declared, t } from '../../../http/params';
import { recordNotFound } from '../../../http/errors';
import { paginate, limitSql } from '../../../http/pagination';
import { addFilter } from '../../../db/filter';
import { isoTime } from '../time';
import { TODO_ACTIONS, TODO_ACTION_NAMES, TODO_TARGET_TYPES, type TodoRow, findTodo } from '../todos';
import { todo } from '../todo_entity';
import type { IssueRow } from '../entities';
import { canReadFeature } from '../feature-access';
import { findProjectById } from '../projects';
import { issueReadable } from './issues';

/**
 * TodoPolicy's read_todo on the caller's own to-do: its target readable (an issue or merge request
 * of a project whose feature the caller may not use, or a confidential issue they lost, is not).
 * lib/api/todos.rb filters the page after paginating it (Todos::AllowedTargetFilterService), so the
 * headers still count such to-dos.
 */
function targetReadable(rc: RequestContext, row: TodoRow): boolean {
  if (row.target_type !== 'Issue' && row.target_type !== 'MergeRequest') return true;
  const table = row.target_type === 'Issue' ? 'issues' : 'merge_requests';
  const target = rc.svc.db.prepare(`SELECT * FROM ${table} WHERE id = ?`).get(row.target_id) as IssueRow | undefined;
  const project = target && findProjectById(rc.svc, target.project_id);
  if (!target || !project) return true;
  return row.target_type === 'Issue' ? issueReadable(rc, project, target) : canReadFeature(rc.svc, rc.user, project, 'MergeRequest');
}

/** TodosFinder: the caller's to-dos, pending unless `state=done`, newest first. */
function todosQuery(rc: RequestContext): { sql: string; args: unknown[] } {
  const user = rc.requireUser();
  const q = declared(rc.params, {
    action: t.string().values(TODO_ACTION_NAMES),
    author_id: t.integer(),
    project_id: t.integer(),
    group_id: t.integer(),
    state: t.string().values(['pending', 'done']),
    type: t.string().values(TODO_TARGET_TYPES),
  });
  const where = ['user_id = ?'];
  const args: unknown[] = [user.id];
  addFilter(where, args, 'state = ?', q.state ?? 'pending');
  if (q.action) addFilter(where, args, 'action = ?', TODO_ACTIONS[q.action]);
  if (q.author_id !== undefined && q.author_id !== null) addFilter(where, args, 'author_id = ?', q.author_id);
  if (q.project_id !== undefined && q.project_id !== null) addFilter(where, args, 'project_id = ?', q.project_id);
  if (q.group_id !== undefined && q.group_id !== null) {
    addFilter(
      where,
      args,
      `(group_id IN (WITH RECURSIVE tree(id) AS (SELECT ? UNION ALL SELECT n.id FROM namespaces n JOIN tree ON n.parent_id = tree.id) SELECT id FROM tree)
        OR project_id IN (SELECT id FROM projects WHERE namespace_id IN (WITH RECURSIVE tree(id) AS (SELECT ? UNION ALL SELECT n.id FROM namespaces n JOIN tree ON n.parent_id = tree.id) SELECT id FROM tree)))`,
      q.group_id,
      q.group_id,
    );
  }
  if (q.type) addFilter(where, args, 'target_type = ?', q.type);
  return { sql: `FROM todos WHERE ${where.join(' AND ')}`, args };
}

/** /todos (lib/api/todos.rb). */
export function registerTodoRoutes(r: Router): void {
  r.get('/todos', (rc) => {
    const { sql, args } = todosQuery(rc);
    return paginate(rc, {
      count: () => (rc.svc.db.prepare(`SELECT count(*) AS n ${sql}`).get(...args) as { n: number }).n,
      rows: (limit, offset) => rc.svc.db.prepare(`SELECT * ${sql} ORDER BY id DESC ${limitSql(limit)} OFFSET ?`).all(...args, offset) as TodoRow[],
    })
      .filter((row) => targetReadable(rc, row))
      .map((row) => todo(rc, row));
  });

  r.post('/todos/:id/mark_as_done', (rc) => {
    const user = rc.requireUser();
    const id = declared({ id: rc.path.id }, { id: t.integer() }).id!;
    const row = findTodo(rc.svc, id);
    if (!row || row.user_id !== user.id) throw recordNotFound();
    if (row.state === 'pending') {
      rc.svc.db.prepare("UPDATE todos SET state = 'done', updated_at = ? WHERE id = ?").run(isoTime(rc.svc.now()), row.id);
    }
    return todo(rc, findTodo(rc.svc, id)!);
  });

  r.post('/todos/mark_as_done', (rc) => {
    const { sql, args } = todosQuery(rc);
    rc.svc.db.prepare(`UPDATE todos SET state = 'done', updated_at = ? WHERE id IN (SELECT id ${sql}) AND state = 'pending'`).run(isoTime(rc.svc.now()), ...args);
    return undefined;
  });
}
