import {
  type EntityContext,
  type IssueRow,
  type MergeRequestRow,
  issueDetail,
  mergeRequestDetail,
  namespaceBasic,
  projectWebUrl,
  userBasicById,
  withFields,
} from './entities';
import { findNamespaceById } from './namespaces';
import { findProjectById } from './projects';
import { type TodoRow, todoActionName } from './todos';

/** What a to-do shows of its target: the target entity, its web URL and the to-do body (its title). */
export interface TodoTargetView {
  target: Record<string, unknown>;
  url: string;
  title: string;
}

/** Target renderers by target type; areas add theirs (epics). */
export const todoTargetViews: Record<string, (ec: EntityContext, targetId: number) => TodoTargetView | null> = {
  Issue: (ec, id) => {
    const i = ec.svc.db.prepare('SELECT * FROM issues WHERE id = ?').get(id) as IssueRow | undefined;
    if (!i) return null;
    const p = findProjectById(ec.svc, i.project_id)!;
    return { target: issueDetail(ec, i), url: `${projectWebUrl(ec, p, findNamespaceById(ec.svc, p.namespace_id)!)}/-/issues/${i.iid}`, title: i.title };
  },
  MergeRequest: (ec, id) => {
    const m = ec.svc.db.prepare('SELECT * FROM merge_requests WHERE id = ?').get(id) as MergeRequestRow | undefined;
    if (!m) return null;
    const p = findProjectById(ec.svc, m.project_id)!;
    return { target: mergeRequestDetail(ec, m), url: `${projectWebUrl(ec, p, findNamespaceById(ec.svc, p.namespace_id)!)}/-/merge_requests/${m.iid}`, title: m.title };
  },
};

/** Entities::Todo: `project` (ProjectIdentity) or `group` (NamespaceBasic), whichever the to-do has. */
export function todo(ec: EntityContext, t: TodoRow): Record<string, unknown> {
  const view = todoTargetViews[t.target_type]?.(ec, t.target_id) ?? null;
  const out: Record<string, unknown> = { id: t.id };
  if (t.project_id !== null) {
    const p = findProjectById(ec.svc, t.project_id)!;
    const ns = findNamespaceById(ec.svc, p.namespace_id)!;
    out.project = {
      id: p.id,
      description: p.description,
      name: p.name,
      name_with_namespace: `${namespaceFullName(ec, ns.id)} / ${p.name}`,
      path: p.path,
      path_with_namespace: `${ns.full_path}/${p.path}`,
      created_at: p.created_at,
    };
  }
  if (t.group_id !== null) out.group = namespaceBasic(ec, findNamespaceById(ec.svc, t.group_id)!);
  let body = view?.title ?? null;
  if (t.note_id !== null) {
    const note = ec.svc.db.prepare('SELECT body FROM notes WHERE id = ?').get(t.note_id) as { body: string } | undefined;
    if (note) body = note.body;
  }
  return withFields(out, {
    author: userBasicById(ec, t.author_id),
    action_name: todoActionName(t.action),
    target_type: t.target_type,
    target: view?.target ?? null,
    target_url: view ? `${view.url}${t.note_id !== null ? `#note_${t.note_id}` : ''}` : null,
    body,
    state: t.state,
    created_at: t.created_at,
    updated_at: t.updated_at,
  });
}

function namespaceFullName(ec: EntityContext, id: number): string {
  const names: string[] = [];
  let ns = findNamespaceById(ec.svc, id);
  while (ns) {
    names.unshift(ns.name);
    ns = ns.parent_id ? findNamespaceById(ec.svc, ns.parent_id) : undefined;
  }
  return names.join(' / ');
}
