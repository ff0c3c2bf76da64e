import type { RequestContext, Router } from '../../../http/route';
import { declared, t } from '../../../http/params';
import { apiError, forbidden, recordNotFound, unauthorized } from '../../../http/errors';
import { paginate, paginateArray, limitSql } from '../../../http/pagination';
import type { Repository } from '../../../git';
import { Access, effectiveProjectAccess, loadProject } from '../../core/access';
import { type MergeRequestRow, mergeRequestDetail } from '../../core/entities';
import type { Project } from '../../core/projects';
import { findMergeRequest } from '../../core/workitems';
import { canPushCode } from '../access';
import { commitEntity, diffEntity } from '../entities';
import { isMergeable, mergeMergeRequest, rebaseMergeRequest, writeMergeRef } from '../merge';
import { type MergeRequestDiffRow, latestMergeRequestDiff, versionCommits, versionDiffFiles } from '../merge_requests';

const BASE = '/projects/:id/merge_requests/:merge_request_iid';

interface Loaded {
  project: Project;
  mr: MergeRequestRow;
}

function loadMergeRequest(rc: RequestContext): Loaded {
  const project = loadProject(rc);
  return { project, mr: findMergeRequest(rc, project, rc.path.merge_request_iid) };
}

/** The repository, opened only when there is a version to read (merge requests on missing branches have none). */
async function versionRepository(rc: RequestContext, project: Project, version: MergeRequestDiffRow | undefined): Promise<Repository | null> {
  return version?.head_commit_sha ? rc.svc.git.ensure(project) : null;
}

/** Entities::MergeRequestDiff */
function versionEntity(v: MergeRequestDiffRow): Record<string, unknown> {
  return {
    id: v.id,
    head_commit_sha: v.head_commit_sha,
    base_commit_sha: v.base_commit_sha,
    start_commit_sha: v.start_commit_sha,
    created_at: v.created_at,
    merge_request_id: v.merge_request_id,
    state: v.state,
    real_size: v.real_size,
    patch_id_sha: v.patch_id_sha,
  };
}

export function registerMergeRequestDiffRoutes(r: Router): void {
  r.get(
    `${BASE}/commits`,
    async (rc) => {
      const { project, mr } = loadMergeRequest(rc);
      const version = latestMergeRequestDiff(rc.svc, mr.id);
      const repo = await versionRepository(rc, project, version);
      const commits = repo && version ? await versionCommits(repo, version) : [];
      return paginateArray(rc, commits).map((c) => commitEntity(rc, project, c));
    },
    { auth: 'optional' },
  );

  // Entities::MergeRequestChanges (deprecated in GitLab, still served): the merge request and its latest version's files.
  r.get(
    `${BASE}/changes`,
    async (rc) => {
      const q = declared(rc.params, { access_raw_diffs: t.boolean(), unidiff: t.boolean() });
      const { project, mr } = loadMergeRequest(rc);
      const version = latestMergeRequestDiff(rc.svc, mr.id);
      const repo = await versionRepository(rc, project, version);
      const files = repo && version ? await versionDiffFiles(repo, version) : [];
      return {
        ...mergeRequestDetail(rc, mr),
        changes: files.map((f) => diffEntity(f, { unidiff: q.unidiff ?? undefined })),
        overflow: false,
      };
    },
    { auth: 'optional' },
  );

  r.get(
    `${BASE}/diffs`,
    async (rc) => {
      const q = declared(rc.params, { unidiff: t.boolean() });
      const { project, mr } = loadMergeRequest(rc);
      const version = latestMergeRequestDiff(rc.svc, mr.id);
      const repo = await versionRepository(rc, project, version);
      const files = repo && version ? await versionDiffFiles(repo, version) : [];
      return paginateArray(rc, files).map((f) => diffEntity(f, { unidiff: q.unidiff ?? undefined, generatedFile: true }));
    },
    { auth: 'optional' },
  );

  r.get(
    `${BASE}/raw_diffs`,
    async (rc) => {
      const { project, mr } = loadMergeRequest(rc);
      const version = latestMergeRequestDiff(rc.svc, mr.id);
      const repo = await versionRepository(rc, project, version);
      const patch = repo && version?.base_commit_sha ? await repo.rawDiff(version.base_commit_sha, version.head_commit_sha!) : Buffer.alloc(0);
      return rc.reply.header('content-type', 'text/plain; charset=utf-8').header('content-length', String(patch.length)).send(patch);
    },
    { auth: 'optional' },
  );

  r.get(
    `${BASE}/versions`,
    (rc) => {
      const { mr } = loadMergeRequest(rc);
      const sql = 'FROM merge_request_diffs WHERE merge_request_id = ?';
      return paginate(rc, {
        count: () => (rc.svc.db.prepare(`SELECT count(*) AS n ${sql}`).get(mr.id) as { n: number }).n,
        rows: (limit, offset) => rc.svc.db.prepare(`SELECT * ${sql} ORDER BY id DESC ${limitSql(limit)} OFFSET ?`).all(mr.id, offset) as MergeRequestDiffRow[],
      }).map(versionEntity);
    },
    { auth: 'optional' },
  );

  // Entities::MergeRequestDiffFull: one version with its commits (newest first) and files.
  r.get(
    `${BASE}/versions/:version_id`,
    async (rc) => {
      const q = declared(rc.params, { unidiff: t.boolean() });
      const { project, mr } = loadMergeRequest(rc);
      const version = /^\d+$/.test(rc.path.version_id)
        ? (rc.svc.db.prepare('SELECT * FROM merge_request_diffs WHERE merge_request_id = ? AND id = ?').get(mr.id, Number(rc.path.version_id)) as MergeRequestDiffRow | undefined)
        : undefined;
      if (!version) throw recordNotFound();
      const repo = await versionRepository(rc, project, version);
      const commits = repo ? await versionCommits(repo, version) : [];
      const files = repo ? await versionDiffFiles(repo, version) : [];
      return {
        ...versionEntity(version),
        commits: commits.map((c) => commitEntity(rc, project, c)),
        diffs: files.map((f) => diffEntity(f, { unidiff: q.unidiff ?? undefined })),
      };
    },
    { auth: 'optional' },
  );

  // MergeabilityCheckService(recheck: true): the merge ref's commit, or 400 when the branches do not merge.
  r.get(`${BASE}/merge_ref`, async (rc) => {
    const { project, mr } = loadMergeRequest(rc);
    const sha = await writeMergeRef(rc.svc, project, await rc.svc.git.ensure(project), mr, rc.user);
    if (!sha) throw apiError(400, 'Merge request is not mergeable');
    return { commit_id: sha };
  });

  r.put(`${BASE}/merge`, async (rc) => {
    const user = rc.requireUser();
    const p = declared(rc.params, {
      merge_commit_message: t.string(),
      squash_commit_message: t.string(),
      squash: t.boolean(),
      should_remove_source_branch: t.boolean(),
      merge_when_pipeline_succeeds: t.boolean(),
      auto_merge: t.boolean(),
      sha: t.string(),
    });
    const { project, mr } = loadMergeRequest(rc);
    // `unauthorized! unless merge_request.can_be_merged_by?(current_user)`: GitLab answers 401 here.
    if (effectiveProjectAccess(rc.svc, user, project) < Access.DEVELOPER || !canPushCode(rc.svc, user, project)) throw unauthorized();
    if (!isMergeable(project, mr)) throw apiError(405, '405 Method Not Allowed');
    // check_sha_param!
    if (p.sha && p.sha !== mr.head_sha) throw apiError(409, `SHA does not match HEAD of source branch: ${mr.head_sha}`);
    const repo = await rc.svc.git.ensure(project);
    const merged = await mergeMergeRequest(rc.svc, project, repo, user, mr, {
      squash: p.squash ?? undefined,
      mergeCommitMessage: p.merge_commit_message ?? undefined,
      squashCommitMessage: p.squash_commit_message ?? undefined,
      shouldRemoveSourceBranch: p.should_remove_source_branch ?? undefined,
    });
    return mergeRequestDetail(rc, merged);
  });

  // Sandlab rebases at once (no worktree, no background job), so the answer already says it is done.
  r.put(`${BASE}/rebase`, async (rc) => {
    const user = rc.requireUser();
    declared(rc.params, { skip_ci: t.boolean() });
    const { project, mr } = loadMergeRequest(rc);
    const repo = await rc.svc.git.ensure(project);
    // authorize_push_to_merge_request!
    if (!(await repo.branchExists(mr.source_branch))) throw forbidden('Source branch does not exist');
    if (!canPushCode(rc.svc, user, project)) throw forbidden('Cannot push to source branch');
    await rebaseMergeRequest(rc.svc, project, repo, user, mr);
    rc.status = 202;
    return { rebase_in_progress: false };
  });
}
