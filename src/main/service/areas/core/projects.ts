import type { ServiceContext } from '../../context';
import { cachedLookup, inTransaction } from '../../db/connection';
import { recordEvent } from './events';
import { type Namespace, findNamespaceByFullPath, type Visibility } from './namespaces';
import { isoTime } from './time';

export interface Project {
  id: number;
  namespace_id: number;
  creator_id: number | null;
  name: string;
  path: string;
  description: string | null;
  visibility: Visibility;
  default_branch: string;
  archived: number;
  request_access_enabled: number;
  topics: string;
  settings: string;
  import_url: string | null;
  import_type: string | null;
  import_status: string;
  import_error: string | null;
  created_at: string;
  updated_at: string;
  last_activity_at: string;
}

export function findProjectById(svc: ServiceContext, id: number): Project | undefined {
  return cachedLookup(svc.db, `project:${id}`, () => svc.db.prepare('SELECT * FROM projects WHERE id = ?').get(id) as Project | undefined);
}

/** A project by numeric id or full path (`group/sub/project`), case-insensitively. */
export function findProjectByRef(svc: ServiceContext, ref: string): Project | undefined {
  if (/^\d+$/.test(ref)) return findProjectById(svc, Number(ref));
  const slash = ref.lastIndexOf('/');
  if (slash <= 0) return undefined;
  const ns = findNamespaceByFullPath(svc, ref.slice(0, slash));
  if (!ns) return undefined;
  return svc.db.prepare('SELECT * FROM projects WHERE namespace_id = ? AND lower(path) = lower(?)').get(ns.id, ref.slice(slash + 1)) as
    | Project
    | undefined;
}

export function projectSettings(p: Project): Record<string, unknown> {
  return JSON.parse(p.settings) as Record<string, unknown>;
}

export interface NewProject {
  namespace: Namespace;
  creatorId: number;
  name: string;
  path: string;
  description?: string | null;
  visibility: Visibility;
  defaultBranch?: string;
  requestAccessEnabled?: boolean;
  topics?: string[];
  settings?: Record<string, unknown>;
  /** Kept from the source by importers; now otherwise. */
  createdAt?: string;
  importType?: string | null;
  importStatus?: string;
}

/**
 * Inserts a project (POST /projects, migrations): the personal namespace's holder becomes its
 * Owner, and the creation is an activity event.
 */
export function insertProject(svc: ServiceContext, p: NewProject): Project {
  return inTransaction(svc.db, () => {
    const now = isoTime(svc.now());
    const info = svc.db
      .prepare(
        `INSERT INTO projects (namespace_id, creator_id, name, path, description, visibility, default_branch, request_access_enabled, topics, settings,
           import_type, import_status, created_at, updated_at, last_activity_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        p.namespace.id,
        p.creatorId,
        p.name,
        p.path,
        p.description ?? null,
        p.visibility,
        p.defaultBranch ?? 'main',
        p.requestAccessEnabled === false ? 0 : 1,
        JSON.stringify(p.topics ?? []),
        JSON.stringify(p.settings ?? {}),
        p.importType ?? null,
        p.importStatus ?? 'none',
        p.createdAt ?? now,
        now,
        now,
      );
    const id = Number(info.lastInsertRowid);
    if (p.namespace.kind === 'user') {
      svc.db
        .prepare(
          `INSERT INTO members (source_type, source_id, user_id, access_level, created_by_id, created_at, updated_at)
           VALUES ('Project', ?, ?, 50, ?, ?, ?)`,
        )
        .run(id, p.namespace.owner_id, p.creatorId, now, now);
    }
    recordEvent(svc, { action: 'created', authorId: p.creatorId, projectId: id, targetType: null });
    return findProjectById(svc, id)!;
  });
}
