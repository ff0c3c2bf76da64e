// The desktop api channel (validation + inject, as main answers window.sandlab.api) against plain
// HTTP to the same service: latency per call. Prints figures, never pass/fail.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createIpcHandlers } from '../src/main/ipc/handlers';
import { MemoryVault } from '../src/main/secrets/vault';
import { ServiceHost } from '../src/main/service-host';
import { PreferencesService, DEFAULT_PREFERENCES } from '../src/main/settings/preferences';

const N = Number(process.env.N ?? 500);

function stats(ms: number[]): string {
  const s = [...ms].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))].toFixed(3);
  const total = ms.reduce((a, b) => a + b, 0);
  return `n=${ms.length} p50=${q(0.5)}ms p95=${q(0.95)}ms p99=${q(0.99)}ms ${(ms.length / (total / 1000)).toFixed(0)} calls/s`;
}

async function time(fn: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < 30; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return out;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sandlab-bench-'));
  const host = await ServiceHost.start({ dataDir: dir, port: 0, vault: new MemoryVault('bench'), appVersion: 'bench' });
  const store = new Map<string, unknown>(Object.entries(DEFAULT_PREFERENCES));
  const h = createIpcHandlers({
    host,
    vault: new MemoryVault('bench'),
    preferences: new PreferencesService({ get: (k) => store.get(k), set: (k, v) => void store.set(k, v) }),
    applyPreferences: async () => host.status(),
    showOpenDialog: async () => ({ canceled: true, filePaths: [] }),
    showSaveDialog: async () => ({ canceled: true }),
    revealPath: async () => {},
    writeClipboard: () => {},
  });
  const sender = { sender: { id: 1 } };
  for (let i = 0; i < 20; i++) await h['sandlab:api'](sender, { method: 'POST', path: '/projects', body: { name: `bench ${i}` } });
  const token = await host.desktopToken();
  const url = host.status().url;

  console.log(`GET /projects?per_page=20 (20 projects), ${N} sequential calls`);
  console.log(`  api channel (validate + inject): ${stats(await time(() => h['sandlab:api'](sender, { method: 'GET', path: '/projects', query: { per_page: 20 } })))}`);
  console.log(`  HTTP fetch to 127.0.0.1:        ${stats(await time(async () => (await fetch(`${url}/api/v4/projects?per_page=20`, { headers: { 'private-token': token } })).json()))}`);
  console.log(`GET /version`);
  console.log(`  api channel (validate + inject): ${stats(await time(() => h['sandlab:api'](sender, { method: 'GET', path: '/version' })))}`);
  console.log(`  HTTP fetch to 127.0.0.1:        ${stats(await time(async () => (await fetch(`${url}/api/v4/version`, { headers: { 'private-token': token } })).json()))}`);
  await host.close();
  rmSync(dir, { recursive: true, force: true });
}

void main();
