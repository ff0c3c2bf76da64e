import { unlink } from 'node:fs/promises';
import { inTransaction } from '../../db/connection';
import { createBadge, validateBadge } from '../badges/badges';
import { type Namespace, findNamespaceById, findNamespaceByFullPath, insertGroup, visibilityLevel, type Visibility } from '../core/namespaces';
import { milestoneInScope, milestoneInScopeByTitle } from '../core/milestones';
import { type Project, findProjectById } from '../core/projects';
import { insertProject } from '../core/routes/projects';
import { insertImportedIssue, insertImportedMergeRequest, insertImportedNote } from '../core/imported';
import { newDiscussionId } from '../core/notes';
import { fakeSha } from '../core/workitems';
import { isoTime } from '../core/time';
import { createFlag, createUserList } from '../feature_flags/feature_flags';
import { DEFAULT_LABEL_COLOR } from '../labels/colors';
import { type LabelParent, createLabel, findLabelByTitle, findOrCreateLabels } from '../labels/labels';
import { createSnippet } from '../snippets/snippets';
import { storeUpload } from '../uploads/uploads';
import { MESSAGES, addEntity, destinationPath } from './bulk_imports';
import { type EntityRun, ImportError, type Relation } from './importer';
import { UploadLinks, saveToTemp } from './upload_links';
import { type SourceUser, inParallel } from './users';
import { afterRepositoryImported } from '../repositories/refs_changed';
import { IMPORTED_FROM, insertImportedEpic, insertImportedMember, insertImportedMilestone } from './writer';

/**
 * What a migration copies, relation by relation, in GitLab's order: the group or project first
 * (fatal when it cannot be made), then what hangs on it. Each reads the source's REST API v4.
 */

const enc = encodeURIComponent;
const VISIBILITIES: Visibility[] = ['private', 'internal', 'public'];

/** The source's visibility, capped by where it lands (GitLab's BulkImports::VisibilityLevel). */
function cappedVisibility(wanted: unknown, parent: { visibility: Visibility } | null): Visibility {
  const v = VISIBILITIES.includes(wanted as Visibility) ? (wanted as Visibility) : 'private';
  if (!parent) return v;
  return visibilityLevel(v) > visibilityLevel(parent.visibility) ? parent.visibility : v;
}

/** A name not yet used among the namespace's children: `name`, `name(1)`, ... (BulkImports::Uniquify). */
function uniqueName(taken: (name: string) => boolean, name: string): string {
  if (!taken(name)) return name;
  for (let i = 1; ; i++) if (!taken(`${name}(${i})`)) return `${name}(${i})`;
}

// --- the entity itself ------------------------------------------------------------------------

interface SourceGroup {
  id: number;
  name: string;
  path: string;
  full_path: string;
  description?: string | null;
  visibility?: string;
  request_access_enabled?: boolean;
  project_creation_level?: string;
  subgroup_creation_level?: string;
}

const group: Relation = {
  name: 'group',
  pipeline: 'BulkImports::Groups::Pipelines::GroupPipeline',
  async run(r) {
    if (r.entity.namespace_id) return;
    const g = await r.source.getJson<SourceGroup>(`/groups/${enc(r.entity.source_full_path)}`, { with_projects: false });
    inTransaction(r.svc.db, () => {
      const parent = r.entity.destination_namespace ? findNamespaceByFullPath(r.svc, r.entity.destination_namespace) : null;
      if (r.entity.destination_namespace && parent?.kind !== 'group') throw new ImportError(MESSAGES.destinationNamespace(r.entity.destination_namespace));
      const full = destinationPath(r.entity);
      if (findNamespaceByFullPath(r.svc, full)) throw new ImportError(MESSAGES.exists(full));
      const siblings = r.svc.db.prepare(`SELECT 1 FROM namespaces WHERE kind = 'group' AND parent_id IS ? AND lower(name) = lower(?)`);
      const ns = insertGroup(r.svc, {
        name: uniqueName((n) => !!siblings.get(parent?.id ?? null, n), g.name),
        path: r.entity.destination_slug,
        parent: parent ?? null,
        description: g.description ?? '',
        visibility: cappedVisibility(g.visibility, parent ?? null),
        requestAccessEnabled: g.request_access_enabled,
        settings: {
          ...(g.project_creation_level ? { project_creation_level: g.project_creation_level } : {}),
          ...(g.subgroup_creation_level ? { subgroup_creation_level: g.subgroup_creation_level } : {}),
        },
        ownerId: r.user.id,
      });
      r.svc.db.prepare('UPDATE bulk_import_entities SET namespace_id = ?, source_xid = ?, updated_at = ? WHERE id = ?').run(ns.id, g.id, isoTime(r.svc.now()), r.entity.id);
      r.map('group', `g:${g.id}`, ns.id, null);
    });
  },
};

/** Project settings a migration carries over, as POST/PUT /projects store them. */
const PROJECT_SETTINGS = [
  'issues_enabled',
  'merge_requests_enabled',
  'wiki_enabled',
  'jobs_enabled',
  'snippets_enabled',
  'issues_access_level',
  'repository_access_level',
  'merge_requests_access_level',
  'wiki_access_level',
  'builds_access_level',
  'snippets_access_level',
  'merge_method',
  'ci_config_path',
  'only_allow_merge_if_pipeline_succeeds',
  'only_allow_merge_if_all_discussions_are_resolved',
  'remove_source_branch_after_merge',
  'squash_option',
  'printing_merge_request_link_enabled',
  'resolve_outdated_diff_discussions',
  'autoclose_referenced_issues',
  'issue_branch_template',
  'merge_commit_template',
  'squash_commit_template',
  'suggestion_commit_message',
];

interface SourceProject {
  id: number;
  name: string;
  path: string;
  path_with_namespace: string;
  description?: string | null;
  visibility?: string;
  default_branch?: string | null;
  topics?: string[];
  tag_list?: string[];
  request_access_enabled?: boolean;
  created_at?: string;
  [setting: string]: unknown;
}

const project: Relation = {
  name: 'project',
  pipeline: 'BulkImports::Projects::Pipelines::ProjectPipeline',
  async run(r) {
    if (r.entity.project_id) return;
    const p = await r.source.getJson<SourceProject>(`/projects/${enc(r.entity.source_full_path)}`);
    inTransaction(r.svc.db, () => {
      const ns = findNamespaceByFullPath(r.svc, r.entity.destination_namespace);
      if (!ns) throw new ImportError(MESSAGES.destinationNamespace(r.entity.destination_namespace));
      const full = `${ns.full_path}/${r.entity.destination_slug}`;
      if (
        r.svc.db.prepare('SELECT 1 FROM projects WHERE namespace_id = ? AND lower(path) = lower(?)').get(ns.id, r.entity.destination_slug) ||
        findNamespaceByFullPath(r.svc, full)
      ) {
        throw new ImportError(MESSAGES.exists(full));
      }
      const names = r.svc.db.prepare('SELECT 1 FROM projects WHERE namespace_id = ? AND lower(name) = lower(?)');
      const settings: Record<string, unknown> = {};
      for (const key of PROJECT_SETTINGS) if (p[key] !== undefined && p[key] !== null) settings[key] = p[key];
      const created = insertProject(r.svc, r.user, ns, {
        name: uniqueName((n) => !!names.get(ns.id, n), p.name),
        path: r.entity.destination_slug,
        description: p.description ?? null,
        visibility: cappedVisibility(p.visibility, ns.kind === 'group' ? ns : null),
        defaultBranch: p.default_branch ?? undefined,
        requestAccessEnabled: p.request_access_enabled,
        topics: p.topics ?? p.tag_list ?? [],
        settings,
        createdAt: p.created_at,
        import: { type: 'gitlab_project_migration', url: null, status: 'started' },
      });
      r.svc.db.prepare('UPDATE bulk_import_entities SET project_id = ?, source_xid = ?, updated_at = ? WHERE id = ?').run(created.id, p.id, isoTime(r.svc.now()), r.entity.id);
      r.map('project', `p:${p.id}`, created.id, null);
    });
  },
};

/** `/groups/:xid` or `/projects/:xid` on the source, for the entity's own lists. */
const sourceBase = (r: EntityRun): string => `/${r.entity.entity_type === 'group' ? 'groups' : 'projects'}/${r.xid}`;
const destGroup = (r: EntityRun): Namespace => findNamespaceById(r.svc, r.entity.namespace_id!)!;
const destProject = (r: EntityRun): Project => findProjectById(r.svc, r.entity.project_id!)!;
const labelParent = (r: EntityRun): LabelParent =>
  r.entity.entity_type === 'group' ? { kind: 'group', group: destGroup(r) } : { kind: 'project', project: destProject(r) };

// --- what both groups and projects have --------------------------------------------------------

interface SourceMember extends SourceUser {
  access_level: number;
  expires_at?: string | null;
  created_at?: string;
}

const members: Relation = {
  name: 'members',
  pipeline: 'BulkImports::Common::Pipelines::MembersPipeline',
  when: (r) => !!r.entity.migrate_memberships,
  async run(r) {
    const target = r.entity.entity_type === 'group' ? { sourceType: 'Namespace' as const, sourceId: r.entity.namespace_id! } : { sourceType: 'Project' as const, sourceId: r.entity.project_id! };
    await r.copyList<SourceMember>(members, `${sourceBase(r)}/members`, {}, {
      // The same user is a member of several groups and projects of the tree.
      key: (m) => `${r.entity.id}:${m.id}`,
      ref: (m) => ({ url: m.web_url ?? null, title: m.username }),
      prepare: (items) => r.users.prefetch(items),
      write: (m) => {
        const userId = r.users.known(m);
        if (!userId) {
          throw new ImportError(`No user here matches source member '${m.username}' by e-mail or username`, 'BulkImports::UserMappingError', 'transformer');
        }
        return insertImportedMember(r.svc, {
          ...target,
          userId,
          accessLevel: m.access_level,
          expiresAt: m.expires_at ?? null,
          createdById: r.user.id,
          createdAt: m.created_at ?? isoTime(r.svc.now()),
        });
      },
    });
  },
};

interface SourceLabel {
  id: number;
  name: string;
  color: string;
  description?: string | null;
  priority?: number | null;
  is_project_label?: boolean;
}

const labels: Relation = {
  name: 'labels',
  pipeline: 'BulkImports::Common::Pipelines::LabelsPipeline',
  async run(r) {
    const isGroup = r.entity.entity_type === 'group';
    const query = isGroup ? { only_group_labels: true, include_ancestor_groups: false, include_descendant_groups: false } : { include_ancestor_groups: false };
    await r.copyList<SourceLabel>(labels, `${sourceBase(r)}/labels`, query, {
      key: (l) => l.id,
      ref: (l) => ({ url: null, title: l.name }),
      skip: (l) => !isGroup && l.is_project_label === false,
      write: (l) => {
        const parent = labelParent(r);
        // A label the destination already offers (from a group above) is used, not duplicated.
        const existing = findLabelByTitle(r.svc, parent, l.name);
        if (existing) return existing.id;
        return createLabel(r.svc, parent, { title: l.name, color: l.color, description: l.description ?? null, priority: isGroup ? null : (l.priority ?? null) }).id;
      },
    });
  },
};

interface SourceBadge {
  id: number;
  name?: string | null;
  link_url: string;
  image_url: string;
  kind: 'project' | 'group';
}

const badges: Relation = {
  name: 'badges',
  pipeline: 'BulkImports::Common::Pipelines::BadgesPipeline',
  async run(r) {
    const isGroup = r.entity.entity_type === 'group';
    await r.copyList<SourceBadge>(badges, `${sourceBase(r)}/badges`, {}, {
      key: (b) => b.id,
      ref: (b) => ({ url: b.link_url, title: b.name ?? b.link_url }),
      // A project shows its groups' badges too; those come with their group.
      skip: (b) => b.kind !== (isGroup ? 'group' : 'project'),
      write: (b) => {
        const owner = isGroup ? { groupId: r.entity.namespace_id! } : { projectId: r.entity.project_id! };
        return createBadge(r.svc, owner, validateBadge({ link_url: b.link_url, image_url: b.image_url, name: b.name ?? null })).id;
      },
    });
  },
};

interface SourceMilestone {
  id: number;
  iid: number;
  project_id?: number;
  group_id?: number;
  title: string;
  description?: string | null;
  state: string;
  start_date?: string | null;
  due_date?: string | null;
  created_at: string;
  updated_at: string;
  web_url?: string;
}

/** Where the entity's milestones go, as the `milestones` table names its owner. */
const milestoneOwner = (r: EntityRun) =>
  r.entity.entity_type === 'group' ? { column: 'group_id' as const, id: r.entity.namespace_id! } : { column: 'project_id' as const, id: r.entity.project_id! };

/** A milestone of the source copied here; its title must not clash (Timebox's uniqueness). */
function writeMilestone(r: EntityRun, m: SourceMilestone): number {
  return insertImportedMilestone(r.svc, {
    parent: milestoneOwner(r),
    iid: m.iid,
    title: m.title,
    description: m.description ?? null,
    state: m.state === 'closed' ? 'closed' : 'active',
    startDate: m.start_date ?? null,
    dueDate: m.due_date ?? null,
    createdAt: m.created_at,
    updatedAt: m.updated_at,
  });
}

/**
 * The milestone a destination with this title already has where GitLab forbids a second one
 * (a project and its group; a group and its projects): reused, as labels are.
 */
function sameTitleMilestone(r: EntityRun, title: string): number | undefined {
  const { column, id } = milestoneOwner(r);
  const sql =
    column === 'project_id'
      ? 'SELECT id FROM milestones WHERE title = ? AND (project_id = ? OR group_id = (SELECT namespace_id FROM projects WHERE id = ? AND namespace_id IN (SELECT id FROM namespaces WHERE kind = \'group\')))'
      : 'SELECT id FROM milestones WHERE title = ? AND (group_id = ? OR project_id IN (SELECT id FROM projects WHERE namespace_id = ?))';
  return (r.svc.db.prepare(`${sql} ORDER BY id LIMIT 1`).get(title, id, id) as { id: number } | undefined)?.id;
}

const milestones: Relation = {
  name: 'milestones',
  pipeline: 'BulkImports::Common::Pipelines::MilestonesPipeline',
  async run(r) {
    const isGroup = r.entity.entity_type === 'group';
    await r.copyList<SourceMilestone>(milestones, `${sourceBase(r)}/milestones`, { include_ancestors: false }, {
      key: (m) => m.id,
      ref: (m) => ({ url: m.web_url ?? null, title: m.title }),
      // Older sources may list the groups' milestones with a project's: those come with their group.
      skip: (m) => (isGroup ? m.group_id !== undefined && m.group_id !== r.xid : m.project_id === undefined),
      // A project without issues and merge requests has no milestones to give.
      absentOn: [403, 404],
      write: (m) => sameTitleMilestone(r, m.title) ?? writeMilestone(r, m),
    });
  },
};

/**
 * The destination milestone of an issue or merge request: the one its source milestone was copied
 * to, else one the project may use with that title, else (a milestone of a source group this
 * migration does not bring) a copy in the project.
 */
function milestoneOf(r: EntityRun, m: SourceMilestone | null | undefined): number | null {
  if (!m) return null;
  const project = destProject(r);
  const mapped = r.mapped('milestones', m.id);
  if (mapped !== undefined && milestoneInScope(r.svc, project, mapped)) return mapped;
  const byTitle = milestoneInScopeByTitle(r.svc, project, m.title);
  if (byTitle) return byTitle.id;
  const id = writeMilestone(r, m);
  r.map('milestones', m.id, id, null);
  return id;
}

// --- notes and threads ------------------------------------------------------------------------

interface SourceNote {
  id: number;
  type?: string | null;
  body: string;
  author?: SourceUser | null;
  created_at: string;
  updated_at?: string;
  system?: boolean;
  internal?: boolean;
  confidential?: boolean;
  resolvable?: boolean;
  resolved?: boolean;
  resolved_by?: SourceUser | null;
  resolved_at?: string | null;
  position?: unknown;
}

interface SourceDiscussion {
  id: string;
  individual_note?: boolean;
  notes: SourceNote[];
}

/** A thread's notes with the source's thread id (null for a lone comment). */
interface Thread {
  id: string | null;
  notes: SourceNote[];
}

function writeNotes(r: EntityRun, threads: Thread[], target: { projectId: number | null; noteableType: string; noteableId: number }, uploads: UploadLinks | null): void {
  r.seen('notes', threads.reduce((n, t) => n + t.notes.length, 0));
  for (const t of threads) {
    // The source thread's id when it has GitLab's form, so a thread's notes stay together.
    const discussionId = t.id && /^[0-9a-f]{40}$/.test(t.id) ? t.id : newDiscussionId();
    for (const n of t.notes) {
      if (r.mapped('notes', n.id) !== undefined) continue;
      const { id } = insertImportedNote(r.svc, target.projectId, {
        noteableType: target.noteableType,
        noteableId: target.noteableId,
        discussionId,
        type: n.type === 'DiffNote' || n.type === 'DiscussionNote' ? n.type : null,
        authorId: r.author(n.author),
        body: uploads ? uploads.rewrite(n.body)! : n.body,
        system: !!n.system,
        internal: !!(n.internal ?? n.confidential),
        resolvable: !!n.resolvable,
        resolvedAt: n.resolved ? (n.resolved_at ?? n.updated_at ?? n.created_at) : null,
        resolvedById: n.resolved ? r.users.known(n.resolved_by) : null,
        position: (n.position as Record<string, unknown> | null | undefined) ?? null,
        createdAt: n.created_at,
        updatedAt: n.updated_at ?? n.created_at,
        importedFrom: IMPORTED_FROM,
      });
      r.map('notes', n.id, id);
    }
  }
}

const threadUsers = (threads: Thread[]): (SourceUser | null | undefined)[] => threads.flatMap((t) => t.notes.flatMap((n) => [n.author, n.resolved_by]));
const threadTexts = (threads: Thread[]): string[] => threads.flatMap((t) => t.notes.map((n) => n.body));

// --- group relations --------------------------------------------------------------------------

interface SourceEpic {
  id: number;
  iid: number;
  title: string;
  description?: string | null;
  state: 'opened' | 'closed';
  confidential?: boolean;
  color?: string | null;
  labels?: (string | { name: string; color?: string })[];
  author?: SourceUser | null;
  start_date_fixed?: string | null;
  start_date_is_fixed?: boolean;
  due_date_fixed?: string | null;
  due_date_is_fixed?: boolean;
  parent_id?: number | null;
  created_at: string;
  updated_at: string;
  closed_at?: string | null;
  web_url?: string;
}

/** Links epics whose parent has arrived (from this entity or another one of the tree). */
function linkWaitingEpics(r: EntityRun): void {
  const waiting = r.svc.db
    .prepare('SELECT epic_id, parent_source_key FROM bulk_import_epic_links WHERE bulk_import_id = ?')
    .all(r.imp.id) as { epic_id: number; parent_source_key: string }[];
  for (const w of waiting) {
    const parentId = r.mapped('epics', w.parent_source_key);
    if (parentId === undefined) continue;
    r.svc.db.prepare('UPDATE epics SET parent_id = ? WHERE id = ?').run(parentId, w.epic_id);
    r.svc.db.prepare('DELETE FROM bulk_import_epic_links WHERE epic_id = ?').run(w.epic_id);
  }
}

const epics: Relation = {
  name: 'epics',
  pipeline: 'BulkImports::Groups::Pipelines::EpicsPipeline',
  async run(r) {
    const notesOf = new Map<number, Thread[]>();
    await r.copyList<SourceEpic>(
      epics,
      `/groups/${r.xid}/epics`,
      { include_descendant_groups: false, include_ancestor_groups: false, state: 'all', order_by: 'created_at', sort: 'asc' },
      {
        key: (e) => e.id,
        ref: (e) => ({ url: e.web_url ?? null, title: e.title }),
        // Epics are a Premium API: a source without it answers 403/404 and has none to give.
        absentOn: [403, 404],
        prepare: async (items) => {
          await inParallel(items, 8, async (e) => {
            try {
              const notes = await r.all<SourceNote>(`/groups/${r.xid}/epics/${e.id}/notes`, { sort: 'asc', order_by: 'created_at' });
              notesOf.set(e.id, notes.map((n) => ({ id: null, notes: [n] })));
            } catch (err) {
              if (r.job.signal.aborted) throw err;
              notesOf.set(e.id, []);
              r.fail('notes', 'extractor', err, { url: e.web_url ?? null, title: e.title });
            }
          });
          await r.users.prefetch([...items.map((e) => e.author), ...items.flatMap((e) => threadUsers(notesOf.get(e.id) ?? []))]);
        },
        write: (e) => {
          const g = destGroup(r);
          const wanted = (e.labels ?? []).map((l) => (typeof l === 'string' ? { title: l, color: DEFAULT_LABEL_COLOR } : { title: l.name, color: l.color ?? DEFAULT_LABEL_COLOR }));
          const titles = findOrCreateLabels(r.svc, { kind: 'group', group: g }, wanted).map((l) => l.title);
          const id = insertImportedEpic(r.svc, {
            groupId: g.id,
            iid: e.iid,
            title: e.title,
            description: e.description ?? null,
            state: e.state === 'closed' ? 'closed' : 'opened',
            confidential: !!e.confidential,
            authorId: r.author(e.author),
            labels: titles,
            color: e.color ?? null,
            startDateFixed: e.start_date_fixed ?? null,
            startDateIsFixed: !!e.start_date_is_fixed,
            dueDateFixed: e.due_date_fixed ?? null,
            dueDateIsFixed: !!e.due_date_is_fixed,
            closedAt: e.closed_at ?? null,
            createdAt: e.created_at,
            updatedAt: e.updated_at,
          });
          if (e.parent_id) {
            r.svc.db
              .prepare('INSERT OR REPLACE INTO bulk_import_epic_links (bulk_import_id, entity_id, epic_id, parent_source_key) VALUES (?, ?, ?, ?)')
              .run(r.imp.id, r.entity.id, id, String(e.parent_id));
          }
          writeNotes(r, notesOf.get(e.id) ?? [], { projectId: null, noteableType: 'Epic', noteableId: id }, null);
          return id;
        },
      },
    );
    inTransaction(r.svc.db, () => linkWaitingEpics(r));
  },
};

interface SourceChild {
  id: number;
  path: string;
  full_path?: string;
  path_with_namespace?: string;
  web_url?: string;
  name: string;
}

/** Children (projects, subgroups) become entities of the import, each with its own job. */
function childEntities(kind: 'project' | 'group'): Relation {
  const relation: Relation = {
    name: kind === 'project' ? 'projects' : 'subgroups',
    pipeline: kind === 'project' ? 'BulkImports::Groups::Pipelines::ProjectEntitiesPipeline' : 'BulkImports::Groups::Pipelines::SubgroupEntitiesPipeline',
    when: (r) => kind === 'group' || !!r.entity.migrate_projects,
    async run(r) {
      const path = kind === 'project' ? `/groups/${r.xid}/projects` : `/groups/${r.xid}/subgroups`;
      const query = kind === 'project' ? { include_subgroups: false, with_shared: false } : {};
      const here = destGroup(r).full_path;
      await r.copyList<SourceChild>(relation, path, query, {
        key: (c) => `${kind}:${c.id}`,
        ref: (c) => ({ url: c.web_url ?? null, title: c.full_path ?? c.path_with_namespace ?? c.path }),
        statsRelation: null,
        write: (c) => {
          const child = addEntity(r.svc, r.imp.id, null, {
            entity_type: kind,
            parent_id: r.entity.id,
            source_full_path: c.full_path ?? c.path_with_namespace ?? c.path,
            source_xid: c.id,
            destination_namespace: here,
            destination_slug: c.path,
            migrate_projects: !!r.entity.migrate_projects,
            migrate_memberships: !!r.entity.migrate_memberships,
          });
          return child.id;
        },
      });
    },
  };
  return relation;
}

// --- project relations ------------------------------------------------------------------------

type LabelRef = string | { name: string; color?: string; description?: string | null };
const labelWanted = (l: LabelRef) => (typeof l === 'string' ? { title: l, color: DEFAULT_LABEL_COLOR } : { title: l.name, color: l.color ?? DEFAULT_LABEL_COLOR, description: l.description ?? null });

interface SourceWorkItem {
  id: number;
  iid: number;
  title: string;
  description?: string | null;
  state: string;
  author?: SourceUser | null;
  assignees?: SourceUser[];
  labels?: LabelRef[];
  closed_by?: SourceUser | null;
  closed_at?: string | null;
  created_at: string;
  updated_at: string;
  user_notes_count?: number;
  discussion_locked?: boolean | null;
  milestone?: SourceMilestone | null;
  web_url?: string;
}

interface SourceIssue extends SourceWorkItem {
  confidential?: boolean;
  due_date?: string | null;
  weight?: number | null;
  issue_type?: string;
  type?: string;
}

interface SourceMergeRequest extends SourceWorkItem {
  source_branch: string;
  target_branch: string;
  reviewers?: SourceUser[];
  merged_by?: SourceUser | null;
  merge_user?: SourceUser | null;
  merged_at?: string | null;
  squash?: boolean;
  force_remove_source_branch?: boolean | null;
  diff_refs?: { base_sha?: string | null; start_sha?: string | null; head_sha?: string | null } | null;
}

/**
 * Issues and merge requests: a page at a time, each with its threads (fetched only when it has
 * comments), the uploads its texts link to, and its people; then the record, its labels (created
 * in the project when the destination lacks them) and its notes in one savepoint.
 */
function workItems<T extends SourceWorkItem>(
  name: 'issues' | 'merge_requests',
  pipeline: string,
  write: (r: EntityRun, item: T, labels: string[], uploads: UploadLinks) => number,
): Relation {
  const relation: Relation = {
    name,
    pipeline,
    async run(r) {
      const threads = new Map<number, Thread[]>();
      const uploads = new UploadLinks(r, relation, r.entity.project_id!);
      // Titles already found or made in the project this run: most records share a few labels.
      const labelsHere = new Set<string>();
      await r.copyList<T>(
        relation,
        `/projects/${r.xid}/${name}`,
        { scope: 'all', state: 'all', order_by: 'created_at', sort: 'asc', with_labels_details: true },
        {
          key: (i) => i.id,
          ref: (i) => ({ url: i.web_url ?? null, title: i.title }),
          prepare: async (items) => {
            await inParallel(items, 12, async (i) => {
              if (i.user_notes_count === 0) return threads.set(i.id, []);
              try {
                const discussions = await r.all<SourceDiscussion>(`/projects/${r.xid}/${name}/${i.iid}/discussions`);
                threads.set(i.id, discussions.map((d) => ({ id: d.individual_note ? null : d.id, notes: d.notes })));
              } catch (err) {
                if (r.job.signal.aborted) throw err;
                threads.delete(i.id);
                r.fail(relation, 'extractor', err, { url: i.web_url ?? null, title: i.title });
              }
            });
            const people = items.flatMap((i) => {
              const m = i as unknown as SourceMergeRequest;
              return [i.author, i.closed_by, ...(i.assignees ?? []), ...(m.reviewers ?? []), m.merged_by, m.merge_user, ...threadUsers(threads.get(i.id) ?? [])];
            });
            await r.users.prefetch(people);
            await uploads.copyLinked(
              items.flatMap((i) => [i.description, ...threadTexts(threads.get(i.id) ?? [])]),
              r.user.id,
            );
          },
          write: (i) => {
            const t = threads.get(i.id);
            if (!t) return null; // its threads could not be read: a failure is recorded, a retry copies it
            const project = destProject(r);
            const wanted = (i.labels ?? []).map(labelWanted);
            const made = findOrCreateLabels(r.svc, { kind: 'project', project }, wanted.filter((w) => !labelsHere.has(w.title)));
            const id = write(r, i, wanted.map((w) => w.title.trim()), uploads);
            writeNotes(r, t, { projectId: project.id, noteableType: name === 'issues' ? 'Issue' : 'MergeRequest', noteableId: id }, uploads);
            for (const l of made) labelsHere.add(l.title);
            return id;
          },
        },
      );
    },
  };
  return relation;
}

const users = (r: EntityRun, list: SourceUser[] | undefined): number[] => [...new Set((list ?? []).map((u) => r.users.known(u)).filter((id): id is number => !!id))];

const issues = workItems<SourceIssue>('issues', 'BulkImports::Projects::Pipelines::IssuesPipeline', (r, i, labels, uploads) =>
  insertImportedIssue(r.svc, r.entity.project_id!, {
    iid: i.iid,
    title: i.title,
    description: uploads.rewrite(i.description ?? null),
    state: i.state === 'closed' ? 'closed' : 'opened',
    authorId: r.author(i.author),
    assigneeIds: users(r, i.assignees),
    labels,
    confidential: !!i.confidential,
    discussionLocked: i.discussion_locked ?? null,
    milestoneId: milestoneOf(r, i.milestone),
    dueDate: i.due_date ?? null,
    weight: i.weight ?? null,
    issueType: i.issue_type ?? (i.type ? i.type.toLowerCase() : 'issue'),
    closedAt: i.state === 'closed' ? (i.closed_at ?? i.updated_at) : null,
    closedById: i.state === 'closed' ? r.users.known(i.closed_by) : null,
    createdAt: i.created_at,
    updatedAt: i.updated_at,
    importedFrom: IMPORTED_FROM,
  }).id,
);

const MR_STATES = ['opened', 'closed', 'merged', 'locked'] as const;

/** The source's commits for diff_refs, or stand-ins until the repository comes along. */
const sha = (r: EntityRun, m: SourceMergeRequest, which: 'base_sha' | 'start_sha' | 'head_sha'): string =>
  m.diff_refs?.[which] || fakeSha(r.entity.project_id!, m.iid, which, m.source_branch, m.target_branch);

const mergeRequests = workItems<SourceMergeRequest>('merge_requests', 'BulkImports::Projects::Pipelines::MergeRequestsPipeline', (r, m, labels, uploads) =>
  insertImportedMergeRequest(r.svc, r.entity.project_id!, {
    iid: m.iid,
    title: m.title,
    description: uploads.rewrite(m.description ?? null),
    state: (MR_STATES as readonly string[]).includes(m.state) ? (m.state as (typeof MR_STATES)[number]) : 'opened',
    authorId: r.author(m.author),
    assigneeIds: users(r, m.assignees),
    reviewerIds: users(r, m.reviewers),
    labels,
    sourceBranch: m.source_branch,
    targetBranch: m.target_branch,
    squash: !!m.squash,
    removeSourceBranch: m.force_remove_source_branch ?? null,
    discussionLocked: m.discussion_locked ?? null,
    milestoneId: milestoneOf(r, m.milestone),
    baseSha: sha(r, m, 'base_sha'),
    startSha: sha(r, m, 'start_sha'),
    headSha: sha(r, m, 'head_sha'),
    mergedById: m.state === 'merged' ? r.users.known(m.merged_by ?? m.merge_user) : null,
    mergedAt: m.state === 'merged' ? (m.merged_at ?? m.updated_at) : null,
    closedById: m.state === 'closed' ? r.users.known(m.closed_by) : null,
    closedAt: m.state === 'closed' ? (m.closed_at ?? m.updated_at) : null,
    createdAt: m.created_at,
    updatedAt: m.updated_at,
    importedFrom: IMPORTED_FROM,
  }).id,
);

interface SourceSnippet {
  id: number;
  title: string;
  description?: string | null;
  visibility?: string;
  author?: SourceUser | null;
  file_name?: string;
  files?: { path: string; raw_url?: string }[];
  created_at: string;
  updated_at: string;
  web_url?: string;
}

/** The ref in a snippet file's raw_url (`.../raw/<ref>/<path>`), else the snippet default. */
function snippetRef(rawUrl: string | undefined, path: string): string {
  const m = rawUrl ? /\/raw\/([^/]+)\/(.+)$/.exec(rawUrl) : null;
  if (m && decodeURIComponent(m[2]) === path) return decodeURIComponent(m[1]);
  const sandlab = rawUrl ? /\/files\/([^/]+)\//.exec(rawUrl) : null;
  return sandlab ? decodeURIComponent(sandlab[1]) : 'main';
}

const snippets: Relation = {
  name: 'snippets',
  pipeline: 'BulkImports::Projects::Pipelines::SnippetsPipeline',
  async run(r) {
    const contents = new Map<number, { path: string; content: string }[]>();
    const uploads = new UploadLinks(r, snippets, r.entity.project_id!);
    await r.copyList<SourceSnippet>(snippets, `/projects/${r.xid}/snippets`, {}, {
      key: (s) => s.id,
      ref: (s) => ({ url: s.web_url ?? null, title: s.title }),
      prepare: async (items) => {
        await inParallel(items, 4, async (s) => {
          try {
            const files = s.files?.length ? s.files : [{ path: s.file_name ?? 'snippet.txt', raw_url: undefined }];
            const out: { path: string; content: string }[] = [];
            for (const f of files) {
              const res = s.files?.length
                ? await r.source.get(`/projects/${r.xid}/snippets/${s.id}/files/${enc(snippetRef(f.raw_url, f.path))}/${enc(f.path)}/raw`)
                : await r.source.get(`/projects/${r.xid}/snippets/${s.id}/raw`);
              out.push({ path: f.path, content: await res.text() });
            }
            contents.set(s.id, out);
          } catch (err) {
            if (r.job.signal.aborted) throw err;
            r.fail(snippets, 'extractor', err, { url: s.web_url ?? null, title: s.title });
          }
        });
        await r.users.prefetch(items.map((s) => s.author));
        await uploads.copyLinked(items.map((s) => s.description), r.user.id);
      },
      write: (s) => {
        const files = contents.get(s.id);
        if (!files) return null;
        const project = destProject(r);
        const snippet = createSnippet(r.svc, {
          projectId: project.id,
          authorId: r.author(s.author),
          title: s.title,
          description: uploads.rewrite(s.description ?? null),
          visibility: cappedVisibility(s.visibility, project),
          files,
          imported: true,
          importedFrom: IMPORTED_FROM,
        });
        r.svc.db.prepare('UPDATE snippets SET created_at = ?, updated_at = ? WHERE id = ?').run(s.created_at, s.updated_at, snippet.id);
        return snippet.id;
      },
    });
  },
};

interface SourceUserList {
  id: number;
  iid: number;
  name: string;
  user_xids: string;
}

interface SourceFlag {
  name: string;
  description?: string | null;
  active?: boolean;
  strategies?: { name: string; parameters?: Record<string, unknown>; scopes?: { environment_scope: string }[]; user_list?: { id: number } | null }[];
}

const featureFlags: Relation = {
  name: 'feature_flags',
  pipeline: 'BulkImports::Projects::Pipelines::FeatureFlagsPipeline',
  async run(r) {
    const project = destProject(r);
    // Unleash user lists first: strategies point at them.
    const lists = { name: 'feature_flag_user_lists', pipeline: 'BulkImports::Projects::Pipelines::FeatureFlagsUserListsPipeline' };
    await r.copyList<SourceUserList>(lists, `/projects/${r.xid}/feature_flags_user_lists`, {}, {
      key: (l) => l.id,
      ref: (l) => ({ url: null, title: l.name }),
      absentOn: [404],
      write: (l) => createUserList(r.svc, project, l.name, l.user_xids).id,
    });
    await r.copyList<SourceFlag>(featureFlags, `/projects/${r.xid}/feature_flags`, {}, {
      key: (f) => f.name,
      ref: (f) => ({ url: null, title: f.name }),
      absentOn: [404],
      write: (f) =>
        createFlag({ svc: r.svc, user: r.user }, project, {
          name: f.name,
          description: f.description ?? null,
          active: f.active !== false,
          strategies: (f.strategies ?? []).map((s) => {
            const listId = s.user_list ? r.mapped('feature_flag_user_lists', s.user_list.id) : undefined;
            if (s.user_list && listId === undefined) throw new ImportError(`Its user list (source id ${s.user_list.id}) was not migrated`);
            return { name: s.name, parameters: s.parameters ?? {}, scopes: (s.scopes ?? []).map((sc) => ({ environment_scope: sc.environment_scope })), user_list_id: listId };
          }),
        }).id,
    });
  },
};

interface SourceUpload {
  id: number;
  filename: string;
  size: number;
  created_at?: string;
}

/**
 * Every upload of the project, including those no text links to (`GET /projects/:id/uploads`,
 * GitLab 17.2+; older sources and tokens below Maintainer get only the linked ones). The list
 * does not show secrets, so a linked upload already copied is recognised by name and size.
 */
const uploads: Relation = {
  name: 'uploads',
  pipeline: 'BulkImports::Common::Pipelines::UploadsPipeline',
  async run(r) {
    const project = destProject(r);
    const files = new Map<number, Awaited<ReturnType<typeof saveToTemp>>>();
    const linked = (u: SourceUpload): number | undefined =>
      (
        r.svc.db
          .prepare(
            `SELECT u.id FROM uploads u JOIN bulk_import_records m ON m.destination_id = u.id AND m.relation = 'uploads' AND m.entity_id = ?
             WHERE u.project_id = ? AND u.filename = ? AND u.size = ? AND m.source_key NOT LIKE 'id:%'
             AND u.id NOT IN (SELECT destination_id FROM bulk_import_records WHERE entity_id = ? AND relation = 'uploads' AND source_key LIKE 'id:%')`,
          )
          .get(r.entity.id, project.id, u.filename, u.size, r.entity.id) as { id: number } | undefined
      )?.id;
    try {
      await r.copyList<SourceUpload>(uploads, `/projects/${r.xid}/uploads`, {}, {
        key: (u) => `id:${u.id}`,
        ref: (u) => ({ url: null, title: u.filename }),
        absentOn: [403, 404],
        prepare: async (items) => {
          await inParallel(
            items.filter((u) => linked(u) === undefined),
            4,
            async (u) => {
              try {
                files.set(u.id, await saveToTemp(r, await r.source.get(`/projects/${r.xid}/uploads/${u.id}`), u.filename));
              } catch (err) {
                if (r.job.signal.aborted) throw err;
                r.fail(uploads, 'extractor', err, { url: null, title: u.filename });
              }
            },
          );
        },
        write: (u) => {
          const already = linked(u);
          if (already !== undefined) {
            // Counted when its link was copied: map it without counting it twice.
            r.map('uploads', `id:${u.id}`, already, null);
            return null;
          }
          const file = files.get(u.id);
          if (!file) return null;
          return storeUpload(r.svc, project.id, r.user.id, file).id;
        },
      });
    } finally {
      await Promise.all([...files.values()].map((f) => unlink(f.path).catch(() => undefined)));
    }
  },
};

/**
 * The project's git repository: every branch and tag fetched from the source over smart HTTP with
 * the source token (sent as a header, to the configured source only), before the merge requests
 * whose commits it holds. A repository that cannot be fetched is a failure record; the rest goes on.
 */
const repository: Relation = {
  name: 'repository',
  pipeline: 'BulkImports::Projects::Pipelines::RepositoryPipeline',
  async run(r) {
    const p = await r.source.getJson<SourceProject>(`/projects/${r.xid}`);
    if (p.empty_repo === true) return;
    const ref = { url: typeof p.web_url === 'string' ? p.web_url : null, title: p.path_with_namespace };
    const token = r.job.secret();
    try {
      if (!r.svc.git.available) throw new ImportError(`The repository was not migrated: ${r.svc.git.reason}`, 'BulkImports::Error', 'loader');
      const repo = await r.svc.git.ensure(destProject(r));
      await r.svc.git.fetchFrom(repo, r.source.webUrl(`${p.path_with_namespace}.git`), { token }, undefined, r.job.signal);
      await afterRepositoryImported(r.svc, r.entity.project_id!, repo);
    } catch (err) {
      inTransaction(r.svc.db, () => r.fail(repository, 'loader', err, ref));
    }
  },
};

export const GROUP_RELATIONS: Relation[] = [group, members, labels, milestones, badges, epics, childEntities('project'), childEntities('group')];
export const PROJECT_RELATIONS: Relation[] = [project, repository, members, labels, milestones, badges, issues, mergeRequests, snippets, featureFlags, uploads];
