import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { CONTENT_SECURITY_POLICY, DEV_CONTENT_SECURITY_POLICY } from './src/shared/csp';

/** Writes the one CSP (src/shared/csp.ts) into index.html: strict in builds, relaxed for the dev server only. */
function contentSecurityPolicy(): Plugin {
  return {
    name: 'sandlab-csp',
    transformIndexHtml(html, ctx) {
      return html.replace('%SANDLAB_CSP%', ctx.server ? DEV_CONTENT_SECURITY_POLICY : CONTENT_SECURITY_POLICY);
    },
  };
}

export default defineConfig({
  main: {
    build: {
      // electron-store is ESM-only: bundle it (and conf) instead of require()-ing it at run time.
      // better-sqlite3's JavaScript is bundled too, so a start compiles it from the code cache
      // instead of resolving and compiling its 13 files (~5% of a start's instructions); its
      // native binding still loads from node_modules (db/connection.ts names it).
      externalizeDeps: { exclude: ['electron-store', 'better-sqlite3'] },
      rollupOptions: {
        // index: the Electron entry; cli: the headless `serve` entry (plain Node, no electron import).
        input: {
          index: resolve(__dirname, 'src/main/index.ts'),
          cli: resolve(__dirname, 'src/main/cli.ts'),
        },
        // What a start reads, hashes and compiles (scripts/code-cache.cjs): ASCII only (a single
        // non-ASCII character makes V8 hold the whole 1.2 MB source as two-byte text) and without
        // the source's doc comments (a fifth of the bundle); licence comments stay.
        output: { charset: 'ascii', comments: { legal: true, annotation: false, jsdoc: false } },
      },
    },
  },
  preload: {},
  renderer: {
    resolve: { alias: { '@renderer': resolve(__dirname, 'src/renderer/src') } },
    plugins: [react(), contentSecurityPolicy()],
  },
});
