import { createHash } from 'node:crypto';
import type { ServiceContext } from '../../context';
import { inTransaction } from '../../db/connection';
import type { Project } from '../core/projects';
import { projectSettings } from '../core/projects';
import { findNamespaceById } from '../core/namespaces';
import { isoTime } from '../core/time';
import { type LintContext, type LintResult, lintCiConfig } from './validator';

export const DEFAULT_CI_CONFIG_PATH = '.gitlab-ci.yml';

export interface ProjectFile {
  project_id: number;
  ref: string;
  path: string;
  content: string;
  updated_at: string;
}

/** File paths are repository-relative: no leading slash, no `..`, no empty segments. */
export function normalizeFilePath(path: string): string | null {
  const p = path.replace(/^\/+/, '');
  if (!p || p.split('/').some((seg) => seg === '' || seg === '.' || seg === '..')) return null;
  return p;
}

export function hasAnyFile(svc: ServiceContext, project: Project): boolean {
  return !!svc.db.prepare('SELECT 1 FROM ci_project_files WHERE project_id = ? LIMIT 1').get(project.id);
}

/** A branch/tag name with files, or the stand-in commit SHA of one (see refSha); null when unknown. */
export function resolveRef(svc: ServiceContext, project: Project, ref: string): string | null {
  if (svc.db.prepare('SELECT 1 FROM ci_project_files WHERE project_id = ? AND ref = ? LIMIT 1').get(project.id, ref)) return ref;
  if (!/^[0-9a-f]{7,40}$/.test(ref)) return null;
  const refs = svc.db.prepare('SELECT DISTINCT ref FROM ci_project_files WHERE project_id = ? ORDER BY ref').all(project.id) as { ref: string }[];
  return refs.find((r) => refSha(svc, project, r.ref).startsWith(ref))?.ref ?? null;
}

export function readFile(svc: ServiceContext, project: Project, ref: string, path: string): ProjectFile | undefined {
  return svc.db.prepare('SELECT * FROM ci_project_files WHERE project_id = ? AND ref = ? AND path = ?').get(project.id, ref, path) as
    | ProjectFile
    | undefined;
}

export function listFiles(svc: ServiceContext, project: Project, ref: string): ProjectFile[] {
  return svc.db.prepare('SELECT * FROM ci_project_files WHERE project_id = ? AND ref = ? ORDER BY path').all(project.id, ref) as ProjectFile[];
}

export function writeFile(svc: ServiceContext, project: Project, ref: string, path: string, content: string): ProjectFile {
  return inTransaction(svc.db, () => {
    svc.db
      .prepare(
        `INSERT INTO ci_project_files (project_id, ref, path, content, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (project_id, ref, path) DO UPDATE SET content = excluded.content, updated_at = excluded.updated_at`,
      )
      .run(project.id, ref, path, content, isoTime(svc.now()));
    return readFile(svc, project, ref, path)!;
  });
}

export function deleteFile(svc: ServiceContext, project: Project, ref: string, path: string): boolean {
  return inTransaction(svc.db, () => svc.db.prepare('DELETE FROM ci_project_files WHERE project_id = ? AND ref = ? AND path = ?').run(project.id, ref, path).changes > 0);
}

export const ciConfigPath = (project: Project): string =>
  (projectSettings(project).ci_config_path as string | undefined) || DEFAULT_CI_CONFIG_PATH;

/** A stable stand-in for the ref's commit SHA: a digest of the files stored at it. */
export function refSha(svc: ServiceContext, project: Project, ref: string): string {
  const h = createHash('sha1');
  for (const f of listFiles(svc, project, ref)) h.update(`${f.path}\0${f.content}\0`);
  return h.digest('hex');
}

/** Lints `content` in the project's context: `include:local` reads the project's files at `ref`. */
export function lintInProject(svc: ServiceContext, baseUrl: string, project: Project, ref: string, content: string | null | undefined): LintResult {
  const ns = findNamespaceById(svc, project.namespace_id)!;
  const fullPath = `${ns.full_path}/${project.path}`;
  let sha: string | null = null;
  const ctx: LintContext = {
    readLocal: (path) => readFile(svc, project, ref, path)?.content,
    listLocal: () => listFiles(svc, project, ref).map((f) => f.path),
    describeLocal: (path) => {
      sha ??= refSha(svc, project, ref);
      return {
        blob: `${baseUrl}/${fullPath}/-/blob/${sha}/${path}`,
        raw: `${baseUrl}/${fullPath}/-/raw/${sha}/${path}`,
        context_project: fullPath,
        context_sha: sha,
      };
    },
  };
  return lintCiConfig(content, ctx);
}
