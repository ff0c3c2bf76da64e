import { ApiError } from '../service/http/errors';
import { declared, t, type Params } from '../service/http/params';
import type {
  ApiFile,
  ApiRequest,
  FileFilter,
  OpenDialogRequest,
  PreferencesUpdate,
  SaveDialogRequest,
} from '../../shared/ipc';

/**
 * Runtime validation of every IPC payload, with the same declared-parameter module the HTTP layer
 * uses (src/main/service/http/params.ts): a renderer is as untrusted as any HTTP client.
 */
export class IpcValidationError extends Error {
  constructor(message: string) {
    super(`invalid payload: ${message}`);
    this.name = 'IpcValidationError';
  }
}

function asParams(payload: unknown, what: string): Params {
  if (payload === undefined || payload === null) return {};
  if (typeof payload !== 'object' || Array.isArray(payload)) throw new IpcValidationError(`${what} must be an object`);
  return payload as Params;
}

/** declared(), with Grape's error text turned into an IPC error. */
function check<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof ApiError) throw new IpcValidationError(err.message);
    throw err;
  }
}

function rejectUnknown(params: Params, known: string[], what: string): void {
  const extra = Object.keys(params).filter((k) => !known.includes(k));
  if (extra.length) throw new IpcValidationError(`${what} does not accept ${extra.join(', ')}`);
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** The api channel's request: a path under /api/v4 that cannot climb out of it. */
export function parseApiRequest(payload: unknown): ApiRequest {
  const p = asParams(payload, 'api request');
  rejectUnknown(p, ['method', 'path', 'query', 'body', 'multipart', 'progressId', 'credential'], 'api request');
  const v = check(() =>
    declared(p, {
      method: t.string().values(METHODS).required(),
      path: t.string().notBlank().required(),
      query: t.hash(),
      body: t.any(),
      multipart: t.hash(),
      progressId: t.string(),
      credential: t.hash(),
    }),
  );
  const path = v.path;
  if (!path.startsWith('/') || path.startsWith('//')) throw new IpcValidationError('path must start with a single /');
  if (/[?#\s\\]/.test(path)) throw new IpcValidationError('path must not contain ?, #, spaces or backslashes (use query)');
  if (path.split('/').some((seg) => seg === '..' || seg === '.' || /^%2e(%2e)?$/i.test(seg) || /^\.%2e$|^%2e\.$/i.test(seg))) {
    throw new IpcValidationError('path must not contain . or .. segments');
  }
  if (v.body !== undefined && v.multipart) throw new IpcValidationError('body and multipart are mutually exclusive');
  const req: ApiRequest = { method: v.method, path };
  if (v.query) req.query = parseQuery(v.query);
  if (v.body !== undefined) req.body = v.body;
  if (v.multipart) req.multipart = parseMultipart(v.multipart);
  if (v.progressId != null) {
    if (!v.multipart) throw new IpcValidationError('progressId goes with a multipart body');
    if (!/^[A-Za-z0-9:_-]{1,100}$/.test(v.progressId)) throw new IpcValidationError('progressId may hold letters, digits and : _ - (at most 100)');
    req.progressId = v.progressId;
  }
  if (v.credential) req.credential = parseApiCredential(v.credential, req.body);
  return req;
}

/** Where a stored credential goes: into an object body, at a short path of plain keys (no `__proto__`). */
const BODY_PATH = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*){0,3}$/;

function parseApiCredential(c: Record<string, unknown>, body: unknown): NonNullable<ApiRequest['credential']> {
  rejectUnknown(c, ['name', 'into'], 'credential');
  const { name } = parseCredentialName({ name: c.name });
  if (typeof c.into !== 'string' || !BODY_PATH.test(c.into)) throw new IpcValidationError('credential into must be dot-separated keys, e.g. configuration.access_token');
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new IpcValidationError('a credential goes into a JSON object body');
  return { name, into: c.into };
}

function parseQuery(q: Record<string, unknown>): NonNullable<ApiRequest['query']> {
  const out: NonNullable<ApiRequest['query']> = {};
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined || v === null) continue;
    const scalar = (x: unknown): x is string | number | boolean => ['string', 'number', 'boolean'].includes(typeof x);
    if (scalar(v)) out[k] = v;
    else if (Array.isArray(v) && v.every((x) => typeof x === 'string' || typeof x === 'number')) out[k] = v as (string | number)[];
    else throw new IpcValidationError(`query ${k} must be a string, number, boolean or a list of them`);
  }
  return out;
}

function parseMultipart(m: Record<string, unknown>): NonNullable<ApiRequest['multipart']> {
  rejectUnknown(m, ['fields', 'files'], 'multipart');
  const v = check(() => declared(m, { fields: t.hash(), files: t.array(t.hash()).required() }));
  const fields: Record<string, string> = {};
  for (const [k, val] of Object.entries(v.fields ?? {})) {
    if (typeof val !== 'string' && typeof val !== 'number' && typeof val !== 'boolean') throw new IpcValidationError(`multipart field ${k} must be a string`);
    fields[k] = String(val);
  }
  const files = v.files.map((f, i): ApiFile => {
    const base = check(() =>
      declared(f, { field: t.string().notBlank().required(), filename: t.string(), contentType: t.string(), path: t.string(), bytes: t.any() }),
    );
    rejectUnknown(f, ['field', 'filename', 'contentType', 'path', 'bytes'], `multipart file ${i}`);
    if (base.bytes !== undefined) {
      if (!(base.bytes instanceof Uint8Array)) throw new IpcValidationError(`multipart file ${i} bytes must be a Uint8Array`);
      if (base.path !== undefined) throw new IpcValidationError(`multipart file ${i}: bytes and path are mutually exclusive`);
      if (!base.filename) throw new IpcValidationError(`multipart file ${i} needs a filename`);
      return { field: base.field, filename: base.filename, contentType: base.contentType ?? undefined, bytes: base.bytes };
    }
    if (!base.path) throw new IpcValidationError(`multipart file ${i} needs bytes or a path`);
    return { field: base.field, path: base.path, filename: base.filename ?? undefined, contentType: base.contentType ?? undefined };
  });
  return { fields, files };
}

export function parsePreferencesUpdate(payload: unknown): PreferencesUpdate {
  const p = asParams(payload, 'preferences');
  rejectUnknown(p, ['port', 'dataDir', 'recentMigrationSources', 'theme'], 'preferences');
  const v = check(() =>
    declared(p, {
      port: t.integer(),
      dataDir: t.string(),
      recentMigrationSources: t.array(t.string()),
      theme: t.string().values(['system', 'light', 'dark'] as const),
    }),
  );
  if (v.port != null && (v.port < 0 || v.port > 65535)) throw new IpcValidationError('port must be 0..65535');
  if (v.dataDir != null && v.dataDir !== '' && !isAbsolutePath(v.dataDir)) throw new IpcValidationError('dataDir must be an absolute path');
  const out: PreferencesUpdate = {};
  for (const k of ['port', 'dataDir', 'recentMigrationSources', 'theme'] as const) {
    if (v[k] !== undefined && v[k] !== null) (out as Record<string, unknown>)[k] = v[k];
  }
  return out;
}

const isAbsolutePath = (s: string): boolean => s.startsWith('/') || /^[A-Za-z]:[\\/]/.test(s) || s.startsWith('\\\\');

/** Names like `migration:https://gitlab.example.com` or `providera`; values are opaque. */
const CREDENTIAL_NAME = /^[A-Za-z0-9._:@/+-]{1,200}$/;

export function parseCredentialName(payload: unknown): { name: string } {
  const p = asParams(payload, 'credential');
  rejectUnknown(p, ['name'], 'credential');
  const v = check(() => declared(p, { name: t.string().notBlank().required() }));
  if (!CREDENTIAL_NAME.test(v.name)) throw new IpcValidationError('name may hold letters, digits and . _ : @ / + - (at most 200)');
  return { name: v.name };
}

export function parseCredentialSet(payload: unknown): { name: string; value: string } {
  const p = asParams(payload, 'credential');
  rejectUnknown(p, ['name', 'value'], 'credential');
  const { name } = parseCredentialName({ name: p.name });
  const v = check(() => declared(p, { value: t.string().notBlank().required() }));
  if (typeof p.value !== 'string') throw new IpcValidationError('value must be a string');
  if (v.value.length > 8192) throw new IpcValidationError('value is too long');
  return { name, value: v.value };
}

function parseFilters(raw: unknown): FileFilter[] | undefined {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw)) throw new IpcValidationError('filters must be a list');
  return raw.map((f) => {
    const v = check(() => declared(asParams(f, 'filter'), { name: t.string().required(), extensions: t.array(t.string()).required() }));
    return { name: v.name, extensions: v.extensions };
  });
}

export function parseOpenDialog(payload: unknown): OpenDialogRequest {
  const p = asParams(payload, 'open dialog');
  rejectUnknown(p, ['title', 'filters', 'multiple'], 'open dialog');
  const v = check(() => declared(p, { title: t.string(), multiple: t.boolean() }));
  return { title: v.title ?? undefined, multiple: v.multiple ?? false, filters: parseFilters(p.filters) };
}

export function parseSaveDialog(payload: unknown): SaveDialogRequest {
  const p = asParams(payload, 'save dialog');
  rejectUnknown(p, ['title', 'defaultName', 'filters', 'data'], 'save dialog');
  const v = check(() => declared(p, { title: t.string(), defaultName: t.string(), data: t.any().required() }));
  if (typeof v.data !== 'string' && !(v.data instanceof Uint8Array)) throw new IpcValidationError('data must be a string or a Uint8Array');
  if (v.defaultName && /[\\/]/.test(v.defaultName)) throw new IpcValidationError('defaultName must be a file name, not a path');
  return { title: v.title ?? undefined, defaultName: v.defaultName ?? undefined, filters: parseFilters(p.filters), data: v.data };
}

/** Text for the clipboard: a string, at most 1 MB (a snippet, a curl line, a token shown once). */
export function parseClipboardWrite(payload: unknown): { text: string } {
  const p = asParams(payload, 'clipboard');
  rejectUnknown(p, ['text'], 'clipboard');
  if (typeof p.text !== 'string') throw new IpcValidationError('text must be a string');
  if (p.text.length > 1_000_000) throw new IpcValidationError('text is too long');
  return { text: p.text };
}

/** Channels without a request accept nothing. */
export function parseEmpty(payload: unknown): void {
  if (payload === undefined || payload === null) return;
  if (typeof payload === 'object' && !Array.isArray(payload) && Object.keys(payload).length === 0) return;
  throw new IpcValidationError('this channel takes no payload');
}
