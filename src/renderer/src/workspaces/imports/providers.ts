import type { ApiRequest } from '../../../../shared/ipc';

/**
 * The three providers as the Imports workspace drives them: the fields of their credentials, the
 * (Sandlab-only) listing of what those credentials reach, and the body of their import request.
 */

export type ProviderId = 'github' | 'bitbucket_server' | 'bitbucket';

/** A secret as the user gave it: typed for this tab (browser), or a stored credential's name (desktop). */
export type Secret = { typed: string } | { credential: string };

/** Plain connection fields (no secrets): host, URL, username. */
export type Connection = Record<string, string>;

export interface RepositoryChoice {
  name: string;
  full_name: string;
  description: string | null;
  private: boolean;
  web_url: string | null;
  /** What the import request needs to name this repository. */
  import_params: Record<string, string | number>;
}

export interface FieldDef {
  /** The API parameter. */
  name: string;
  label: string;
  placeholder?: string;
  optional?: boolean;
  type?: 'text' | 'url' | 'number';
}

export interface ProviderDef {
  id: ProviderId;
  label: string;
  /** Connection fields besides the secret. */
  connection: FieldDef[];
  /** The API parameter carrying the secret, and what to call it. */
  secretParam: string;
  secretLabel: string;
  /** The fields naming one repository (filled by picking one from the list). */
  locator: FieldDef[];
  /** The parameter naming the destination namespace. */
  namespaceParam: string;
  importPath: string;
  listPath: string;
}

export const PROVIDERS: ProviderDef[] = [
  {
    id: 'github',
    label: 'GitHub',
    connection: [{ name: 'github_hostname', label: 'Enterprise host', placeholder: 'https://github.example.com (empty: github.com)', optional: true, type: 'url' }],
    secretParam: 'personal_access_token',
    secretLabel: 'Personal access token',
    locator: [{ name: 'repo_id', label: 'Repository ID', type: 'number' }],
    namespaceParam: 'target_namespace',
    importPath: '/import/github',
    listPath: '/sandlab/import/github/repositories',
  },
  {
    id: 'bitbucket_server',
    label: 'Bitbucket Server',
    connection: [
      { name: 'bitbucket_server_url', label: 'Server URL', placeholder: 'https://bitbucket.example.com', type: 'url' },
      { name: 'bitbucket_server_username', label: 'Username' },
    ],
    secretParam: 'personal_access_token',
    secretLabel: 'Personal access token',
    locator: [
      { name: 'bitbucket_server_project', label: 'Project key' },
      { name: 'bitbucket_server_repo', label: 'Repository slug' },
    ],
    namespaceParam: 'target_namespace',
    importPath: '/import/bitbucket_server',
    listPath: '/sandlab/import/bitbucket_server/repositories',
  },
  {
    id: 'bitbucket',
    label: 'Bitbucket Cloud',
    connection: [{ name: 'bitbucket_username', label: 'Username' }],
    secretParam: 'bitbucket_app_password',
    secretLabel: 'App password',
    locator: [{ name: 'repo_path', label: 'Repository path', placeholder: 'workspace/repository' }],
    namespaceParam: 'target_namespace',
    importPath: '/import/bitbucket',
    listPath: '/sandlab/import/bitbucket/repositories',
  },
];

export const providerById = (id: ProviderId): ProviderDef => PROVIDERS.find((p) => p.id === id)!;

/** The optional stages GitHub imports take (`optional_stages`), with GitLab's labels. */
export const GITHUB_OPTIONAL_STAGES = [
  { key: 'single_endpoint_notes_import', label: 'Use the alternative comments import (each issue and pull request read on its own)' },
  { key: 'attachments_import', label: 'Import Markdown attachments (links)' },
  { key: 'collaborators_import', label: 'Import collaborators' },
] as const;

/**
 * A request with its secret in the JSON body: typed secrets go as they are; a stored credential
 * goes by name and main puts its value in (`credential`), so the window never holds it.
 */
export function withSecret(req: ApiRequest & { body: Record<string, unknown> }, param: string, secret: Secret): ApiRequest {
  if ('typed' in secret) return { ...req, body: { ...req.body, [param]: secret.typed } };
  return { ...req, credential: { name: secret.credential, into: param } };
}

/** The connection's filled fields (empty optional ones left out). */
export function connectionParams(provider: ProviderDef, connection: Connection): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of provider.connection) if (connection[f.name]?.trim()) out[f.name] = connection[f.name].trim();
  return out;
}

export const secretGiven = (s: Secret | null): s is Secret => !!s && ('typed' in s ? s.typed.length > 0 : s.credential.length > 0);
