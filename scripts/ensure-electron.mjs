// prestart: make sure the Electron binary exists. `npm ci` here skips Electron's download
// (package.json allowScripts denies its postinstall); on a laptop with a network this fetches it.
import { existsSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const electronDir = join(root, 'node_modules', 'electron');
const pathFile = join(electronDir, 'path.txt');
const present = existsSync(pathFile) && existsSync(join(electronDir, 'dist', readFileSync(pathFile, 'utf8').trim()));
if (!present) {
  console.error('[sandlab] Electron binary missing: downloading it (node node_modules/electron/install.js)…');
  const r = spawnSync(process.execPath, [join(electronDir, 'install.js')], { stdio: 'inherit', env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '' } });
  if (r.status !== 0) {
    console.error('[sandlab] could not fetch Electron. `npm run serve` runs Sandlab headless without it.');
    process.exit(r.status ?? 1);
  }
}
// Then the native modules for Electron's ABI (better-sqlite3, keytar), once per Electron version.
const native = spawnSync(process.execPath, [join(root, 'scripts', 'prepare-electron-native.mjs')], { stdio: 'inherit' });
if (native.status !== 0) process.exit(native.status ?? 1);
