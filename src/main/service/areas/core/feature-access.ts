import type { ServiceContext } from '../../context';
import type { User } from './users';
import { type Project, projectSettings } from './projects';
import { Access, canReadProject, memberProjectsSql, projectAccessLevel } from './access';

/**
 * ProjectFeature for issues and merge requests (issues_access_level, merge_requests_access_level;
 * `issues_enabled=false` is `disabled`): `enabled` for whoever reads the project, `private` for its
 * members of at least the feature's level (PRIVATE_FEATURES_MIN_ACCESS_LEVEL: Reporter for merge
 * requests, Guest for issues) and administrators, `disabled` for no one, administrators included
 * (ProjectPolicy's issues_disabled / merge_requests_disabled prevent read, create, update and
 * destroy). What GitLab's APIs answer for a caller without it:
 * - issues: the project's list is empty (IssuableFinder::Params#project is nil unless read_issue:
 *   `Array.wrap(nil)`), one issue (find_project_issue: the finder) a 404, create a 403;
 * - merge requests: the project's list, one (find_merge_request_with_access) and create a 403
 *   (`authorize! :read_merge_request` / `:create_merge_request_from`);
 * - group and instance lists leave the project out (Params#projects: with_feature_available_for_user).
 */
export type FeatureType = 'Issue' | 'MergeRequest';

const SETTING = { Issue: 'issues_access_level', MergeRequest: 'merge_requests_access_level' } as const;
const MIN_LEVEL = { Issue: Access.GUEST, MergeRequest: Access.REPORTER } as const;

/** The feature's level on `p` as SQL (core/127's partial indexes hold the projects where it is not `enabled`). */
const levelSql = (type: FeatureType, alias?: string): string => `coalesce(json_extract(${alias ? `${alias}.` : ''}settings, '$.${SETTING[type]}'), 'enabled')`;
const INDEX = { Issue: 'projects_issues_restricted', MergeRequest: 'projects_merge_requests_restricted' } as const;

/** ProjectFeature#feature_available? for the caller (who can read the project). */
export function featureAvailable(svc: ServiceContext, user: User | null, project: Project, type: FeatureType): boolean {
  const level = (projectSettings(project)[SETTING[type]] as string | undefined) ?? 'enabled';
  if (level === 'disabled') return false;
  if (level !== 'private') return true;
  if (!user) return false;
  if (user.admin) return true;
  return projectAccessLevel(svc, user.id, project) >= MIN_LEVEL[type];
}

/**
 * ProjectPolicy's read_issue / read_merge_request on a record of `project` reached from elsewhere
 * (a linked or closing issue, a related merge request, an epic's issue, a to-do's or an event's
 * target): the project readable and its feature available to the caller.
 */
export function canReadFeature(svc: ServiceContext, user: User | null, project: Project, type: FeatureType): boolean {
  return canReadProject(svc, user, project) && featureAvailable(svc, user, project, type);
}

/**
 * ProjectPolicy's `issues_disabled & merge_requests_disabled`: neither available to the caller,
 * which prevents reading and writing the project's labels and milestones.
 */
export function issuablesAvailable(svc: ServiceContext, user: User | null, project: Project): boolean {
  return featureAvailable(svc, user, project, 'Issue') || featureAvailable(svc, user, project, 'MergeRequest');
}

/** The projects whose issues and merge requests both are hidden from the caller (their milestones are). */
export function issuablesHiddenProjectIds(svc: ServiceContext, user: User | null): number[] {
  const mrs = featureHiddenProjectIds(svc, user, 'MergeRequest');
  if (!mrs.length) return [];
  const issues = new Set(featureHiddenProjectIds(svc, user, 'Issue'));
  return mrs.filter((id) => issues.has(id));
}

/**
 * The projects whose feature the caller may not use (disabled, or private to members they are not
 * enough of), for a list of many projects to leave out: read from core/127's partial index (most
 * instances have none, and then the lists are as they were).
 */
export function featureHiddenProjectIds(svc: ServiceContext, user: User | null, type: FeatureType): number[] {
  const level = levelSql(type, 'p');
  const restricted = `FROM projects p INDEXED BY ${INDEX[type]} WHERE ${level} != 'enabled'`;
  if (!svc.db.prepare(`SELECT 1 AS one ${restricted} LIMIT 1`).get()) return [];
  if (!user) return (svc.db.prepare(`SELECT p.id ${restricted}`).all() as { id: number }[]).map((r) => r.id);
  if (user.admin) return (svc.db.prepare(`SELECT p.id ${restricted} AND ${level} = 'disabled'`).all() as { id: number }[]).map((r) => r.id);
  const members = memberProjectsSql(svc, user, 'p', MIN_LEVEL[type]);
  return (svc.db.prepare(`SELECT p.id ${restricted} AND NOT (${level} = 'private' AND ${members.sql})`).all(...members.args) as { id: number }[]).map((r) => r.id);
}

/** ` AND p.id NOT IN (...)` for a SELECT of projects on alias `p`, or '' when none is hidden. */
export function featureHiddenSql(ids: number[], alias = 'p'): string {
  return ids.length ? ` AND ${alias}.id NOT IN (${ids.map(Number).join(', ')})` : '';
}

export const featureAccessMigration = {
  // The projects whose issues or merge requests are not `enabled` (disabled, or private to members):
  // few, read by the lists of many projects to leave out those the caller may not see
  // (areas/core/feature-access.ts), instead of each project's settings read.
  name: 'core/127_projects_feature_restricted',
  sql: `
CREATE INDEX projects_issues_restricted ON projects (id) WHERE ${levelSql('Issue')} != 'enabled';
CREATE INDEX projects_merge_requests_restricted ON projects (id) WHERE ${levelSql('MergeRequest')} != 'enabled';
`,
};

/** table_versions' name for the version of the projects' issues and merge requests levels (core/274). */
export const FEATURE_LEVELS_VERSION = 'projects_feature_levels';

export const featureLevelsVersionMigration = {
  // A version of the projects' issues and merge requests levels (in settings, with the rest of the
  // project's settings): moved by an update that changes one, not by another setting. With
  // core/130's version of the projects' listed columns (a project created, deleted, moved, archived,
  // its visibility changed) it holds what a group's or the instance's list reads of projects for its
  // scope (groupScope, visibleScope: which projects, whose feature the caller may use), so their
  // pages are kept across the writes every event and edit make (kept-answers.ts keptScopePage).
  name: 'core/274_projects_feature_levels_version',
  sql: `
INSERT INTO table_versions (name, version) VALUES ('${FEATURE_LEVELS_VERSION}', 0);
CREATE TRIGGER projects_feature_levels_version_update AFTER UPDATE OF settings ON projects
  WHEN ${levelSql('Issue', 'NEW')} IS NOT ${levelSql('Issue', 'OLD')} OR ${levelSql('MergeRequest', 'NEW')} IS NOT ${levelSql('MergeRequest', 'OLD')} BEGIN
  UPDATE table_versions SET version = version + 1 WHERE name = '${FEATURE_LEVELS_VERSION}';
END;
`,
};
