import { PassThrough, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { ServiceContext } from '../../context';
import type { RequestContext, Router } from '../../http/route';
import type { Repository } from '../../git';
import { ZERO_SHA } from '../../git/names';
import { advertiseRefs, serviceRpc, type GitHttpService } from '../../git/smart_http';
import { canReadProject } from '../core/access';
import { type Project, findProjectByRef } from '../core/projects';
import { type User, findTokenByValue, findUserById, findUserByUsername, findUserByEmail, passwordMatches, tokenExpired, tokenScopes } from '../core/users';
import { canDownloadCode, canPushCode } from './access';
import { afterRefsChanged } from './refs_changed';

/** Who a git client authenticated as, and what its credential allows (Gitlab::Auth::Result). */
interface GitActor {
  user: User;
  download: boolean;
  push: boolean;
  /** Set for `gitlab-ci-token`: the job's project (its allowlist decides what the token reaches). */
  jobProjectId: number | null;
}

/** Plain-text answers of GitLab's git HTTP controllers and Gitlab::GitAccess. */
const MESSAGES = {
  accessDenied:
    "HTTP Basic: Access denied. If a password was provided for Git authentication, the password was incorrect or you're required to use a token instead of a password. If a token was provided, it was either incorrect, expired, or improperly scoped.",
  notFound: "The project you were looking for could not be found or you don't have permission to view it.",
  authDownload: 'You are not allowed to download code.',
  authUpload: 'You are not allowed to upload code.',
  download: 'You are not allowed to download code from this project.',
  upload: 'You are not allowed to push code to this project.',
  archived: "You can't push code to an archived project.",
};

class GitHttpRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const MAX_DEPTH = 21;

/** Smart HTTP at GitLab's URLs: `/<namespace...>/<project>.git/info/refs`, `.../git-upload-pack`, `.../git-receive-pack`. */
export function registerGitHttpRoutes(r: Router): void {
  for (let depth = 2; depth <= MAX_DEPTH; depth++) {
    const project = Array.from({ length: depth }, (_, i) => `/:s${i + 1}`).join('');
    r.rootRoute('GET', `${project}/info/refs`, infoRefs, { auth: 'none' });
    r.rootRoute('POST', `${project}/git-upload-pack`, (rc) => rpc(rc, 'git-upload-pack'), { auth: 'none' });
    r.rootRoute('POST', `${project}/git-receive-pack`, (rc) => rpc(rc, 'git-receive-pack'), { auth: 'none' });
  }
}

/** The project path of a git URL (`group/sub/project` from `/group/sub/project.git/info/refs`). */
function repositoryPath(rc: RequestContext, tail: string): { path: string; dotGit: boolean } | null {
  let segments: string[];
  try {
    segments = rc.pathname.slice(0, -tail.length).split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    return null;
  }
  const last = segments.length - 1;
  const dotGit = segments[last].endsWith('.git');
  if (dotGit) segments[last] = segments[last].slice(0, -4);
  return segments.length >= 2 && segments[last] ? { path: segments.join('/'), dotGit } : null;
}

async function infoRefs(rc: RequestContext): Promise<unknown> {
  const where = repositoryPath(rc, '/info/refs');
  const service = rc.params.service;
  if (where && !where.dotGit) {
    // GitLab redirects the URL without `.git` to the repository's URL; git follows it.
    const query = rc.req.url.includes('?') ? rc.req.url.slice(rc.req.url.indexOf('?')) : '';
    return rc.reply.redirect(`${rc.pathname.slice(0, -'/info/refs'.length)}.git/info/refs${query}`, 301);
  }
  if (service !== 'git-upload-pack' && service !== 'git-receive-pack') {
    return refuse(rc, new GitHttpRefusal(403, 'Git dumb HTTP protocol is not supported'));
  }
  return answer(rc, where, service, async (repo) => {
    const { output } = advertiseRefs(repo, service, header(rc, 'git-protocol'));
    rc.reply.header('content-type', `application/x-${service}-advertisement`).header('cache-control', 'no-cache');
    return rc.reply.send(output);
  });
}

async function rpc(rc: RequestContext, service: GitHttpService): Promise<unknown> {
  const where = repositoryPath(rc, `/${service}`);
  return answer(rc, where?.dotGit ? where : null, service, async (repo, project, actor) => {
    const body = rc.bodyStream;
    const input: Readable = /gzip/i.test(header(rc, 'content-encoding') ?? '') ? body.pipe(createGunzip()) : body;
    const call = serviceRpc(repo, service, input, header(rc, 'git-protocol'));
    // git may stop reading early (a broken or endless body): the rest of the body is read and
    // dropped, else the client's next request on this connection would wait behind it forever.
    void call.exit.then(() => {
      body.unpipe();
      body.resume();
    });
    const output = new PassThrough();
    call.output.pipe(output, { end: false });
    // The answer ends once the push has been taken in (events written, MRs refreshed), so a
    // client that pushed and then asks the API sees the result of its push.
    void call.exit.then(async ({ code }) => {
      try {
        if (service === 'git-receive-pack' && code === 0 && actor) await recordPush(rc.svc, repo, project, actor.user, call.updates);
      } catch (err) {
        console.error('[sandlab] after push:', err);
      } finally {
        output.end();
      }
    });
    rc.reply.header('content-type', `application/x-${service}-result`).header('cache-control', 'no-cache');
    return rc.reply.send(output);
  });
}

/** The updates of a push that took effect (a ref now where the client asked), processed as one change. */
async function recordPush(svc: ServiceContext, repo: Repository, project: Project, user: User, updates: { ref: string; oldSha: string; newSha: string }[]): Promise<void> {
  // Every ref read in one git call: a push of a thousand branches must not spawn a thousand.
  const listed = (await repo.run(['for-each-ref', '--format=%(objectname) %(refname)'])).stdout.toString();
  const current = new Map(listed.split('\n').filter(Boolean).map((line) => [line.slice(line.indexOf(' ') + 1), line.slice(0, line.indexOf(' '))]));
  const applied = updates.filter((u) => (u.newSha === ZERO_SHA ? !current.has(u.ref) : current.get(u.ref) === u.newSha));
  await afterRefsChanged(svc, project.id, user.id, applied, repo);
}

/** Authenticates, authorizes (Gitlab::GitAccess) and hands the repository to `serve`, or answers GitLab's refusal. */
async function answer(
  rc: RequestContext,
  where: { path: string } | null,
  service: GitHttpService,
  serve: (repo: Repository, project: Project, actor: GitActor | null) => Promise<unknown>,
): Promise<unknown> {
  try {
    const actor = authenticateGitClient(rc);
    const push = service === 'git-receive-pack';
    const project = where ? findProjectByRef(rc.svc, where.path) : undefined;
    const user = actor?.user ?? null;
    const visible = !!project && canReadProject(rc.svc, user, project) && (actor?.jobProjectId == null || !rc.svc.jobTokenCanAccess || rc.svc.jobTokenCanAccess(actor.jobProjectId, project));
    // Anonymous callers are asked for credentials unless a public download will do.
    if (!actor && (push || !visible || !canDownloadCode(rc.svc, null, project!))) throw challenge();
    if (!visible) throw new GitHttpRefusal(404, MESSAGES.notFound);
    if (push) {
      if (!actor!.push) throw new GitHttpRefusal(403, MESSAGES.authUpload);
      if (!canDownloadCode(rc.svc, user, project!) || !canPushCode(rc.svc, user, project!)) {
        throw new GitHttpRefusal(403, project!.archived && canDownloadCode(rc.svc, user, project!) ? MESSAGES.archived : MESSAGES.upload);
      }
    } else {
      if (actor && !actor.download) throw new GitHttpRefusal(403, MESSAGES.authDownload);
      if (!canDownloadCode(rc.svc, user, project!)) throw new GitHttpRefusal(403, MESSAGES.download);
    }
    if (!rc.svc.git.available) throw new GitHttpRefusal(503, rc.svc.git.reason!);
    return await serve(await rc.svc.git.ensure(project!), project!, actor);
  } catch (err) {
    if (err instanceof GitHttpRefusal) return refuse(rc, err);
    throw err;
  }
}

const challenge = (): GitHttpRefusal => new GitHttpRefusal(401, MESSAGES.accessDenied);

function refuse(rc: RequestContext, err: GitHttpRefusal): unknown {
  if (err.status === 401) rc.reply.header('www-authenticate', 'Basic realm="GitLab"');
  return rc.reply.code(err.status).header('content-type', 'text/plain; charset=utf-8').send(`${err.message}\n`);
}

function header(rc: RequestContext, name: string): string | undefined {
  const v = rc.req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Gitlab::Auth.find_for_git_client over HTTP Basic: `gitlab-ci-token` + a job token; any username
 * (`oauth2` is usual) + a personal access token, whose scopes say what git may do; or a user's
 * own username (or email) and password. Null when no credentials were sent.
 */
function authenticateGitClient(rc: RequestContext): GitActor | null {
  const authz = header(rc, 'authorization');
  const m = authz ? /^Basic\s+(.+)$/i.exec(authz) : null;
  if (!m) return null;
  const decoded = Buffer.from(m[1].trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const login = colon < 0 ? decoded : decoded.slice(0, colon);
  const password = colon < 0 ? '' : decoded.slice(colon + 1);
  if (!password) throw challenge();
  const svc = rc.svc;
  if (login === 'gitlab-ci-token') {
    const identity = svc.resolveJobToken?.(password);
    if (!identity) throw challenge();
    return { user: identity.user, download: true, push: false, jobProjectId: identity.projectId };
  }
  const token = findTokenByValue(svc, password);
  if (token) {
    const user = findUserById(svc, token.user_id);
    if (token.revoked || tokenExpired(svc, token) || !user || user.state !== 'active') throw challenge();
    const scopes = tokenScopes(token);
    const push = scopes.includes('api') || scopes.includes('write_repository');
    return { user, push, download: push || scopes.includes('read_repository'), jobProjectId: null };
  }
  const user = findUserByUsername(svc, login) ?? findUserByEmail(svc, login);
  if (user && user.state === 'active' && passwordMatches(user.password_digest, password)) return { user, download: true, push: true, jobProjectId: null };
  throw challenge();
}
