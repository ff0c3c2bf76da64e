import type { Readable } from 'node:stream';
import type { RequestContext, Router } from '../../../http/route';
import { declared, t } from '../../../http/params';
import { grapeError, notFound } from '../../../http/errors';
import type { FileAction, Repository } from '../../../git';
import { isSafeTreePath } from '../../../git/names';
import { loadRepository, loadWritableRepository } from '../access';
import { commitEntity, fileEntity } from '../entities';
import { commitOr404, commitsById } from '../lookup';
import { createCommit } from '../writes';

const BASE = '/projects/:id/repository/files/:file_path';

/** `file_path: true` (API::Validations::Validators::FilePath): relative, no traversal. */
function filePath(rc: RequestContext): string {
  const path = rc.path.file_path;
  if (!isSafeTreePath(path)) throw grapeError(400, 'file_path should be a valid file path');
  return path;
}

/** assign_file_vars!: the commit at `ref` (404 Commit), the blob at the path (404 File). */
async function loadFile(rc: RequestContext, ref: string) {
  const { project, repo } = await loadRepository(rc);
  const path = filePath(rc);
  const commit = await commitOr404(repo, ref);
  const entry = await repo.entryAt(commit.id, path);
  if (!entry || entry.type !== 'blob') throw notFound('File');
  const lastCommitId = (await repo.revList({ revs: [commit.id], path, max: 1 }))[0] ?? commit.id;
  return { project, repo, path, commit, entry, lastCommitId };
}

/** The blob fields as GitLab's X-Gitlab-* headers (`X-Gitlab-Blob-Id`, ...). */
function setFileHeaders(rc: RequestContext, fields: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(fields)) {
    rc.reply.header(`x-gitlab-${k.split('_').map((w) => w[0].toUpperCase() + w.slice(1)).join('-')}`, String(v));
  }
}

async function fileFields(rc: RequestContext, ref: string) {
  const f = await loadFile(rc, ref);
  const content = (await f.repo.blob(f.entry.id)) ?? Buffer.alloc(0);
  const fields = fileEntity({ path: f.path, size: content.length, content, ref, blobId: f.entry.id, commitId: f.commit.id, lastCommitId: f.lastCommitId, mode: f.entry.mode });
  return { ...f, content, fields };
}

/** A blob's bytes with GitLab's raw headers (text/plain, inline, the file's name); a stream when asked by id. */
export function sendRaw(rc: RequestContext, name: string, size: number, body: Buffer | Readable): unknown {
  return rc.reply
    .header('content-type', 'text/plain; charset=utf-8')
    .header('content-disposition', `inline; filename="${name.replace(/["\\\r\n]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(name)}`)
    .header('content-length', String(size))
    .header('cache-control', 'no-cache')
    .send(body);
}

/** Streams a blob by id (`git cat-file blob`), never holding it whole. */
export function streamBlob(rc: RequestContext, repo: Repository, blobId: string, name: string, size: number): unknown {
  const child = repo.catBlob(blobId);
  child.stderr!.resume();
  return sendRaw(rc, name, size, child.stdout!);
}

const writeSpec = () => ({
  branch: t.string().required().notBlank(),
  commit_message: t.string().required().notBlank(),
  start_branch: t.string(),
  author_email: t.string(),
  author_name: t.string(),
});
const contentSpec = () => ({
  content: t.string().required(),
  encoding: t.string().values(['base64', 'text']).default('text'),
  execute_filemode: t.boolean(),
});

async function commitFileAction(rc: RequestContext, p: { branch: string; commit_message: string; start_branch?: string | null; author_email?: string | null; author_name?: string | null }, action: FileAction): Promise<void> {
  const { project, repo, user } = await loadWritableRepository(rc);
  await createCommit(rc.svc, project, repo, user, {
    branch: p.branch,
    startBranch: p.start_branch ?? p.branch,
    message: p.commit_message,
    actions: [action],
    authorEmail: p.author_email ?? undefined,
    authorName: p.author_name ?? undefined,
  });
}

export function registerFileRoutes(r: Router): void {
  r.get(
    BASE,
    async (rc) => {
      const q = declared(rc.params, { ref: t.string().required().notBlank() });
      const f = await fileFields(rc, q.ref);
      setFileHeaders(rc, f.fields);
      return { ...f.fields, content: f.content.toString('base64') };
    },
    { auth: 'optional' },
  );

  r.get(
    `${BASE}/raw`,
    async (rc) => {
      const q = declared(rc.params, { ref: t.string().notBlank(), lfs: t.boolean() });
      const { project } = await loadRepository(rc);
      const f = await fileFields(rc, q.ref ?? project.default_branch);
      setFileHeaders(rc, f.fields);
      return sendRaw(rc, f.path.slice(f.path.lastIndexOf('/') + 1), f.content.length, f.content);
    },
    { auth: 'optional', jobToken: true },
  );

  r.get(
    `${BASE}/blame`,
    async (rc) => {
      const q = declared(rc.params, { ref: t.string().required().notBlank(), range: t.hash() });
      const f = await loadFile(rc, q.ref);
      let ranges = await f.repo.blame(f.commit.id, f.path);
      if (q.range) {
        const start = Number(q.range.start);
        const end = Number(q.range.end);
        const errors: string[] = [];
        if (!Number.isInteger(start) || start < 1) errors.push(q.range.start === undefined ? 'range[start] is missing' : 'range[start] does not have a valid value');
        if (!Number.isInteger(end) || end < 1) errors.push(q.range.end === undefined ? 'range[end] is missing' : 'range[end] does not have a valid value');
        if (errors.length) throw grapeError(400, errors.join(', '));
        if (end < start) throw grapeError(400, 'range[end] must be greater than or equal to range[start]');
        let line = 1;
        ranges = ranges
          .map((range) => {
            const first = line;
            line += range.lines.length;
            return { commit: range.commit, lines: range.lines.filter((_, i) => first + i >= start && first + i <= end) };
          })
          .filter((range) => range.lines.length);
      }
      const commits = new Map((await commitsById(f.repo, [...new Set(ranges.map((x) => x.commit))])).map((c) => [c.id, c]));
      return ranges.map((range) => ({ commit: commitEntity(rc, f.project, commits.get(range.commit)!), lines: range.lines }));
    },
    { auth: 'optional' },
  );

  r.post(BASE, async (rc) => {
    const path = filePath(rc);
    const p = declared(rc.params, { ...writeSpec(), ...contentSpec() });
    const content = Buffer.from(p.content, p.encoding === 'base64' ? 'base64' : 'utf8');
    await commitFileAction(rc, p, { action: 'create', path, content, executable: p.execute_filemode ?? undefined });
    return { file_path: path, branch: p.branch };
  });

  r.put(BASE, async (rc) => {
    const path = filePath(rc);
    const p = declared(rc.params, { ...writeSpec(), ...contentSpec(), last_commit_id: t.string() });
    const content = Buffer.from(p.content, p.encoding === 'base64' ? 'base64' : 'utf8');
    await commitFileAction(rc, p, { action: 'update', path, content, executable: p.execute_filemode ?? undefined, lastCommitId: p.last_commit_id ?? undefined });
    return { file_path: path, branch: p.branch };
  });

  r.delete(BASE, async (rc) => {
    const path = filePath(rc);
    const p = declared(rc.params, { ...writeSpec(), last_commit_id: t.string() });
    await commitFileAction(rc, p, { action: 'delete', path, lastCommitId: p.last_commit_id ?? undefined });
    return undefined;
  });
}
