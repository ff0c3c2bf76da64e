import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryVault, desktopTokenAccount } from '../../src/main/secrets/vault';
import { ServiceHost, portAnswers } from '../../src/main/service-host';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

function dataDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'sandlab-host-'));
  cleanup.push(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

async function start(dir: string, vault: MemoryVault, port = 0): Promise<ServiceHost> {
  const host = await ServiceHost.start({ dataDir: dir, port, vault, appVersion: 't' });
  cleanup.push(() => host.close());
  return host;
}

async function whoAmI(host: ServiceHost): Promise<number> {
  const res = await host.inject({ method: 'GET', url: '/api/v4/user', headers: { 'private-token': await host.desktopToken() } });
  return res.statusCode === 200 ? res.json().id : res.statusCode;
}

function occupyPort(): Promise<{ server: Server; port: number }> {
  return new Promise((resolve) => {
    const server = createServer((s) => s.end());
    server.listen(0, '127.0.0.1', () => {
      cleanup.push(() => new Promise<void>((r) => server.close(() => r())));
      resolve({ server, port: (server.address() as { port: number }).port });
    });
  });
}

describe('ServiceHost', () => {
  it("on a new data dir, keeps root's first token in the vault under the data dir's account", async () => {
    const dir = dataDir();
    const vault = new MemoryVault('t');
    const host = await start(dir, vault);
    const token = await host.desktopToken();
    expect(token).toMatch(/^glpat-/);
    expect(await vault.get(desktopTokenAccount(dir))).toBe(token);
    expect(await whoAmI(host)).toBe(1);
  });

  it('reuses the stored token on the next start', async () => {
    const dir = dataDir();
    const vault = new MemoryVault('t');
    const first = await start(dir, vault);
    const token = await first.desktopToken();
    await first.close();
    const second = await start(dir, vault);
    expect(await second.desktopToken()).toBe(token);
  });

  it('mints a new root token when the vault lost it or the token was revoked', async () => {
    const dir = dataDir();
    const vault = new MemoryVault('t');
    const first = await start(dir, vault);
    const original = await first.desktopToken();
    await first.inject({ method: 'DELETE', url: '/api/v4/personal_access_tokens/self', headers: { 'private-token': original } });
    await first.close();
    const second = await start(dir, vault);
    expect(await second.desktopToken()).not.toBe(original);
    expect(await whoAmI(second)).toBe(1);
    await second.close();
    await vault.delete(desktopTokenAccount(dir));
    const third = await start(dir, vault);
    expect(await whoAmI(third)).toBe(1);
  });

  it('reports a taken port in its status instead of failing, and keeps answering through inject', async () => {
    const { port } = await occupyPort();
    expect(await portAnswers(port)).toBe(true);
    const host = await start(dataDir(), new MemoryVault('t'), port);
    const status = host.status();
    expect(status).toMatchObject({ listening: false, url: '', port: null });
    expect(status.error).toMatch(new RegExp(`Port ${port} on 127\\.0\\.0\\.1 is already in use`));
    expect(await whoAmI(host)).toBe(1);
  });

  it('listens on the preferred port when it is free', async () => {
    const { server, port } = await occupyPort();
    await new Promise<void>((r) => server.close(() => r()));
    expect(await portAnswers(port)).toBe(false);
    const host = await start(dataDir(), new MemoryVault('t'), port);
    expect(host.status()).toMatchObject({ listening: true, port, url: `http://127.0.0.1:${port}`, error: null });
    const res = await fetch(`${host.status().url}/api/v4/version`, { headers: { 'private-token': await host.desktopToken() } });
    expect(res.status).toBe(200);
  });
});
