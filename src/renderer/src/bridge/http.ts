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

/** In a browser: plain HTTP to the service the page came from, with the user's token. */
export function createHttpBridge(baseUrl: string, tokens: TokenStore, fetchImpl: typeof fetch = (...a) => fetch(...a)): Bridge {
  async function api<T>(req: ApiRequest): Promise<BridgeResponse<T>> {
    // Stored credentials live in the desktop app's keychain; a browser sends what the user typed.
    if (req.secrets) throw new Error('Stored credentials are a desktop feature: in a browser, type the token for this tab.');
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
    const res = await fetchImpl(`${baseUrl}/api/v4${req.path}${buildQueryString(req.query)}`, { method: req.method, headers, body });
    const out: Record<string, string> = {};
    res.headers.forEach((v, k) => (out[k.toLowerCase()] = v));
    const type = out['content-type'] ?? '';
    let parsed: unknown = null;
    if (res.status !== 204 && res.status !== 304) {
      if (/json/i.test(type)) {
        const text = await res.text();
        parsed = text ? JSON.parse(text) : null;
      } else if (/^text\//i.test(type)) parsed = await res.text();
      else {
        const bytes = new Uint8Array(await res.arrayBuffer());
        parsed = bytes.length ? bytes : null;
      }
    }
    return { status: res.status, headers: out, body: parsed as T };
  }

  return {
    kind: 'http',
    desktop: null,
    isReady: () => !!tokens.get(),
    setToken: (t) => tokens.set(t),
    api,
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
