import type { Router } from '../../http/route';
import { declared, requireMutuallyExclusive, t } from '../../http/params';
import { badRequest, forbidden, notFound } from '../../http/errors';
import { Access, effectiveProjectAccess, loadProject } from '../core/access';
import type { RequestContext } from '../../http/route';
import type { Project } from '../core/projects';
import {
  ciConfigPath, deleteFile, hasAnyFile, lintInProject, listFiles, normalizeFilePath, readFile, resolveRef, writeFile,
} from './ci_lint';
import { type LintResult, lintCiConfig } from './validator';
import { simulatePush } from './simulate';
import { findNamespaceById } from '../core/namespaces';
import { dryRunJobs, legacyLintResult, lintResult, projectFile } from './entities';

/** `download_code`: anyone who can read a public project, Reporter and up otherwise. */
function loadProjectForCode(rc: RequestContext): Project {
  const project = loadProject(rc);
  if (project.visibility !== 'public' && effectiveProjectAccess(rc.svc, rc.user, project) < Access.REPORTER) throw forbidden();
  return project;
}

/** A dry run simulates the pipeline a push to `ref` would create (rules, only/except, workflow). */
function dryRun(rc: RequestContext, project: Project, ref: string, result: LintResult): LintResult {
  const ns = findNamespaceById(rc.svc, project.namespace_id)!;
  return simulatePush(result, {
    ref,
    defaultBranch: project.default_branch,
    projectPath: `${ns.full_path}/${project.path}`,
    projectName: project.path,
    namespacePath: ns.full_path,
    projectId: project.id,
    files: listFiles(rc.svc, project, ref).map((f) => f.path),
  });
}

/** lib/api/lint.rb */
export function registerCiLintRoutes(r: Router): void {
  r.post('/projects/:id/ci/lint', (rc) => {
    const project = loadProject(rc, Access.DEVELOPER);
    const p = declared(rc.params, {
      content: t.string().required(),
      dry_run: t.boolean().default(false),
      include_jobs: t.boolean(),
      ref: t.string(),
    });
    const ref = p.ref || project.default_branch;
    const linted = lintInProject(rc.svc, rc.baseUrl, project, ref, p.content);
    const result = p.dry_run ? dryRun(rc, project, ref, linted) : linted;
    rc.status = 200;
    const body = lintResult(result, !!p.include_jobs);
    if (p.dry_run && p.include_jobs) body.jobs = dryRunJobs(result.jobs);
    return body;
  });

  r.get('/projects/:id/ci/lint', (rc) => {
    const project = loadProjectForCode(rc);
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
    if (!hasAnyFile(rc.svc, project)) throw notFound('Repository');
    const contentRef = resolveRef(rc.svc, project, p.content_ref || p.sha || project.default_branch);
    if (!contentRef) throw notFound('Commit');
    const content = readFile(rc.svc, project, contentRef, ciConfigPath(project))?.content;
    const linted = lintInProject(rc.svc, rc.baseUrl, project, contentRef, content);
    const result = p.dry_run ? dryRun(rc, project, p.dry_run_ref || p.ref || project.default_branch, linted) : linted;
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

  // Sandlab-only: files "committed" to a project at a ref (default: the default branch), read by
  // GET /ci/lint and `include: local` until Sandlab has repositories.
  r.get('/projects/:id/sandlab/files', (rc) => {
    const project = loadProjectForCode(rc);
    const p = declared(rc.params, { ref: t.string() });
    return listFiles(rc.svc, project, p.ref || project.default_branch).map(projectFile);
  });

  r.get('/projects/:id/sandlab/files/:file_path', (rc) => {
    const project = loadProjectForCode(rc);
    const p = declared(rc.params, { ref: t.string() });
    const path = normalizeFilePath(rc.path.file_path);
    const file = path && readFile(rc.svc, project, p.ref || project.default_branch, path);
    if (!file) throw notFound('File');
    return projectFile(file);
  });

  r.put('/projects/:id/sandlab/files/:file_path', (rc) => {
    const project = loadProject(rc, Access.DEVELOPER);
    const p = declared(rc.params, { content: t.string().required(), ref: t.string() });
    const path = normalizeFilePath(rc.path.file_path);
    if (!path) throw badRequest('file_path is invalid');
    return projectFile(writeFile(rc.svc, project, p.ref || project.default_branch, path, p.content));
  });

  r.delete('/projects/:id/sandlab/files/:file_path', (rc) => {
    const project = loadProject(rc, Access.DEVELOPER);
    const p = declared(rc.params, { ref: t.string() });
    const path = normalizeFilePath(rc.path.file_path);
    if (!path || !deleteFile(rc.svc, project, p.ref || project.default_branch, path)) throw notFound('File');
    return undefined;
  });
}
