/**
 * The IPC contract between renderer, preload and main: one map from channel to request and
 * response types. Preload derives its wrappers from it, main registers one handler per channel and
 * validates every payload at runtime (src/main/ipc/schemas.ts), the renderer's bridge calls it.
 * Types only (plus channel names): this file is imported by all three layers.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type QueryValue = string | number | boolean | (string | number)[];

/** A file for a multipart request: bytes from the renderer, or a path the open dialog returned. */
export type ApiFile =
  | { field: string; filename: string; contentType?: string; bytes: Uint8Array }
  | { field: string; path: string; filename?: string; contentType?: string };

export interface ApiMultipart {
  fields?: Record<string, string>;
  files: ApiFile[];
}

/** `window.sandlab.api(...)`: a call to `/api/v4<path>` answered by the service's inject(). */
export interface ApiRequest {
  method: HttpMethod;
  /** Under /api/v4, starting with `/`; no query string (use `query`). */
  path: string;
  query?: Record<string, QueryValue | undefined>;
  /** JSON body. */
  body?: unknown;
  /** Multipart body (uploads); exclusive with `body`. */
  multipart?: ApiMultipart;
  /**
   * Multipart only: main reports how much of the body the service has read as job progress events
   * (`kind: 'upload'`, this id) on the job-progress channel, so a large file shows a progress bar.
   */
  progressId?: string;
  /**
   * Desktop only: main writes the value of a stored remote credential (`sandlab:credentials-set`)
   * into the JSON body just before the call, so the renderer never holds the token: a migration's
   * `configuration.access_token`, an import's provider token.
   */
  credential?: ApiCredential;
}

/** Which stored credential goes where in a JSON body: `into` is dot-separated keys (`configuration.access_token`). */
export interface ApiCredential {
  name: string;
  into: string;
}

export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  /** Parsed JSON, text for text/*, bytes otherwise, null when empty. */
  body: unknown;
}

export type VaultKind = 'keychain' | 'encrypted-file' | 'memory';

export interface VaultStatus {
  kind: VaultKind;
  /** Whether secrets survive a restart. */
  persistent: boolean;
  /** Shown in the window when the OS keychain is not in use (why, and what it means). */
  message: string | null;
}

export interface ServiceStatus {
  /** `http://127.0.0.1:<port>` while listening; '' when the port could not be used. */
  url: string;
  port: number | null;
  listening: boolean;
  /** Why the service is not listening (a taken port), shown in the window. */
  error: string | null;
  dataDir: string;
  /** The GitLab version the API reports. */
  version: string;
  appVersion: string;
  uptimeSeconds: number;
  vault: VaultStatus;
}

export type Theme = 'system' | 'light' | 'dark';

export interface WindowBounds {
  x?: number;
  y?: number;
  width: number;
  height: number;
}

export interface Preferences {
  /** 0 picks any free port on each start. */
  port: number;
  /** Empty: the app's user-data folder. */
  dataDir: string;
  windowBounds: WindowBounds;
  /** Base URLs only, never credentials. */
  recentMigrationSources: string[];
  theme: Theme;
}

export interface PreferencesUpdate {
  port?: number;
  dataDir?: string;
  recentMigrationSources?: string[];
  theme?: Theme;
}

export interface PreferencesResult {
  preferences: Preferences;
  status: ServiceStatus;
}

export interface FileFilter {
  name: string;
  extensions: string[];
}

export interface OpenDialogRequest {
  title?: string;
  filters?: FileFilter[];
  multiple?: boolean;
}

export interface OpenDialogResult {
  canceled: boolean;
  /** Paths the api channel will accept as upload sources for the rest of the session. */
  files: { path: string; name: string; size: number }[];
}

export interface SaveDialogRequest {
  title?: string;
  defaultName?: string;
  filters?: FileFilter[];
  /** What to write to the chosen file. */
  data: string | Uint8Array;
}

export interface SaveDialogResult {
  canceled: boolean;
  path: string | null;
}

export interface JobProgressEvent {
  jobId: string;
  /** `bulk_import`, `project_import`, ... */
  kind: string;
  state: 'created' | 'started' | 'finished' | 'failed' | 'canceled' | 'timeout';
  done: number;
  total: number;
  message?: string;
  /** The resource that owns the job (`bulk_import:3`), so a workspace knows what to refresh. */
  subject?: string;
  /** Kind-specific detail: a bulk import entity id, the relation being copied. */
  detail?: Record<string, string | number | null>;
}

/** Every invoke channel: request and response. */
export interface IpcContract {
  'sandlab:api': { request: ApiRequest; response: ApiResponse };
  'sandlab:service-status': { request: void; response: ServiceStatus };
  'sandlab:preferences-get': { request: void; response: Preferences };
  'sandlab:preferences-set': { request: PreferencesUpdate; response: PreferencesResult };
  'sandlab:credentials-set': { request: { name: string; value: string }; response: void };
  'sandlab:credentials-delete': { request: { name: string }; response: { deleted: boolean } };
  'sandlab:credentials-list': { request: void; response: string[] };
  'sandlab:dialog-open': { request: OpenDialogRequest; response: OpenDialogResult };
  'sandlab:dialog-save': { request: SaveDialogRequest; response: SaveDialogResult };
  'sandlab:reveal-data-dir': { request: void; response: void };
  'sandlab:clipboard-write': { request: { text: string }; response: void };
}

export type IpcChannel = keyof IpcContract;
export type IpcRequest<C extends IpcChannel> = IpcContract[C]['request'];
export type IpcResponse<C extends IpcChannel> = IpcContract[C]['response'];

export const IPC_CHANNELS: readonly IpcChannel[] = [
  'sandlab:api',
  'sandlab:service-status',
  'sandlab:preferences-get',
  'sandlab:preferences-set',
  'sandlab:credentials-set',
  'sandlab:credentials-delete',
  'sandlab:credentials-list',
  'sandlab:dialog-open',
  'sandlab:dialog-save',
  'sandlab:reveal-data-dir',
  'sandlab:clipboard-write',
];

/** Main -> renderer push: a batch of job progress events (at most one batch per 250 ms). */
export const JOB_PROGRESS_CHANNEL = 'sandlab:job-progress';

/** What preload exposes as `window.sandlab`. */
export interface SandlabDesktopApi {
  api(req: ApiRequest): Promise<ApiResponse>;
  serviceStatus(): Promise<ServiceStatus>;
  getPreferences(): Promise<Preferences>;
  setPreferences(update: PreferencesUpdate): Promise<PreferencesResult>;
  setCredential(name: string, value: string): Promise<void>;
  deleteCredential(name: string): Promise<{ deleted: boolean }>;
  listCredentials(): Promise<string[]>;
  openDialog(req: OpenDialogRequest): Promise<OpenDialogResult>;
  saveDialog(req: SaveDialogRequest): Promise<SaveDialogResult>;
  revealDataDir(): Promise<void>;
  /** Plain text to the system clipboard (the window holds no clipboard permission of its own). */
  copyText(text: string): Promise<void>;
  /** Returns an unsubscribe function. */
  onJobProgress(listener: (events: JobProgressEvent[]) => void): () => void;
}
