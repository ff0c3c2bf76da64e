// `npm run build`'s last step (postbuild): the built service started once on a scratch data dir,
// asked one authenticated request and stopped cleanly, which writes V8's code cache of the bundle
// (scripts/code-cache.cjs): the first `npm run serve` after a build starts as fast as the next.
// Never fails the build: without the cache a start only compiles from source.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dataDir = mkdtempSync(join(tmpdir(), 'sandlab-warm-'));
const token = `glpat-${randomBytes(16).toString('hex')}`;
const child = spawn(process.execPath, [join(root, 'scripts', 'serve.mjs'), '--port', '0', '--data-dir', dataDir], {
  env: { ...process.env, SANDLAB_ROOT_TOKEN: token },
  stdio: ['ignore', 'pipe', 'ignore'],
});
child.on('error', () => undefined);
const gaveUp = setTimeout(() => child.kill('SIGKILL'), 30_000);
let out = '';
child.stdout.on('data', async (chunk) => {
  out += chunk;
  const url = /listening on (\S+)\n/.exec(out)?.[1];
  if (!url) return;
  child.stdout.removeAllListeners('data');
  try {
    await (await fetch(`${url}/api/v4/user`, { headers: { 'private-token': token } })).arrayBuffer();
  } catch {
    // The cache is written all the same.
  }
  child.kill('SIGTERM');
});
child.on('exit', (code) => {
  clearTimeout(gaveUp);
  rmSync(dataDir, { recursive: true, force: true });
  if (code !== 0) process.stderr.write(`code cache not written (serve exited ${code}): the first start compiles from source\n`);
});
