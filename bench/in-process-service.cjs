/**
 * A build's service run inside the bench's own process, answering requests without sockets
 * (bench/fresh-pages.cjs, bench/fresh-pages-ab.cjs): `openService` loads OUT_DIR's service chunk,
 * bounds V8's heap as `serve` does (boundHeap), opens DATA_DIR/big (bench/build-scale.ts's) and
 * returns a `get` that answers a GET at once (every list page is answered synchronously).
 */
const { readdirSync, readFileSync } = require('node:fs');
const { join, resolve } = require('node:path');
const { EventEmitter } = require('node:events');
const http = require('node:http');

const TOKEN = 'glpat-bench-root-token-00000001';

/** A response that records what it is given (status, body) and ignores headers. */
class Res extends EventEmitter {
  writableEnded = false; headersSent = false; destroyed = false; status = 0; body = undefined;
  writeHead(status) { this.status = status; this.headersSent = true; return this; }
  setHeader() {}
  end(body) { this.writableEnded = true; this.body = body; }
}

/** The request listeners of the servers made in this process, the last one last. */
const handlers = [];
const createServer = http.createServer;
http.createServer = (listener) => (handlers.push(listener), createServer(listener));

/** `budget`: boundHeap's, in place of MEMORY_BUDGET's. Two builds need two directories: one directory twice is one module. */
async function openService(out, dir, budget) {
  const chunks = join(resolve(out), 'main/chunks');
  const service = require(join(chunks, readdirSync(chunks).find((f) => f.startsWith('service-'))));
  service.boundHeap?.(budget);
  const manifest = JSON.parse(readFileSync(join(dir, 'big/bench-manifest.json'), 'utf8'));
  const svc = await service.createService({ dataDir: join(dir, 'big'), rootToken: TOKEN });
  await svc.listen();
  const handle = handlers[handlers.length - 1];
  const socket = { remoteAddress: '127.0.0.1', encrypted: false };
  const headers = { host: '127.0.0.1', 'private-token': TOKEN };
  /** The answer to GET /api/v4`path`, which must be a 200. */
  const get = (path) => {
    const res = new Res();
    handle({ url: '/api/v4' + path, method: 'GET', headers, socket }, res);
    if (!res.writableEnded) throw new Error('answered asynchronously');
    if (res.status !== 200) throw new Error(`status ${res.status}`);
    return res;
  };
  return { svc, manifest, get };
}

module.exports = { openService, Res };
