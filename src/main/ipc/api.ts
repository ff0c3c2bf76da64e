import { openAsBlob } from 'node:fs';
import { basename } from 'node:path';
import { Readable, Transform } from 'node:stream';
import type { InjectOptions, Response as LightMyRequestResponse } from 'light-my-request';
import type { ApiRequest, ApiResponse } from '../../shared/ipc';
import { buildQueryString } from '../../shared/query';

export interface ApiForwardDeps {
  inject(opts: InjectOptions): Promise<LightMyRequestResponse>;
  /** The desktop user's token (from the keychain); added here, never returned. */
  token(): Promise<string>;
  /** Paths the open dialog returned this session: the only paths an upload may read. */
  isAllowedUploadPath(path: string): boolean;
  /** `127.0.0.1:<port>` while listening, so URLs in bodies (web_url, ...) point at the real service. */
  hostHeader(): string | null;
  /** A stored remote credential's value (keychain), or null when none has that name. */
  credential(name: string): Promise<string | null>;
  /** Multipart bodies: how many bytes the service has read so far, of how many. */
  progress?(done: number, total: number): void;
}

// Hop-by-hop and cookie headers mean nothing to the renderer.
const DROPPED_HEADERS = new Set(['set-cookie', 'connection', 'keep-alive', 'transfer-encoding']);

/** Answers the renderer's `api` call through inject(), authenticated as the desktop user. */
export async function forwardApiRequest(req: ApiRequest, deps: ApiForwardDeps): Promise<ApiResponse> {
  const token = await deps.token();
  const secrets = [token];
  if (req.credential) {
    const value = await deps.credential(req.credential.name);
    if (!value) throw new Error(`no stored credential is named ${req.credential.name}`);
    req = { ...req, body: withValueAt(req.body, req.credential.into, value) };
    secrets.push(value);
  }
  const headers: Record<string, string> = { 'private-token': token };
  const host = deps.hostHeader();
  if (host) headers.host = host;
  let payload: InjectOptions['payload'];
  if (req.multipart) {
    const form = new FormData();
    for (const [k, v] of Object.entries(req.multipart.fields ?? {})) form.append(k, v);
    for (const f of req.multipart.files) {
      if ('bytes' in f) {
        form.append(f.field, new Blob([f.bytes], { type: f.contentType ?? 'application/octet-stream' }), f.filename);
      } else {
        if (!deps.isAllowedUploadPath(f.path)) throw new Error('upload path was not chosen through the open dialog');
        const blob = await openAsBlob(f.path, { type: f.contentType ?? 'application/octet-stream' });
        form.append(f.field, blob, f.filename ?? basename(f.path));
      }
    }
    // Let fetch's encoder write the multipart body; stream it so a large file is never one buffer.
    const encoded = new Request('http://sandlab.invalid/', { method: 'POST', body: form });
    headers['content-type'] = encoded.headers.get('content-type')!;
    const stream = Readable.fromWeb(encoded.body! as import('node:stream/web').ReadableStream<Uint8Array>);
    payload = deps.progress ? countBytes(stream, multipartSize(form), deps.progress) : stream;
  } else if (req.body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(req.body);
  }
  const res = await deps.inject({
    method: req.method,
    url: `/api/v4${req.path}${buildQueryString(req.query)}`,
    headers,
    payload,
  });
  return { status: res.statusCode, headers: responseHeaders(res, secrets), body: responseBody(res, secrets) };
}

/** The files' sizes: the body is a little larger (part headers), so progress is reported against this and capped by it. */
function multipartSize(form: FormData): number {
  let total = 0;
  for (const [, v] of form) if (typeof v !== 'string') total += v.size;
  return total;
}

/** Passes the stream through, reporting bytes read at most every 64 KB (and at the end). */
function countBytes(stream: Readable, total: number, progress: (done: number, total: number) => void): Readable {
  let done = 0;
  let reported = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      done += chunk.length;
      if (done - reported >= 65536) {
        reported = done;
        progress(Math.min(done, total), total);
      }
      cb(null, chunk);
    },
    flush(cb) {
      progress(total, total);
      cb();
    },
  });
  stream.on('error', (err) => counter.destroy(err));
  return stream.pipe(counter);
}

/** A copy of the JSON object body with `value` at the dot-separated `path` (objects made on the way). */
function withValueAt(body: unknown, path: string, value: string): Record<string, unknown> {
  const out = structuredClone(body) as Record<string, unknown>;
  const keys = path.split('.');
  let node = out;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    node = node[key] = next && typeof next === 'object' && !Array.isArray(next) ? (next as Record<string, unknown>) : {};
  }
  node[keys[keys.length - 1]] = value;
  return out;
}

const carries = (text: string, secrets: string[]): boolean => secrets.some((s) => s && text.includes(s));

function responseHeaders(res: LightMyRequestResponse, secrets: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) {
    if (v === undefined || DROPPED_HEADERS.has(k.toLowerCase())) continue;
    const value = Array.isArray(v) ? v.join(', ') : String(v);
    if (carries(value, secrets)) continue;
    out[k.toLowerCase()] = value;
  }
  return out;
}

/** The body as the renderer gets it; a text that would carry a secret is withheld. */
function responseBody(res: LightMyRequestResponse, secrets: string[]): unknown {
  const raw = res.rawPayload;
  if (!raw || raw.length === 0) return null;
  const type = String(res.headers['content-type'] ?? '');
  const text = (): string => {
    const t = raw.toString('utf8');
    if (carries(t, secrets)) throw new Error('the response carried a secret and was withheld from the window');
    return t;
  };
  if (/json/i.test(type)) {
    const t = text();
    try {
      return JSON.parse(t);
    } catch {
      return t;
    }
  }
  if (/^text\/|xml|javascript|yaml/i.test(type)) return text();
  return new Uint8Array(raw);
}
