// From its module: node's global `Buffer` is a getter, called on every use (Reply.send uses it each answer).
import { Buffer } from 'node:buffer';
import { type IncomingHttpHeaders, IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { Readable, finished } from 'node:stream';
import { RouteTable, badUrl } from './router';
import { NEXT_TICK_SHAPE } from './tick-shape';

/**
 * Sandlab's HTTP layer on node:http: the route table, body reading, a small reply object and the
 * answers the framework gives itself (bad URLs, 503 while closing, unparseable requests). It keeps
 * what fastify answered for each of these, so clients see the same bytes.
 */

/** One request: node's message plus what routing and body reading found. */
export class HttpRequest {
  body: unknown = undefined;
  /** The body as text for the content types read as text (JSON, forms, anything unknown). */
  rawBody: string | undefined = undefined;
  /** baseUrl, made on first use: one string per request, hashed once by the lookups keyed by it. */
  private base: string | undefined = undefined;
  constructor(
    readonly raw: IncomingMessage,
    /** Route parameters (`:id`, `*`), URL-decoded once. */
    readonly params: Record<string, string>,
  ) {}

  get method(): string {
    return this.raw.method!;
  }

  get url(): string {
    return this.raw.url!;
  }

  get headers(): IncomingHttpHeaders {
    return this.raw.headers;
  }

  /** The peer's address (undefined only once the socket is gone). */
  get ip(): string {
    return this.raw.socket?.remoteAddress as string;
  }

  /** No trust-proxy: the scheme of the connection itself. */
  get protocol(): 'http' | 'https' {
    return (this.raw.socket as { encrypted?: boolean } | undefined)?.encrypted ? 'https' : 'http';
  }

  /**
   * One request header, as `headers[name]` gives it (`name` lower-case), read from node's raw list:
   * `headers` is built on first use, every field name lower-cased and copied into a new object,
   * which costs more than the answer's own handler for the two to six fields a client sends. A
   * field sent twice (node joins or drops repeats, field by field) and a stand-in request
   * (inject()'s, which has its `headers` already) are answered by `headers` itself.
   */
  header(name: string): string | string[] | undefined {
    const raw = this.raw;
    // The type says IncomingMessage; inject() passes its own stand-in.
    if (!((raw as unknown) instanceof IncomingMessage)) return raw.headers[name];
    const list = raw.rawHeaders;
    // node keeps at most maxHeadersCount fields in `headers`: a list that long is its to read.
    if (list.length >= MANY_RAW_HEADERS) return raw.headers[name];
    let value: string | undefined;
    for (let i = 0; i < list.length; i += 2) {
      const field = list[i];
      if (field.length === name.length && sameFieldName(field, name)) {
        if (value !== undefined) return raw.headers[name];
        value = list[i + 1];
      }
    }
    return value;
  }

  /** The Host header as the client sent it ('' without one). */
  get host(): string {
    const host = this.header('host');
    return typeof host === 'string' ? host : '';
  }

  /** scheme://host[:port] exactly as the client reached us, for web_url and Link headers. */
  get baseUrl(): string {
    return (this.base ??= baseUrlOf(this.protocol, this.host));
  }
}

/**
 * Whether a field name as the client sent it (`PRIVATE-TOKEN`) is `lower` (a lower-case name of the
 * same length), as node's lower-casing would find: field names are tokens (ASCII; llhttp refuses
 * others). Compared letter by letter rather than through toLowerCase, which made a new string per
 * field per lookup (four lookups a request, for the credentials).
 */
function sameFieldName(field: string, lower: string): boolean {
  if (field === lower) return true;
  for (let i = 0; i < lower.length; i++) {
    const c = field.charCodeAt(i);
    if ((c >= 65 && c <= 90 ? c + 32 : c) !== lower.charCodeAt(i)) return false;
  }
  return true;
}

/** node's default maxHeadersCount (2,000 fields) as raw list entries, with room to spare. */
const MANY_RAW_HEADERS = 2000;

let lastBase = { protocol: '', host: '', url: '' };

/**
 * scheme://host, the same string object while clients keep sending the same Host: the lookups keyed
 * by it (servers, remembered entities) then find a string whose hash V8 has already computed,
 * instead of hashing a new one per request.
 */
function baseUrlOf(protocol: string, host: string): string {
  const last = lastBase;
  if (last.host === host && last.protocol === protocol) return last.url;
  lastBase = { protocol, host, url: `${protocol}://${host}` };
  return lastBase.url;
}

type HeaderValue = string | number | string[];

/**
 * A text body with its length in UTF-8 bytes, measured once: a kept answer's (db/connection.ts
 * jsonBody), sent again and again by Reply.send without measuring it anew (Buffer.byteLength
 * walked a 4.8 KB project's text on every read: ~850 instructions).
 */
export class MeasuredText {
  /** The text's bytes, made at the first send that wants them (a kept text only). */
  private encoded: Buffer | null = null;

  constructor(
    readonly text: string,
    readonly bytes: number,
    /** Sent again and again (an entity's text kept between answers): worth keeping as bytes too. */
    readonly kept = false,
  ) {}

  static of(text: string): MeasuredText {
    return new MeasuredText(text, Buffer.byteLength(text));
  }

  /** A text kept between answers (jsonBody's entities). */
  static kept(text: string): MeasuredText {
    return new MeasuredText(text, Buffer.byteLength(text), true);
  }

  /**
   * The text as UTF-8 bytes, encoded once. Not from node's 8 KiB pool: a kept slice would hold
   * the whole pool chunk. ASCII (a byte per character) is copied as Latin-1, the same bytes.
   */
  asBytes(): Buffer {
    if (this.encoded === null) {
      const out = Buffer.allocUnsafeSlow(this.bytes);
      out.write(this.text, 0, this.bytes === this.text.length ? 'latin1' : 'utf8');
      this.encoded = out;
    }
    return this.encoded;
  }
}

/**
 * The answer being built: status and headers are kept until `send` writes them at once.
 * `send` takes a Buffer, a string, a stream, undefined, or a plain value (as JSON).
 */
export class Reply {
  private status = 200;
  /**
   * The header fields as node's flat-array form of writeHead takes them, [name, value, ...]:
   * names lower-case, in the order first set (a field set again keeps its place, as an object's
   * key does). An object with a key per field was a new hidden class per set of headers, and
   * node walked it with for-in; the array is a loop over a few strings.
   */
  private readonly fields: (string | HeaderValue)[] = [];
  private replied = false;
  private hijacked = false;

  constructor(
    readonly raw: ServerResponse,
    readonly request: HttpRequest,
    private readonly onStreamError: (err: unknown, req: HttpRequest, reply: Reply) => void,
  ) {}

  get statusCode(): number {
    return this.status;
  }

  /** Whether the answer has been handed over (or the response taken over with `hijack`). */
  get sent(): boolean {
    return this.replied || this.hijacked || this.raw.writableEnded;
  }

  code(status: number): this {
    if (!(status >= 100 && status <= 599)) throw new Error(`Called reply with an invalid status code: ${status}`);
    this.status = status;
    return this;
  }

  header(name: string, value: HeaderValue): this {
    this.setField(name.toLowerCase(), value);
    return this;
  }

  /**
   * header() for a name already lower-case (Sandlab's own: the security headers, content-type),
   * not lower-cased again: toLowerCase builds a copy per call (~400 instructions), five a JSON answer.
   */
  lowerCaseHeader(name: Lowercase<string>, value: HeaderValue): this {
    this.setField(name, value);
    return this;
  }

  headers(values: Record<string, HeaderValue>): this {
    for (const name of Object.keys(values)) this.header(name, values[name]);
    return this;
  }

  getHeader(name: string): HeaderValue | undefined {
    return this.field(name.toLowerCase());
  }

  removeHeader(name: string): this {
    this.dropField(name.toLowerCase());
    return this;
  }

  private indexOf(name: string): number {
    const fields = this.fields;
    for (let i = 0; i < fields.length; i += 2) if (fields[i] === name) return i;
    return -1;
  }

  private field(name: string): HeaderValue | undefined {
    const i = this.indexOf(name);
    return i < 0 ? undefined : (this.fields[i + 1] as HeaderValue);
  }

  private setField(name: string, value: HeaderValue): void {
    const i = this.indexOf(name);
    if (i < 0) this.fields.push(name, value);
    else this.fields[i + 1] = value;
  }

  private dropField(name: string): void {
    const i = this.indexOf(name);
    if (i >= 0) this.fields.splice(i, 2);
  }

  redirect(url: string, status = 302): this {
    return this.header('location', url).code(status).send();
  }

  /** The response is the caller's from now on (it writes or destroys `raw` itself). */
  hijack(): this {
    this.hijacked = true;
    return this;
  }

  /** Forgets that an answer was handed over (a stream that failed before its first byte). */
  reopen(): void {
    this.replied = false;
  }

  send(payload?: unknown): this {
    if (this.sent) return this;
    this.replied = true;
    const res = this.raw;
    const head = this.request.method === 'HEAD';
    const fields = this.fields;
    if (payload === undefined || payload === null) {
      // GitLab's empty answers carry Content-Length: 0 (a HEAD answered by a GET route too).
      if (head || (this.status >= 200 && this.status !== 204 && this.status !== 304)) this.setField('content-length', '0');
      res.writeHead(this.status, fields);
      res.end();
      return this;
    }
    if (isStream(payload)) {
      if (head || this.status === 204 || this.status < 200) {
        if (!head) this.clearBodyHeaders();
        payload.on('error', () => undefined);
        payload.resume();
        res.writeHead(this.status, fields);
        res.end();
        return this;
      }
      this.pipe(payload);
      return this;
    }
    let body: Buffer | string;
    let length = -1;
    let kept: MeasuredText | null = null;
    if (payload instanceof MeasuredText) {
      body = payload.text;
      length = payload.bytes;
      if (payload.kept) kept = payload;
      if (this.field('content-type') === undefined) this.setField('content-type', 'text/plain; charset=utf-8');
    } else if (Buffer.isBuffer(payload)) {
      body = payload;
      if (this.field('content-type') === undefined) this.setField('content-type', 'application/octet-stream');
    } else if (typeof payload === 'string') {
      body = payload;
      if (this.field('content-type') === undefined) this.setField('content-type', 'text/plain; charset=utf-8');
    } else if (payload instanceof Uint8Array) {
      body = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength);
      if (this.field('content-type') === undefined) this.setField('content-type', 'application/octet-stream');
    } else {
      body = JSON.stringify(payload);
      if (this.field('content-type') === undefined) this.setField('content-type', 'application/json; charset=utf-8');
    }
    if (this.status === 204 || this.status < 200) {
      this.clearBodyHeaders();
      res.writeHead(this.status, fields);
      res.end();
      return this;
    }
    // A long text (a page of 100 records: ~150 KB of JSON) goes as a Buffer: node joins a string
    // body to its head and encodes the two, which cost ~330 us against ~230 us for encoding the
    // text alone and sending head and body together (bench/RESULTS.md, rows8). A short one stays
    // a string: one write with its head.
    // A text measured before, of ASCII only, is copied into its Buffer as Latin-1 (the same bytes).
    // A kept text of a few KiB goes as the bytes it keeps: joined to its head, node flattened the
    // two into a new string and copied that once more, per answer (~4 us of a 4.8 KB project's
    // ~31 under wrk, bench/http-ladder.ts), where the Buffer is written as it is. node writes the
    // head beside a Buffer as Latin-1: under a head past ASCII (only below LONG_TEXT, joined as
    // UTF-8 before) the text stays joined, so that no byte of the answer changes.
    if (typeof body === 'string' && !head) {
      if (kept !== null && length >= KEPT_BYTES && (body.length > LONG_TEXT || asciiValues(fields))) body = kept.asBytes();
      else if (body.length > LONG_TEXT) body = Buffer.from(body, length === body.length ? 'latin1' : 'utf8');
    }
    if (length < 0) length = Buffer.byteLength(body);
    const declared = this.field('content-length');
    if (head || declared === undefined || Number(declared) !== length) this.setField('content-length', String(length));
    res.writeHead(this.status, fields);
    if (head) res.end();
    else if (typeof body === 'string' && length === body.length && asciiValues(fields)) res.end(body, 'latin1');
    else res.end(body);
    return this;
  }

  /** Streams `source` into the response; a source that fails before its first byte is answered as an error. */
  private pipe(source: Readable): void {
    const res = this.raw;
    let open = true;
    finished(source, { readable: true, writable: false }, (err) => {
      open = false;
      if (!err) return;
      if (res.headersSent || this.request.raw.destroyed) res.destroy();
      else this.onStreamError(err, this.request, this);
    });
    finished(res, () => {
      if (open) source.destroy();
    });
    res.statusCode = this.status;
    const fields = this.fields;
    for (let i = 0; i < fields.length; i += 2) res.setHeader(fields[i] as string, fields[i + 1] as HeaderValue);
    source.pipe(res);
  }

  /** Drops Content-Type and Content-Length before an error answer replaces the body. */
  clearBodyHeaders(): void {
    this.dropField('content-type');
    this.dropField('content-length');
  }
}

/**
 * Whether every header value is ASCII (names are tokens, ASCII by node's check; the fields node
 * adds itself, Date and Connection, and its status lines are ASCII too). node writes a string body
 * joined to its head, in the body's encoding: a text of ASCII only (as long in bytes as in
 * characters) under an ASCII head is the same bytes in Latin-1 as in UTF-8, and node copies
 * Latin-1 a byte a character (V8's WriteOneByte) where UTF-8 encodes it (WriteUtf8, ~1.7k
 * instructions for a 4.8 KB project). A value with characters past 0x7f (node lets through up to
 * 0xff: a Host echoed in a Link) keeps the head in UTF-8, so that no byte of the answer changes.
 * Checked here, a few short strings, rather than on node's joined head, which V8 measured only
 * after flattening it (~650 instructions).
 */
function asciiValues(fields: readonly (string | HeaderValue)[]): boolean {
  for (let i = 1; i < fields.length; i += 2) {
    const value = fields[i];
    if (typeof value === 'string') {
      if (!asciiText(value)) return false;
    } else if (typeof value !== 'number') {
      for (const v of value) if (!asciiText(String(v))) return false;
    }
  }
  return true;
}

function asciiText(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** Texts longer than this (in UTF-16 units) are sent as a Buffer (Reply.send); node's own stack buffer for writing a string is 16 KiB. */
const LONG_TEXT = 16_384;

/**
 * Kept texts of at least this many bytes are sent as their kept bytes (Reply.send). Below, the
 * text joined to its head is as cheap: an issue's 1.4 KB went out in the same CPU either way, a
 * project's 4.8 KB ~14% cheaper as bytes (bench/http-ladder.ts's `bufbody` rung, round 29).
 */
const KEPT_BYTES = 4096;

const isStream = (value: unknown): value is Readable => typeof (value as { pipe?: unknown }).pipe === 'function';

/** A failure of the HTTP layer itself (body too large, bad media type), answered by the error handler. */
export class HttpLayerError extends Error {
  constructor(
    readonly code: 'BODY_TOO_LARGE' | 'INVALID_MEDIA_TYPE' | 'INVALID_CONTENT_LENGTH' | 'BODY_STREAM',
    message: string,
    readonly statusCode: number,
  ) {
    super(message);
  }
}

export type RouteHandler = (req: HttpRequest, reply: Reply) => unknown;
export type ErrorHandler = (err: unknown, req: HttpRequest, reply: Reply) => void;

/** What a content type's body becomes: the parsed value and, for text bodies, the text. */
export type BodyParser = (req: HttpRequest, text: string) => unknown;

export interface BodyParsers {
  /** media type (`application/json`) -> parse the body read as text */
  text: Map<string, BodyParser>;
  /** media types whose body stays the request stream (git's packs) */
  stream: Set<string>;
  /** media types left unread, with the value `req.body` becomes (multipart) */
  unread: Map<string, unknown>;
  /** everything else: read as text */
  fallback: BodyParser;
}

interface Route {
  handler: RouteHandler;
}

/** Methods whose bodies are read (fastify's "bodywith"); other methods' bodies are never read. */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
/** The methods the 405 answer considers. */
const ROUTED_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** Told when a request arrives over the server and when it is answered or its client went away (the jobs runner). */
export interface RequestGauge {
  requestStarted(): void;
  requestEnded(): void;
}

export interface HttpAppOptions {
  bodyLimit: number;
  /** Counts the server's requests in flight (not inject()'s). */
  gauge?: RequestGauge;
  parsers: BodyParsers;
  onError: ErrorHandler;
  /** Unknown path, or a known path with another method (`allowed` lists the methods it has). */
  onNotFound: (req: HttpRequest, reply: Reply, allowed: string[]) => void;
}

/** The route table, the request pipeline and the node:http server around them. */
export class HttpApp {
  private readonly table = new RouteTable<Route>();
  readonly server: Server;
  private closing = false;
  /** Keeps node's nextTick objects on V8's fast path after the process idles (tick-shape.ts). */
  readonly nextTickShape = NEXT_TICK_SHAPE;

  constructor(private readonly opts: HttpAppOptions) {
    this.server = createServer(opts.gauge ? this.serveCounted : this.dispatch);
    // As fastify configured node: keep-alive 72 s, no overall request timeout, node's 60 s for headers.
    this.server.keepAliveTimeout = 72_000;
    this.server.requestTimeout = 0;
    this.server.setTimeout(0);
    this.server.on('clientError', answerClientError);
  }

  /** Registers `handler` for `method` at `pattern`; every GET route answers HEAD too. */
  route(method: string, pattern: string, handler: RouteHandler): void {
    this.table.add(method, pattern, { handler });
    if (method === 'GET') this.table.add('HEAD', pattern, { handler });
  }

  /**
   * The server's one 'request' listener when requests are counted. Most answers are written
   * before dispatch returns: those end at once, without a 'close' listener per response (and
   * node emits 'request' to a single listener without copying a listener array).
   */
  private readonly serveCounted = (raw: IncomingMessage, res: ServerResponse): void => {
    const gauge = this.opts.gauge!;
    gauge.requestStarted();
    try {
      this.dispatch(raw, res);
    } finally {
      if (res.writableEnded) gauge.requestEnded();
      else res.on('close', this.requestEnded);
    }
  };

  private readonly requestEnded = (): void => this.opts.gauge!.requestEnded();

  /** Answers one request (node's 'request' event, and inject()). */
  readonly dispatch = (raw: IncomingMessage, res: ServerResponse): void => {
    if (this.closing) {
      res.setHeader('Connection', 'close');
      writeRaw(res, 503, '{"error":"Service Unavailable","message":"Service Unavailable","statusCode":503}');
      return;
    }
    const url = raw.url!;
    const method = raw.method!;
    let found: { route: Route; params: Record<string, string> } | null = null;
    if (this.table.has(method)) {
      const lookup = this.table.find(method, url);
      if (lookup?.kind === 'badUrl') return answerBadUrl(res, lookup.path);
      if (lookup?.kind === 'tooLong') return answerTooLong(res, lookup.path);
      if (lookup) found = lookup;
    } else {
      const bad = badUrl(url);
      if (bad) return answerBadUrl(res, bad.path);
    }
    const req = new HttpRequest(raw, found ? found.params : {});
    const reply = new Reply(res, req, this.handleError);
    const run = found ? found.route.handler : this.notFound;
    if (BODY_METHODS.has(method)) this.readBody(req, reply, run);
    else this.run(run, req, reply);
  };

  private run(handler: RouteHandler, req: HttpRequest, reply: Reply): void {
    try {
      const result = handler(req, reply) as Promise<unknown> | undefined;
      if (result && typeof result.then === 'function') result.then(undefined, (err) => this.handleError(err, req, reply));
    } catch (err) {
      this.handleError(err, req, reply);
    }
  }

  private readonly notFound: RouteHandler = (req, reply) => {
    const url = req.url;
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const allowed = this.table.methodsMatching(path, ROUTED_METHODS).filter((m) => m !== req.method);
    this.opts.onNotFound(req, reply, allowed);
  };

  private readonly handleError = (err: unknown, req: HttpRequest, reply: Reply): void => {
    reply.reopen();
    reply.clearBodyHeaders();
    try {
      this.opts.onError(err, req, reply);
    } catch (failed) {
      console.error('[sandlab] error handler failed:', failed);
      reply.raw.destroy();
    }
  };

  /** Reads the body as its content type asks, then runs `handler` (fastify's content-type parsers). */
  private readBody(req: HttpRequest, reply: Reply, handler: RouteHandler): void {
    const headers = req.headers;
    const ct = headers['content-type'];
    let mediaType = '';
    if (ct === undefined) {
      const length = headers['content-length'];
      if (headers['transfer-encoding'] === undefined && (length === undefined || length === '0')) return this.run(handler, req, reply);
    } else {
      const parsed = parseMediaType(ct);
      if (parsed === null) return this.handleError(new HttpLayerError('INVALID_MEDIA_TYPE', 'Unsupported Media Type', 415), req, reply);
      mediaType = parsed;
    }
    const { parsers } = this.opts;
    if (parsers.stream.has(mediaType)) {
      req.body = req.raw;
      return this.run(handler, req, reply);
    }
    if (parsers.unread.has(mediaType)) {
      req.body = parsers.unread.get(mediaType);
      return this.run(handler, req, reply);
    }
    const parse = parsers.text.get(mediaType) ?? parsers.fallback;
    readText(req.raw, this.opts.bodyLimit, (err, text) => {
      let failure: unknown = err;
      if (!failure) {
        try {
          req.body = parse(req, text!);
        } catch (parseErr) {
          failure = parseErr;
        }
      }
      if (failure) {
        // A body the service refused is not read further: the connection ends with the answer.
        reply.header('connection', 'close');
        return this.handleError(failure, req, reply);
      }
      this.run(handler, req, reply);
    });
  }

  listen(host: string, port: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const onError = (err: Error): void => reject(err);
      this.server.once('error', onError);
      this.server.listen(port, host, () => {
        this.server.off('error', onError);
        resolve();
      });
    });
  }

  /** Stops accepting: idle connections end, requests in flight finish, later ones get 503. */
  close(): Promise<void> {
    this.closing = true;
    return new Promise((resolve) => {
      if (!this.server.listening) return resolve();
      this.server.close(() => resolve());
      this.server.closeIdleConnections();
    });
  }
}

/** Reads a body as UTF-8 text up to `limit` bytes (413 past it; 400 when it does not match Content-Length). */
function readText(stream: IncomingMessage, limit: number, done: (err: Error | null, text?: string) => void): void {
  const declared = Number(stream.headers['content-length']);
  if (declared > limit) return done(new HttpLayerError('BODY_TOO_LARGE', 'Request body is too large', 413));
  const chunks: Buffer[] = [];
  let received = 0;
  const cleanup = (): void => {
    stream.removeListener('data', onData);
    stream.removeListener('end', onEnd);
    stream.removeListener('error', onEnd);
  };
  const onData = (chunk: Buffer): void => {
    received += chunk.length;
    if (received > limit) {
      cleanup();
      return done(new HttpLayerError('BODY_TOO_LARGE', 'Request body is too large', 413));
    }
    chunks.push(chunk);
  };
  const onEnd = (err?: Error): void => {
    cleanup();
    if (err) return done(new HttpLayerError('BODY_STREAM', err.message, 400));
    if (!Number.isNaN(declared) && received !== declared) {
      return done(new HttpLayerError('INVALID_CONTENT_LENGTH', 'Request body size did not match Content-Length', 400));
    }
    done(null, chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks, received).toString('utf8'));
  };
  stream.on('data', onData);
  stream.on('end', onEnd);
  stream.on('error', onEnd);
  stream.resume();
}

const TOKEN = /^[\w!#$%&'*+.^`|~-]+$/;
const SUBTYPE = /^[\w!#$%&'*+.^`|~-]+\s*$/;

/** `Application/JSON; charset=utf-8` -> `application/json`; null when it is not a media type. */
export function parseMediaType(header: string): string | null {
  const semi = header.indexOf(';');
  const media = (semi < 0 ? header : header.slice(0, semi)).toLowerCase();
  const slash = media.indexOf('/');
  if (slash < 0) return null;
  const type = media.slice(0, slash).trimStart();
  const subtype = media.slice(slash + 1).trimEnd();
  return TOKEN.test(type) && SUBTYPE.test(subtype) ? `${type}/${subtype}` : null;
}

function writeRaw(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

const answerBadUrl = (res: ServerResponse, path: string): void =>
  writeRaw(res, 400, JSON.stringify({ error: 'Bad Request', code: 'FST_ERR_BAD_URL', message: `'${path}' is not a valid url component`, statusCode: 400 }));

const answerTooLong = (res: ServerResponse, path: string): void =>
  writeRaw(res, 414, JSON.stringify({ error: 'Bad Request', code: 'FST_ERR_MAX_PARAM_LENGTH', message: `'${path}' is exceeding the max param length`, statusCode: 414 }));

/** A request node could not parse (or that timed out): a JSON answer written on the socket, then it closes. */
function answerClientError(err: Error & { code?: string }, socket: import('node:net').Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  let status = 400;
  let message = 'Client Error';
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    status = 408;
    message = 'Client Timeout';
  } else if (err.code === 'HPE_HEADER_OVERFLOW') {
    status = 431;
    message = 'Exceeded maximum allowed HTTP header size';
  }
  const label = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' }[status];
  const body = `{"error":"${label}","message":"${message}","statusCode":${status}}`;
  if (socket.writable) socket.write(`HTTP/1.1 ${status} ${label}\r\nContent-Length: ${body.length}\r\nContent-Type: application/json\r\n\r\n${body}`);
  socket.destroy(err);
}
