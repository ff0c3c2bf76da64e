import type { RequestContext, Router } from '../../http/route';
import { declared, requireAtLeastOne, t } from '../../http/params';
import { forbidden, notFound, notModified } from '../../http/errors';
import { paginateArray, paginateSql } from '../../http/pagination';
import { inTransaction } from '../../db/connection';
import { Access, effectiveGroupAccess, loadGroup, loadProject } from '../core/access';
import { findNamespaceById } from '../core/namespaces';
import { issuablesAvailable } from '../core/feature-access';
import { type LabelParent, type LabelRow, type LabelScope, createLabel, deleteLabel, findLabel, labelCountsMany, labelListSql, promoteLabel, setSubscription, updateLabel } from './labels';
import { label, labels } from './entities';
import { ApiError } from '../../http/errors';
import { checkUnmodifiedSince } from '../../http/conditional';
import { keptProjectLabelsPage } from '../core/kept-answers';

type Kind = 'groups' | 'projects';

/** admin_label: Planner (and Reporter) and up. */
const ADMIN_LABEL = Access.PLANNER;

function loadParent(rc: RequestContext, kind: Kind, minLevel: number = Access.NO_ACCESS): LabelParent {
  return kind === 'groups' ? { kind: 'group', group: loadGroup(rc, minLevel) } : { kind: 'project', project: loadProject(rc, minLevel) };
}

/**
 * Whether the caller may read the parent's labels: a project's are hidden where neither its issues
 * nor its merge requests are available to the caller (ProjectPolicy prevents read_label and
 * admin_label; LabelsFinder then finds none: an empty list, a 404 for one, a 403 to write).
 */
const labelsReadable = (rc: RequestContext, parent: LabelParent): boolean => parent.kind === 'group' || issuablesAvailable(rc.svc, rc.user, parent.project);

/** The parent for a write (admin_label): a 403 where its labels are hidden. */
function loadWritableParent(rc: RequestContext, kind: Kind): LabelParent {
  const parent = loadParent(rc, kind, ADMIN_LABEL);
  if (!labelsReadable(rc, parent)) throw forbidden();
  return parent;
}

const view = (kind: Kind, counts: boolean, parent?: LabelParent) => ({ counts, fromProject: kind === 'projects', projectId: parent?.kind === 'project' ? parent.project.id : undefined });

function readScope(rc: RequestContext, kind: Kind): LabelScope {
  const q = declared(rc.params, {
    include_ancestor_groups: t.boolean().default(true),
    include_descendant_groups: t.boolean().default(false),
    only_group_labels: t.boolean().default(true),
  });
  return {
    includeAncestorGroups: q.include_ancestor_groups,
    includeDescendantGroups: kind === 'groups' && q.include_descendant_groups,
    onlyGroupLabels: q.only_group_labels,
  };
}

export function registerLabelRoutes(r: Router): void {
  for (const kind of ['groups', 'projects'] as const) {
    const base = `/${kind}/:id/labels`;
    const updateFields = kind === 'groups' ? ['new_name', 'color', 'description'] : ['new_name', 'color', 'description', 'priority'];

    r.get(
      base,
      (rc) => {
        const parent = loadParent(rc, kind);
        const scope = readScope(rc, kind);
        const q = declared(rc.params, { with_counts: t.boolean().default(false), search: t.string() });
        const read = (): LabelRow[] => paginateSql<LabelRow>(rc, rc.svc.db, labelListSql(rc.svc, parent, scope, q.search ?? undefined));
        const rows = !labelsReadable(rc, parent) ? paginateArray(rc, [] as LabelRow[]) : parent.kind === 'project' ? keptProjectLabelsPage(rc, parent.project, read) : read();
        const counts = q.with_counts ? labelCountsMany(rc.svc, rows, rc.user) : null;
        return labels(rc, rows, counts, kind === 'projects', parent.kind === 'project' ? parent.project.id : undefined);
      },
      { auth: 'optional' },
    );

    r.get(
      `${base}/:label_id`,
      (rc) => {
        const parent = loadParent(rc, kind);
        if (!labelsReadable(rc, parent)) throw notFound('Label');
        return label(rc, findLabel(rc.svc, parent, rc.path.label_id, readScope(rc, kind)), view(kind, true, parent));
      },
      { auth: 'optional' },
    );

    r.post(base, (rc) => {
      const parent = loadWritableParent(rc, kind);
      const p = declared(rc.params, {
        name: t.string().required(),
        color: t.string().required(),
        description: t.string(),
        priority: t.integer(),
      });
      const row = inTransaction(rc.svc.db, () =>
        createLabel(rc.svc, parent, {
          title: p.name,
          color: p.color,
          description: p.description ?? null,
          priority: kind === 'projects' ? (p.priority ?? null) : null,
        }),
      );
      return label(rc, row, view(kind, true));
    });

    const update = (rc: RequestContext, ref: string) => {
      const parent = loadWritableParent(rc, kind);
      requireAtLeastOne(rc.params, updateFields);
      const p = declared(rc.params, { new_name: t.string(), color: t.string(), description: t.string(), priority: t.integer() });
      const current = findOwnLabel(rc, parent, ref);
      const row = inTransaction(rc.svc.db, () =>
        updateLabel(rc.svc, current, {
          title: p.new_name ?? undefined,
          color: p.color ?? undefined,
          description: p.description,
          priority: kind === 'projects' ? p.priority : undefined,
        }),
      );
      return label(rc, row, view(kind, true));
    };
    r.put(`${base}/:label_id`, (rc) => update(rc, rc.path.label_id));
    // Deprecated, still what python-gitlab 3.12's save() sends: the label's name in the body.
    r.put(base, (rc) => update(rc, declared(rc.params, { name: t.string().required() }).name));

    const remove = (rc: RequestContext, ref: string) => {
      const parent = loadParent(rc, kind, ADMIN_LABEL);
      const current = findOwnLabel(rc, parent, ref);
      checkUnmodifiedSince(rc, current.updated_at);
      inTransaction(rc.svc.db, () => deleteLabel(rc.svc, current));
      return undefined;
    };
    r.delete(`${base}/:label_id`, (rc) => remove(rc, rc.path.label_id));
    r.delete(base, (rc) => remove(rc, declared(rc.params, { name: t.string().required() }).name));

    for (const action of ['subscribe', 'unsubscribe'] as const) {
      const handler = (rc: RequestContext): unknown => {
        const user = rc.requireUser();
        const parent = loadParent(rc, kind);
        if (!labelsReadable(rc, parent)) throw notFound('Label');
        const current = findLabel(rc.svc, parent, rc.path.label_id);
        if (!setSubscription(rc.svc, current, user, action === 'subscribe')) throw notModified();
        rc.status = 201;
        return label(rc, current, view(kind, true, parent));
      };
      r.post(`${base}/:label_id/${action}`, handler);
    }
  }

  /**
   * Turns a project label into a label of the project's group, merging its group's projects' labels
   * of that title (promoteLabel). A project outside a group is a 400 before the label is looked up
   * (LabelHelpers#promote_label). The label becomes the group's, so GitLab authorizes admin_label on
   * the group (`authorize! :admin_label, parent.group`: Planner and up there, or an admin), not on
   * the project: a project Maintainer who is not a group member gets a 403.
   */
  const promote = (rc: RequestContext, ref: (rc: RequestContext) => string) => {
    const project = loadProject(rc);
    const ns = findNamespaceById(rc.svc, project.namespace_id)!;
    if (ns.kind !== 'group') throw new ApiError(400, { message: 'Failed to promote project label to group label' });
    if (effectiveGroupAccess(rc.svc, rc.user, ns) < ADMIN_LABEL) throw forbidden();
    const current = findOwnLabel(rc, { kind: 'project', project }, ref(rc));
    const promoted = inTransaction(rc.svc.db, () => promoteLabel(rc.svc, current, ns.id));
    rc.status = 200;
    return label(rc, promoted, { counts: true, fromProject: false });
  };
  r.put('/projects/:id/labels/:label_id/promote', (rc) => promote(rc, () => rc.path.label_id));
  // Deprecated (GitLab 12.3), the label's name in the body; routed before PUT /labels/:name, as GitLab's.
  r.put('/projects/:id/labels/promote', (rc) => promote(rc, () => declared(rc.params, { name: t.string().required() }).name));
}

/** Writes touch only the parent's own labels; an ancestor's label is "not found" here. */
function findOwnLabel(rc: RequestContext, parent: LabelParent, ref: string): LabelRow {
  if (!labelsReadable(rc, parent)) throw notFound('Label');
  const found = findLabel(rc.svc, parent, ref, { includeAncestorGroups: false, includeDescendantGroups: false, onlyGroupLabels: true });
  const own = parent.kind === 'group' ? found.group_id === parent.group.id : found.project_id === parent.project.id;
  if (!own) throw notFound('Label');
  return found;
}
