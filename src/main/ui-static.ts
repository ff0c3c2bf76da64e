import { createReadStream, existsSync, readdirSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { CONTENT_SECURITY_POLICY } from '../shared/csp';
import { withSecurityHeaders } from './service/http/route';
import type { HttpApp } from './service/http/server';

/** The built renderer next to the built CLI (out/main/cli.js -> out/renderer). */
export const defaultUiRoot = (): string => join(__dirname, '..', 'renderer');

/** The types of what electron-vite builds for the renderer. */
const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * `serve --ui`: the built renderer at `/` of the API's port. Only the files that exist at start
 * become routes (no wildcard, so no path can reach outside the folder), and every other path
 * still gets the API's JSON 404. A folder's index.html answers at the folder's path.
 */
export function registerUi(app: HttpApp, root: string): void {
  if (!existsSync(join(root, 'index.html'))) throw new Error(`no built renderer at ${root} (run npm run build)`);
  const walk = (dir: string, urlPath: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = join(dir, entry.name);
      const url = `${urlPath}${entry.name}`;
      if (entry.isDirectory()) walk(file, `${url}/`);
      else if (entry.isFile()) {
        app.route('GET', url, serveFile(file));
        if (entry.name === 'index.html') app.route('GET', urlPath, serveFile(file));
      }
    }
  };
  walk(root, '/');
}

function serveFile(file: string): Parameters<HttpApp['route']>[2] {
  const type = CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
  return (req, reply) => {
    const stat = statSync(file);
    const etag = `W/"${stat.size.toString(16)}-${stat.mtime.getTime().toString(16)}"`;
    withSecurityHeaders(reply)
      .header('content-security-policy', CONTENT_SECURITY_POLICY)
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', 'public, max-age=0')
      .header('last-modified', stat.mtime.toUTCString())
      .header('etag', etag);
    if (req.headers['if-none-match'] === etag) return reply.code(304).send();
    reply.header('content-type', type).header('content-length', String(stat.size)).send(createReadStream(file));
  };
}
