// Builds better-sqlite3 and keytar for Electron's ABI beside (not over) their Node builds:
//   node_modules/.cache/sandlab-native/<module>-electron-<version>-<platform>-<arch>.node
// The app loads them from there (better-sqlite3 through its `nativeBinding` option, keytar's binding
// directly), so `npm test` (Node ABI) and `npm start` (Electron ABI) both work, in either order.
// Each module is copied to a scratch folder and built there: a prebuilt binary for Electron when
// one can be downloaded, else node-gyp against Electron's headers. Never electron-rebuild: it
// rebuilds node_modules in place and breaks the Node build the tests use.
//
// SANDLAB_NATIVE_RUNTIME=node checks the mechanics offline (builds for the running Node instead).
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, copyFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const cache = join(root, 'node_modules', '.cache', 'sandlab-native');
const runtime = process.env.SANDLAB_NATIVE_RUNTIME === 'node' ? 'node' : 'electron';
const target = runtime === 'node' ? process.versions.node : JSON.parse(readFileSync(join(root, 'node_modules/electron/package.json'), 'utf8')).version;
const { platform, arch } = process;

const MODULES = [
  { pkg: 'better-sqlite3', binary: 'better_sqlite3', optional: false },
  { pkg: 'keytar', binary: 'keytar', optional: true },
];

function log(msg) {
  process.stderr.write(`[sandlab] ${msg}\n`);
}

function run(cmd, args, cwd, env) {
  log(`  ${[cmd, ...args].join(' ')}`);
  return spawnSync(cmd, args, { cwd, env, stdio: ['ignore', 'inherit', 'inherit'], shell: process.platform === 'win32' }).status === 0;
}

function nodeGyp() {
  // npm sets npm_config_node_gyp for lifecycle scripts; otherwise use the one npm ships.
  if (process.env.npm_config_node_gyp) return process.env.npm_config_node_gyp;
  try {
    return require.resolve('node-gyp/bin/node-gyp.js');
  } catch {
    return join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
  }
}

function build(mod) {
  const out = join(cache, `${mod.binary}-${runtime}-${target}-${platform}-${arch}.node`);
  if (existsSync(out)) return true;
  let src;
  try {
    src = dirname(require.resolve(`${mod.pkg}/package.json`));
  } catch {
    if (mod.optional) return log(`${mod.pkg} is not installed: skipped (the app falls back to safeStorage)`), true;
    throw new Error(`${mod.pkg} is not installed; run npm ci`);
  }
  log(`building ${mod.pkg} for ${runtime} ${target} (${platform}-${arch})…`);
  const work = join(cache, `build-${mod.pkg}-${runtime}-${target}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(cache, { recursive: true });
  cpSync(src, work, { recursive: true, filter: (p) => !p.startsWith(join(src, 'build')) });
  // npm exports nodedir=/usr (Node's headers) to scripts: wrong headers for Electron.
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (/^npm_config_(nodedir|target|runtime|disturl|dist_url)$/i.test(k)) delete env[k];
  if (runtime === 'node' && process.env.npm_config_nodedir) env.npm_config_nodedir = process.env.npm_config_nodedir;
  const prebuild = join(root, 'node_modules', 'prebuild-install', 'bin.js');
  const fromPrebuild =
    runtime === 'electron' && existsSync(prebuild) && run(process.execPath, [prebuild, '--runtime', 'electron', '--target', target, '--arch', arch, '--platform', platform], work, env);
  const gypArgs = ['rebuild', '--release', `--target=${target}`, `--arch=${arch}`];
  if (runtime === 'electron') gypArgs.push('--runtime=electron', '--dist-url=https://electronjs.org/headers');
  const ok = fromPrebuild || run(process.execPath, [nodeGyp(), ...gypArgs], work, env);
  const built = join(work, 'build', 'Release', `${mod.binary}.node`);
  if (!ok || !existsSync(built)) {
    rmSync(work, { recursive: true, force: true });
    if (mod.optional) return log(`could not build ${mod.pkg} for ${runtime}: the app will use its keychain fallback`), true;
    return false;
  }
  copyFileSync(built, out);
  rmSync(work, { recursive: true, force: true });
  log(`  -> ${out}`);
  return true;
}

let failed = false;
for (const mod of MODULES) if (!build(mod)) failed = true;
if (failed) {
  log('could not build better-sqlite3 for Electron. `npm run serve` runs Sandlab headless without it.');
  process.exit(1);
}
