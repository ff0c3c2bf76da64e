import { createHash } from 'node:crypto';
import type { Commit } from '../../git/commits';
import { commitTrailers } from '../../git/commits';
import type { DiffFile } from '../../git/diff';
import type { RefInfo, TreeEntry } from '../../git';
import type { EntityContext } from '../core/entities';
import { projectWebUrl, withFields } from '../core/entities';
import { findNamespaceById } from '../core/namespaces';
import type { Project } from '../core/projects';

export function projectUrl(ec: EntityContext, project: Project): string {
  return projectWebUrl(ec, project, findNamespaceById(ec.svc, project.namespace_id)!);
}

/** The first line of a message (Commit#full_title). */
export function fullTitle(message: string): string {
  return message.replace(/^\s+/, '').split('\n')[0]?.trimEnd() ?? '';
}

/** Entities::Commit */
export function commitEntity(ec: EntityContext, project: Project, c: Commit): Record<string, unknown> {
  const { trailers, extended } = commitTrailers(c.message);
  return {
    id: c.id,
    short_id: c.id.slice(0, 8),
    created_at: c.committer.date,
    parent_ids: c.parents,
    title: fullTitle(c.message),
    message: c.message,
    author_name: c.author.name,
    author_email: c.author.email,
    authored_date: c.author.date,
    committer_name: c.committer.name,
    committer_email: c.committer.email,
    committed_date: c.committer.date,
    trailers,
    extended_trailers: extended,
    web_url: `${projectUrl(ec, project)}/-/commit/${c.id}`,
  };
}

export interface CommitStats {
  additions: number;
  deletions: number;
  total: number;
}

export function statsOf(diffs: DiffFile[]): CommitStats {
  const additions = diffs.reduce((n, d) => n + d.additions, 0);
  const deletions = diffs.reduce((n, d) => n + d.deletions, 0);
  return { additions, deletions, total: additions + deletions };
}

/** A row of ci_pipelines: the external pipeline commit statuses are grouped into. */
export interface PipelineRow {
  id: number;
  iid: number;
  ref: string;
  sha: string;
  status: string;
  source: string;
  created_at: string;
  updated_at: string;
}

/** Entities::CommitDetail: the commit, its stats when asked, and the (pipeline-less) status fields. */
export function commitDetail(ec: EntityContext, project: Project, c: Commit, stats: CommitStats | null): Record<string, unknown> {
  const pipeline = ec.svc.db.prepare('SELECT * FROM ci_pipelines WHERE project_id = ? AND sha = ? ORDER BY id DESC LIMIT 1').get(project.id, c.id) as PipelineRow | undefined;
  return withFields(stats ? withFields(commitEntity(ec, project, c), { stats }) : commitEntity(ec, project, c), {
    status: pipeline?.status ?? null,
    project_id: project.id,
    // Entities::Ci::PipelineBasic of the newest pipeline (the statuses external systems posted).
    last_pipeline: pipeline
      ? {
          id: pipeline.id,
          iid: pipeline.iid,
          project_id: project.id,
          sha: pipeline.sha,
          ref: pipeline.ref,
          status: pipeline.status,
          source: pipeline.source,
          created_at: pipeline.created_at,
          updated_at: pipeline.updated_at,
          web_url: `${projectUrl(ec, project)}/-/pipelines/${pipeline.id}`,
        }
      : null,
  });
}

/** Entities::Branch */
export function branchEntity(
  ec: EntityContext,
  project: Project,
  b: RefInfo,
  commit: Commit,
  facts: { merged: boolean; canPush: boolean },
): Record<string, unknown> {
  return {
    name: b.name,
    commit: commitEntity(ec, project, commit),
    merged: facts.merged,
    // Sandlab has no protected branches: every branch is open to Developers.
    protected: false,
    developers_can_push: false,
    developers_can_merge: false,
    can_push: facts.canPush,
    default: b.name === project.default_branch,
    web_url: `${projectUrl(ec, project)}/-/tree/${b.name}`,
  };
}

/** Entities::Tag */
export function tagEntity(ec: EntityContext, project: Project, t: RefInfo, commit: Commit | null): Record<string, unknown> {
  return {
    name: t.name,
    message: t.tagMessage ?? '',
    target: t.tagObjectId ?? t.commitId,
    commit: commit ? commitEntity(ec, project, commit) : null,
    release: null,
    protected: false,
    created_at: t.tagger?.date || null,
  };
}

/** Entities::TreeObject */
export function treeEntry(e: TreeEntry): Record<string, unknown> {
  return { id: e.id, name: e.name, type: e.type, path: e.path, mode: e.mode };
}

/** Gitlab::Git::Diff#unidiff: the patch with its `---`/`+++` header lines. */
function unidiff(d: DiffFile): string {
  if (!d.diff || d.binary) return d.diff;
  return `--- ${d.newFile ? '/dev/null' : `a/${d.oldPath}`}\n+++ ${d.deletedFile ? '/dev/null' : `b/${d.newPath}`}\n${d.diff}`;
}

/** Entities::Diff (`generated_file` where the endpoint shows it: merge request diffs). */
export function diffEntity(d: DiffFile, opts: { unidiff?: boolean; generatedFile?: boolean } = {}): Record<string, unknown> {
  return {
    diff: opts.unidiff ? unidiff(d) : d.diff,
    new_path: d.newPath,
    old_path: d.oldPath,
    a_mode: d.aMode,
    b_mode: d.bMode,
    new_file: d.newFile,
    renamed_file: d.renamedFile,
    deleted_file: d.deletedFile,
    ...(opts.generatedFile ? { generated_file: false } : {}),
  };
}

/** The fields of GET /repository/files/:file_path (also sent as X-Gitlab-* headers). */
export function fileEntity(f: { path: string; size: number; content: Buffer; ref: string; blobId: string; commitId: string; lastCommitId: string; mode: string }): Record<string, unknown> {
  return {
    file_name: f.path.slice(f.path.lastIndexOf('/') + 1),
    file_path: f.path,
    size: f.size,
    encoding: 'base64',
    content_sha256: createHash('sha256').update(f.content).digest('hex'),
    ref: f.ref,
    blob_id: f.blobId,
    commit_id: f.commitId,
    last_commit_id: f.lastCommitId,
    execute_filemode: f.mode === '100755',
  };
}
