import { emptyRepository } from './git';
import { StandInServer, basicAuth, bearerToken, sleep, slicePage, type StandInRequest, type StandInResponse } from './server';

/**
 * A stand-in for provider A's REST API v3 (GitHub), shaped like the real one where Sandlab reads
 * it: served at the root (as the public API host) and under `/api/v3` (as an enterprise host),
 * `page`/`per_page` pagination with `Link` headers, GitHub's error bodies, and the rate-limit
 * headers on every answer (`X-RateLimit-*`; 403 when the budget is spent, 429 + `Retry-After`
 * for a secondary limit).
 */

export interface AUser {
  login: string;
  id: number;
  /** The public e-mail `GET /users/:login` shows; null when private. */
  email: string | null;
  name?: string;
}

export interface ALabel {
  name: string;
  color: string;
  description?: string | null;
}

export interface AMilestone {
  number: number;
  title: string;
  description?: string | null;
  state?: 'open' | 'closed';
  due_on?: string | null;
  created_at?: string;
  updated_at?: string;
  closed_at?: string | null;
}

export interface AIssue {
  number: number;
  title: string;
  body?: string | null;
  state?: 'open' | 'closed';
  user: string;
  labels?: string[];
  milestone?: number | null;
  assignees?: string[];
  created_at?: string;
  updated_at?: string;
  closed_at?: string | null;
}

export interface APull extends AIssue {
  head: { ref: string; sha: string };
  base: { ref: string; sha: string };
  merged_at?: string | null;
  merged_by?: string | null;
  draft?: boolean;
}

export interface AIssueComment {
  id: number;
  /** The issue or pull request number it belongs to. */
  number: number;
  user: string;
  body: string;
  created_at?: string;
  updated_at?: string;
}

export interface AReviewComment {
  id: number;
  pull: number;
  user: string;
  body: string;
  path: string;
  line: number;
  side?: 'LEFT' | 'RIGHT';
  commit_id: string;
  diff_hunk?: string;
  in_reply_to_id?: number;
  created_at?: string;
  updated_at?: string;
}

export interface ARepo {
  id: number;
  /** The bare repository its clone URL serves over git's smart HTTP (an empty one when not given). */
  git?: string;
  owner: string;
  name: string;
  private?: boolean;
  description?: string | null;
  default_branch?: string;
  has_wiki?: boolean;
  labels?: ALabel[];
  milestones?: AMilestone[];
  issues?: AIssue[];
  pulls?: APull[];
  comments?: AIssueComment[];
  reviewComments?: AReviewComment[];
  collaborators?: { login: string; permission: 'admin' | 'maintain' | 'write' | 'triage' | 'read' }[];
  /** A slow repository: every list page of it answers after this many milliseconds. */
  delayMs?: number;
  /** Logins whose tokens get 404 for this repository (no access). */
  hiddenFrom?: string[];
  /** A failing provider: this path under the repository (such as `/issues`) answers this error. */
  failing?: { path: string; status: number; message: string };
}

export interface AGist {
  id: string;
  owner: string;
  description: string;
  public: boolean;
  files: Record<string, string>;
  created_at?: string;
  updated_at?: string;
}

const T0 = '2024-01-02T03:04:05Z';
const DOCS = 'https://docs.github.com/rest';

export class ProviderAStandIn extends StandInServer {
  readonly users = new Map<string, AUser>();
  readonly repos: ARepo[] = [];
  readonly gists: AGist[] = [];
  /** A slow gists list: each page answers after this many milliseconds. */
  gistsDelayMs = 0;
  /** Files uploaded to issues and comments, served at `/user-attachments/assets/<name>` to a known token. */
  readonly attachments = new Map<string, Buffer>();
  /** token -> login */
  readonly tokens = new Map<string, string>();
  /** The core rate limit every token shares here: a budget that each counted request spends. */
  rateLimit = { limit: 5000, remaining: 5000, resetAt: Math.floor(Date.now() / 1000) + 3600 };
  /** When set, the next answers (to paths matching `path`, if given) are a secondary rate limit: 429 with this Retry-After (seconds). */
  secondaryLimit: { retryAfter: number; times: number; path?: RegExp } | null = null;

  addUser(u: Omit<AUser, 'id'> & { id?: number }, token?: string): AUser {
    const user = { id: u.id ?? this.users.size + 1001, ...u };
    this.users.set(user.login, user);
    if (token) this.tokens.set(token, user.login);
    return user;
  }

  addRepo(r: ARepo): ARepo {
    this.repos.push(r);
    this.repositories.set(`/${r.owner}/${r.name}`, r.git ?? emptyRepository());
    return r;
  }

  /** An attachment's URL as GitHub writes it into Markdown. */
  attachmentUrl(name: string): string {
    return `${this.url}/user-attachments/assets/${name}`;
  }

  addGist(g: AGist): AGist {
    this.gists.push(g);
    return g;
  }

  /** Git over HTTP takes a token as the Basic username or password. */
  protected gitAuthorized(req: StandInRequest): boolean {
    const basic = basicAuth(req);
    return !!basic && (this.tokens.has(basic.user) || this.tokens.has(basic.password));
  }

  protected async handle(req: StandInRequest): Promise<StandInResponse> {
    // The same API answers at the root (public host) and under /api/v3 (an enterprise host).
    const prefix = req.path.startsWith('/api/v3/') || req.path === '/api/v3' ? '/api/v3' : '';
    const path = req.path.slice(prefix.length) || '/';
    const base = `${this.url}${prefix}`;
    if (path.startsWith('/raw/')) return this.raw(path);
    const login = this.tokens.get(bearerToken(req) ?? '');
    if (!login) return { status: 401, body: { message: 'Bad credentials', documentation_url: DOCS } };
    if (path.startsWith('/user-attachments/assets/')) {
      const bytes = this.attachments.get(path.slice('/user-attachments/assets/'.length));
      return bytes ? { status: 200, raw: bytes, headers: { 'content-type': 'application/octet-stream' } } : { status: 404, raw: 'Not Found' };
    }

    if (path === '/rate_limit') return this.answer({ resources: { core: this.rateBody() }, rate: this.rateBody() });
    if (this.secondaryLimit && this.secondaryLimit.times > 0 && (this.secondaryLimit.path ?? /./).test(path)) {
      this.secondaryLimit.times--;
      return {
        status: 429,
        headers: { ...this.rateHeaders(), 'retry-after': String(this.secondaryLimit.retryAfter) },
        body: { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.', documentation_url: DOCS },
      };
    }
    if (this.rateLimit.remaining <= 0) {
      return {
        status: 403,
        headers: this.rateHeaders(),
        body: { message: `API rate limit exceeded for user ID ${this.users.get(login)!.id}.`, documentation_url: DOCS },
      };
    }
    this.rateLimit.remaining--;

    let m: RegExpExecArray | null;
    if (path === '/user') return this.answer(this.userJson(login, base, true));
    if (path === '/user/repos') return this.list(req, base, this.repos.filter((r) => this.visible(r, login)).map((r) => this.repoJson(r, base)));
    if ((m = /^\/users\/([^/]+)$/.exec(path))) {
      return this.users.has(m[1]) ? this.answer(this.userJson(m[1], base, true)) : this.notFound();
    }
    if (path === '/gists' && this.gistsDelayMs) await sleep(this.gistsDelayMs);
    if (path === '/gists') return this.list(req, base, this.gists.filter((g) => g.owner === login).map((g) => this.gistJson(g, base)));
    if ((m = /^\/repositories\/(\d+)(\/.*)?$/.exec(path))) {
      const repo = this.repos.find((r) => r.id === Number(m![1]));
      return this.repoRoute(req, base, login, repo, m[2] ?? '');
    }
    if ((m = /^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/.exec(path))) {
      const repo = this.repos.find((r) => r.owner === m![1] && r.name === m![2]);
      return this.repoRoute(req, base, login, repo, m[3] ?? '');
    }
    return this.notFound();
  }

  private async repoRoute(req: StandInRequest, base: string, login: string, repo: ARepo | undefined, rest: string): Promise<StandInResponse> {
    if (!repo || !this.visible(repo, login)) return this.notFound();
    if (rest === '') return this.answer(this.repoJson(repo, base));
    if (repo.delayMs) await sleep(repo.delayMs);
    if (repo.failing?.path === rest) return { status: repo.failing.status, headers: this.rateHeaders(), body: { message: repo.failing.message, documentation_url: DOCS } };
    const repoUrl = `${base}/repos/${repo.owner}/${repo.name}`;
    let m: RegExpExecArray | null;
    switch (rest) {
      case '/labels':
        return this.list(req, base, (repo.labels ?? []).map((l, i) => this.labelJson(repo, l, i, repoUrl)));
      case '/milestones': {
        const state = req.query.get('state') ?? 'open';
        const all = (repo.milestones ?? []).filter((ms) => state === 'all' || (ms.state ?? 'open') === state);
        return this.list(req, base, all.map((ms) => this.milestoneJson(repo, ms, repoUrl)));
      }
      case '/issues': {
        // Like GitHub, the issues list holds pull requests too (with a `pull_request` member).
        const state = req.query.get('state') ?? 'open';
        const items = [...(repo.issues ?? []), ...(repo.pulls ?? [])]
          .filter((i) => state === 'all' || (i.state ?? 'open') === state)
          .sort((a, b) => a.number - b.number)
          .map((i) => this.issueJson(repo, i, repoUrl, base));
        return this.list(req, base, items);
      }
      case '/pulls': {
        const state = req.query.get('state') ?? 'open';
        const items = (repo.pulls ?? []).filter((p) => state === 'all' || (p.state ?? 'open') === state).map((p) => this.pullJson(repo, p, repoUrl, base, false));
        return this.list(req, base, items);
      }
      case '/issues/comments':
        return this.list(req, base, (repo.comments ?? []).map((c) => this.commentJson(c, repoUrl, base)));
      case '/pulls/comments':
        return this.list(req, base, (repo.reviewComments ?? []).map((c) => this.reviewCommentJson(c, repoUrl, base)));
      case '/collaborators':
        return this.list(
          req,
          base,
          (repo.collaborators ?? []).map((c) => ({ ...this.userJson(c.login, base, false), role_name: c.permission, permissions: permissionFlags(c.permission) })),
        );
    }
    if ((m = /^\/issues\/(\d+)\/comments$/.exec(rest))) {
      const n = Number(m[1]);
      return this.list(req, base, (repo.comments ?? []).filter((c) => c.number === n).map((c) => this.commentJson(c, repoUrl, base)));
    }
    if ((m = /^\/pulls\/(\d+)$/.exec(rest))) {
      const pull = (repo.pulls ?? []).find((p) => p.number === Number(m![1]));
      return pull ? this.answer(this.pullJson(repo, pull, repoUrl, base, true)) : this.notFound();
    }
    return this.notFound();
  }

  private visible(repo: ARepo, login: string): boolean {
    return !(repo.hiddenFrom ?? []).includes(login);
  }

  private raw(path: string): StandInResponse {
    const m = /^\/raw\/([^/]+)\/(.+)$/.exec(path);
    const gist = m && this.gists.find((g) => g.id === m[1]);
    if (!gist || !(m![2] in gist.files)) return { status: 404, raw: '404: Not Found' };
    return { status: 200, raw: gist.files[m![2]], headers: { 'content-type': 'text/plain; charset=utf-8' } };
  }

  rateHeaders(): Record<string, string> {
    const { limit, remaining, resetAt } = this.rateLimit;
    return {
      'x-ratelimit-limit': String(limit),
      'x-ratelimit-remaining': String(Math.max(0, remaining)),
      'x-ratelimit-reset': String(resetAt),
      'x-ratelimit-used': String(limit - Math.max(0, remaining)),
      'x-ratelimit-resource': 'core',
    };
  }

  private rateBody(): Record<string, number> {
    const { limit, remaining, resetAt } = this.rateLimit;
    return { limit, remaining: Math.max(0, remaining), reset: resetAt, used: limit - Math.max(0, remaining) };
  }

  private answer(body: unknown, headers: Record<string, string> = {}): StandInResponse {
    return { status: 200, body, headers: { ...this.rateHeaders(), ...headers } };
  }

  private notFound(): StandInResponse {
    return { status: 404, headers: this.rateHeaders(), body: { message: 'Not Found', documentation_url: DOCS } };
  }

  /** One page of a list with GitHub's `Link` header (first/prev/next/last as they apply). */
  private list(req: StandInRequest, base: string, items: unknown[]): StandInResponse {
    const perPage = Math.min(100, Math.max(1, Number(req.query.get('per_page') ?? 30) || 30));
    const page = Math.max(1, Number(req.query.get('page') ?? 1) || 1);
    const last = Math.max(1, Math.ceil(items.length / perPage));
    const link = (p: number, rel: string): string => {
      const q = new URLSearchParams(req.query);
      q.set('page', String(p));
      q.set('per_page', String(perPage));
      return `<${base}${req.path.replace(/^\/api\/v3/, '')}?${q}>; rel="${rel}"`;
    };
    const links: string[] = [];
    if (page > 1) links.push(link(page - 1, 'prev'));
    if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'));
    if (page > 1) links.push(link(1, 'first'));
    return this.answer(slicePage(items, page, perPage), links.length ? { link: links.join(', ') } : {});
  }

  private userJson(login: string, base: string, full: boolean): Record<string, unknown> {
    const u = this.users.get(login) ?? { login, id: 0, email: null };
    const out: Record<string, unknown> = {
      login: u.login,
      id: u.id,
      node_id: `U_${u.id}`,
      avatar_url: `${this.url}/avatars/${u.id}`,
      url: `${base}/users/${u.login}`,
      html_url: `${this.url}/${u.login}`,
      type: 'User',
      site_admin: false,
    };
    if (full) Object.assign(out, { name: u.name ?? u.login, email: u.email, created_at: T0, updated_at: T0 });
    return out;
  }

  repoJson(r: ARepo, base: string): Record<string, unknown> {
    return {
      id: r.id,
      node_id: `R_${r.id}`,
      name: r.name,
      full_name: `${r.owner}/${r.name}`,
      private: !!r.private,
      visibility: r.private ? 'private' : 'public',
      owner: this.userJson(r.owner, base, false),
      html_url: `${this.url}/${r.owner}/${r.name}`,
      description: r.description ?? null,
      fork: false,
      url: `${base}/repos/${r.owner}/${r.name}`,
      clone_url: `${this.url}/${r.owner}/${r.name}.git`,
      default_branch: r.default_branch ?? 'main',
      has_issues: true,
      has_wiki: r.has_wiki ?? false,
      size: 42,
      archived: false,
      created_at: T0,
      updated_at: T0,
      pushed_at: T0,
    };
  }

  private labelJson(r: ARepo, l: ALabel, i: number, repoUrl: string): Record<string, unknown> {
    return { id: r.id * 1000 + i, node_id: `LA_${i}`, url: `${repoUrl}/labels/${encodeURIComponent(l.name)}`, name: l.name, color: l.color, default: false, description: l.description ?? null };
  }

  private milestoneJson(r: ARepo, ms: AMilestone, repoUrl: string): Record<string, unknown> {
    return {
      url: `${repoUrl}/milestones/${ms.number}`,
      id: r.id * 1000 + ms.number,
      number: ms.number,
      title: ms.title,
      description: ms.description ?? null,
      state: ms.state ?? 'open',
      due_on: ms.due_on ?? null,
      created_at: ms.created_at ?? T0,
      updated_at: ms.updated_at ?? T0,
      closed_at: ms.closed_at ?? null,
    };
  }

  private issueJson(r: ARepo, i: AIssue | APull, repoUrl: string, base: string): Record<string, unknown> {
    const ms = i.milestone ? (r.milestones ?? []).find((x) => x.number === i.milestone) : undefined;
    const out: Record<string, unknown> = {
      url: `${repoUrl}/issues/${i.number}`,
      html_url: `${this.url}/${r.owner}/${r.name}/issues/${i.number}`,
      id: r.id * 100000 + i.number,
      number: i.number,
      title: i.title,
      body: i.body ?? null,
      state: i.state ?? 'open',
      user: this.userJson(i.user, base, false),
      labels: (i.labels ?? []).map((name) => this.labelJson(r, (r.labels ?? []).find((l) => l.name === name) ?? { name, color: 'ededed' }, 0, repoUrl)),
      assignee: i.assignees?.[0] ? this.userJson(i.assignees[0], base, false) : null,
      assignees: (i.assignees ?? []).map((a) => this.userJson(a, base, false)),
      milestone: ms ? this.milestoneJson(r, ms, repoUrl) : null,
      comments: (r.comments ?? []).filter((c) => c.number === i.number).length,
      locked: false,
      created_at: i.created_at ?? T0,
      updated_at: i.updated_at ?? T0,
      closed_at: i.closed_at ?? null,
    };
    if ('head' in i) out.pull_request = { url: `${repoUrl}/pulls/${i.number}`, merged_at: i.merged_at ?? null };
    return out;
  }

  private pullJson(r: ARepo, p: APull, repoUrl: string, base: string, single: boolean): Record<string, unknown> {
    const issue = this.issueJson(r, p, repoUrl, base);
    delete issue.pull_request;
    delete issue.comments;
    const ref = (x: { ref: string; sha: string }) => ({ label: `${r.owner}:${x.ref}`, ref: x.ref, sha: x.sha, user: this.userJson(r.owner, base, false), repo: this.repoJson(r, base) });
    const out: Record<string, unknown> = {
      ...issue,
      url: `${repoUrl}/pulls/${p.number}`,
      html_url: `${this.url}/${r.owner}/${r.name}/pull/${p.number}`,
      head: ref(p.head),
      base: ref(p.base),
      merged_at: p.merged_at ?? null,
      merge_commit_sha: p.merged_at ? p.head.sha : null,
      draft: !!p.draft,
      requested_reviewers: [],
    };
    // Only the single pull request carries merged_by, as on GitHub.
    if (single) Object.assign(out, { merged: !!p.merged_at, merged_by: p.merged_by ? this.userJson(p.merged_by, base, false) : null });
    return out;
  }

  private commentJson(c: AIssueComment, repoUrl: string, base: string): Record<string, unknown> {
    return {
      id: c.id,
      url: `${repoUrl}/issues/comments/${c.id}`,
      issue_url: `${repoUrl}/issues/${c.number}`,
      user: this.userJson(c.user, base, false),
      body: c.body,
      created_at: c.created_at ?? T0,
      updated_at: c.updated_at ?? T0,
    };
  }

  private reviewCommentJson(c: AReviewComment, repoUrl: string, base: string): Record<string, unknown> {
    return {
      id: c.id,
      url: `${repoUrl}/pulls/comments/${c.id}`,
      pull_request_url: `${repoUrl}/pulls/${c.pull}`,
      pull_request_review_id: c.id + 5000,
      diff_hunk: c.diff_hunk ?? `@@ -1,3 +1,3 @@\n line`,
      path: c.path,
      position: c.line,
      original_position: c.line,
      line: c.line,
      original_line: c.line,
      side: c.side ?? 'RIGHT',
      commit_id: c.commit_id,
      original_commit_id: c.commit_id,
      subject_type: 'line',
      user: this.userJson(c.user, base, false),
      body: c.body,
      created_at: c.created_at ?? T0,
      updated_at: c.updated_at ?? T0,
      ...(c.in_reply_to_id ? { in_reply_to_id: c.in_reply_to_id } : {}),
    };
  }

  private gistJson(g: AGist, base: string): Record<string, unknown> {
    const files: Record<string, unknown> = {};
    for (const [name, content] of Object.entries(g.files)) {
      files[name] = { filename: name, type: 'text/plain', language: null, raw_url: `${this.url}/raw/${g.id}/${encodeURIComponent(name)}`, size: Buffer.byteLength(content) };
    }
    return {
      url: `${base}/gists/${g.id}`,
      id: g.id,
      html_url: `${this.url}/gist/${g.id}`,
      git_pull_url: `${this.url}/gist/${g.id}.git`,
      files,
      public: g.public,
      created_at: g.created_at ?? T0,
      updated_at: g.updated_at ?? T0,
      description: g.description,
      comments: 0,
      owner: this.userJson(g.owner, base, false),
      truncated: false,
    };
  }
}

function permissionFlags(p: string): Record<string, boolean> {
  const order = ['read', 'triage', 'write', 'maintain', 'admin'];
  const rank = order.indexOf(p);
  return { pull: rank >= 0, triage: rank >= 1, push: rank >= 2, maintain: rank >= 3, admin: rank >= 4 };
}
