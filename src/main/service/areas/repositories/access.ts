import type { ServiceContext } from '../../context';
import type { RequestContext } from '../../http/route';
import { forbidden } from '../../http/errors';
import type { Repository } from '../../git';
import type { User } from '../core/users';
import { Access, effectiveProjectAccess, loadProject } from '../core/access';
import { type Project, projectSettings } from '../core/projects';

/**
 * ProjectPolicy's `download_code`: Reporters and up; everyone who can see a public or internal
 * project while its repository feature is open to everyone; nobody when the feature is disabled.
 */
export function canDownloadCode(svc: ServiceContext, user: User | null, project: Project): boolean {
  const feature = (projectSettings(project).repository_access_level as string | undefined) ?? 'enabled';
  if (feature === 'disabled') return false;
  if (effectiveProjectAccess(svc, user, project) >= Access.REPORTER) return true;
  if (feature !== 'enabled') return false;
  if (project.visibility === 'public') return true;
  return project.visibility === 'internal' && !!user && !user.external;
}

/** `push_code`: Developers and up, never into an archived project or a disabled repository. */
export function canPushCode(svc: ServiceContext, user: User | null, project: Project): boolean {
  const feature = (projectSettings(project).repository_access_level as string | undefined) ?? 'enabled';
  return feature !== 'disabled' && !project.archived && effectiveProjectAccess(svc, user, project) >= Access.DEVELOPER;
}

export interface ProjectRepository {
  project: Project;
  repo: Repository;
}

/**
 * `:id` of /projects/:id/repository/...: the project as loadProject finds it, its code readable by
 * the caller (`authorize! :download_code` -> 403), and its repository (created on first use).
 */
export async function loadRepository(rc: RequestContext, minLevel: number = Access.NO_ACCESS): Promise<ProjectRepository> {
  const project = loadProject(rc, minLevel);
  if (!canDownloadCode(rc.svc, rc.user, project)) throw forbidden();
  return { project, repo: await rc.svc.git.ensure(project) };
}

/**
 * A write through the API: `push_code` (Developer; no protected branches in Sandlab). `reason` is
 * the 403's wording where GitLab gives one (`authorize_push_to_branch!`: "You are not allowed to push into this branch").
 */
export async function loadWritableRepository(rc: RequestContext, reason?: string): Promise<ProjectRepository & { user: User }> {
  const user = rc.requireUser();
  const project = loadProject(rc);
  if (!canDownloadCode(rc.svc, user, project) || !canPushCode(rc.svc, user, project)) throw forbidden(reason);
  return { project, user, repo: await rc.svc.git.ensure(project) };
}
