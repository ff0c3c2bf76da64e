import { ProviderHttp, urlWithQuery, basicAuthorization, type ProviderHttpOptions } from './http';
import type { Page } from './providera';

/**
 * Provider B server's REST API 1.0 (Bitbucket Server / Data Center) at `<url>/rest/api/1.0`,
 * with Basic auth (username and personal access token). Lists page by `start`/`limit` and end
 * where `isLastPage` says so, continuing from `nextPageStart`.
 */

export interface BSUser {
  name: string;
  emailAddress?: string | null;
  displayName?: string;
  slug?: string;
}

export interface BSRepo {
  slug: string;
  name: string;
  scmId: string;
  project: { key: string; name: string; description?: string | null; public?: boolean };
  public?: boolean;
  links: { clone?: { href: string; name: string }[]; self?: { href: string }[] };
}

export interface BSPull {
  id: number;
  title: string;
  description?: string;
  state: 'OPEN' | 'DECLINED' | 'MERGED';
  createdDate: number;
  updatedDate: number;
  closedDate?: number;
  fromRef: { id: string; displayId: string; latestCommit: string };
  toRef: { id: string; displayId: string; latestCommit: string };
  author: { user: BSUser };
}

export interface BSComment {
  id: number;
  text: string;
  author: BSUser;
  createdDate: number;
  updatedDate: number;
  comments?: BSComment[];
}

export interface BSActivity {
  id: number;
  action: string;
  createdDate: number;
  user: BSUser;
  comment?: BSComment;
  commentAnchor?: { path: string; line: number; lineType: 'ADDED' | 'REMOVED' | 'CONTEXT'; fileType: 'FROM' | 'TO'; fromHash?: string; toHash?: string };
}

interface BSPaged<T> {
  values: T[];
  isLastPage: boolean;
  nextPageStart?: number;
}

export class ProviderBServerClient {
  readonly http: ProviderHttp;
  readonly apiUrl: string;

  constructor(
    serverUrl: string,
    username: string,
    token: string,
    readonly limit: number,
    opts: Omit<ProviderHttpOptions, 'provider' | 'headers'>,
  ) {
    this.apiUrl = `${serverUrl.replace(/\/+$/, '')}/rest/api/1.0`;
    this.http = new ProviderHttp({ ...opts, provider: 'Bitbucket Server', headers: { authorization: basicAuthorization(username, token), accept: 'application/json' } });
  }

  private url(path: string, query: Record<string, string | number> = {}): string {
    return urlWithQuery(this.apiUrl, path, query);
  }

  private repoPath(projectKey: string, slug: string): string {
    return `/projects/${encodeURIComponent(projectKey)}/repos/${encodeURIComponent(slug)}`;
  }

  async repo(projectKey: string, slug: string): Promise<BSRepo> {
    return (await this.http.getJson<BSRepo>(this.url(this.repoPath(projectKey, slug)))).body;
  }

  readonly lists = {
    repos: (start: number, limit: number) => this.url('/repos', { start, limit }),
    pullRequests: (projectKey: string, slug: string) => this.url(`${this.repoPath(projectKey, slug)}/pull-requests`, { state: 'ALL', order: 'OLDEST', limit: this.limit }),
    activities: (projectKey: string, slug: string, pullId: number) =>
      this.url(`${this.repoPath(projectKey, slug)}/pull-requests/${pullId}/activities`, { limit: this.limit }),
  };

  async page<T>(url: string): Promise<Page<T> & { isLastPage: boolean }> {
    const body = (await this.http.getJson<BSPaged<T>>(url)).body;
    const items = Array.isArray(body?.values) ? body.values : [];
    if (body?.isLastPage !== false || body.nextPageStart === undefined) return { items, next: null, isLastPage: true };
    const next = new URL(url);
    next.searchParams.set('start', String(body.nextPageStart));
    return { items, next: next.toString(), isLastPage: false };
  }
}
