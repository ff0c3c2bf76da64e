import type { Area } from '../index';
import { jobTokenScopeMigrations } from './schema';
import { registerJobTokenScopeRoutes } from './routes';
import { jobTokenCanAccess, resolveJobToken } from './job_token_scope';

/** CI/CD job token scope: inbound allowlists of projects and groups, and job token authentication. */
export const jobTokenScopeArea: Area = {
  name: 'job_token_scope',
  migrations: jobTokenScopeMigrations,
  register(router) {
    registerJobTokenScopeRoutes(router);
  },
  start(svc) {
    svc.resolveJobToken = (token) => resolveJobToken(svc, token);
    svc.jobTokenCanAccess = (sourceProjectId, target) => jobTokenCanAccess(svc, sourceProjectId, target);
  },
};
