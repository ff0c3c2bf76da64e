import type { RequestContext, Router } from '../../../http/route';
import { declared, requireMutuallyExclusive, t } from '../../../http/params';
import { grapeError } from '../../../http/errors';
import { paginateArray, readPage, setPaginationHeaders } from '../../../http/pagination';
import type { FileAction, Repository } from '../../../git';
import type { Commit } from '../../../git/commits';
import { isSafeTreePath } from '../../../git/names';
import type { Project } from '../../core/projects';
import { loadRepository, loadWritableRepository } from '../access';
import { commitDetail, commitEntity, diffEntity, statsOf, type CommitStats } from '../entities';
import { commitOr404, commitsById } from '../lookup';
import { createCommit } from '../writes';

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
        out.push(q.with_stats ? { ...commitEntity(rc, project, c), stats: await commitStats(repo, c) } : commitEntity(rc, project, c));
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
    { auth: 'optional' },
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
        const out = await repo.run(['for-each-ref', '--format=%(refname:lstrip=2)', `--contains=${c.id}`, `refs/${kind}/`]);
        for (const name of out.stdout.toString('utf8').split('\n').filter(Boolean)) refs.push({ type, name });
      }
      return paginateArray(rc, refs);
    },
    { auth: 'optional' },
  );
}
