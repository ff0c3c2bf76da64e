import type { ServiceContext } from '../../context';
import { cachedLookup } from '../../db/connection';
import { rowsByIds } from '../../db/written-rows';
import { PROJECT_WRITES } from './project-rows';
import { findNamespaceByFullPath, type Visibility } from './namespaces';

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
  avatar: string | null;
  import_url: string | null;
  import_type: string | null;
  import_status: string;
  import_error: string | null;
  created_at: string;
  updated_at: string;
  last_activity_at: string;
}

/** The table the project lookup reads (core/099): its rows outlive writes to other tables. */
const PROJECTS_TABLE = ['projects'] as const;

/**
 * A project's row: looked up until the next write to projects, then found again among the rows
 * kept by id until the projects' write log (core/146) names them (rowsByIds): a write to one
 * project (its description, an event moving its last activity) read every other project's row
 * off the table again at its next request (~10-20 us for a project's wide row), and the row is
 * the same frozen object while unchanged.
 */
export function findProjectById(svc: ServiceContext, id: number): Project | undefined {
  return cachedLookup(svc.db, 'project', id, loadProject, PROJECTS_TABLE, svc);
}

const loadProject = (svc: ServiceContext, id: number): Project | undefined => rowsByIds<Project>(svc.db, PROJECT_WRITES, [id])[0];

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

/** Parsed once per row: rows come from the lookup cache, the same frozen object until the next write. */
const parsedSettings = new WeakMap<Project, Readonly<Record<string, unknown>>>();
const parsedTopics = new WeakMap<Project, readonly string[]>();

/** The project's stored settings (read-only: copy them to change them). */
export function projectSettings(p: Project): Readonly<Record<string, unknown>> {
  let settings = parsedSettings.get(p);
  if (!settings) parsedSettings.set(p, (settings = Object.freeze(JSON.parse(p.settings) as Record<string, unknown>)));
  return settings;
}

/** The project's topics, in their stored order (read-only). */
export function projectTopics(p: Project): readonly string[] {
  let topics = parsedTopics.get(p);
  if (!topics) parsedTopics.set(p, (topics = Object.freeze(JSON.parse(p.topics) as string[])));
  return topics;
}
