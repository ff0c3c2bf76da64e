import type { ApiRequest, JobProgressEvent } from '../../../shared/ipc';
import { buildQueryString } from '../../../shared/query';
import type { Bridge, BridgeResponse, BridgeStatus } from './types';

const TOKEN_KEY = 'sandlab.token';

/** Where the pasted token lives: this tab's session storage, gone when the tab closes. */
export interface TokenStore {
  get(): string | null;
  set(token: string | null): void;
}

/** The part of the Web Storage API used (kept DOM-free so Node tests type-check this file). */
interface StorageLike {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export function sessionTokenStore(storage: StorageLike = (globalThis as unknown as { sessionStorage: StorageLike }).sessionStorage): TokenStore {
  return {
    get: () => storage.getItem(TOKEN_KEY),
    set: (t) => (t ? storage.setItem(TOKEN_KEY, t) : storage.removeItem(TOKEN_KEY)),
  };
}

/** The part of XMLHttpRequest used (kept DOM-free so Node tests type-check this file). */
interface XhrLike {
  open(method: string, url: string): void;
  setRequestHeader(name: string, value: string): void;
  responseType: string;
  upload: { onprogress: ((e: { lengthComputable: boolean; loaded: number; total: number }) => void) | null };
  onerror: (() => void) | null;
  onload: (() => void) | null;
  status: number;
  response: unknown;
  getAllResponseHeaders(): string;
  send(body: unknown): void;
}

/** JSON parsed, text as text, other bytes as bytes, null when empty (the IPC bridge answers the same shapes). */
function parseBody(status: number, type: string, bytes: Uint8Array): unknown {
  if (status === 204 || status === 304 || bytes.length === 0) return null;
  if (/json/i.test(type)) return JSON.parse(new TextDecoder().decode(bytes));
  if (/^text\//i.test(type)) return new TextDecoder().decode(bytes);
  return bytes;
}

/** In a browser: plain HTTP to the service the page came from, with the user's token. */
export function createHttpBridge(baseUrl: string, tokens: TokenStore, fetchImpl: typeof fetch = (...a) => fetch(...a)): Bridge {
  /** The URL, headers and body of a request, for fetch and XHR alike. */
  function prepare(req: ApiRequest): { url: string; headers: Record<string, string>; body: string | FormData | undefined } {
    // Stored credentials live in the desktop app's keychain; a browser sends what the user typed.
    if (req.credential) throw new Error('Stored credentials are a desktop feature: in a browser, type the token for this tab.');
    const headers: Record<string, string> = {};
    const token = tokens.get();
    if (token) headers['PRIVATE-TOKEN'] = token;
    let body: string | FormData | undefined;
    if (req.multipart) {
      const form = new FormData();
      for (const [k, v] of Object.entries(req.multipart.fields ?? {})) form.append(k, v);
      for (const f of req.multipart.files) {
        if (!('bytes' in f)) throw new Error('a browser can only upload file contents, not paths');
        form.append(f.field, new Blob([f.bytes as Uint8Array<ArrayBuffer>], { type: f.contentType ?? 'application/octet-stream' }), f.filename);
      }
      body = form;
    } else if (req.body !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(req.body);
    }
    return { url: `${baseUrl}/api/v4${req.path}${buildQueryString(req.query)}`, headers, body };
  }

  async function api<T>(req: ApiRequest): Promise<BridgeResponse<T>> {
    const { url, headers, body } = prepare(req);
    const res = await fetchImpl(url, { method: req.method, headers, body });
    const out: Record<string, string> = {};
    res.headers.forEach((v, k) => (out[k.toLowerCase()] = v));
    return { status: res.status, headers: out, body: parseBody(res.status, out['content-type'] ?? '', new Uint8Array(await res.arrayBuffer())) as T };
  }

  /** fetch cannot report upload progress; XMLHttpRequest can. */
  function upload<T>(req: ApiRequest, onProgress: (done: number, total: number) => void): Promise<BridgeResponse<T>> {
    const { url, headers, body } = prepare(req);
    return new Promise((resolve, reject) => {
      const xhr = new (globalThis as unknown as { XMLHttpRequest: new () => XhrLike }).XMLHttpRequest();
      xhr.open(req.method, url);
      for (const [k, v] of Object.entries(headers)) xhr.setRequestHeader(k, v);
      xhr.responseType = 'arraybuffer';
      xhr.upload.onprogress = (e: { lengthComputable: boolean; loaded: number; total: number }) => e.lengthComputable && onProgress(e.loaded, e.total);
      xhr.onerror = () => reject(new Error('The service does not answer'));
      xhr.onload = () => {
        const out: Record<string, string> = {};
        for (const line of xhr.getAllResponseHeaders().trim().split(/\r?\n/)) {
          const i = line.indexOf(':');
          if (i > 0) out[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
        }
        resolve({ status: xhr.status, headers: out, body: parseBody(xhr.status, out['content-type'] ?? '', new Uint8Array(xhr.response as ArrayBuffer)) as T });
      };
      xhr.send(body ?? null);
    });
  }

  return {
    kind: 'http',
    desktop: null,
    isReady: () => !!tokens.get(),
    setToken: (t) => tokens.set(t),
    api,
    upload,
    async status(): Promise<BridgeStatus> {
      // Without a token there is nothing to ask yet: the page came from this origin, so it is up.
      if (!tokens.get()) return { url: baseUrl, listening: true, error: null, version: '' };
      try {
        const r = await api<{ version: string }>({ method: 'GET', path: '/version' });
        if (r.status === 200) return { url: baseUrl, listening: true, error: null, version: r.body.version };
        return { url: baseUrl, listening: true, error: r.status === 401 ? 'The token was not accepted (401).' : `HTTP ${r.status}`, version: '' };
      } catch (err) {
        return { url: baseUrl, listening: false, error: `The service does not answer: ${String(err)}`, version: '' };
      }
    },
    // A browser has no push channel from main; job state is read from the API resources instead.
    onJobProgress: (_listener: (events: JobProgressEvent[]) => void) => () => {},
  };
}
