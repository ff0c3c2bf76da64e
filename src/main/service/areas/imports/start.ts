import type { ServiceContext } from '../../context';
import { inTransaction } from '../../db/connection';
import { ApiError, grapeError } from '../../http/errors';
import { applicationSettings } from '../application_settings/settings';
import { Access, effectiveGroupAccess } from '../core/access';
import { type Namespace, type Visibility, findNamespaceByFullPath, userNamespace, visibilityLevel } from '../core/namespaces';
import type { Project } from '../core/projects';
import type { User } from '../core/users';
import { type ImportSettings, type NewImportedProject, type Provider, createImportedProject } from './imports';
import { PROJECT_IMPORT_JOB } from './jobs';
import { ProviderError, ProviderUnreachable, RateLimitError, isHttpUrl } from './providers/http';
import { ProviderAClient, providerAApiUrl } from './providers/providera';
import { ProviderBCloudClient, providerBCloudApiUrl } from './providers/providerb_cloud';
import { ProviderBServerClient } from './providers/providerb_server';
import type { ProviderALocator } from './importer/providera';
import type { ProviderBServerLocator } from './importer/providerb_server';
import type { ProviderBCloudLocator } from './importer/providerb_cloud';

/**
 * Starting an import, as GitLab's Import::GithubService, BitbucketServerService and
 * BitbucketService do: check the target namespace and the caller's right to import there, read
 * the repository upstream with the caller's credentials, then create the project (import_status
 * `scheduled`) and queue its import job with the credentials held in memory only.
 */

/** A refusal with GitLab's status and message; each route wraps the message its own way. */
export class StartError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string | string[],
  ) {
    super(Array.isArray(reason) ? reason.join(', ') : reason);
  }
}

/** Upstream reads at the start never wait for a rate limit: it answers 429 at once. */
const startOptions = (svc: ServiceContext) => ({ fetch: svc.fetch, now: svc.now, maxRateLimitWaitMs: 0, timeoutMs: 30_000 });

const tooManyRequests = (): ApiError => grapeError(429, 'Too Many Requests');

/** `http(s)://...` or GitLab's "Invalid URL" refusal (400). */
function checkUrl(url: string): void {
  if (!isHttpUrl(url)) throw new StartError(400, `Invalid URL: ${url}`);
}

const namespaceByPath = (svc: ServiceContext, path: string): Namespace | undefined => findNamespaceByFullPath(svc, path.replace(/^\/+|\/+$/g, ''));

/** `can?(user, :import_projects, namespace)`: the owner of a personal namespace, a group's Maintainers and Owners, admins. */
export function canImportInto(svc: ServiceContext, user: User, ns: Namespace): boolean {
  if (user.admin) return true;
  if (ns.kind === 'user') return ns.owner_id === user.id;
  return effectiveGroupAccess(svc, user, ns) >= Access.MAINTAINER;
}

/**
 * Bitbucket imports' find_or_create_namespace: the named namespace, or the caller's own. (GitLab
 * would also create a missing group path when it may; Sandlab falls back to the caller's
 * namespace, as GitLab does when that creation fails.)
 */
function namespaceOrOwn(svc: ServiceContext, user: User, path: string | null | undefined): Namespace {
  const own = userNamespace(svc, user.id)!;
  if (!path?.trim()) return own;
  return namespaceByPath(svc, path) ?? own;
}

/** A public upstream repository stays public unless the instance restricts that level or the group is more private. */
function importedVisibility(svc: ServiceContext, ns: Namespace, upstreamPrivate: boolean): Visibility {
  let v: Visibility = upstreamPrivate ? 'private' : 'public';
  const settings = applicationSettings(svc);
  if ((settings.restricted_visibility_levels as string[] | undefined)?.includes(v)) v = settings.default_project_visibility;
  if (ns.kind === 'group' && visibilityLevel(v) > visibilityLevel(ns.visibility)) v = ns.visibility;
  return v;
}

function checkSourceEnabled(svc: ServiceContext, provider: Provider): void {
  if (!applicationSettings(svc).import_sources.includes(provider)) throw new StartError(403, [`${provider} import source is disabled`]);
}

/** Creates the project and queues its import in one transaction; the token goes to the job's memory. */
function createAndQueue(svc: ServiceContext, user: User, ns: Namespace, project: NewImportedProject, secret: string): Project {
  checkSourceEnabled(svc, project.provider);
  svc.jobs.ensureCapacity(1);
  return inTransaction(svc.db, () => {
    const created = createImportedProject(svc, user, ns, project);
    if ('errors' in created) throw new StartError(422, created.errors);
    svc.jobs.enqueue(PROJECT_IMPORT_JOB, { projectId: created.id }, { subject: `project:${created.id}`, secret: { key: `project_import:${created.id}`, value: secret } });
    return created;
  });
}

// --- provider A ----------------------------------------------------------------------------------

export interface ProviderAStart {
  token: string;
  repoId: number;
  newName?: string | null;
  targetNamespace: string;
  hostname?: string | null;
  optionalStages?: Record<string, unknown> | null;
  timeoutStrategy?: 'optimistic' | 'pessimistic' | null;
  paginationLimit?: number | null;
}

const REPOSITORY_ACCESS_ERROR =
  'Your GitHub personal access token does not have read access to the repository. Please use a classic GitHub personal access token with the `repo` scope. Fine-grained tokens are not supported.';
const COLLABORATORS_ACCESS_ERROR =
  'Your GitHub personal access token does not have read access to collaborators. Please use a classic GitHub personal access token with the `read:org` scope. Fine-grained tokens are not supported.';

/** `Gitlab::Utils.to_boolean(value, default: false)` for each optional stage. */
export function optionalStages(given: Record<string, unknown> | null | undefined): Record<string, boolean> {
  const keys = ['single_endpoint_issue_events_import', 'single_endpoint_notes_import', 'attachments_import', 'collaborators_import'];
  return Object.fromEntries(keys.map((k) => [k, [true, 'true', 't', '1', 1, 'yes', 'on'].includes(given?.[k] as never)]));
}

/** The start of an import's GitHub errors, as the API answers them (401, 429) or the service does (422). */
function providerAError(err: unknown, forbiddenMessage: string): unknown {
  if (err instanceof RateLimitError) return tooManyRequests();
  if (err instanceof ProviderError && err.status === 401) return grapeError(401, 'Access denied to your GitHub account.');
  if (err instanceof ProviderError && err.status === 403) return new StartError(422, forbiddenMessage);
  if (err instanceof ProviderError) return new StartError(422, `Import failed because of a GitHub error: ${err.detail || err.body} (HTTP ${err.status})`);
  if (err instanceof ProviderUnreachable) return new StartError(422, `Import failed because of a GitHub error: ${err.message}`);
  return err;
}

export async function startProviderAImport(svc: ServiceContext, user: User, p: ProviderAStart): Promise<Project> {
  if (p.hostname) checkUrl(p.hostname);
  const ns = namespaceByPath(svc, p.targetNamespace);
  if (!ns) throw new StartError(422, 'Namespace or group to import repository into does not exist.');
  if (!canImportInto(svc, user, ns)) throw new StartError(422, 'You are not allowed to import projects in this namespace.');
  const settings: ImportSettings = {
    optional_stages: optionalStages(p.optionalStages),
    timeout_strategy: p.timeoutStrategy ?? 'pessimistic',
    pagination_limit: p.paginationLimit ?? 100,
  };
  const apiUrl = providerAApiUrl(p.hostname);
  const client = new ProviderAClient(apiUrl, p.token, settings.pagination_limit, startOptions(svc));
  const repo = await client.repository(p.repoId).catch((err) => {
    throw providerAError(err, REPOSITORY_ACCESS_ERROR);
  });
  if (settings.optional_stages.collaborators_import) {
    await client.page(client.lists.collaborators(repo.full_name)).catch((err) => {
      throw providerAError(err, COLLABORATORS_ACCESS_ERROR);
    });
  }
  const locator: ProviderALocator = { repo_id: repo.id, full_name: repo.full_name };
  return createAndQueue(
    svc,
    user,
    ns,
    {
      provider: 'github',
      name: p.newName?.trim() ? p.newName : repo.name,
      description: repo.description,
      visibility: importedVisibility(svc, ns, repo.private),
      defaultBranch: repo.default_branch,
      importSource: repo.full_name,
      importUrl: repo.clone_url,
      apiUrl,
      locator: { ...locator },
      settings,
    },
    p.token,
  );
}

// --- provider B server ---------------------------------------------------------------------------

export interface ProviderBServerStart {
  url: string;
  username: string;
  token: string;
  projectKey: string;
  repoSlug: string;
  newName?: string | null;
  namespace?: string | null;
  timeoutStrategy?: 'optimistic' | 'pessimistic' | null;
}

// As GitLab sanity-checks them against URL injection (Bitbucket's own key and slug rules).
const PROJECT_KEY_FORMAT = /^~?[\w\-.\s]+$/;
const REPO_SLUG_FORMAT = /^[\w\-.\s]+$/;

export async function startProviderBServerImport(svc: ServiceContext, user: User, p: ProviderBServerStart): Promise<Project> {
  if (!PROJECT_KEY_FORMAT.test(p.projectKey)) throw new StartError(422, 'Missing or invalid project key');
  if (!REPO_SLUG_FORMAT.test(p.repoSlug)) throw new StartError(422, 'Missing or invalid repository slug');
  checkUrl(p.url);
  const ns = namespaceOrOwn(svc, user, p.namespace);
  if (!canImportInto(svc, user, ns)) throw new StartError(401, "You don't have permissions to import this project");
  const client = new ProviderBServerClient(p.url, p.username, p.token, 100, startOptions(svc));
  const repo = await client.repo(p.projectKey, p.repoSlug).catch((err) => {
    if (err instanceof RateLimitError) throw tooManyRequests();
    if (err instanceof ProviderError && err.status === 404) throw new StartError(422, `Project ${p.projectKey}/${p.repoSlug} could not be found`);
    if (err instanceof ProviderError || err instanceof ProviderUnreachable) throw new StartError(400, 'Import failed due to a BitBucket Server error');
    throw err;
  });
  const locator: ProviderBServerLocator = { server_url: p.url.replace(/\/+$/, ''), username: p.username, project_key: p.projectKey, repo_slug: p.repoSlug };
  return createAndQueue(
    svc,
    user,
    ns,
    {
      provider: 'bitbucket_server',
      name: p.newName?.trim() ? p.newName : repo.name,
      description: repo.project.description ?? null,
      visibility: importedVisibility(svc, ns, !repo.project.public),
      importSource: `${repo.project.name}/${repo.name}`,
      importUrl: repo.links.clone?.find((l) => l.name.startsWith('http'))?.href ?? null,
      apiUrl: client.apiUrl,
      locator: { ...locator },
      settings: { optional_stages: {}, timeout_strategy: p.timeoutStrategy ?? 'pessimistic', pagination_limit: 100 },
    },
    p.token,
  );
}

// --- provider B cloud ----------------------------------------------------------------------------

export interface ProviderBCloudStart {
  username: string;
  appPassword: string;
  repoPath: string;
  targetNamespace: string;
  newName?: string | null;
}

export async function startProviderBCloudImport(svc: ServiceContext, user: User, p: ProviderBCloudStart): Promise<Project> {
  const ns = namespaceOrOwn(svc, user, p.targetNamespace);
  if (!canImportInto(svc, user, ns)) throw new StartError(401, "You don't have permissions to import this project");
  const apiUrl = providerBCloudApiUrl();
  const client = new ProviderBCloudClient(apiUrl, p.username, p.appPassword, 100, startOptions(svc));
  const repoPath = p.repoPath.replace(/___/g, '/');
  const failure = (err: unknown): unknown => {
    if (err instanceof RateLimitError) return tooManyRequests();
    if (err instanceof ProviderError || err instanceof ProviderUnreachable) return new StartError(400, `Import failed due to an error: ${err.message}`);
    return err;
  };
  await client.user().catch((err) => {
    if (err instanceof ProviderError && (err.status === 401 || err.status === 403)) throw new StartError(401, 'Unable to authorize with Bitbucket. Check your credentials');
    throw failure(err);
  });
  const repo = await client.repo(repoPath).catch((err) => {
    if (err instanceof ProviderError && err.status === 404) throw new StartError(422, `Project ${repoPath} could not be found`);
    throw failure(err);
  });
  const locator: ProviderBCloudLocator = { username: p.username, repo_path: repo.full_name, has_issues: repo.has_issues !== false };
  return createAndQueue(
    svc,
    user,
    ns,
    {
      provider: 'bitbucket',
      name: p.newName?.trim() ? p.newName : repo.name,
      description: repo.description || null,
      visibility: importedVisibility(svc, ns, repo.is_private),
      defaultBranch: repo.mainbranch?.name,
      importSource: repo.full_name,
      importUrl: repo.links.clone?.find((l) => l.name === 'https')?.href.replace(/\/\/[^@/]+@/, '//') ?? null,
      apiUrl,
      locator: { ...locator },
      settings: { optional_stages: {}, timeout_strategy: 'pessimistic', pagination_limit: 100 },
    },
    p.appPassword,
  );
}
