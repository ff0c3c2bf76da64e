import { create } from 'zustand';
import type { ApiRequest, JobProgressEvent } from '../../../shared/ipc';
import { apiOk, bridge, type Bridge } from '../bridge';
import { createListStore } from './list';

/** Entities::BulkImport */
export interface BulkImport {
  id: number;
  status: MigrationStatus;
  source_type: string;
  source_url: string;
  created_at: string;
  updated_at: string;
  has_failures: boolean;
}

export type MigrationStatus = 'created' | 'started' | 'finished' | 'timeout' | 'failed' | 'canceled';

export interface EntityFailure {
  relation: string;
  step: string;
  exception_message: string;
  exception_class: string;
  correlation_id_value: string;
  created_at: string;
  source_url: string | null;
  source_title: string | null;
}

/** Entities::BulkImports::Entity */
export interface MigrationEntity {
  id: number;
  bulk_import_id: number;
  status: MigrationStatus;
  entity_type: 'group' | 'project';
  source_full_path: string;
  destination_full_path: string | null;
  destination_slug: string;
  destination_namespace: string;
  parent_id: number | null;
  migrate_projects: boolean;
  migrate_memberships: boolean;
  has_failures: boolean;
  failures: EntityFailure[];
  stats: Record<string, { source: number; fetched: number; imported: number }>;
}

/** What the source browser lists (Sandlab's source_entities). */
export interface SourceEntity {
  id: number;
  kind: 'group' | 'project';
  name: string;
  path: string;
  full_path: string;
  full_name: string;
  description: string | null;
  visibility: string | null;
  web_url: string | null;
}

/** A source group or project picked for migration, with where it goes. */
export interface Pick {
  sourceType: 'group_entity' | 'project_entity';
  sourceFullPath: string;
  destinationNamespace: string;
  destinationSlug: string;
  migrateProjects: boolean;
  migrateMemberships: boolean;
}

/** The dry run's answer (Sandlab-only). */
export interface Plan {
  source_version: string;
  entities: { entity_type: 'group' | 'project'; source_full_path: string; destination_full_path: string; stats: Record<string, { source: number }> }[];
  conflicts: { type: string; source_full_path: string; destination_full_path: string; message: string }[];
}

export const isActive = (s: MigrationStatus): boolean => s === 'created' || s === 'started';

/** The source's base URL as stored and compared: no trailing slash. */
export const normalizeUrl = (url: string): string => url.trim().replace(/\/+$/, '');

/** The keychain name of a source's token (desktop). */
export const credentialName = (url: string): string => `migration:${normalizeUrl(url)}`;

/**
 * A request that carries the source token: in the desktop app main writes it from the keychain
 * (the window never holds it); in a browser it is the token typed for this tab.
 */
export function withSourceToken(req: ApiRequest & { body: { configuration: Record<string, unknown> } & Record<string, unknown> }, url: string, typedToken: string): ApiRequest {
  if (bridge.desktop) return { ...req, credential: { name: credentialName(url), into: 'configuration.access_token' } };
  return { ...req, body: { ...req.body, configuration: { ...req.body.configuration, access_token: typedToken } } };
}

/** The migrations list (GET /bulk_imports, newest first). */
export const migrationList = createListStore<BulkImport>(() => ({ method: 'GET', path: '/bulk_imports' }), { perPage: 10 });

/** The source browser's list: groups the token owns or projects it maintains, searched and paged by the source. */
export const sourceList = createListStore<SourceEntity>((q) => {
  const { sourceUrl, typedToken, connected, browsing } = useMigrations.getState();
  if (!connected) return null;
  const url = normalizeUrl(sourceUrl);
  return withSourceToken(
    {
      method: 'POST',
      path: '/sandlab/bulk_imports/source_entities',
      body: { configuration: { url }, source_type: browsing, ...(q.filter ? { search: q.filter } : {}) },
    },
    url,
    typedToken,
  );
});

interface MigrationsState {
  view: 'new' | 'history';
  sourceUrl: string;
  /** Browser only: the token typed for this tab (never stored). */
  typedToken: string;
  /** Desktop: a token for this source is in the keychain. */
  tokenStored: boolean;
  /** The source browser is open for sourceUrl. */
  connected: boolean;
  browsing: 'group_entity' | 'project_entity';
  picks: Pick[];
  destination: string;
  plan: Plan | null;
  /** The migration whose detail is shown. */
  openId: number | null;
  detail: { migration: BulkImport; entities: MigrationEntity[] } | null;
  setView(view: MigrationsState['view']): void;
  setSource(url: string): void;
  setTypedToken(token: string): void;
  checkStoredToken(): Promise<void>;
  storeToken(token: string): Promise<void>;
  connect(): Promise<void>;
  browse(kind: MigrationsState['browsing']): Promise<void>;
  pick(e: SourceEntity): void;
  updatePick(index: number, patch: Partial<Pick>): void;
  unpick(index: number): void;
  setDestination(ns: string): void;
  dryRun(): Promise<Plan>;
  start(): Promise<BulkImport>;
  open(id: number | null): Promise<void>;
  refresh(): Promise<void>;
  cancel(): Promise<BulkImport>;
  retry(entity: MigrationEntity): Promise<MigrationEntity>;
}

/** The body of POST /bulk_imports for the picked entities. */
function createBody(s: Pick[], url: string, dryRun: boolean): { configuration: Record<string, unknown> } & Record<string, unknown> {
  return {
    configuration: { url },
    entities: s.map((p) => ({
      source_type: p.sourceType,
      source_full_path: p.sourceFullPath,
      destination_namespace: p.destinationNamespace,
      destination_slug: p.destinationSlug,
      migrate_projects: p.migrateProjects,
      migrate_memberships: p.migrateMemberships,
    })),
    ...(dryRun ? { dry_run: true } : {}),
  };
}

/** Every page of a migration's entities. */
async function allEntities(id: number): Promise<MigrationEntity[]> {
  const out: MigrationEntity[] = [];
  for (let page = 1; page < 1000; page++) {
    const r = await apiOk<MigrationEntity[]>(bridge, { method: 'GET', path: `/bulk_imports/${id}/entities`, query: { page, per_page: 100 } });
    out.push(...r.body);
    if (!r.headers['x-next-page']) break;
  }
  return out;
}

/** The Migrations workspace: the source, what is picked, the plan, and the migration being watched. */
export const useMigrations = create<MigrationsState>((set, get) => ({
  view: 'new',
  sourceUrl: '',
  typedToken: '',
  tokenStored: false,
  connected: false,
  browsing: 'group_entity',
  picks: [],
  destination: '',
  plan: null,
  openId: null,
  detail: null,
  setView: (view) => set({ view }),
  setSource(url) {
    set({ sourceUrl: url, connected: false, plan: null });
    sourceList.getState().clear();
    void get().checkStoredToken();
  },
  setTypedToken: (typedToken) => set({ typedToken, connected: false }),
  async checkStoredToken() {
    const desktop = bridge.desktop;
    const url = normalizeUrl(get().sourceUrl);
    if (!desktop || !url) return set({ tokenStored: false });
    const names = await desktop.listCredentials();
    if (normalizeUrl(get().sourceUrl) === url) set({ tokenStored: names.includes(credentialName(url)) });
  },
  async storeToken(token) {
    const desktop = bridge.desktop;
    if (!desktop) throw new Error('Only the desktop app keeps tokens in the keychain.');
    await desktop.setCredential(credentialName(get().sourceUrl), token.trim());
    set({ tokenStored: true });
  },
  async connect() {
    set({ connected: true, plan: null });
    const list = sourceList.getState();
    await list.setPage(1);
    const error = sourceList.getState().error;
    if (error) throw new Error(error);
    const desktop = bridge.desktop;
    if (desktop) {
      // Remembered for next time: base URLs only, never a token.
      const url = normalizeUrl(get().sourceUrl);
      const prefs = await desktop.getPreferences();
      await desktop.setPreferences({ recentMigrationSources: [url, ...prefs.recentMigrationSources.filter((u) => u !== url)].slice(0, 10) });
    }
  },
  async browse(browsing) {
    set({ browsing });
    await sourceList.getState().setPage(1);
  },
  pick(e) {
    if (get().picks.some((p) => p.sourceFullPath === e.full_path)) return;
    const pick: Pick = {
      sourceType: e.kind === 'group' ? 'group_entity' : 'project_entity',
      sourceFullPath: e.full_path,
      destinationNamespace: get().destination,
      destinationSlug: e.path,
      migrateProjects: true,
      migrateMemberships: true,
    };
    set({ picks: [...get().picks, pick], plan: null });
  },
  updatePick(index, patch) {
    set({ picks: get().picks.map((p, i) => (i === index ? { ...p, ...patch } : p)), plan: null });
  },
  unpick(index) {
    set({ picks: get().picks.filter((_, i) => i !== index), plan: null });
  },
  setDestination(destination) {
    // Picks that still went to the previous default follow it.
    const previous = get().destination;
    set({ destination, picks: get().picks.map((p) => (p.destinationNamespace === previous ? { ...p, destinationNamespace: destination } : p)), plan: null });
  },
  async dryRun() {
    const { picks, sourceUrl, typedToken } = get();
    const url = normalizeUrl(sourceUrl);
    const r = await apiOk<Plan>(bridge, withSourceToken({ method: 'POST', path: '/bulk_imports', body: createBody(picks, url, true) }, url, typedToken));
    set({ plan: r.body });
    return r.body;
  },
  async start() {
    const { picks, sourceUrl, typedToken } = get();
    const url = normalizeUrl(sourceUrl);
    const r = await apiOk<BulkImport>(bridge, withSourceToken({ method: 'POST', path: '/bulk_imports', body: createBody(picks, url, false) }, url, typedToken));
    set({ picks: [], plan: null, view: 'history' });
    await migrationList.getState().setPage(1);
    await get().open(r.body.id);
    return r.body;
  },
  async open(id) {
    set({ openId: id, detail: id === null ? null : get().detail?.migration.id === id ? get().detail : null });
    if (id !== null) await get().refresh();
  },
  async refresh() {
    const id = get().openId;
    if (id === null) return;
    const [m, entities] = await Promise.all([apiOk<BulkImport>(bridge, { method: 'GET', path: `/bulk_imports/${id}` }), allEntities(id)]);
    if (get().openId !== id) return;
    set({ detail: { migration: m.body, entities } });
    // The list shows the same migration: keep its row's status in step.
    const list = migrationList.getState();
    if (list.rows.some((row) => row.id === id && row.status !== m.body.status)) void list.load();
  },
  async cancel() {
    const id = get().openId!;
    const r = await apiOk<BulkImport>(bridge, { method: 'POST', path: `/bulk_imports/${id}/cancel` });
    await get().refresh();
    return r.body;
  },
  async retry(entity) {
    const migration = get().detail!.migration;
    const url = normalizeUrl(migration.source_url);
    const r = await apiOk<MigrationEntity>(
      bridge,
      withSourceToken({ method: 'POST', path: `/bulk_imports/${migration.id}/entities/${entity.id}/retry`, body: { configuration: {} } }, url, get().typedToken),
    );
    await get().refresh();
    return r.body;
  },
}));

/**
 * Browser only (no push channel): the latest migrations for the status bar, one progress line
 * each (entities ended out of entities known); ended ones are reported too, so their line goes.
 */
export async function readMigrationJobs(b: Bridge): Promise<JobProgressEvent[]> {
  const r = await b.api<BulkImport[]>({ method: 'GET', path: '/bulk_imports', query: { per_page: 10 } });
  if (r.status !== 200 || !Array.isArray(r.body)) return [];
  return Promise.all(
    r.body.map(async (m): Promise<JobProgressEvent> => {
      const event: JobProgressEvent = { jobId: `bulk_import:${m.id}`, kind: 'bulk_import', state: m.status, done: 0, total: 0, subject: `bulk_import:${m.id}` };
      if (!isActive(m.status)) return event;
      const e = await b.api<MigrationEntity[]>({ method: 'GET', path: `/bulk_imports/${m.id}/entities`, query: { per_page: 100 } });
      const entities = Array.isArray(e.body) ? e.body : [];
      return { ...event, done: entities.filter((x) => !isActive(x.status)).length, total: entities.length };
    }),
  );
}
