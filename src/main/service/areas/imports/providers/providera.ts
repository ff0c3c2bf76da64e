import { ProviderHttp, urlWithQuery, type ProviderHttpOptions } from './http';

/**
 * Provider A's REST API v3 (GitHub): the public API host, or `<hostname>/api/v3` for an
 * enterprise host. Lists follow the `Link` header; `perPage` is the import's `pagination_limit`.
 */

export const PROVIDERA_PUBLIC_API = 'https://api.github.com';

/** The API root for an optional enterprise hostname (`SANDLAB_PROVIDERA_URL` stands in for the public host). */
export function providerAApiUrl(hostname?: string | null): string {
  if (!hostname) return (process.env.SANDLAB_PROVIDERA_URL || PROVIDERA_PUBLIC_API).replace(/\/+$/, '');
  const host = hostname.replace(/\/+$/, '');
  // GitLab 16.5 to 17.1 asked for the `/api/v3` suffix; both spellings reach the same API.
  return host.endsWith('/api/v3') ? host : `${host}/api/v3`;
}

export interface Page<T> {
  items: T[];
  /** The next page's URL, or null on the last page. */
  next: string | null;
}

export interface AUser {
  login: string;
  id: number;
  email?: string | null;
  name?: string | null;
}

export interface ARepository {
  id: number;
  name: string;
  full_name: string;
  private: boolean;
  description: string | null;
  default_branch?: string;
  clone_url: string;
  html_url: string;
  has_wiki?: boolean;
  owner: { login: string };
}

export interface ALabel {
  id: number;
  name: string;
  color: string;
  description: string | null;
}

export interface AMilestone {
  id: number;
  number: number;
  title: string;
  description: string | null;
  state: 'open' | 'closed';
  due_on: string | null;
  created_at: string;
  updated_at: string;
}

export interface AIssue {
  id: number;
  number: number;
  title: string;
  body: string | null;
  state: 'open' | 'closed';
  user: AUser | null;
  labels: { name: string }[];
  assignees?: AUser[];
  milestone: { number: number } | null;
  created_at: string;
  updated_at: string;
  closed_at: string | null;
  /** Present when the "issue" is a pull request (GitHub lists both together). */
  pull_request?: unknown;
}

export interface APull extends AIssue {
  head: { ref: string; sha: string; repo: { full_name: string } | null };
  base: { ref: string; sha: string };
  merged_at: string | null;
  merge_commit_sha: string | null;
  draft?: boolean;
  merged_by?: AUser | null;
}

export interface AComment {
  id: number;
  body: string;
  user: AUser | null;
  created_at: string;
  updated_at: string;
  /** `.../issues/<number>` (issue comments). */
  issue_url?: string;
}

export interface AReviewComment extends AComment {
  pull_request_url: string;
  path: string;
  line: number | null;
  original_line?: number | null;
  side?: 'LEFT' | 'RIGHT';
  commit_id: string;
  diff_hunk: string;
  in_reply_to_id?: number;
}

export interface AGist {
  id: string;
  description: string | null;
  public: boolean;
  files: Record<string, { filename: string; raw_url: string; size: number; content?: string; truncated?: boolean }>;
  created_at: string;
  updated_at: string;
}

export class ProviderAClient {
  readonly http: ProviderHttp;

  constructor(
    readonly apiUrl: string,
    token: string,
    readonly perPage: number,
    opts: Omit<ProviderHttpOptions, 'provider' | 'headers'>,
  ) {
    this.http = new ProviderHttp({
      ...opts,
      provider: 'GitHub',
      headers: { authorization: `Bearer ${token}`, accept: 'application/vnd.github+json', 'user-agent': 'Sandlab' },
    });
  }

  private url(path: string, query: Record<string, string | number> = {}): string {
    return urlWithQuery(this.apiUrl, path, query);
  }

  async user(): Promise<AUser> {
    return (await this.http.getJson<AUser>(this.url('/user'))).body;
  }

  async userByLogin(login: string): Promise<AUser> {
    return (await this.http.getJson<AUser>(this.url(`/users/${encodeURIComponent(login)}`))).body;
  }

  async repository(id: number): Promise<ARepository> {
    return (await this.http.getJson<ARepository>(this.url(`/repositories/${id}`))).body;
  }

  async pull(fullName: string, number: number): Promise<APull> {
    return (await this.http.getJson<APull>(this.url(`/repos/${fullName}/pulls/${number}`))).body;
  }

  /** First-page URLs of the lists an import reads. */
  readonly lists = {
    labels: (repo: string) => this.url(`/repos/${repo}/labels`, { per_page: this.perPage }),
    milestones: (repo: string) => this.url(`/repos/${repo}/milestones`, { state: 'all', per_page: this.perPage }),
    issues: (repo: string) => this.url(`/repos/${repo}/issues`, { state: 'all', sort: 'created', direction: 'asc', per_page: this.perPage }),
    pulls: (repo: string) => this.url(`/repos/${repo}/pulls`, { state: 'all', sort: 'created', direction: 'asc', per_page: this.perPage }),
    issueComments: (repo: string) => this.url(`/repos/${repo}/issues/comments`, { sort: 'created', direction: 'asc', per_page: this.perPage }),
    commentsOf: (repo: string, number: number) => this.url(`/repos/${repo}/issues/${number}/comments`, { per_page: this.perPage }),
    reviewComments: (repo: string) => this.url(`/repos/${repo}/pulls/comments`, { sort: 'created', direction: 'asc', per_page: this.perPage }),
    collaborators: (repo: string) => this.url(`/repos/${repo}/collaborators`, { affiliation: 'direct', per_page: this.perPage }),
    userRepos: (page: number, perPage: number) => this.url('/user/repos', { sort: 'full_name', page, per_page: perPage }),
    gists: () => this.url('/gists', { per_page: this.perPage }),
  };

  /** One page of a list, and where the next one is (the `Link` header's rel="next"). */
  async page<T>(url: string): Promise<Page<T>> {
    const res = await this.http.getJson<T[]>(url);
    return { items: Array.isArray(res.body) ? res.body : [], next: linkRel(res.headers.get('link'), 'next') };
  }
}

/** The URL of `rel` in a `Link` header. */
export function linkRel(header: string | null, rel: string): string | null {
  for (const part of (header ?? '').split(',')) {
    const m = /<([^>]+)>\s*;\s*rel="?([^";]+)"?/.exec(part.trim());
    if (m && m[2].split(/\s+/).includes(rel)) return m[1];
  }
  return null;
}
