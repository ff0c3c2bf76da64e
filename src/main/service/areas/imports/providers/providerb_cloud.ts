import { ProviderHttp, urlWithQuery, basicAuthorization, type ProviderHttpOptions } from './http';
import type { Page } from './providera';

/**
 * Provider B cloud's REST API 2.0 (Bitbucket Cloud) on its public API host (overridable with
 * `SANDLAB_PROVIDERB_CLOUD_URL`), with Basic auth (username and app password). Lists carry the
 * absolute URL of their `next` page in the body.
 */

export const PROVIDERB_CLOUD_PUBLIC_API = 'https://api.bitbucket.org';

export function providerBCloudApiUrl(): string {
  return `${(process.env.SANDLAB_PROVIDERB_CLOUD_URL || PROVIDERB_CLOUD_PUBLIC_API).replace(/\/+$/, '')}/2.0`;
}

export interface BCUser {
  username?: string;
  nickname?: string;
  display_name?: string;
  uuid?: string;
  account_id?: string;
}

export interface BCRepo {
  full_name: string;
  name: string;
  slug: string;
  description?: string;
  is_private: boolean;
  has_issues?: boolean;
  mainbranch?: { name: string } | null;
  links: { clone?: { href: string; name: string }[]; html?: { href: string } };
}

export interface BCIssue {
  id: number;
  title: string;
  content?: { raw?: string | null };
  state: string;
  kind: string;
  reporter: BCUser | null;
  assignee: BCUser | null;
  milestone: { name: string } | null;
  created_on: string;
  updated_on: string;
}

export interface BCComment {
  id: number;
  content?: { raw?: string | null };
  user: BCUser | null;
  created_on: string;
  updated_on: string;
  deleted?: boolean;
  inline?: { path: string; from: number | null; to: number | null };
  parent?: { id: number };
}

export interface BCPull {
  id: number;
  title: string;
  description?: string;
  state: 'OPEN' | 'MERGED' | 'DECLINED' | 'SUPERSEDED';
  author: BCUser | null;
  source: { branch: { name: string }; commit: { hash: string } | null };
  destination: { branch: { name: string }; commit: { hash: string } | null };
  merge_commit: { hash: string } | null;
  closed_by?: BCUser | null;
  created_on: string;
  updated_on: string;
}

export class ProviderBCloudClient {
  readonly http: ProviderHttp;

  constructor(
    readonly apiUrl: string,
    username: string,
    appPassword: string,
    readonly pagelen: number,
    opts: Omit<ProviderHttpOptions, 'provider' | 'headers'>,
  ) {
    this.http = new ProviderHttp({ ...opts, provider: 'Bitbucket', headers: { authorization: basicAuthorization(username, appPassword), accept: 'application/json' } });
  }

  private url(path: string, query: [string, string | number][] = []): string {
    return urlWithQuery(this.apiUrl, path, query);
  }

  private repoPath(repoPath: string): string {
    const [workspace, slug] = repoPath.split('/');
    return `/repositories/${encodeURIComponent(workspace)}/${encodeURIComponent(slug ?? '')}`;
  }

  async user(): Promise<BCUser> {
    return (await this.http.getJson<BCUser>(this.url('/user'))).body;
  }

  async repo(repoPath: string): Promise<BCRepo> {
    return (await this.http.getJson<BCRepo>(this.url(this.repoPath(repoPath)))).body;
  }

  readonly lists = {
    repos: (page: number, pagelen: number) => this.url('/repositories', [['role', 'member'], ['sort', 'full_name'], ['page', page], ['pagelen', pagelen]]),
    milestones: (repo: string) => this.url(`${this.repoPath(repo)}/milestones`, [['pagelen', this.pagelen]]),
    issues: (repo: string) => this.url(`${this.repoPath(repo)}/issues`, [['pagelen', this.pagelen], ['sort', 'created_on']]),
    issueComments: (repo: string, id: number) => this.url(`${this.repoPath(repo)}/issues/${id}/comments`, [['pagelen', this.pagelen], ['sort', 'created_on']]),
    pullRequests: (repo: string) =>
      this.url(`${this.repoPath(repo)}/pullrequests`, [
        ['state', 'OPEN'],
        ['state', 'MERGED'],
        ['state', 'DECLINED'],
        ['state', 'SUPERSEDED'],
        ['pagelen', this.pagelen],
        ['sort', 'created_on'],
      ]),
    pullComments: (repo: string, id: number) => this.url(`${this.repoPath(repo)}/pullrequests/${id}/comments`, [['pagelen', this.pagelen], ['sort', 'created_on']]),
  };

  async page<T>(url: string): Promise<Page<T>> {
    const body = (await this.http.getJson<{ values?: T[]; next?: string }>(url)).body;
    return { items: Array.isArray(body?.values) ? body.values : [], next: typeof body?.next === 'string' ? body.next : null };
  }
}
