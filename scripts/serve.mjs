// `npm run serve -- --port <n|0> --data-dir <dir> [--host 127.0.0.1] [--ui]`
// Runs the built headless service, building first only when the build (or, for --ui, the built
// renderer) is missing. The bundle compiles through V8's code cache (scripts/code-cache.cjs).
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'out', 'main', 'cli.js');
const wantsUi = process.argv.includes('--ui');
if (!existsSync(cli) || (wantsUi && !existsSync(join(root, 'out', 'renderer', 'index.html')))) {
  const build = spawnSync(process.execPath, [join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'], {
    cwd: root,
    // The build's own chatter goes to stderr so stdout stays the one "listening" line.
    stdio: ['ignore', process.stderr, 'inherit'],
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
const require = createRequire(import.meta.url);
require('./code-cache.cjs').requireWithCodeCache(cli);
