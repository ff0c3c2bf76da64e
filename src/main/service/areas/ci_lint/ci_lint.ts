import type { ServiceContext } from '../../context';
import type { Repository } from '../../git';
import type { Project } from '../core/projects';
import { projectSettings } from '../core/projects';
import { findNamespaceById } from '../core/namespaces';
import { filePathsAt, readTextAt } from '../repositories/lookup';
import { type LintContext, type LintResult, lintCiConfig } from './validator';

export const DEFAULT_CI_CONFIG_PATH = '.gitlab-ci.yml';

export const ciConfigPath = (project: Project): string =>
  (projectSettings(project).ci_config_path as string | undefined) || DEFAULT_CI_CONFIG_PATH;

/** The project's repository when it has commits (GitLab's `!empty_repo?`); null without git or commits. */
export async function repositoryWithCommits(svc: ServiceContext, project: Project): Promise<Repository | null> {
  return svc.git.hasCommits(project.id) ? svc.git.ensure(project) : null;
}

/** One commit of the project's repository as CI lint reads it: its file paths, and files read on demand. */
export interface LintCommit {
  repo: Repository;
  sha: string;
  paths: string[];
}

export async function lintCommit(repo: Repository, sha: string): Promise<LintCommit> {
  return { repo, sha, paths: await filePathsAt(repo, sha) };
}

/**
 * Lints `content` in the project's context: `include: local` reads the files of `commit` (none
 * when the repository is empty), as Gitlab::Ci::Lint reads them at its `sha`.
 *
 * The validator is synchronous and reads included files as it meets them, while git reads are
 * not: a lint that asks for a file not read yet is run again once that file is read, until it
 * asks for nothing new (one run per level of nested includes at most, each bounded by GitLab's
 * limit of 150 includes).
 */
export async function lintInProject(svc: ServiceContext, baseUrl: string, project: Project, commit: LintCommit | null, content: string | null | undefined): Promise<LintResult> {
  const ns = findNamespaceById(svc, project.namespace_id)!;
  const fullPath = `${ns.full_path}/${project.path}`;
  const known = new Set(commit?.paths ?? []);
  const texts = new Map<string, string>();
  for (;;) {
    const wanted = new Set<string>();
    const ctx: LintContext = {
      readLocal: (path) => {
        if (texts.has(path)) return texts.get(path);
        if (known.has(path)) wanted.add(path);
        return undefined;
      },
      listLocal: () => commit?.paths ?? [],
      describeLocal: (path) => ({
        blob: `${baseUrl}/${fullPath}/-/blob/${commit!.sha}/${path}`,
        raw: `${baseUrl}/${fullPath}/-/raw/${commit!.sha}/${path}`,
        context_project: fullPath,
        context_sha: commit!.sha,
      }),
    };
    const result = lintCiConfig(content, ctx);
    if (!wanted.size || !commit) return result;
    for (const path of wanted) texts.set(path, (await readTextAt(commit.repo, commit.sha, path)) ?? '');
  }
}
