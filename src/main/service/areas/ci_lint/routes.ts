import type { Router } from '../../http/route';
import { declared, requireMutuallyExclusive, t } from '../../http/params';
import { forbidden, notFound } from '../../http/errors';
import { Access, effectiveProjectAccess, loadProject } from '../core/access';
import type { RequestContext } from '../../http/route';
import type { Project } from '../core/projects';
import { canDownloadCode } from '../repositories/access';
import { findRef, readTextAt } from '../repositories/lookup';
import { ciConfigPath, lintCommit, lintInProject, repositoryWithCommits } from './ci_lint';
import { type LintResult, lintCiConfig } from './validator';
import { simulatePush } from './simulate';
import { findNamespaceById } from '../core/namespaces';
import { dryRunJobs, legacyLintResult, lintResult } from './entities';

/** A dry run that stops before the configuration is read (a Ci::CreatePipelineService chain error). */
const pipelineError = (message: string): LintResult => ({ valid: false, errors: [message], warnings: [], merged_yaml: null, includes: null, jobs: [] });

/**
 * A dry run (Gitlab::Ci::Lint#simulate_pipeline_creation): the pipeline a push to `ref` would
 * create. As Ci::CreatePipelineService's chain does, it needs create_pipeline and a branch or tag
 * named `ref`; `include: local` and `rules: exists` read the files of that ref's commit.
 */
async function dryRun(rc: RequestContext, project: Project, ref: string, content: string | null | undefined): Promise<LintResult> {
  if (effectiveProjectAccess(rc.svc, rc.user, project) < Access.DEVELOPER) return pipelineError('Insufficient permissions to create a new pipeline');
  const repo = await repositoryWithCommits(rc.svc, project);
  const branch = repo ? await findRef(repo, 'heads', ref) : undefined;
  const tag = repo ? await findRef(repo, 'tags', ref) : undefined;
  if (branch && tag) return pipelineError('Ref is ambiguous');
  const target = branch ?? tag;
  if (!repo || !target) return pipelineError('Reference not found');
  const commit = await lintCommit(repo, target.commitId);
  const linted = await lintInProject(rc.svc, rc.baseUrl, project, commit, content);
  const ns = findNamespaceById(rc.svc, project.namespace_id)!;
  return simulatePush(linted, {
    ref,
    tag: !branch,
    sha: commit.sha,
    defaultBranch: project.default_branch,
    projectPath: `${ns.full_path}/${project.path}`,
    projectName: project.path,
    namespacePath: ns.full_path,
    projectId: project.id,
    files: commit.paths,
  });
}

/** lib/api/lint.rb */
export function registerCiLintRoutes(r: Router): void {
  r.post('/projects/:id/ci/lint', async (rc) => {
    const project = loadProject(rc, Access.DEVELOPER);
    const p = declared(rc.params, {
      content: t.string().required(),
      dry_run: t.boolean().default(false),
      include_jobs: t.boolean(),
      ref: t.string(),
    });
    let result: LintResult;
    if (p.dry_run) result = await dryRun(rc, project, p.ref || project.default_branch, p.content);
    else {
      // A static check reads includes at the project's head commit (Gitlab::Ci::Lint without a sha).
      const repo = await repositoryWithCommits(rc.svc, project);
      const head = repo && (await repo.resolveCommit('HEAD'));
      result = await lintInProject(rc.svc, rc.baseUrl, project, repo && head ? await lintCommit(repo, head) : null, p.content);
    }
    rc.status = 200;
    const body = lintResult(result, !!p.include_jobs);
    if (p.dry_run && p.include_jobs) body.jobs = dryRunJobs(result.jobs);
    return body;
  });

  r.get('/projects/:id/ci/lint', async (rc) => {
    const project = loadProject(rc);
    if (!canDownloadCode(rc.svc, rc.user, project)) throw forbidden();
    requireMutuallyExclusive(rc.params, ['sha', 'content_ref']);
    requireMutuallyExclusive(rc.params, ['ref', 'dry_run_ref']);
    const p = declared(rc.params, {
      sha: t.string(),
      content_ref: t.string(),
      dry_run: t.boolean().default(false),
      include_jobs: t.boolean(),
      ref: t.string(),
      dry_run_ref: t.string(),
    });
    const repo = await repositoryWithCommits(rc.svc, project);
    if (!repo) throw notFound('Repository');
    const sha = await repo.resolveCommit(p.content_ref || p.sha || 'HEAD');
    if (!sha) throw notFound('Commit');
    const content = await readTextAt(repo, sha, ciConfigPath(project));
    const result = p.dry_run
      ? await dryRun(rc, project, p.dry_run_ref || p.ref || project.default_branch, content)
      : await lintInProject(rc.svc, rc.baseUrl, project, await lintCommit(repo, sha), content);
    const body = lintResult(result, !!p.include_jobs);
    if (p.dry_run && p.include_jobs) body.jobs = dryRunJobs(result.jobs);
    return body;
  });

  // The instance-level lint GitLab removed in 16.0; python-gitlab 3.12's `gl.lint()`,
  // `gl.ci_lint` and its CLI still call it, so Sandlab keeps answering it (without project context).
  // Anonymous callers are allowed, as on a GitLab with sign-up enabled.
  r.post('/ci/lint', (rc) => {
    const p = declared(rc.params, { content: t.string().required(), include_merged_yaml: t.boolean(), include_jobs: t.boolean() });
    const result = lintCiConfig(p.content, {
      readLocal: () => undefined,
      describeLocal: () => ({ blob: null, raw: null, context_project: null, context_sha: null }),
    });
    rc.status = 200;
    return legacyLintResult(result, !!p.include_merged_yaml, !!p.include_jobs);
  }, { auth: 'optional' });
}
