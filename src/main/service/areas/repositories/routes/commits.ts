import type { RequestContext, Router } from '../../../http/route';
import type { MergeRequestRow } from '../../core/entities';
import { mergeRequests, withFields } from '../../core/entities';
import { committerOf } from '../people';
import { createCommit, moveRef } from '../writes';
import { latestMergeRequestDiff, versionCommits } from '../merge_requests';
import { declared, requireMutuallyExclusive, t } from '../../../http/params';
import { ApiError, forbidden, grapeError, notFound } from '../../../http/errors';
import { featureAvailable } from '../../core/feature-access';
import { paginateArray, readPage, setPaginationHeaders } from '../../../http/pagination';
import type { FileAction, Repository } from '../../../git';
import type { Commit } from '../../../git/commits';
import { isSafeTreePath } from '../../../git/names';
import type { Project } from '../../core/projects';
import { loadRepository, loadWritableRepository } from '../access';
import { commitDetail, commitEntity, diffEntity, fullTitle, statsOf, type CommitStats } from '../entities';
import { commitOr404, commitsById, refsContaining } from '../lookup';

const ACTIONS = ['create', 'delete', 'move', 'update', 'chmod'] as const;

export async function commitStats(repo: Repository, c: Commit): Promise<CommitStats> {
  return statsOf(await repo.diff(c.parents[0] ?? null, c.id));
}

/** `actions[]` of POST /repository/commits, checked as Grape declares them (`actions[0][file_path] is missing`). */
function readActions(raw: unknown): FileAction[] {
  const list = Array.isArray(raw) ? raw : raw && typeof raw === 'object' ? Object.values(raw) : null;
  if (!list) throw grapeError(400, 'actions is invalid');
  const errors: string[] = [];
  const actions: FileAction[] = [];
  list.forEach((item, i) => {
    const a = (item && typeof item === 'object' ? item : {}) as Record<string, unknown>;
    const at = (k: string) => `actions[${i}][${k}]`;
    const action = a.action === undefined ? undefined : String(a.action);
    if (action === undefined) errors.push(`${at('action')} is missing`);
    else if (!(ACTIONS as readonly string[]).includes(action)) errors.push(`${at('action')} does not have a valid value`);
    const path = a.file_path === undefined || a.file_path === null ? undefined : String(a.file_path);
    if (path === undefined) errors.push(`${at('file_path')} is missing`);
    else if (!isSafeTreePath(path)) errors.push(`${at('file_path')} should be a valid file path`);
    const encoding = a.encoding === undefined ? 'text' : String(a.encoding);
    if (!['text', 'base64'].includes(encoding)) errors.push(`${at('encoding')} does not have a valid value`);
    if (action === 'move' && (a.previous_path === undefined || a.previous_path === null)) errors.push(`${at('previous_path')} is missing`);
    if (errors.length || !path || !action) return;
    const content = a.content === undefined || a.content === null ? undefined : Buffer.from(String(a.content), encoding === 'base64' ? 'base64' : 'utf8');
    const lastCommitId = a.last_commit_id ? String(a.last_commit_id) : undefined;
    const executable = a.execute_filemode === undefined || a.execute_filemode === null ? undefined : ['true', '1', 'yes', 'on', 't'].includes(String(a.execute_filemode).toLowerCase());
    switch (action) {
      case 'create':
      case 'update':
        actions.push({ action, path, content: content ?? Buffer.alloc(0), executable, lastCommitId });
        break;
      case 'delete':
        actions.push({ action, path, lastCommitId });
        break;
      case 'move':
        actions.push({ action, path, previousPath: String(a.previous_path), content, lastCommitId });
        break;
      case 'chmod':
        actions.push({ action, path, executable: executable ?? false });
        break;
    }
  });
  if (errors.length) throw grapeError(400, errors.join(', '));
  return actions;
}

async function presentDetail(rc: RequestContext, project: Project, repo: Repository, c: Commit, withStats: boolean): Promise<Record<string, unknown>> {
  return commitDetail(rc, project, c, withStats ? await commitStats(repo, c) : null);
}

export function registerCommitRoutes(r: Router): void {
  r.get(
    '/projects/:id/repository/commits',
    async (rc) => {
      const q = declared(rc.params, {
        ref_name: t.string(),
        since: t.dateTime(),
        until: t.dateTime(),
        path: t.string(),
        author: t.string(),
        all: t.boolean(),
        with_stats: t.boolean(),
        first_parent: t.boolean(),
        order: t.string().values(['default', 'topo']).default('default'),
        trailers: t.boolean(),
      });
      const { project, repo } = await loadRepository(rc);
      const page = readPage(rc.params);
      let revs: string[];
      if (q.all) revs = (await repo.listRefs('heads')).map((b) => b.commitId);
      else {
        const sha = await repo.resolveCommit(q.ref_name || project.default_branch);
        revs = sha ? [sha] : [];
      }
      if (!revs.length) {
        setPaginationHeaders(rc, page, 0);
        return [];
      }
      const filter = {
        revs: [...new Set(revs)],
        path: q.path?.replace(/^\/+|\/+$/g, '') || undefined,
        since: q.since ?? undefined,
        until: q.until ?? undefined,
        author: q.author ?? undefined,
        firstParent: q.first_parent ?? undefined,
        order: q.order as 'default' | 'topo',
      };
      const all = await repo.revList(filter);
      const ids = all.slice(page.offset, page.offset + page.perPage);
      setPaginationHeaders(rc, page, all.length);
      const out: Record<string, unknown>[] = [];
      for (const c of await commitsById(repo, ids)) {
        out.push(q.with_stats ? withFields(commitEntity(rc, project, c), { stats: await commitStats(repo, c) }) : commitEntity(rc, project, c));
      }
      return out;
    },
    { auth: 'optional' },
  );

  r.post('/projects/:id/repository/commits', async (rc) => {
    const p = declared(rc.params, {
      branch: t.string().required(),
      commit_message: t.string().required(),
      actions: t.any().required(),
      start_branch: t.string(),
      start_sha: t.string(),
      start_project: t.idOrPath(),
      author_email: t.string(),
      author_name: t.string(),
      stats: t.boolean().default(true),
      force: t.boolean().default(false),
    });
    requireMutuallyExclusive(rc.params, ['start_branch', 'start_sha']);
    const actions = readActions(p.actions);
    const { project, repo, user } = await loadWritableRepository(rc, 'You are not allowed to push into this branch');
    const sha = await createCommit(rc.svc, project, repo, user, {
      branch: p.branch,
      startBranch: p.start_branch ?? null,
      startSha: p.start_sha ?? null,
      message: p.commit_message,
      actions,
      authorName: p.author_name,
      authorEmail: p.author_email,
      force: p.force,
    });
    return presentDetail(rc, project, repo, (await repo.commit(sha))!, p.stats);
  });

  r.get(
    '/projects/:id/repository/commits/:sha',
    async (rc) => {
      const q = declared(rc.params, { stats: t.boolean().default(true) });
      const { project, repo } = await loadRepository(rc);
      return presentDetail(rc, project, repo, await commitOr404(repo, rc.path.sha), q.stats);
    },
    { auth: 'optional', jobToken: true },
  );

  r.get(
    '/projects/:id/repository/commits/:sha/diff',
    async (rc) => {
      const q = declared(rc.params, { unidiff: t.boolean().default(false) });
      const { repo } = await loadRepository(rc);
      const c = await commitOr404(repo, rc.path.sha);
      const diffs = await repo.diff(c.parents[0] ?? null, c.id);
      return paginateArray(rc, diffs).map((d) => diffEntity(d, { unidiff: q.unidiff }));
    },
    { auth: 'optional' },
  );

  r.get(
    '/projects/:id/repository/commits/:sha/refs',
    async (rc) => {
      const q = declared(rc.params, { type: t.string().values(['branch', 'tag', 'all']).default('all') });
      const { repo } = await loadRepository(rc);
      const c = await commitOr404(repo, rc.path.sha);
      const refs: { type: string; name: string }[] = [];
      for (const [kind, type] of [['heads', 'branch'], ['tags', 'tag']] as const) {
        if (q.type !== 'all' && q.type !== type) continue;
        for (const name of await refsContaining(repo, c.id, kind)) refs.push({ type, name });
      }
      return paginateArray(rc, refs);
    },
    { auth: 'optional' },
  );

  // Commits::CherryPickService / RevertService: the change replayed onto the branch head as a new commit.
  for (const action of ['cherry_pick', 'revert'] as const) {
    r.post(`/projects/:id/repository/commits/:sha/${action}`, async (rc) => {
      const p = declared(rc.params, { branch: t.string().required().notBlank(), dry_run: t.boolean().default(false), message: t.string() });
      const { project, repo, user } = await loadWritableRepository(rc, 'You are not allowed to push into this branch');
      const commit = await commitOr404(repo, rc.path.sha);
      const head = await repo.refCommit(`refs/heads/${p.branch}`);
      if (!head) throw notFound('Branch');
      const merged = mergedMergeRequestOf(rc, project, commit);
      const person = committerOf(rc.svc, user);
      const tree = action === 'cherry_pick' ? await repo.cherryPickTree(commit, head, person) : await repo.revertTree(commit, head, person);
      const headTree = (await repo.commit(head))!.tree;
      if (!tree || tree === headTree) {
        const status = `${merged ? 'Merge request' : 'Commit'} ${action === 'cherry_pick' ? 'cherry-pick' : 'revert'} failed`;
        throw new ApiError(400, {
          message: `${status}: ${CHANGE_FAILED}`,
          error_code: tree ? 'empty' : 'conflict',
          ...(p.dry_run ? { dry_run: 'error' } : {}),
        });
      }
      if (p.dry_run) {
        rc.status = 200;
        return { dry_run: 'success' };
      }
      const message = p.message ?? (action === 'cherry_pick' ? await cherryPickMessage(rc, repo, commit, merged) : revertMessage(commit, merged));
      // Gitaly's UserCherryPick keeps the picked commit's author; a revert is the user's own.
      const author = action === 'cherry_pick' ? { ...commit.author } : person;
      const sha = await repo.commitTree(tree, [head], message, author, person);
      await moveRef(rc.svc, project, repo, user, `refs/heads/${p.branch}`, sha, head, 'Could not update the branch: it changed meanwhile');
      rc.status = 201;
      return commitEntity(rc, project, (await repo.commit(sha))!);
    });
  }

  r.get(
    '/projects/:id/repository/commits/:sha/merge_requests',
    async (rc) => {
      const q = declared(rc.params, { state: t.string() });
      const { project, repo } = await loadRepository(rc);
      // `authorize! :read_merge_request, user_project` before the commit is looked up (feature-access.ts).
      if (!featureAvailable(rc.svc, rc.user, project, 'MergeRequest')) throw forbidden();
      const commit = await commitOr404(repo, rc.path.sha);
      const ids = await mergeRequestIdsContaining(rc, project, repo, commit.id);
      const states = q.state ? [q.state] : null;
      const rows = ids
        .map((id) => rc.svc.db.prepare('SELECT * FROM merge_requests WHERE id = ?').get(id) as MergeRequestRow)
        .filter((m) => !states || states.includes(m.state));
      return mergeRequests(rc, paginateArray(rc, rows));
    },
    { auth: 'optional', jobToken: true },
  );

  r.get(
    '/projects/:id/repository/commits/:sha/signature',
    async (rc) => {
      const { repo } = await loadRepository(rc);
      const commit = await commitOr404(repo, rc.path.sha);
      const block = await repo.commitSignature(commit.id);
      if (!block) throw notFound('Signature');
      return commitSignatureEntity(block);
    },
    { auth: 'optional' },
  );
}

const CHANGE_FAILED =
  "Can't perform this action automatically. It may have already been done, or a more recent commit may have updated some of this content. Please perform this action locally.";

/** Commit#merged_merge_request: the merged merge request a merge commit closed, if any. */
function mergedMergeRequestOf(rc: RequestContext, project: Project, commit: Commit): MergeRequestRow | undefined {
  if (commit.parents.length < 2) return undefined;
  return rc.svc.db
    .prepare("SELECT * FROM merge_requests WHERE target_project_id = ? AND state = 'merged' AND merge_commit_sha = ? ORDER BY id LIMIT 1")
    .get(project.id, commit.id) as MergeRequestRow | undefined;
}

/** Commit#cherry_pick_message: the message, the origin, and a merged merge request's commits (newest last). */
async function cherryPickMessage(rc: RequestContext, repo: Repository, commit: Commit, merged: MergeRequestRow | undefined): Promise<string> {
  const body = [`(cherry picked from commit ${commit.id})`];
  const version = merged ? latestMergeRequestDiff(rc.svc, merged.id) : undefined;
  const commits = version ? await versionCommits(repo, version) : [];
  if (commits.length) {
    body.push('');
    for (const c of [...commits].reverse()) body.push(`${c.id.slice(0, 8)} ${fullTitle(c.message)}`);
  }
  return `${commit.message}\n\n${body.join('\n')}`;
}

/** Commit#revert_message */
function revertMessage(commit: Commit, merged: MergeRequestRow | undefined): string {
  const description = merged ? `This reverts merge request !${merged.iid}` : `This reverts commit ${commit.id}`;
  return `Revert "${fullTitle(commit.message).trim()}"\n\n${description}`;
}

/**
 * MergeRequestsFinder's `commit_sha`: merge requests whose latest version holds the commit, or
 * that it merged or squashed into the target.
 */
async function mergeRequestIdsContaining(rc: RequestContext, project: Project, repo: Repository, sha: string): Promise<number[]> {
  const candidates = rc.svc.db
    .prepare(
      `SELECT m.id, m.merge_commit_sha, m.squash_commit_sha, d.base_commit_sha, d.head_commit_sha
         FROM merge_requests m
         LEFT JOIN merge_request_diffs d ON d.id = (SELECT max(id) FROM merge_request_diffs WHERE merge_request_id = m.id)
        WHERE m.target_project_id = ? ORDER BY m.id DESC`,
    )
    .all(project.id) as { id: number; merge_commit_sha: string | null; squash_commit_sha: string | null; base_commit_sha: string | null; head_commit_sha: string | null }[];
  const out: number[] = [];
  for (const c of candidates) {
    if (c.merge_commit_sha === sha || c.squash_commit_sha === sha) out.push(c.id);
    else if (c.head_commit_sha && (await repo.isAncestor(sha, c.head_commit_sha)) && !(c.base_commit_sha && (await repo.isAncestor(sha, c.base_commit_sha)))) out.push(c.id);
  }
  return out;
}

/**
 * Entities::CommitSignature for a signed commit. Sandlab holds no GPG, SSH signing or X.509 keys,
 * so a signature is never verified: GitLab's status for a key it does not know.
 */
function commitSignatureEntity(block: string): Record<string, unknown> {
  if (block.includes('BEGIN SSH SIGNATURE')) {
    return { signature_type: 'SSH', signature: { verification_status: 'unknown_key', key: null }, commit_source: 'gitaly' };
  }
  if (block.includes('BEGIN SIGNED MESSAGE')) {
    return { signature_type: 'X509', signature: { verification_status: 'unverified', x509_certificate: null }, commit_source: 'gitaly' };
  }
  return {
    signature_type: 'PGP',
    signature: {
      gpg_key_id: null,
      gpg_key_primary_keyid: pgpIssuerKeyId(block),
      gpg_key_user_name: null,
      gpg_key_user_email: null,
      verification_status: 'unknown_key',
      gpg_key_subkey_id: null,
    },
    commit_source: 'gitaly',
  };
}

/** The issuer key id (16 hex digits, upper case) of an armored OpenPGP v4 signature, or null. */
function pgpIssuerKeyId(armored: string): string | null {
  const body = armored
    .split('\n')
    .filter((l) => l && !l.startsWith('-----') && !l.startsWith('=') && !/^[A-Za-z-]+: /.test(l))
    .join('');
  const bytes = Buffer.from(body, 'base64');
  // Packet header (new or old format), then a v4 signature: version, type, key and hash algorithms, subpackets.
  let i = 0;
  const tag = bytes[i++];
  if (tag === undefined || !(tag & 0x80)) return null;
  if (tag & 0x40) {
    const len = bytes[i++];
    if (len >= 192 && len < 224) i++;
    else if (len === 255) i += 4;
  } else i += [1, 2, 4, 0][tag & 3];
  if (bytes[i] !== 4) return null;
  i += 4;
  for (let area = 0; area < 2; area++) {
    const end = i + 2 + bytes.readUInt16BE(i);
    i += 2;
    while (i < end && end <= bytes.length) {
      let len = bytes[i++];
      if (len >= 192 && len < 255) len = ((len - 192) << 8) + bytes[i++] + 192;
      else if (len === 255) {
        len = bytes.readUInt32BE(i);
        i += 4;
      }
      const type = bytes[i] & 0x7f;
      if (type === 16) return bytes.subarray(i + 1, i + 9).toString('hex').toUpperCase();
      if (type === 33) return bytes.subarray(i + len - 8, i + len).toString('hex').toUpperCase();
      i += len;
    }
    i = end;
  }
  return null;
}
