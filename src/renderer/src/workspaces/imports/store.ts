import { create } from 'zustand';
import type { ApiRequest, JobProgressEvent } from '../../../../shared/ipc';
import { apiOk, bridge, type Bridge } from '../../bridge';
import { createListStore } from '../../stores/list';
import { type Connection, type ProviderId, type RepositoryChoice, type Secret, connectionParams, providerById, secretGiven, withSecret } from './providers';

/** A project as GET /projects lists it, with the import fields the workspace shows. */
export interface ImportedProject {
  id: number;
  name: string;
  path_with_namespace: string;
  web_url: string;
  created_at: string;
  import_status: ImportStatus;
  import_type?: string | null;
  import_error?: string | null;
}

/** What POST /import/<provider> answers (ProjectImportEntity). */
export interface ImportResult {
  id: number;
  name: string;
  /** `/namespace/project` */
  full_path: string;
  import_source: string;
  import_status: ImportStatus;
}

export type ImportStatus = 'none' | 'scheduled' | 'started' | 'finished' | 'failed' | 'canceled';

/** GET /projects/:id/import (Entities::ProjectImportStatus, plus import_source). */
export interface ImportDetail {
  id: number;
  path_with_namespace: string;
  import_status: ImportStatus;
  import_type: string | null;
  import_source: string | null;
  import_error: string | null;
  correlation_id: string | null;
  stats: { fetched: Record<string, number>; imported: Record<string, number> } | null;
  failed_relations: { id: number; created_at: string; exception_class: string; source: string; relation_name: string | null; line_number: number | null }[];
}

/** GET /sandlab/import/github/gists. */
export interface GistReport {
  status: 'started' | 'finished' | 'failed';
  imported_count: number;
  skipped: { id: string; description: string | null; reason: string }[];
  error: string | null;
  started_at: string;
  finished_at: string | null;
}

export const isActive = (s: ImportStatus | undefined): boolean => s === 'scheduled' || s === 'started';

export interface ImportOptions {
  /** The repository, as the provider's locator fields name it. */
  locator: Record<string, string>;
  namespace: string;
  newName: string;
  optionalStages: Record<string, boolean>;
  timeoutStrategy: 'pessimistic' | 'optimistic';
  paginationLimit: number;
}

interface ImportsState {
  provider: ProviderId;
  /** Hosts, URLs and usernames per provider (never secrets). */
  connections: Record<ProviderId, Connection>;
  /** Per provider: typed for this tab (memory only) or a stored credential's name. */
  secrets: Record<ProviderId, Secret | null>;
  /** The repository list was asked for with the current credentials. */
  listing: boolean;
  picked: RepositoryChoice | null;
  selectedImportId: number | null;
  detail: ImportDetail | null;
  gistSecret: Secret | null;
  gistHost: string;
  gistReport: GistReport | null;
  setProvider(p: ProviderId): void;
  setConnection(field: string, value: string): void;
  setSecret(s: Secret | null): void;
  listRepositories(): Promise<void>;
  pick(repo: RepositoryChoice | null): void;
  startImport(options: ImportOptions): Promise<ImportResult>;
  selectImport(id: number | null): Promise<void>;
  refreshDetail(): Promise<void>;
  cancelImport(id: number): Promise<void>;
  setGistSecret(s: Secret | null): void;
  setGistHost(host: string): void;
  importGists(): Promise<void>;
  loadGistReport(): Promise<void>;
}

const EMPTY_CONNECTIONS: Record<ProviderId, Connection> = { github: {}, bitbucket_server: {}, bitbucket: {} };

/** The Imports workspace's state: the form, the chosen repository, the selected import, the gists import. */
export const useImports = create<ImportsState>((set, get) => ({
  provider: 'github',
  connections: EMPTY_CONNECTIONS,
  secrets: { github: null, bitbucket_server: null, bitbucket: null },
  listing: false,
  picked: null,
  selectedImportId: null,
  detail: null,
  gistSecret: null,
  gistHost: '',
  gistReport: null,
  setProvider(provider) {
    set({ provider, listing: false, picked: null });
    repositoryList.getState().clear();
  },
  setConnection(field, value) {
    const { provider, connections } = get();
    set({ connections: { ...connections, [provider]: { ...connections[provider], [field]: value } }, listing: false });
  },
  setSecret(secret) {
    set({ secrets: { ...get().secrets, [get().provider]: secret }, listing: false });
  },
  async listRepositories() {
    set({ listing: true, picked: null });
    await repositoryList.getState().setPage(1);
  },
  pick(picked) {
    set({ picked });
  },
  async startImport(o) {
    const { provider, connections, secrets } = get();
    const def = providerById(provider);
    const secret = secrets[provider];
    if (!secretGiven(secret)) throw new Error(`${def.secretLabel} is missing`);
    const body: Record<string, unknown> = { ...connectionParams(def, connections[provider]), ...o.locator, [def.namespaceParam]: o.namespace };
    if (o.newName.trim()) body.new_name = o.newName.trim();
    if (provider === 'github') {
      body.optional_stages = o.optionalStages;
      body.pagination_limit = o.paginationLimit;
    }
    if (provider !== 'bitbucket') body.timeout_strategy = o.timeoutStrategy;
    const res = await apiOk<ImportResult>(bridge, withSecret({ method: 'POST', path: def.importPath, body }, def.secretParam, secret));
    await importList.getState().load();
    await get().selectImport(res.body.id);
    return res.body;
  },
  async selectImport(id) {
    set({ selectedImportId: id, detail: id === null ? null : get().detail?.id === id ? get().detail : null });
    await get().refreshDetail();
  },
  async refreshDetail() {
    const id = get().selectedImportId;
    if (id === null) return;
    const res = await apiOk<ImportDetail>(bridge, { method: 'GET', path: `/projects/${id}/import` });
    if (get().selectedImportId === id) set({ detail: res.body });
  },
  async cancelImport(id) {
    await apiOk(bridge, { method: 'POST', path: '/import/github/cancel', body: { project_id: id } });
    await Promise.all([importList.getState().load(), get().refreshDetail()]);
  },
  setGistSecret(gistSecret) {
    set({ gistSecret });
  },
  setGistHost(gistHost) {
    set({ gistHost });
  },
  async importGists() {
    const { gistSecret, gistHost } = get();
    if (!secretGiven(gistSecret)) throw new Error('Personal access token is missing');
    const body: Record<string, unknown> = gistHost.trim() ? { github_hostname: gistHost.trim() } : {};
    await apiOk(bridge, withSecret({ method: 'POST', path: '/import/github/gists', body }, 'personal_access_token', gistSecret));
    await get().loadGistReport();
  },
  async loadGistReport() {
    const res = await bridge.api<GistReport>({ method: 'GET', path: '/sandlab/import/github/gists' });
    set({ gistReport: res.status === 200 ? res.body : null });
  },
}));

/** What the provider's credentials reach (Sandlab's listing endpoint), a page at a time. */
export const repositoryList = createListStore<RepositoryChoice>(
  (): ApiRequest | null => {
    const { provider, connections, secrets, listing } = useImports.getState();
    const secret = secrets[provider];
    if (!listing || !secretGiven(secret)) return null;
    const def = providerById(provider);
    return withSecret({ method: 'POST', path: def.listPath, body: connectionParams(def, connections[provider]) }, def.secretParam, secret);
  },
  { perPage: 10 },
);

/** The projects the signed-in user imported (GitLab's `imported=true`), newest first. */
export const importList = createListStore<ImportedProject>(
  (q) => ({ method: 'GET', path: '/projects', query: { imported: true, order_by: 'id', sort: 'desc', search: q.filter || undefined } }),
  { perPage: 10 },
);

/**
 * Browser only (no push channel): running imports read through the API, as job events the shell's
 * status bar shows. The desktop gets the runner's own events over IPC.
 */
export async function readImportJobs(api: Bridge): Promise<JobProgressEvent[]> {
  const res = await api.api<ImportedProject[]>({ method: 'GET', path: '/projects', query: { imported: true, per_page: 100, order_by: 'id', sort: 'desc' } });
  if (res.status !== 200 || !Array.isArray(res.body)) return [];
  return res.body.map((p) => ({
    jobId: `project:${p.id}`,
    kind: 'project_import',
    state: p.import_status === 'scheduled' ? 'created' : p.import_status === 'none' ? 'finished' : p.import_status,
    done: isActive(p.import_status) ? 0 : 1,
    total: 1,
    message: `Import into ${p.path_with_namespace}`,
    subject: `project:${p.id}`,
  }));
}
