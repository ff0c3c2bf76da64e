import { randomBytes } from 'node:crypto';
import type { ServiceContext } from '../../context';
import { inTransaction } from '../../db/connection';
import type { Project } from '../core/projects';
import type { Namespace, Visibility } from '../core/namespaces';
import type { User } from '../core/users';
import { isoTime } from '../core/time';
import { insertProject, newProjectErrors } from '../core/routes/projects';

/** The providers, by GitLab's import_type names (the reference's providera, providerb_server, providerb). */
export type Provider = 'github' | 'bitbucket_server' | 'bitbucket';

/** GitLab's import_state: scheduled -> started -> finished | failed | canceled. */
export type ImportStatus = 'none' | 'scheduled' | 'started' | 'finished' | 'failed' | 'canceled';
export const COMPLETED_STATUSES: readonly ImportStatus[] = ['finished', 'failed', 'canceled'];

export interface ImportSettings {
  optional_stages: Record<string, boolean>;
  timeout_strategy: 'optimistic' | 'pessimistic';
  /** Items per upstream request. */
  pagination_limit: number;
}

export interface ProjectImportRow {
  project_id: number;
  provider: Provider;
  import_source: string;
  api_url: string;
  /** JSON: what locates the repository upstream (repo id, project key and slug, workspace path, username). */
  locator: string;
  settings: string;
  user_id: number | null;
  correlation_id: string;
  stats: string;
  started_at: string | null;
  finished_at: string | null;
  created_at: string;
  updated_at: string;
}

export type ObjectStats = { fetched: Record<string, number>; imported: Record<string, number> };

export function findProjectImport(svc: ServiceContext, projectId: number): ProjectImportRow | undefined {
  return svc.db.prepare('SELECT * FROM project_imports WHERE project_id = ?').get(projectId) as ProjectImportRow | undefined;
}

export const importSettings = (row: ProjectImportRow): ImportSettings => JSON.parse(row.settings) as ImportSettings;
export const importLocator = <T>(row: ProjectImportRow): T => JSON.parse(row.locator) as T;
export const importStats = (row: ProjectImportRow): ObjectStats => JSON.parse(row.stats) as ObjectStats;

export interface NewImportedProject {
  provider: Provider;
  name: string;
  description: string | null;
  visibility: Visibility;
  defaultBranch?: string;
  importSource: string;
  /** The upstream clone URL, without credentials. */
  importUrl: string | null;
  apiUrl: string;
  locator: Record<string, unknown>;
  settings: ImportSettings;
}

/**
 * Creates the project an import fills (import_status `scheduled`) with its import record, in one
 * transaction; or the validation errors as GitLab's full messages ("Path has already been taken").
 */
export function createImportedProject(svc: ServiceContext, user: User, ns: Namespace, p: NewImportedProject): Project | { errors: string } {
  const path = p.name;
  const errors = newProjectErrors(svc, ns, p.name, path, p.visibility);
  if (Object.keys(errors).length) return { errors: fullMessages(errors) };
  return inTransaction(svc.db, () => {
    const project = insertProject(svc, user, ns, {
      name: p.name,
      path,
      description: p.description,
      visibility: p.visibility,
      defaultBranch: p.defaultBranch,
      import: { type: p.provider, url: p.importUrl, status: 'scheduled' },
    });
    const now = isoTime(svc.now());
    svc.db
      .prepare(
        `INSERT INTO project_imports (project_id, provider, import_source, api_url, locator, settings, user_id, correlation_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(project.id, p.provider, p.importSource, p.apiUrl, JSON.stringify(p.locator), JSON.stringify(p.settings), user.id, randomBytes(16).toString('hex'), now, now);
    return project;
  });
}

/**
 * ActiveModel's full_messages joined as GitLab's project_save_error does, in the order Project
 * declares its validations: "Name has already been taken, Path has already been taken".
 */
export function fullMessages(errors: Record<string, string[]>): string {
  const human = (key: string): string => key.charAt(0).toUpperCase() + key.slice(1).replace(/_/g, ' ');
  const rank = (key: string): number => ['name', 'path'].indexOf(key) >>> 0;
  return Object.entries(errors)
    .sort(([a], [b]) => rank(a) - rank(b))
    .flatMap(([key, messages]) => messages.map((m) => `${human(key)} ${m}`))
    .join(', ');
}

export interface NewFailure {
  source: string;
  exceptionClass: string;
  message: string;
  relationKey?: string | null;
  relationIndex?: number | null;
  recordFailure: boolean;
}

export function insertFailure(svc: ServiceContext, row: ProjectImportRow, f: NewFailure): void {
  svc.db
    .prepare(
      `INSERT INTO project_import_failures (project_id, correlation_id, relation_key, relation_index, source, exception_class, exception_message, record_failure, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(row.project_id, row.correlation_id, f.relationKey ?? null, f.relationIndex ?? null, f.source, f.exceptionClass, f.message, f.recordFailure ? 1 : 0, isoTime(svc.now()));
}

export interface FailureRow {
  id: number;
  relation_key: string | null;
  relation_index: number | null;
  source: string;
  exception_class: string;
  exception_message: string;
  created_at: string;
}

/** Records that could not be imported (GitLab's relation_hard_failures), oldest first, at most `limit`. */
export function recordFailures(svc: ServiceContext, row: ProjectImportRow, limit = 100): FailureRow[] {
  return svc.db
    .prepare('SELECT * FROM project_import_failures WHERE project_id = ? AND correlation_id = ? AND record_failure = 1 ORDER BY id LIMIT ?')
    .all(row.project_id, row.correlation_id, limit) as FailureRow[];
}

/** Adds to the fetched/imported counters of an object type ('issue', 'pull_request', 'note', ...). */
export function countObjects(svc: ServiceContext, projectId: number, operation: 'fetched' | 'imported', objectType: string, n = 1): void {
  if (n === 0) return;
  svc.db
    .prepare(`UPDATE project_imports SET stats = json_set(stats, ?, coalesce(json_extract(stats, ?), 0) + ?) WHERE project_id = ?`)
    .run(`$.${operation}.${objectType}`, `$.${operation}.${objectType}`, n, projectId);
}

/** The record an upstream object became here, if it was imported already. */
export function importedRecord(svc: ServiceContext, projectId: number, kind: string, sourceId: string | number): number | undefined {
  const row = svc.db.prepare('SELECT target_id FROM project_import_records WHERE project_id = ? AND kind = ? AND source_id = ?').get(projectId, kind, String(sourceId)) as
    | { target_id: number }
    | undefined;
  return row?.target_id;
}

export function rememberRecord(svc: ServiceContext, projectId: number, kind: string, sourceId: string | number, targetId: number): void {
  svc.db.prepare('INSERT OR REPLACE INTO project_import_records (project_id, kind, source_id, target_id) VALUES (?, ?, ?, ?)').run(projectId, kind, String(sourceId), targetId);
}

/** GitLab's provider_link: the upstream path of the repository, with a leading slash. */
export const providerLink = (importSource: string): string => `/${importSource.replace(/^\/+/, '')}`;
