import { emptyRepository } from './git';
import { StandInServer, basicAuth, bearerToken, sleep, type StandInRequest, type StandInResponse } from './server';

/**
 * A stand-in for provider B server's REST API 1.0 (Bitbucket Server / Data Center) under
 * `/rest/api/1.0`: Basic auth (username + personal access token) or a Bearer token, paged answers
 * `{size, limit, isLastPage, start, nextPageStart, values}` driven by `start`/`limit`, its
 * `{"errors": [...]}` bodies, and 429 + `Retry-After` when rate limited.
 */

export interface BSUser {
  name: string;
  emailAddress: string | null;
  displayName: string;
}

export interface BSComment {
  id: number;
  text: string;
  author: string;
  createdDate: number;
  updatedDate?: number;
  /** An inline comment: on a line of a file in the diff. */
  anchor?: { path: string; line: number; lineType: 'ADDED' | 'REMOVED' | 'CONTEXT'; fileType?: 'FROM' | 'TO' };
  replies?: BSComment[];
}

export interface BSPull {
  id: number;
  title: string;
  description?: string;
  state: 'OPEN' | 'DECLINED' | 'MERGED';
  author: string;
  from: { branch: string; commit: string };
  to: { branch: string; commit: string };
  createdDate: number;
  updatedDate?: number;
  closedDate?: number;
  /** Who merged it (a MERGED activity). */
  mergedBy?: string;
  comments?: BSComment[];
}

export interface BSRepo {
  projectKey: string;
  /** The bare repository its clone URL serves over git's smart HTTP (an empty one when not given). */
  git?: string;
  slug: string;
  name: string;
  pulls?: BSPull[];
  /** A slow repository: every list page of it answers after this many milliseconds. */
  delayMs?: number;
}

export interface BSProject {
  key: string;
  name: string;
  description?: string | null;
  public?: boolean;
}

const ERROR = (message: string, exceptionName: string) => ({ errors: [{ context: null, message, exceptionName }] });

export class ProviderBServerStandIn extends StandInServer {
  readonly users = new Map<string, BSUser>();
  /** username -> token */
  readonly credentials = new Map<string, string>();
  readonly projects: BSProject[] = [];
  readonly repos: BSRepo[] = [];
  /** When set, the next answers are 429 with this Retry-After (seconds). */
  rateLimited: { retryAfter: number; times: number } | null = null;

  addUser(u: BSUser, token?: string): BSUser {
    this.users.set(u.name, u);
    if (token) this.credentials.set(u.name, token);
    return u;
  }

  addProject(p: BSProject): BSProject {
    this.projects.push(p);
    return p;
  }

  addRepo(r: BSRepo): BSRepo {
    this.repos.push(r);
    this.repositories.set(`/scm/${r.projectKey.toLowerCase()}/${r.slug}`, r.git ?? emptyRepository());
    return r;
  }

  private authenticated(req: StandInRequest): string | null {
    const basic = basicAuth(req);
    if (basic) return this.credentials.get(basic.user) === basic.password ? basic.user : null;
    const token = bearerToken(req);
    for (const [user, t] of this.credentials) if (t === token) return user;
    return null;
  }

  /** Git over HTTP: the username and its token (or password) as HTTP Basic. */
  protected gitAuthorized(req: StandInRequest): boolean {
    const basic = basicAuth(req);
    return !!basic && this.credentials.get(basic.user) === basic.password;
  }

  protected async handle(req: StandInRequest): Promise<StandInResponse> {
    const prefix = '/rest/api/1.0';
    if (!req.path.startsWith(prefix)) return { status: 404, raw: 'Not Found' };
    if (!this.authenticated(req)) {
      return {
        status: 401,
        body: ERROR('Authentication failed. Please check your credentials and try again.', 'com.atlassian.bitbucket.auth.IncorrectPasswordAuthenticationException'),
      };
    }
    if (this.rateLimited && this.rateLimited.times > 0) {
      this.rateLimited.times--;
      return { status: 429, headers: { 'retry-after': String(this.rateLimited.retryAfter) }, body: ERROR('Too many requests', 'com.atlassian.bitbucket.ratelimit.RateLimitedException') };
    }
    const path = req.path.slice(prefix.length);
    let m: RegExpExecArray | null;
    if (path === '/repos') return this.paged(req, this.repos.map((r) => this.repoJson(r)));
    if ((m = /^\/projects\/([^/]+)\/repos\/([^/]+)(\/.*)?$/.exec(path))) {
      const project = this.projects.find((p) => p.key === m![1]);
      if (!project) return { status: 404, body: ERROR(`Project ${m[1]} does not exist.`, 'com.atlassian.bitbucket.project.NoSuchProjectException') };
      const repo = this.repos.find((r) => r.projectKey === project.key && r.slug === m![2]);
      if (!repo) return { status: 404, body: ERROR(`Repository ${m[1]}/${m[2]} does not exist.`, 'com.atlassian.bitbucket.repository.NoSuchRepositoryException') };
      const rest = m[3] ?? '';
      if (rest === '') return { status: 200, body: this.repoJson(repo) };
      if (repo.delayMs) await sleep(repo.delayMs);
      if (rest === '/pull-requests') {
        const state = (req.query.get('state') ?? 'OPEN').toUpperCase();
        const pulls = (repo.pulls ?? []).filter((p) => state === 'ALL' || p.state === state).sort((a, b) => b.id - a.id);
        return this.paged(req, pulls.map((p) => this.pullJson(repo, p)));
      }
      const act = /^\/pull-requests\/(\d+)\/activities$/.exec(rest);
      const pull = act && (repo.pulls ?? []).find((p) => p.id === Number(act[1]));
      if (pull) return this.paged(req, this.activities(pull));
      return { status: 404, body: ERROR('Not found', 'com.atlassian.bitbucket.NoSuchEntityException') };
    }
    return { status: 404, body: ERROR('Not found', 'com.atlassian.bitbucket.NoSuchEntityException') };
  }

  /** `start`/`limit` paging as Bitbucket Server answers it. */
  private paged(req: StandInRequest, values: unknown[]): StandInResponse {
    const start = Math.max(0, Number(req.query.get('start') ?? 0) || 0);
    const limit = Math.min(1000, Math.max(1, Number(req.query.get('limit') ?? 25) || 25));
    const page = values.slice(start, start + limit);
    const isLastPage = start + limit >= values.length;
    const body: Record<string, unknown> = { size: page.length, limit, isLastPage, values: page, start };
    if (!isLastPage) body.nextPageStart = start + limit;
    return { status: 200, body };
  }

  private userJson(name: string): Record<string, unknown> {
    const u = this.users.get(name) ?? { name, emailAddress: null, displayName: name };
    return { name: u.name, emailAddress: u.emailAddress, id: [...this.users.keys()].indexOf(name) + 1, displayName: u.displayName, active: true, slug: u.name, type: 'NORMAL' };
  }

  private projectJson(p: BSProject): Record<string, unknown> {
    return {
      key: p.key,
      id: this.projects.indexOf(p) + 1,
      name: p.name,
      description: p.description ?? null,
      public: !!p.public,
      type: 'NORMAL',
      links: { self: [{ href: `${this.url}/projects/${p.key}` }] },
    };
  }

  repoJson(r: BSRepo): Record<string, unknown> {
    const project = this.projects.find((p) => p.key === r.projectKey)!;
    return {
      slug: r.slug,
      id: this.repos.indexOf(r) + 1,
      name: r.name,
      scmId: 'git',
      state: 'AVAILABLE',
      statusMessage: 'Available',
      forkable: true,
      project: this.projectJson(project),
      public: !!project.public,
      links: {
        clone: [
          { href: `${this.url}/scm/${r.projectKey.toLowerCase()}/${r.slug}.git`, name: 'http' },
          { href: `ssh://git@127.0.0.1:7999/${r.projectKey.toLowerCase()}/${r.slug}.git`, name: 'ssh' },
        ],
        self: [{ href: `${this.url}/projects/${r.projectKey}/repos/${r.slug}/browse` }],
      },
    };
  }

  private pullJson(repo: BSRepo, p: BSPull): Record<string, unknown> {
    const ref = (x: { branch: string; commit: string }) => ({
      id: `refs/heads/${x.branch}`,
      displayId: x.branch,
      latestCommit: x.commit,
      repository: this.repoJson(repo),
    });
    return {
      id: p.id,
      version: 1,
      title: p.title,
      description: p.description,
      state: p.state,
      open: p.state === 'OPEN',
      closed: p.state !== 'OPEN',
      createdDate: p.createdDate,
      updatedDate: p.updatedDate ?? p.createdDate,
      ...(p.closedDate ? { closedDate: p.closedDate } : {}),
      fromRef: ref(p.from),
      toRef: ref(p.to),
      locked: false,
      author: { user: this.userJson(p.author), role: 'AUTHOR', approved: false, status: 'UNAPPROVED' },
      reviewers: [],
      participants: [],
      links: { self: [{ href: `${this.url}/projects/${repo.projectKey}/repos/${repo.slug}/pull-requests/${p.id}` }] },
    };
  }

  /** Newest first, as Bitbucket Server lists activities. */
  private activities(p: BSPull): unknown[] {
    const out: Record<string, unknown>[] = [];
    let id = p.id * 1000;
    const comment = (c: BSComment): Record<string, unknown> => ({
      id: c.id,
      version: 0,
      text: c.text,
      author: this.userJson(c.author),
      createdDate: c.createdDate,
      updatedDate: c.updatedDate ?? c.createdDate,
      comments: (c.replies ?? []).map(comment),
    });
    for (const c of p.comments ?? []) {
      const activity: Record<string, unknown> = { id: ++id, createdDate: c.createdDate, user: this.userJson(c.author), action: 'COMMENTED', commentAction: 'ADDED', comment: comment(c) };
      if (c.anchor) {
        activity.commentAnchor = {
          fromHash: p.to.commit,
          toHash: p.from.commit,
          line: c.anchor.line,
          lineType: c.anchor.lineType,
          fileType: c.anchor.fileType ?? (c.anchor.lineType === 'REMOVED' ? 'FROM' : 'TO'),
          path: c.anchor.path,
          diffType: 'EFFECTIVE',
          orphaned: false,
        };
      }
      out.push(activity);
    }
    if (p.state === 'MERGED') out.push({ id: ++id, createdDate: p.closedDate ?? p.createdDate, user: this.userJson(p.mergedBy ?? p.author), action: 'MERGED' });
    out.push({ id: ++id, createdDate: p.createdDate, user: this.userJson(p.author), action: 'OPENED' });
    return out.sort((a, b) => (b.createdDate as number) - (a.createdDate as number));
  }
}
