import type { Router } from '../../http/route';
import { declared, t } from '../../http/params';
import { notFound } from '../../http/errors';
import { paginateArray } from '../../http/pagination';
import { Access, loadProject } from '../core/access';
import { findProjectById } from '../core/projects';
import { findUserById } from '../core/users';
import {
  addGroupLink, addProjectLink, allowlistedGroups, allowlistedProjects, inboundEnabled, mintJobToken, removeGroupLink,
  removeProjectLink, revokeJobToken, setInboundEnabled,
} from './job_token_scope';
import { allowlistedGroup, allowlistedProject, jobToken, jobTokenScope } from './entities';

/** lib/api/project_job_token_scope.rb, plus the Sandlab-only job token minting. */
export function registerJobTokenScopeRoutes(r: Router): void {
  r.get('/projects/:id/job_token_scope', (rc) => {
    const project = loadProject(rc, Access.MAINTAINER);
    return jobTokenScope(inboundEnabled(rc.svc, project.id));
  });

  r.patch('/projects/:id/job_token_scope', (rc) => {
    const project = loadProject(rc, Access.MAINTAINER);
    const p = declared(rc.params, { enabled: t.boolean().required().notBlank() });
    setInboundEnabled(rc.svc, project.id, p.enabled);
    return undefined;
  });

  r.get('/projects/:id/job_token_scope/allowlist', (rc) => {
    const project = loadProject(rc, Access.MAINTAINER);
    return paginateArray(rc, allowlistedProjects(rc.svc, project)).map((p) => allowlistedProject(rc, p));
  });

  r.post('/projects/:id/job_token_scope/allowlist', (rc) => {
    const project = loadProject(rc, Access.MAINTAINER);
    const p = declared(rc.params, { target_project_id: t.integer().required().notBlank() });
    return addProjectLink(rc, project, p.target_project_id);
  });

  r.delete('/projects/:id/job_token_scope/allowlist/:target_project_id', (rc) => {
    const project = loadProject(rc);
    removeProjectLink(rc, project, rc.path.target_project_id);
    return undefined;
  });

  r.get('/projects/:id/job_token_scope/groups_allowlist', (rc) => {
    const project = loadProject(rc, Access.MAINTAINER);
    return paginateArray(rc, allowlistedGroups(rc.svc, project)).map((g) => allowlistedGroup(rc, g));
  });

  r.post('/projects/:id/job_token_scope/groups_allowlist', (rc) => {
    const project = loadProject(rc, Access.MAINTAINER);
    const p = declared(rc.params, { target_group_id: t.integer().required().notBlank() });
    return addGroupLink(rc, project, p.target_group_id);
  });

  r.delete('/projects/:id/job_token_scope/groups_allowlist/:target_group_id', (rc) => {
    const project = loadProject(rc);
    removeGroupLink(rc, project, rc.path.target_group_id);
    return undefined;
  });

  // Sandlab-only: GitLab mints job tokens when a runner picks up a job; Sandlab runs no jobs, so an
  // administrator mints one for a project (acting as `user_id`, default the caller) to drive the allowlist.
  r.post('/sandlab/job_tokens', (rc) => {
    const admin = rc.requireAdmin();
    const p = declared(rc.params, { project_id: t.integer().required(), user_id: t.integer() });
    const project = findProjectById(rc.svc, p.project_id);
    if (!project) throw notFound('Project');
    const user = p.user_id == null ? admin : findUserById(rc.svc, p.user_id);
    if (!user) throw notFound('User');
    const { row, value } = mintJobToken(rc.svc, project, user.id);
    return jobToken(row, value);
  });

  // Sandlab-only: the job is over; its token stops authenticating.
  r.delete('/sandlab/job_tokens/:token_id', (rc) => {
    rc.requireAdmin();
    if (!/^\d+$/.test(rc.path.token_id) || !revokeJobToken(rc.svc, Number(rc.path.token_id))) throw notFound('Job Token');
    return undefined;
  });
}
