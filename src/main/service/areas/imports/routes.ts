import type { RequestContext, Router } from '../../http/route';
import { type Declared, type Field, type Params, declared, t } from '../../http/params';
import { ApiError, apiError, forbidden, grapeError, notFound, recordNotFound } from '../../http/errors';
import { readPage } from '../../http/pagination';
import { inTransaction } from '../../db/connection';
import { applicationSettings } from '../application_settings/settings';
import { Access, canReadProject, effectiveProjectAccess, loadProject } from '../core/access';
import { type Project, findProjectById } from '../core/projects';
import { isoTime } from '../core/time';
import { canceledImportResult, projectImportResult, projectImportStatus } from './entities';
import { findProjectImport } from './imports';
import { GISTS_IMPORT_JOB, cancelImport } from './jobs';
import { type SkippedGist, findGistImport } from './importer/gists';
import { ProviderError, ProviderUnreachable, RateLimitError } from './providers/http';
import { ProviderAClient, providerAApiUrl } from './providers/providera';
import { listProviderARepositories, listProviderBCloudRepositories, listProviderBServerRepositories } from './repositories';
import { StartError, startProviderAImport, startProviderBCloudImport, startProviderBServerImport } from './start';

/**
 * The import endpoints under both name families (ARCHITECTURE.md): GitLab's `/import/github`,
 * `/import/bitbucket_server`, `/import/bitbucket` and the reference's `/import/providera`,
 * `/import/providerb_server`, `/import/providerb`, each accepting either family's parameter
 * names and naming its own family's in its errors.
 */

type Family = 'gitlab' | 'neutral';

/** GitLab's parameter names and the reference's. */
const ALIASES: Record<string, string> = {
  github_hostname: 'providera_hostname',
  bitbucket_server_url: 'providerb_server_url',
  bitbucket_server_username: 'providerb_server_username',
  bitbucket_server_project: 'providerb_server_project',
  bitbucket_server_repo: 'providerb_server_repo',
  bitbucket_username: 'providerb_username',
  bitbucket_app_password: 'providerb_app_password',
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyField = Field<any, boolean>;

/** `declared` over either family's names; the result uses GitLab's. */
function declaredIn<S extends Record<string, AnyField>>(family: Family, params: Params, spec: S): Declared<S> {
  const name = (gitlab: string): string => (family === 'neutral' ? (ALIASES[gitlab] ?? gitlab) : gitlab);
  const given: Params = { ...params };
  for (const [gitlab, neutral] of Object.entries(ALIASES)) {
    const value = family === 'neutral' ? (params[neutral] ?? params[gitlab]) : (params[gitlab] ?? params[neutral]);
    if (value !== undefined) given[name(gitlab)] = value;
  }
  const out = declared(given, Object.fromEntries(Object.entries(spec).map(([k, f]) => [name(k), f])));
  return Object.fromEntries(Object.keys(spec).map((k) => [k, out[name(k)]])) as Declared<S>;
}

const PATHS = {
  github: { gitlab: '/import/github', neutral: '/import/providera' },
  bitbucket_server: { gitlab: '/import/bitbucket_server', neutral: '/import/providerb_server' },
  bitbucket: { gitlab: '/import/bitbucket', neutral: '/import/providerb' },
} as const;

const FAMILIES: Family[] = ['gitlab', 'neutral'];
const TIMEOUT_STRATEGIES = ['optimistic', 'pessimistic'] as const;
const PAGINATION_LIMITS = Array.from({ length: 100 }, (_, i) => i + 1);

/** GitHub routes answer a refused start as `{"errors": ...}`; the Bitbucket ones as `{"message": {"error": ...}}`. */
async function startWith(rc: RequestContext, style: 'errors' | 'message', start: () => Promise<Project>): Promise<unknown> {
  let project: Project;
  try {
    project = await start();
  } catch (err) {
    if (!(err instanceof StartError)) throw err;
    throw style === 'errors' ? new ApiError(err.status, { errors: err.reason }) : apiError(err.status, { error: err.reason });
  }
  rc.status = 201;
  return projectImportResult(rc, project, findProjectImport(rc.svc, project.id)!);
}

export function registerImportRoutes(r: Router): void {
  for (const family of FAMILIES) {
    r.post(PATHS.github[family], (rc) => {
      const user = rc.requireUser();
      const p = declaredIn(family, rc.params, {
        personal_access_token: t.string().required(),
        repo_id: t.integer().required(),
        new_name: t.string(),
        target_namespace: t.string().required().notBlank(),
        github_hostname: t.string(),
        optional_stages: t.hash(),
        timeout_strategy: t.string().values(TIMEOUT_STRATEGIES),
        pagination_limit: t.integer().values(PAGINATION_LIMITS),
      });
      return startWith(rc, 'errors', () =>
        startProviderAImport(rc.svc, user, {
          token: p.personal_access_token,
          repoId: p.repo_id,
          newName: p.new_name,
          targetNamespace: p.target_namespace,
          hostname: p.github_hostname,
          optionalStages: p.optional_stages,
          timeoutStrategy: p.timeout_strategy,
          paginationLimit: p.pagination_limit,
        }),
      );
    });

    r.post(`${PATHS.github[family]}/cancel`, (rc) => {
      const user = rc.requireUser();
      const p = declared(rc.params, { project_id: t.integer().required() });
      // Project.imported_from('github').find(project_id)
      const project = findProjectById(rc.svc, p.project_id);
      if (!project || project.import_type !== 'github') throw recordNotFound();
      if (!canReadProject(rc.svc, user, project)) throw apiError(404, 'Not Found');
      if (effectiveProjectAccess(rc.svc, user, project) < Access.OWNER) throw apiError(403, 'Unauthorized access');
      const refusedBecause = cancelImport(rc.svc, project);
      if (refusedBecause) throw apiError(400, `The import cannot be canceled because it is ${refusedBecause}`);
      rc.status = 200;
      return canceledImportResult(rc, findProjectById(rc.svc, project.id)!, findProjectImport(rc.svc, project.id)!);
    });

    r.post(`${PATHS.github[family]}/gists`, async (rc) => {
      const user = rc.requireUser();
      // Sandlab also reads gists from an enterprise host (GitLab reaches only the public one).
      const p = declaredIn(family, rc.params, { personal_access_token: t.string().required(), github_hostname: t.string() });
      if (user.external) throw forbidden();
      if (findGistImport(rc.svc, user.id)?.status === 'started') throw new ApiError(422, { errors: 'Import already in progress' });
      const apiUrl = providerAApiUrl(p.github_hostname);
      const client = new ProviderAClient(apiUrl, p.personal_access_token, 100, { fetch: rc.svc.fetch, now: rc.svc.now, maxRateLimitWaitMs: 0 });
      try {
        await client.user();
      } catch (err) {
        if (err instanceof ProviderError && err.status === 401) throw new ApiError(401, { errors: 'Access denied to the GitHub account.' });
        if (err instanceof RateLimitError) throw grapeError(429, 'Too Many Requests');
        if (err instanceof ProviderError || err instanceof ProviderUnreachable) throw new ApiError(422, { errors: `Import failed because of a GitHub error: ${err.message}` });
        throw err;
      }
      rc.svc.jobs.ensureCapacity(1);
      inTransaction(rc.svc.db, () => {
        rc.svc.db
          .prepare(
            `INSERT INTO gist_imports (user_id, status, api_url, imported_count, skipped, error, started_at, finished_at) VALUES (?, 'started', ?, 0, '[]', NULL, ?, NULL)
             ON CONFLICT (user_id) DO UPDATE SET status = 'started', api_url = excluded.api_url, imported_count = 0, skipped = '[]', error = NULL,
               started_at = excluded.started_at, finished_at = NULL`,
          )
          .run(user.id, apiUrl, isoTime(rc.svc.now()));
        rc.svc.jobs.enqueue(GISTS_IMPORT_JOB, { userId: user.id }, { subject: `gists:${user.id}`, secret: { key: `gists_import:${user.id}`, value: p.personal_access_token } });
      });
      rc.status = 202;
      return undefined;
    });

    r.post(PATHS.bitbucket_server[family], (rc) => {
      const user = rc.requireUser();
      const p = declaredIn(family, rc.params, {
        bitbucket_server_url: t.string().required(),
        bitbucket_server_username: t.string().required(),
        personal_access_token: t.string().required(),
        bitbucket_server_project: t.string().required(),
        bitbucket_server_repo: t.string().required(),
        new_name: t.string(),
        new_namespace: t.string(),
        // The reference's name (and python-gitlab's); GitLab reads it too, undeclared.
        target_namespace: t.string(),
        timeout_strategy: t.string().values(TIMEOUT_STRATEGIES),
      });
      return startWith(rc, 'message', () =>
        startProviderBServerImport(rc.svc, user, {
          url: p.bitbucket_server_url,
          username: p.bitbucket_server_username,
          token: p.personal_access_token,
          projectKey: p.bitbucket_server_project,
          repoSlug: p.bitbucket_server_repo,
          newName: p.new_name,
          namespace: p.target_namespace?.trim() ? p.target_namespace : p.new_namespace,
          timeoutStrategy: p.timeout_strategy,
        }),
      );
    });

    r.post(PATHS.bitbucket[family], (rc) => {
      const user = rc.requireUser();
      const p = declaredIn(family, rc.params, {
        bitbucket_username: t.string().required(),
        bitbucket_app_password: t.string().required(),
        repo_path: t.string().required(),
        target_namespace: t.string().required(),
        new_name: t.string(),
      });
      return startWith(rc, 'message', () =>
        startProviderBCloudImport(rc.svc, user, {
          username: p.bitbucket_username,
          appPassword: p.bitbucket_app_password,
          repoPath: p.repo_path,
          targetNamespace: p.target_namespace,
          newName: p.new_name,
        }),
      );
    });

    // Sandlab-only: the repositories the credentials reach, to pick one to import (GitLab lists
    // them in its web UI only). POST, so the token travels in the body, not the URL.
    r.post(`/sandlab${PATHS.github[family]}/repositories`, (rc) => {
      rc.requireUser();
      const p = declaredIn(family, rc.params, { personal_access_token: t.string().required(), github_hostname: t.string() });
      rc.status = 200;
      return listProviderARepositories(rc, p.personal_access_token, p.github_hostname, readPage(rc.params, 50));
    });

    r.post(`/sandlab${PATHS.bitbucket_server[family]}/repositories`, (rc) => {
      rc.requireUser();
      const p = declaredIn(family, rc.params, {
        bitbucket_server_url: t.string().required(),
        bitbucket_server_username: t.string().required(),
        personal_access_token: t.string().required(),
      });
      rc.status = 200;
      return listProviderBServerRepositories(rc, p.bitbucket_server_url, p.bitbucket_server_username, p.personal_access_token, readPage(rc.params, 50));
    });

    r.post(`/sandlab${PATHS.bitbucket[family]}/repositories`, (rc) => {
      rc.requireUser();
      const p = declaredIn(family, rc.params, { bitbucket_username: t.string().required(), bitbucket_app_password: t.string().required() });
      rc.status = 200;
      return listProviderBCloudRepositories(rc, p.bitbucket_username, p.bitbucket_app_password, readPage(rc.params, 50));
    });

    // Sandlab-only: how the caller's last gists import went, with the gists it skipped (GitLab mails those).
    r.get(`/sandlab${PATHS.github[family]}/gists`, (rc) => {
      const user = rc.requireUser();
      const row = findGistImport(rc.svc, user.id);
      if (!row) throw notFound('Gists Import');
      return {
        status: row.status,
        imported_count: row.imported_count,
        skipped: JSON.parse(row.skipped) as SkippedGist[],
        error: row.error,
        started_at: row.started_at,
        finished_at: row.finished_at,
      };
    });
  }

  // Entities::ProjectImportStatus; GitLab answers 403 while project imports (gitlab_project) are off.
  r.get(
    '/projects/:id/import',
    (rc) => {
      if (!applicationSettings(rc.svc).import_sources.includes('gitlab_project')) throw forbidden();
      const project = loadProject(rc);
      const canReadError = effectiveProjectAccess(rc.svc, rc.user, project) >= Access.MAINTAINER;
      return projectImportStatus(rc, project, findProjectImport(rc.svc, project.id), canReadError);
    },
    { auth: 'optional' },
  );
}
