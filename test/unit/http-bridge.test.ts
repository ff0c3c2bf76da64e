import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, TestService } from '../helpers/service';
import { createHttpBridge, type TokenStore } from '../../src/renderer/src/bridge/http';
import { createIpcBridge } from '../../src/renderer/src/bridge/ipc';
import type { SandlabDesktopApi } from '../../src/shared/ipc';

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(() => s.stop());

function memoryTokens(initial: string | null = null): TokenStore {
  let t = initial;
  return { get: () => t, set: (v) => void (t = v) };
}

describe('HTTP bridge (the renderer in a browser)', () => {
  it('is not ready until the user pastes a token, and rejects a bad one', async () => {
    const bridge = createHttpBridge(s.url, memoryTokens());
    expect(bridge.isReady()).toBe(false);
    bridge.setToken!('glpat-wrong');
    expect(await bridge.status()).toMatchObject({ url: s.url, error: 'The token was not accepted (401).' });
    bridge.setToken!(ROOT_TOKEN);
    expect(await bridge.status()).toMatchObject({ url: s.url, listening: true, error: null, version: expect.any(String) });
  });

  it('answers the same shape as the IPC bridge: status, lower-case headers, parsed JSON', async () => {
    const bridge = createHttpBridge(s.url, memoryTokens(ROOT_TOKEN));
    const created = await bridge.api({ method: 'POST', path: '/projects', body: { name: 'Bridged' } });
    expect(created.status).toBe(201);
    const list = await bridge.api<{ name: string }[]>({ method: 'GET', path: '/projects', query: { search: 'Bridged', per_page: 10 } });
    expect(list.status).toBe(200);
    expect(list.headers['x-total']).toBe('1');
    expect(list.body.map((p) => p.name)).toEqual(['Bridged']);
    const missing = await bridge.api({ method: 'GET', path: '/projects/987654' });
    expect(missing).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
  });

  it('refuses to upload by path (a browser has only bytes)', async () => {
    const bridge = createHttpBridge(s.url, memoryTokens(ROOT_TOKEN));
    await expect(bridge.api({ method: 'POST', path: '/x', multipart: { files: [{ field: 'f', path: '/etc/passwd' }] } })).rejects.toThrow(/not paths/);
  });
});

describe('IPC bridge', () => {
  it('passes calls to window.sandlab and exposes the desktop features', async () => {
    const calls: unknown[] = [];
    const desktop = {
      api: async (req: unknown) => {
        calls.push(req);
        return { status: 200, headers: {}, body: { ok: true } };
      },
      serviceStatus: async () => ({ url: 'http://127.0.0.1:1', listening: true, error: null, version: '17' }),
      onJobProgress: () => () => {},
    } as unknown as SandlabDesktopApi;
    const bridge = createIpcBridge(desktop);
    expect(bridge.kind).toBe('ipc');
    expect(bridge.isReady()).toBe(true);
    expect(bridge.desktop).toBe(desktop);
    expect((await bridge.api({ method: 'GET', path: '/user' })).body).toEqual({ ok: true });
    expect(calls).toEqual([{ method: 'GET', path: '/user' }]);
  });
});
