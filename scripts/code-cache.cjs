// V8's code cache for the built bundle: a start compiles out/main's 1.2 MB of JavaScript from
// cached bytecode instead of parsing it again (~50 ms of a ~300 ms start). Node 20 has no
// module.enableCompileCache, so the files under one directory are compiled here with vm.Script.
//
// A cache file is `<source>.cache` in `.code-cache/` beside the bundle: the SHA-256 of the path and
// source it was made from, then V8's data. A cache made from other source is never offered to V8
// (V8 itself checks only the source's length); one from another V8 or other flags V8 rejects itself
// (`cachedDataRejected`). Either way the file compiles as usual and a fresh cache is written a
// little later, so it also holds the functions the run compiled lazily (start-up, the first
// requests). A missing, unreadable or unwritable cache only costs the compile.
//
// CommonJS, so serve.mjs loads it with require (synchronous) instead of another ESM import.
'use strict';
const { isAscii } = require('node:buffer');
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const { basename, dirname, join, sep } = require('node:path');
const vm = require('node:vm');

const HASH_BYTES = 32;

/**
 * Requires `entry` (a CommonJS file) with every file under `root` it loads compiled through the
 * code cache in `root/.code-cache`. Returns the module's exports and how each file's cache went
 * (`used`, `missing`, `stale` or `rejected`). Caches that were not used are written once, when the
 * process has run `saveAfterMs` (its start and first requests: what the next start needs) or at a
 * clean exit before that, whichever comes first; under the V8 flags the process started with when
 * the entry exports `withStartFlags(fn)` (fn run under them), as V8 accepts a cache only there.
 */
function requireWithCodeCache(entry, { root = dirname(entry), saveAfterMs = 2000 } = {}) {
  // Node names a module by its real path: a symlinked checkout or out/ is still under the root.
  root = realpathSync(root);
  const cacheDir = join(root, '.code-cache');
  /** @type {Map<string, { script: vm.Script, hash: Buffer, status: string }>} */
  const compiled = new Map();
  const original = Module._extensions['.js'];
  // Node's loading of a .js file under the root, replaced: the file is read and hashed as bytes and,
  // when ASCII (the bundle is built so), made a one-byte string without decoding UTF-8 (Node 20's
  // UTF-8 read of the 1.2 MB bundle was 3-5 ms of a start; the text is the same).
  Module._extensions['.js'] = function loadWithCache(module, filename) {
    if (!filename.startsWith(root + sep)) return original.call(this, module, filename);
    const bytes = readFileSync(filename);
    const content = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
    // The path too: V8 keeps the name of the script a cache was made from, so a build copied or
    // moved elsewhere would name its old place in every stack trace until recompiled.
    const hash = createHash('sha256').update(filename).update('\0').update(bytes).digest();
    const cacheFile = join(cacheDir, `${basename(filename)}.cache`);
    let cachedData;
    let status = 'missing';
    try {
      const file = readFileSync(cacheFile);
      if (file.subarray(0, HASH_BYTES).equals(hash)) cachedData = file.subarray(HASH_BYTES);
      else status = 'stale';
    } catch {
      // No cache yet (or unreadable): compile as usual.
    }
    const script = new vm.Script(Module.wrap(content), {
      filename,
      cachedData,
      importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    });
    if (cachedData) status = script.cachedDataRejected ? 'rejected' : 'used';
    compiled.set(filename, { script, hash, status });
    const wrapper = script.runInThisContext({ displayErrors: true });
    wrapper.call(module.exports, module.exports, Module.createRequire(filename), module, filename, dirname(filename));
  };
  let exports;
  try {
    exports = Module.createRequire(entry)(entry);
  } finally {
    Module._extensions['.js'] = original;
  }
  let saved = false;
  const save = () => {
    if (saved) return;
    saved = true;
    for (const [filename, { script, hash, status }] of compiled) {
      if (status === 'used') continue;
      const cacheFile = join(cacheDir, `${basename(filename)}.cache`);
      // Written whole under a private name, then renamed: a concurrent start reads the old cache or the new one.
      const partial = `${cacheFile}.${process.pid}.tmp`;
      try {
        mkdirSync(cacheDir, { recursive: true });
        // V8 rejects a cache made under other flags than the next start's: one the entry changed
        // since (src/main/service/memory.ts boundHeap) is set back while the cache is made.
        const data = typeof exports?.withStartFlags === 'function' ? exports.withStartFlags(() => script.createCachedData()) : script.createCachedData();
        writeFileSync(partial, Buffer.concat([hash, data]));
        renameSync(partial, cacheFile);
      } catch {
        // A read-only install keeps compiling from source.
        try {
          rmSync(partial, { force: true });
        } catch {
          // Nothing was written.
        }
      }
    }
  };
  if ([...compiled.values()].some((c) => c.status !== 'used')) {
    setTimeout(save, saveAfterMs).unref();
    process.once('exit', (code) => {
      if (code === 0) save();
    });
  }
  const statuses = Object.fromEntries([...compiled].map(([filename, c]) => [filename, c.status]));
  return { exports, statuses };
}

module.exports = { requireWithCodeCache };
