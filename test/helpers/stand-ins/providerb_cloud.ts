import { emptyRepository } from './git';
import { StandInServer, basicAuth, sleep, slicePage, type StandInRequest, type StandInResponse } from './server';

/**
 * A stand-in for provider B cloud's REST API 2.0 (Bitbucket Cloud) under `/2.0`: Basic auth with
 * a username and an app password, `page`/`pagelen` pages whose body carries the absolute `next`
 * URL, its `{"type": "error", "error": {...}}` bodies, and 429 + `Retry-After` when rate limited.
 */

export interface BCUser {
  username: string;
  display_name: string;
  uuid: string;
}

export interface BCIssue {
  id: number;
  title: string;
  content?: string;
  state: 'new' | 'open' | 'resolved' | 'on hold' | 'invalid' | 'duplicate' | 'wontfix' | 'closed';
  kind: 'bug' | 'enhancement' | 'proposal' | 'task';
  reporter: string;
  assignee?: string | null;
  milestone?: string | null;
  created_on: string;
  updated_on?: string;
  comments?: { id: number; content: string; user: string; created_on: string; updated_on?: string }[];
}

export interface BCPullComment {
  id: number;
  content: string;
  user: string;
  created_on: string;
  updated_on?: string;
  inline?: { path: string; from?: number | null; to?: number | null };
  parent?: number;
  deleted?: boolean;
}

export interface BCPull {
  id: number;
  title: string;
  description?: string;
  state: 'OPEN' | 'MERGED' | 'DECLINED' | 'SUPERSEDED';
  author: string;
  source: { branch: string; commit: string };
  destination: { branch: string; commit: string };
  merge_commit?: string | null;
  closed_by?: string | null;
  created_on: string;
  updated_on?: string;
  comments?: BCPullComment[];
}

export interface BCRepo {
  workspace: string;
  /** The bare repository its clone URL serves over git's smart HTTP (an empty one when not given). */
  git?: string;
  slug: string;
  name: string;
  description?: string;
  is_private?: boolean;
  has_issues?: boolean;
  mainbranch?: string;
  milestones?: string[];
  issues?: BCIssue[];
  pulls?: BCPull[];
  /** A slow repository: every list page of it answers after this many milliseconds. */
  delayMs?: number;
}

const ERROR = (message: string) => ({ type: 'error', error: { message } });

export class ProviderBCloudStandIn extends StandInServer {
  readonly users = new Map<string, BCUser>();
  /** username -> app password */
  readonly appPasswords = new Map<string, string>();
  readonly repos: BCRepo[] = [];
  /** When set, the next answers are 429 with this Retry-After (seconds). */
  rateLimited: { retryAfter: number; times: number } | null = null;

  addUser(u: Omit<BCUser, 'uuid'>, appPassword?: string): BCUser {
    const user = { ...u, uuid: `{${String(this.users.size + 1).padStart(8, '0')}-0000-4000-8000-000000000000}` };
    this.users.set(user.username, user);
    if (appPassword) this.appPasswords.set(user.username, appPassword);
    return user;
  }

  addRepo(r: BCRepo): BCRepo {
    this.repos.push(r);
    this.repositories.set(`/${r.workspace}/${r.slug}`, r.git ?? emptyRepository());
    return r;
  }

  /** Git over HTTP: the username and its app password as HTTP Basic. */
  protected gitAuthorized(req: StandInRequest): boolean {
    const basic = basicAuth(req);
    return !!basic && this.appPasswords.get(basic.user) === basic.password;
  }

  protected async handle(req: StandInRequest): Promise<StandInResponse> {
    if (!req.path.startsWith('/2.0/')) return { status: 404, raw: 'Not Found' };
    const basic = basicAuth(req);
    if (!basic || this.appPasswords.get(basic.user) !== basic.password) return { status: 401, body: ERROR('Unauthorized') };
    if (this.rateLimited && this.rateLimited.times > 0) {
      this.rateLimited.times--;
      return { status: 429, headers: { 'retry-after': String(this.rateLimited.retryAfter) }, body: ERROR('Rate limit for this resource has been exceeded') };
    }
    const path = req.path.slice('/2.0'.length);
    if (path === '/user') return { status: 200, body: this.userJson(basic.user) };
    if (path === '/repositories') return this.paged(req, this.repos.map((r) => this.repoJson(r)));
    const m = /^\/repositories\/([^/]+)\/([^/]+)(\/.*)?$/.exec(path);
    if (!m) return { status: 404, body: ERROR('Resource not found') };
    const repo = this.repos.find((r) => r.workspace === m[1] && r.slug === m[2]);
    if (!repo) return { status: 404, body: ERROR(`Repository ${m[1]}/${m[2]} not found`) };
    const rest = m[3] ?? '';
    if (rest === '') return { status: 200, body: this.repoJson(repo) };
    if (repo.delayMs) await sleep(repo.delayMs);
    let x: RegExpExecArray | null;
    if (rest === '/issues' || rest === '/milestones' || /^\/issues\/\d+\/comments$/.test(rest)) {
      if (repo.has_issues === false) return { status: 404, body: ERROR('Repository has no issue tracker.') };
    }
    if (rest === '/issues') return this.paged(req, (repo.issues ?? []).map((i) => this.issueJson(repo, i)));
    if (rest === '/milestones') return this.paged(req, (repo.milestones ?? []).map((name, i) => ({ type: 'milestone', id: i + 1, name })));
    if ((x = /^\/issues\/(\d+)\/comments$/.exec(rest))) {
      const issue = (repo.issues ?? []).find((i) => i.id === Number(x![1]));
      if (!issue) return { status: 404, body: ERROR('Issue not found') };
      return this.paged(
        req,
        (issue.comments ?? []).map((c) => ({ type: 'issue_comment', id: c.id, content: { raw: c.content, markup: 'markdown' }, user: this.userJson(c.user), created_on: c.created_on, updated_on: c.updated_on ?? c.created_on })),
      );
    }
    if (rest === '/pullrequests') {
      const states = req.query.getAll('state').map((s) => s.toUpperCase());
      const wanted = states.length ? states : ['OPEN'];
      return this.paged(req, (repo.pulls ?? []).filter((p) => wanted.includes(p.state)).map((p) => this.pullJson(repo, p)));
    }
    if ((x = /^\/pullrequests\/(\d+)\/comments$/.exec(rest))) {
      const pull = (repo.pulls ?? []).find((p) => p.id === Number(x![1]));
      if (!pull) return { status: 404, body: ERROR('Pull request not found') };
      return this.paged(
        req,
        (pull.comments ?? []).map((c) => ({
          type: 'pullrequest_comment',
          id: c.id,
          content: { raw: c.content, markup: 'markdown' },
          user: this.userJson(c.user),
          created_on: c.created_on,
          updated_on: c.updated_on ?? c.created_on,
          deleted: !!c.deleted,
          ...(c.inline ? { inline: { path: c.inline.path, from: c.inline.from ?? null, to: c.inline.to ?? null } } : {}),
          ...(c.parent ? { parent: { id: c.parent } } : {}),
        })),
      );
    }
    return { status: 404, body: ERROR('Resource not found') };
  }

  /** `page`/`pagelen` paging with the next page's absolute URL in the body. */
  private paged(req: StandInRequest, values: unknown[]): StandInResponse {
    const pagelen = Math.min(100, Math.max(1, Number(req.query.get('pagelen') ?? 10) || 10));
    const page = Math.max(1, Number(req.query.get('page') ?? 1) || 1);
    const body: Record<string, unknown> = { pagelen, size: values.length, page, values: slicePage(values, page, pagelen) };
    if (page * pagelen < values.length) {
      const q = new URLSearchParams(req.query);
      q.set('page', String(page + 1));
      q.set('pagelen', String(pagelen));
      body.next = `${this.url}${req.path}?${q}`;
    }
    return { status: 200, body };
  }

  private userJson(username: string): Record<string, unknown> {
    const u = this.users.get(username) ?? { username, display_name: username, uuid: '{00000000-0000-4000-8000-00000000ffff}' };
    return { type: 'user', username: u.username, nickname: u.username, display_name: u.display_name, uuid: u.uuid, account_id: `acc-${u.username}`, links: { html: { href: `${this.url}/${u.username}/` } } };
  }

  repoJson(r: BCRepo): Record<string, unknown> {
    return {
      type: 'repository',
      full_name: `${r.workspace}/${r.slug}`,
      name: r.name,
      slug: r.slug,
      description: r.description ?? '',
      is_private: r.is_private ?? true,
      has_issues: r.has_issues ?? true,
      has_wiki: false,
      scm: 'git',
      mainbranch: { type: 'branch', name: r.mainbranch ?? 'main' },
      owner: this.userJson(r.workspace),
      workspace: { type: 'workspace', slug: r.workspace, name: r.workspace },
      uuid: `{repo-${r.workspace}-${r.slug}}`,
      created_on: '2024-01-02T03:04:05.000000+00:00',
      updated_on: '2024-01-02T03:04:05.000000+00:00',
      size: 1234,
      language: '',
      links: {
        clone: [
          { name: 'https', href: `${this.url}/${r.workspace}/${r.slug}.git` },
          { name: 'ssh', href: `git@127.0.0.1:${r.workspace}/${r.slug}.git` },
        ],
        html: { href: `${this.url}/${r.workspace}/${r.slug}` },
      },
    };
  }

  private issueJson(r: BCRepo, i: BCIssue): Record<string, unknown> {
    return {
      type: 'issue',
      id: i.id,
      title: i.title,
      content: { raw: i.content ?? '', markup: 'markdown', html: '' },
      state: i.state,
      kind: i.kind,
      priority: 'major',
      reporter: this.userJson(i.reporter),
      assignee: i.assignee ? this.userJson(i.assignee) : null,
      milestone: i.milestone ? { type: 'milestone', name: i.milestone } : null,
      component: null,
      version: null,
      votes: 0,
      created_on: i.created_on,
      updated_on: i.updated_on ?? i.created_on,
      links: { self: { href: `${this.url}/2.0/repositories/${r.workspace}/${r.slug}/issues/${i.id}` } },
    };
  }

  private pullJson(r: BCRepo, p: BCPull): Record<string, unknown> {
    const end = (x: { branch: string; commit: string }) => ({ branch: { name: x.branch }, commit: { type: 'commit', hash: x.commit }, repository: { type: 'repository', full_name: `${r.workspace}/${r.slug}` } });
    return {
      type: 'pullrequest',
      id: p.id,
      title: p.title,
      description: p.description ?? '',
      state: p.state,
      author: this.userJson(p.author),
      source: end(p.source),
      destination: end(p.destination),
      merge_commit: p.merge_commit ? { type: 'commit', hash: p.merge_commit } : null,
      closed_by: p.closed_by ? this.userJson(p.closed_by) : null,
      comment_count: (p.comments ?? []).length,
      created_on: p.created_on,
      updated_on: p.updated_on ?? p.created_on,
      reviewers: [],
      participants: [],
    };
  }
}
