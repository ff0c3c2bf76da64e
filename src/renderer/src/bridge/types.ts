import type { ApiRequest, JobProgressEvent, SandlabDesktopApi, VaultStatus } from '../../../shared/ipc';

export interface BridgeResponse<T = unknown> {
  status: number;
  headers: Record<string, string>;
  body: T;
}

/** What the status bar shows; the desktop fills every field, a browser what it can know. */
export interface BridgeStatus {
  url: string;
  listening: boolean;
  error: string | null;
  version: string;
  dataDir?: string;
  appVersion?: string;
  uptimeSeconds?: number;
  vault?: VaultStatus;
}

/**
 * The renderer's one way out. Two implementations: IPC (in Electron, main authenticates) and HTTP
 * (in a browser behind `serve --ui`, with a token the user pastes).
 */
export interface Bridge {
  readonly kind: 'ipc' | 'http';
  api<T = unknown>(req: ApiRequest): Promise<BridgeResponse<T>>;
  /** A multipart request that reports its progress: bytes of the files sent so far, of their total. */
  upload<T = unknown>(req: ApiRequest, onProgress: (done: number, total: number) => void): Promise<BridgeResponse<T>>;
  status(): Promise<BridgeStatus>;
  onJobProgress(listener: (events: JobProgressEvent[]) => void): () => void;
  /** Whether calls can be made now (HTTP needs a token first). */
  isReady(): boolean;
  /** HTTP only: the token the user pasted (kept for this browser tab). */
  setToken?(token: string | null): void;
  /** Desktop-only features (preferences, credentials, dialogs); null in a browser. */
  readonly desktop: SandlabDesktopApi | null;
}

/** A non-2xx answer. Its message is the API's own (`message` or `error`, verbatim), with the status when the text lacks it. */
export class ApiCallError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    const text = describeError(body);
    super(text.startsWith(String(status)) ? text : `${text} (HTTP ${status})`);
  }
}

function describeError(body: unknown): string {
  if (body && typeof body === 'object' && !(body instanceof Uint8Array)) {
    const b = body as { message?: unknown; error?: unknown };
    const m = b.message ?? b.error ?? body;
    return typeof m === 'string' ? m : JSON.stringify(m);
  }
  if (body === null || body === undefined || body instanceof Uint8Array) return 'no message';
  return String(body);
}

/** api() that throws ApiCallError unless 2xx. */
export async function apiOk<T>(bridge: Bridge, req: ApiRequest): Promise<BridgeResponse<T>> {
  const res = await bridge.api<T>(req);
  if (res.status < 200 || res.status >= 300) throw new ApiCallError(res.status, res.body);
  return res;
}
