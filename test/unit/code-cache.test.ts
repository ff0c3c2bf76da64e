import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

/**
 * scripts/code-cache.cjs (what `npm run serve` loads the bundle through): a cache is used only for
 * the exact source it was made from, and a missing, stale or corrupt cache still runs the code as
 * written. Each start is its own Node process, as a real start is.
 */
const codeCache = resolve(__dirname, '../../scripts/code-cache.cjs');

let root: string;
let outside: string;

/** Requires `<root>/entry.js` through the code cache in a new Node process; what it printed, parsed. */
function start(exitCode = 0, { saveAfterMs = 2000, liveMs = 0 } = {}): { value: string; statuses: Record<string, string>; status: number | null } {
  const script = `
    const { requireWithCodeCache } = require(${JSON.stringify(codeCache)});
    const { exports, statuses } = requireWithCodeCache(${JSON.stringify(join(root, 'entry.js'))}, { saveAfterMs: ${saveAfterMs} });
    process.stdout.write(JSON.stringify({ value: exports.value, statuses }));
    setTimeout(() => process.exit(${exitCode}), ${liveMs});`;
  const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
  if (run.stderr) throw new Error(run.stderr);
  const { value, statuses } = JSON.parse(run.stdout);
  // Keyed by file name, relative to root.
  const byName = Object.fromEntries(Object.entries(statuses as Record<string, string>).map(([file, s]) => [file.slice(root.length + 1), s]));
  return { value, statuses: byName, status: run.status };
}

const cacheFile = (name: string): string => join(root, '.code-cache', `${name}.cache`);

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'sandlab-code-cache-'));
  outside = mkdtempSync(join(tmpdir(), 'sandlab-code-cache-outside-'));
  writeFileSync(join(outside, 'helper.js'), `module.exports = (s) => s.toUpperCase();\n`);
  writeFileSync(join(root, 'entry.js'), `const lib = require('./lib.js');\nconst upper = require(${JSON.stringify(join(outside, 'helper.js'))});\nexports.value = upper(lib.word) + ' ' + __filename.endsWith('entry.js');\n`);
  writeFileSync(join(root, 'lib.js'), `exports.word = 'apple';\n`);
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

describe('the code cache of the built bundle', () => {
  it('runs without a cache, then writes one per file under its root at a clean exit, and uses it next time', () => {
    const first = start();
    expect(first).toEqual({ value: 'APPLE true', statuses: { 'entry.js': 'missing', 'lib.js': 'missing' }, status: 0 });
    expect(existsSync(cacheFile('entry.js'))).toBe(true);
    expect(existsSync(cacheFile('lib.js'))).toBe(true);
    // A file outside the root compiles as usual and gets no cache.
    expect(existsSync(cacheFile('helper.js'))).toBe(false);

    expect(start()).toEqual({ value: 'APPLE true', statuses: { 'entry.js': 'used', 'lib.js': 'used' }, status: 0 });
  });

  it('never uses a cache made from other source, even of the same length, and replaces it', () => {
    start();
    writeFileSync(join(root, 'lib.js'), `exports.word = 'mango';\n`);
    expect(start()).toEqual({ value: 'MANGO true', statuses: { 'entry.js': 'used', 'lib.js': 'stale' }, status: 0 });
    expect(start()).toEqual({ value: 'MANGO true', statuses: { 'entry.js': 'used', 'lib.js': 'used' }, status: 0 });
  });

  it('reads a file that is not ASCII as UTF-8, from source and from its cache alike', () => {
    // The bundle is ASCII and is read without decoding UTF-8; any other file must keep its text.
    writeFileSync(join(root, 'lib.js'), `exports.word = 'cr\u00e8me \u2014 \u{1F34E}';\n`);
    expect(start()).toEqual({ value: 'CR\u00c8ME \u2014 \u{1F34E} true', statuses: { 'entry.js': 'missing', 'lib.js': 'missing' }, status: 0 });
    expect(start()).toEqual({ value: 'CR\u00c8ME \u2014 \u{1F34E} true', statuses: { 'entry.js': 'used', 'lib.js': 'used' }, status: 0 });
  });

  it('recompiles a build copied elsewhere once, so its stack traces name where it is now', () => {
    writeFileSync(join(root, 'lib.js'), `exports.where = () => new Error('here').stack.split('\\n')[1];\n`);
    writeFileSync(join(root, 'entry.js'), `exports.value = String(require('./lib.js').where().includes(__dirname));\n`);
    expect(start()).toMatchObject({ value: 'true', statuses: { 'entry.js': 'missing', 'lib.js': 'missing' } });
    const built = root;
    root = mkdtempSync(join(tmpdir(), 'sandlab-code-cache-copy-'));
    cpSync(built, root, { recursive: true });
    rmSync(built, { recursive: true, force: true });
    // V8 keeps the name of the script a cache was made from: the copy's cache is not offered to it.
    expect(start()).toMatchObject({ value: 'true', statuses: { 'entry.js': 'stale', 'lib.js': 'stale' } });
    expect(start()).toMatchObject({ value: 'true', statuses: { 'entry.js': 'used', 'lib.js': 'used' } });
  });

  it('runs the source when V8 rejects the cache (another Node, corrupt bytes), and replaces it', () => {
    start();
    const cache = readFileSync(cacheFile('lib.js'));
    // The source's hash stays, V8's part is garbage.
    writeFileSync(cacheFile('lib.js'), Buffer.concat([cache.subarray(0, 32), Buffer.alloc(cache.length - 32, 7)]));
    expect(start()).toEqual({ value: 'APPLE true', statuses: { 'entry.js': 'used', 'lib.js': 'rejected' }, status: 0 });
    expect(start().statuses['lib.js']).toBe('used');
  });

  it("makes the cache under the V8 flags the process started with, through the entry's withStartFlags", () => {
    // V8 stamps a cache with a hash of the flags set when it is made and rejects it at a start with
    // other flags: an entry that changes a flag as it runs (the service bounds its heap so) lends
    // the start's back while the cache is made.
    const changesFlags = `const v8 = require('node:v8');\nv8.setFlagsFromString('--heap-growing-percent=20');\n`;
    writeFileSync(join(root, 'lib.js'), `${changesFlags}exports.word = 'apple';\n`);
    start();
    expect(start().statuses).toEqual({ 'entry.js': 'rejected', 'lib.js': 'rejected' });
    const lendsStartFlags = `const v8 = require('node:v8');\nexports.withStartFlags = (fn) => {\n  v8.setFlagsFromString('--heap-growing-percent=0');\n  try { return fn(); } finally { v8.setFlagsFromString('--heap-growing-percent=20'); }\n};\n`;
    writeFileSync(join(root, 'entry.js'), `${lendsStartFlags}${readFileSync(join(root, 'entry.js'), 'utf8')}`);
    expect(start().statuses).toEqual({ 'entry.js': 'stale', 'lib.js': 'rejected' });
    expect(start()).toEqual({ value: 'APPLE true', statuses: { 'entry.js': 'used', 'lib.js': 'used' }, status: 0 });
  });

  it('writes the cache while a long-lived process runs, whatever its exit', () => {
    expect(start(1, { saveAfterMs: 50, liveMs: 1000 })).toMatchObject({ value: 'APPLE true', status: 1 });
    expect(start().statuses).toEqual({ 'entry.js': 'used', 'lib.js': 'used' });
  });

  it('writes nothing when the process fails before, and nothing when it cannot write', () => {
    expect(start(1)).toMatchObject({ value: 'APPLE true', status: 1 });
    expect(existsSync(join(root, '.code-cache'))).toBe(false);
    // A file where the cache directory would be: the start still works, no cache appears.
    writeFileSync(join(root, '.code-cache'), 'not a directory');
    expect(start()).toEqual({ value: 'APPLE true', statuses: { 'entry.js': 'missing', 'lib.js': 'missing' }, status: 0 });
    expect(readFileSync(join(root, '.code-cache'), 'utf8')).toBe('not a directory');
  });
});
