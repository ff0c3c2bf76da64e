import type { Router } from '../../../http/route';
import { declared, t } from '../../../http/params';
import { apiError, notFound } from '../../../http/errors';
import { paginateArray } from '../../../http/pagination';
import { isSafeTreePath } from '../../../git/names';
import { childExit } from '../../../git/runtime';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadRepository } from '../access';
import { loadProject } from '../../core/access';
import { repositoryLanguages } from '../languages';
import { commitEntity, diffEntity, projectUrl, treeEntry } from '../entities';
import { commitsById } from '../lookup';
import { streamBlob } from './files';

/** `archive.<format>` as GitLab names them, and what git writes for each. */
const ARCHIVE_FORMATS: Record<string, 'tar.gz' | 'tar' | 'zip' | 'tar.bz2'> = {
  'tar.gz': 'tar.gz',
  tgz: 'tar.gz',
  gz: 'tar.gz',
  tar: 'tar',
  zip: 'zip',
  'tar.bz2': 'tar.bz2',
  tbz: 'tar.bz2',
  tbz2: 'tar.bz2',
  tb2: 'tar.bz2',
  bz2: 'tar.bz2',
};

export function registerRepositoryRoutes(r: Router): void {
  // API::Projects: the project's languages (Projects::RepositoryLanguagesService), for whoever can read the project.
  r.get(
    '/projects/:id/languages',
    async (rc) => {
      const project = loadProject(rc);
      const repo = await rc.svc.git.ensure(project);
      const sha = project.default_branch ? await repo.resolveCommit(project.default_branch) : null;
      return sha ? await repositoryLanguages(repo, sha) : {};
    },
    { auth: 'optional' },
  );

  r.get(
    '/projects/:id/repository/tree',
    async (rc) => {
      const q = declared(rc.params, { ref: t.string(), path: t.string(), recursive: t.boolean().default(false), pagination: t.string().values(['legacy', 'keyset', 'none']), page_token: t.string() });
      const { project, repo } = await loadRepository(rc);
      const path = (q.path ?? '').replace(/^\/+|\/+$/g, '');
      const sha = await repo.resolveCommit(q.ref || project.default_branch);
      const entries = sha && (path === '' || isSafeTreePath(path)) ? await repo.tree(sha, path, q.recursive) : null;
      if (!entries) throw notFound('Tree');
      const from = q.page_token ? entries.findIndex((e) => e.id === q.page_token || e.path === q.page_token) + 1 : 0;
      return paginateArray(rc, entries.slice(from)).map(treeEntry);
    },
    { auth: 'optional' },
  );

  r.get(
    '/projects/:id/repository/blobs/:sha',
    async (rc) => {
      const { repo } = await loadRepository(rc);
      const content = await repo.blob(rc.path.sha);
      if (!content) throw notFound('Blob');
      return { size: content.length, encoding: 'base64', content: content.toString('base64'), sha: rc.path.sha };
    },
    { auth: 'optional' },
  );

  r.get(
    '/projects/:id/repository/blobs/:sha/raw',
    async (rc) => {
      const { repo } = await loadRepository(rc);
      const obj = /^[0-9a-f]{40}$/.test(rc.path.sha) ? await repo.run(['cat-file', '-t', rc.path.sha], { okCodes: [1, 128] }) : null;
      if (!obj || obj.stdout.toString().trim() !== 'blob') throw notFound('Blob');
      const size = Number((await repo.run(['cat-file', '-s', rc.path.sha])).stdout.toString().trim());
      return streamBlob(rc, repo, rc.path.sha, rc.path.sha, size);
    },
    { auth: 'optional' },
  );

  const archive = async (rc: Parameters<Parameters<Router['get']>[1]>[0]) => {
    const q = declared(rc.params, { sha: t.string(), format: t.string(), path: t.string(), include_lfs_blobs: t.boolean(), exclude_paths: t.any() });
    const formatName = rc.path.format ?? q.format ?? 'tar.gz';
    const format = ARCHIVE_FORMATS[formatName];
    const { project, repo } = await loadRepository(rc);
    const ref = q.sha || project.default_branch;
    const sha = format ? await repo.resolveCommit(ref) : null;
    const path = q.path?.replace(/^\/+|\/+$/g, '');
    if (!sha || (path && (!isSafeTreePath(path) || !(await repo.entryAt(sha, path))))) throw notFound('File');
    // Gitlab::Workhorse.send_git_archive: <project>-<ref>-<sha>[-<path>], the ref's slashes as dashes.
    const refPart = ref === sha ? sha : `${ref.replace(/\//g, '-')}-${sha}`;
    const name = `${project.path}-${refPart}${path ? `-${path.replace(/\//g, '-')}` : ''}`;
    const child = repo.archive(sha, format, name, path || undefined);
    void childExit(child);
    return rc.reply
      .header('content-type', 'application/octet-stream')
      .header('content-disposition', `attachment; filename="${name}.${formatName}"`)
      .header('content-transfer-encoding', 'binary')
      .send(child.stdout);
  };

  // Project snapshots: the bare repository as a tar (Gitaly's GetSnapshot), for administrators.
  r.get('/projects/:id/snapshot', async (rc) => {
    rc.requireAdmin();
    const q = declared(rc.params, { wiki: t.boolean().default(false) });
    const { repo } = await loadRepository(rc);
    // Sandlab projects have no wiki, so no wiki repository to snapshot.
    if (q.wiki) throw notFound('Wiki repository');
    const entries = ['HEAD', 'packed-refs', 'shallow', 'refs', 'objects'].filter((e) => existsSync(join(repo.path, e)));
    const child = spawn('tar', ['-cf', '-', '-C', repo.path, ...entries], { stdio: ['ignore', 'pipe', 'ignore'] });
    void childExit(child);
    return rc.reply
      .header('content-type', 'application/x-tar')
      .header('content-disposition', 'attachment; filename="snapshot.tar"')
      .header('content-transfer-encoding', 'binary')
      .header('cache-control', 'private')
      .send(child.stdout);
  });
  r.get('/projects/:id/repository/archive', archive, { auth: 'optional' });
  r.get('/projects/:id/repository/archive.:format', archive, { auth: 'optional' });

  r.get(
    '/projects/:id/repository/compare',
    async (rc) => {
      const q = declared(rc.params, { from: t.string().required(), to: t.string().required(), from_project_id: t.integer(), straight: t.boolean().default(false), unidiff: t.boolean().default(false) });
      const { project, repo } = await loadRepository(rc);
      const from = await repo.resolveCommit(q.from);
      const to = await repo.resolveCommit(q.to);
      if (!from || !to) throw notFound('Ref');
      // Straight compares the two commits; otherwise what `to` adds since it left `from` (from...to).
      const base = q.straight ? from : ((await repo.mergeBase(from, to)) ?? from);
      const ids = await repo.revList({ revs: [to], exclude: [from], reverse: true });
      const commits = await commitsById(repo, ids);
      const head = await repo.commit(to);
      return {
        commit: commits.length ? commitEntity(rc, project, head!) : null,
        commits: commits.map((c) => commitEntity(rc, project, c)),
        diffs: (await repo.diff(base, to)).map((d) => diffEntity(d, { unidiff: q.unidiff })),
        compare_timeout: false,
        compare_same_ref: q.from === q.to,
        web_url: `${projectUrl(rc, project)}/-/compare/${q.from}...${q.to}`,
      };
    },
    { auth: 'optional' },
  );

  r.get(
    '/projects/:id/repository/contributors',
    async (rc) => {
      const q = declared(rc.params, {
        ref: t.string(),
        order_by: t.string().values(['name', 'email', 'commits']).default('commits'),
        sort: t.string().values(['asc', 'desc']).default('asc'),
      });
      const { project, repo } = await loadRepository(rc);
      const sha = await repo.resolveCommit(q.ref || project.default_branch);
      const byEmail = new Map<string, { name: string; email: string; commits: number; additions: number; deletions: number }>();
      if (sha) {
        const log = await repo.run(['log', '--no-merges', '--format=%aN%x00%aE', sha], { timeoutMs: 120_000 });
        for (const line of log.stdout.toString('utf8').split('\n').filter(Boolean)) {
          const [name, email] = line.split('\0');
          const key = email.toLowerCase();
          const row = byEmail.get(key) ?? { name, email, commits: 0, additions: 0, deletions: 0 };
          row.commits++;
          byEmail.set(key, row);
        }
      }
      const dir = q.sort === 'desc' ? -1 : 1;
      const key = q.order_by as 'name' | 'email' | 'commits';
      const rows = [...byEmail.values()].sort((a, b) => dir * (a[key] < b[key] ? -1 : a[key] > b[key] ? 1 : 0));
      return paginateArray(rc, rows);
    },
    { auth: 'optional' },
  );

  r.get(
    '/projects/:id/repository/merge_base',
    async (rc) => {
      const q = declared(rc.params, { refs: t.array(t.string()).required() });
      const { project, repo } = await loadRepository(rc);
      if (q.refs.length < 2) throw apiError(400, 'Provide at least 2 refs');
      const shas: string[] = [];
      const unknown: string[] = [];
      for (const ref of q.refs) {
        const sha = await repo.resolveCommit(ref);
        if (sha) shas.push(sha);
        else unknown.push(ref);
      }
      if (unknown.length) throw apiError(400, `Could not find ${unknown.length === 1 ? 'ref' : 'refs'}: ${unknown.join(', ')}`);
      const base = await repo.mergeBase(...shas);
      const commit = base ? await repo.commit(base) : null;
      if (!commit) throw notFound('Merge Base');
      return commitEntity(rc, project, commit);
    },
    { auth: 'optional' },
  );
}
