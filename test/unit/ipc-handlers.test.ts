import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Conf from 'conf';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { IPC_CHANNELS, type JobProgressEvent, type Preferences } from '../../src/shared/ipc';
import { createIpcHandlers, registerIpcHandlers, UntrustedSenderError, type IpcDeps, type IpcHandlers, type IpcSender } from '../../src/main/ipc/handlers';
import { MemoryVault } from '../../src/main/secrets/vault';
import { PreferencesService, preferencesStoreOptions } from '../../src/main/settings/preferences';
import { ServiceHost } from '../../src/main/service-host';
import { isFilePart } from '../../src/main/service/http/params';

const APP: IpcSender = { sender: { id: 1 }, senderFrame: { url: 'file:///app/out/renderer/index.html' } };
const OTHER: IpcSender = { sender: { id: 2 }, senderFrame: { url: 'https://evil.example/' } };

let dir: string;
let host: ServiceHost;
let vault: MemoryVault;
let handlers: IpcHandlers;
let prefs: PreferencesService;
let token: string;
const applyPreferences = vi.fn(async (_prev: Preferences, _next: Preferences) => host.status());
let openResult: { canceled: boolean; filePaths: string[] } = { canceled: true, filePaths: [] };
let saveResult: { canceled: boolean; filePath?: string } = { canceled: true };
const revealed: string[] = [];
const clipboard: string[] = [];
const progress: JobProgressEvent[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sandlab-ipc-'));
  vault = new MemoryVault('test');
  host = await ServiceHost.start({
    dataDir: join(dir, 'data'),
    port: 0,
    vault,
    appVersion: '0.0.0-test',
    serviceOptions: {
      // A route that echoes a multipart body, to see exactly what the api channel sent.
      extendApp: (_app, api) => {
        api.post(
          '/test-echo-multipart',
          (rc) => {
            rc.status = 200;
            const parts: Record<string, string> = {};
            for (const [name, value] of Object.entries(rc.params)) {
              parts[name] = isFilePart(value) ? `${value.filename}:${value.mimetype}:${readFileSync(value.path, 'utf8')}` : String(value);
            }
            return parts;
          },
          { auth: 'none' },
        );
        // What a JSON call carried, without repeating a secret: keys and whether the token arrived.
        api.post(
          '/test-json-keys',
          (rc) => {
            rc.status = 200;
            const conf = (rc.req.body as { configuration: Record<string, unknown> }).configuration;
            return { keys: Object.keys(conf).sort(), token_arrived: conf.access_token === 'glpat-source-secret-1' };
          },
          { auth: 'none' },
        );
        api.post(
          '/test-echo-json',
          (rc) => {
            rc.status = 200;
            return rc.req.body;
          },
          { auth: 'none' },
        );
      },
    },
  });
  token = await host.desktopToken();
  prefs = new PreferencesService(new Conf({ ...preferencesStoreOptions(), cwd: join(dir, 'prefs'), projectName: 't' } as never) as never);
  const deps: IpcDeps = {
    host,
    vault,
    preferences: prefs,
    applyPreferences,
    showOpenDialog: async () => openResult,
    showSaveDialog: async () => saveResult,
    revealPath: async (p) => void revealed.push(p),
    writeClipboard: (text) => void clipboard.push(text),
    publishProgress: (e) => void progress.push(e),
  };
  handlers = createIpcHandlers(deps);
});
afterAll(async () => {
  await host.close();
  rmSync(dir, { recursive: true, force: true });
});

/** What ipcMain.handle would register, with the app window being sender 1. */
function registered(): Map<string, (e: IpcSender, p: unknown) => unknown> {
  const map = new Map<string, (e: IpcSender, p: unknown) => unknown>();
  registerIpcHandlers({ handle: (c, l) => void map.set(c, l), removeHandler: (c) => void map.delete(c) }, handlers, (e) => e.sender.id === 1);
  return map;
}

describe('IPC sender checks', () => {
  it('registers every channel of the contract', () => {
    expect([...registered().keys()].sort()).toEqual([...IPC_CHANNELS].sort());
  });

  it('rejects every channel from a sender that is not the app window, before doing anything', async () => {
    const map = registered();
    const before = (await host.inject({ method: 'GET', url: '/api/v4/projects', headers: { 'private-token': token } })).json().length;
    for (const channel of IPC_CHANNELS) {
      await expect(Promise.resolve(map.get(channel)!(OTHER, { method: 'POST', path: '/projects', body: { name: 'nope' } }))).rejects.toBeInstanceOf(
        UntrustedSenderError,
      );
    }
    const after = (await host.inject({ method: 'GET', url: '/api/v4/projects', headers: { 'private-token': token } })).json().length;
    expect(after).toBe(before);
  });

  it('answers the app window', async () => {
    const status = (await registered().get('sandlab:service-status')!(APP, undefined)) as { listening: boolean };
    expect(status.listening).toBe(true);
  });
});

describe('sandlab:api', () => {
  it('reaches the service as the desktop user', async () => {
    const res = await handlers['sandlab:api'](APP, { method: 'GET', path: '/user' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: 1, username: 'root', is_admin: true, web_url: `${host.status().url}/root` });
    expect(res.headers['content-type']).toBe('application/json');
  });

  it('sends JSON bodies and query parameters (arrays Rack-style)', async () => {
    const created = await handlers['sandlab:api'](APP, { method: 'POST', path: '/projects', body: { name: 'From IPC', visibility: 'internal' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'From IPC', visibility: 'internal' });
    const list = await handlers['sandlab:api'](APP, { method: 'GET', path: '/projects', query: { search: 'From IPC', per_page: 5, simple: true } });
    expect(list.status).toBe(200);
    expect(list.headers['x-total']).toBe('1');
    expect((list.body as { name: string }[]).map((p) => p.name)).toEqual(['From IPC']);
  });

  it("passes GitLab's error bodies through unchanged", async () => {
    const res = await handlers['sandlab:api'](APP, { method: 'GET', path: '/projects/99999' });
    expect(res).toMatchObject({ status: 404, body: { message: '404 Project Not Found' } });
    const bad = await handlers['sandlab:api'](APP, { method: 'POST', path: '/projects', body: {} });
    expect(bad.status).toBe(400);
  });

  it('never returns the desktop token, in any header or body', async () => {
    const calls = [
      { method: 'GET', path: '/user' },
      { method: 'GET', path: '/personal_access_tokens' },
      { method: 'GET', path: '/nope' },
      { method: 'DELETE', path: '/projects/424242' },
    ];
    for (const c of calls) {
      const res = await handlers['sandlab:api'](APP, c);
      expect(JSON.stringify(res)).not.toContain(token);
    }
  });

  it('puts a stored credential into the JSON body in main, and never hands it to the window', async () => {
    await handlers['sandlab:credentials-set'](APP, { name: 'migration:http://source.example', value: 'glpat-source-secret-1' });
    const credential = { name: 'migration:http://source.example', into: 'configuration.access_token' };
    const res = await handlers['sandlab:api'](APP, { method: 'POST', path: '/test-json-keys', body: { configuration: { url: 'http://source.example' } }, credential });
    expect(res.body).toEqual({ keys: ['access_token', 'url'], token_arrived: true });
    // A response that would carry the secret back is withheld.
    await expect(handlers['sandlab:api'](APP, { method: 'POST', path: '/test-echo-json', body: { configuration: {} }, credential })).rejects.toThrow(/withheld/);
    await expect(handlers['sandlab:api'](APP, { method: 'POST', path: '/test-json-keys', body: { configuration: {} }, credential: { ...credential, name: 'nope' } })).rejects.toThrow(
      /no stored credential is named nope/,
    );
    for (const bad of [
      { ...credential, into: '__proto__.polluted' },
      { ...credential, into: 'a.b.c.d.e' },
      { ...credential, into: 'configuration[access_token]' },
      { ...credential, extra: 1 },
    ]) {
      await expect(handlers['sandlab:api'](APP, { method: 'POST', path: '/test-json-keys', body: { configuration: {} }, credential: bad })).rejects.toThrow(/invalid payload/);
    }
    await expect(handlers['sandlab:api'](APP, { method: 'POST', path: '/test-json-keys', credential })).rejects.toThrow(/JSON object body/);
    await handlers['sandlab:credentials-delete'](APP, { name: credential.name });
  });

  it('sends file bytes as multipart', async () => {
    const res = await handlers['sandlab:api'](APP, {
      method: 'POST',
      path: '/test-echo-multipart',
      multipart: { fields: { title: 'x' }, files: [{ field: 'file', filename: 'a.txt', contentType: 'text/plain', bytes: new TextEncoder().encode('hello bytes') }] },
    });
    expect(res.body).toEqual({ title: 'x', file: 'a.txt:text/plain:hello bytes' });
  });

  it('reports an upload with a progressId as upload job progress, ending finished at the full size', async () => {
    const bytes = new Uint8Array(300 * 1024).fill(7);
    const res = await handlers['sandlab:api'](APP, {
      method: 'POST',
      path: '/test-echo-multipart',
      progressId: 'upload:big-1',
      multipart: { files: [{ field: 'file', filename: 'big.bin', bytes }] },
    });
    expect(res.status).toBe(200);
    const mine = progress.filter((e) => e.jobId === 'upload:big-1');
    expect(mine.length).toBeGreaterThan(2);
    expect(mine.every((e) => e.kind === 'upload' && e.total === bytes.length)).toBe(true);
    expect(mine.map((e) => e.done)).toEqual([...mine.map((e) => e.done)].sort((a, b) => a - b));
    expect(mine.at(-1)).toMatchObject({ state: 'finished', done: bytes.length });
    await expect(handlers['sandlab:api'](APP, { method: 'GET', path: '/user', progressId: 'x' })).rejects.toThrow(/goes with a multipart body/);
  });

  it('uploads a file by path only after the open dialog returned that path', async () => {
    const file = join(dir, 'picked.txt');
    writeFileSync(file, 'picked contents');
    const req = { method: 'POST', path: '/test-echo-multipart', multipart: { files: [{ field: 'file', path: file }] } };
    await expect(handlers['sandlab:api'](APP, req)).rejects.toThrow(/open dialog/);
    openResult = { canceled: false, filePaths: [file] };
    const opened = await handlers['sandlab:dialog-open'](APP, { title: 'Pick', multiple: false });
    expect(opened.files).toEqual([{ path: file, name: 'picked.txt', size: 15 }]);
    const res = await handlers['sandlab:api'](APP, req);
    expect(res.body).toEqual({ file: 'picked.txt:application/octet-stream:picked contents' });
  });

  it.each([
    [{ method: 'TRACE', path: '/user' }, /method does not have a valid value/],
    [{ path: '/user' }, /method is missing/],
    [{ method: 'GET', path: 'user' }, /single \//],
    [{ method: 'GET', path: '//evil.example/x' }, /single \//],
    [{ method: 'GET', path: '/../../-/health' }, /\.\. segments/],
    [{ method: 'GET', path: '/projects/%2e%2e/x' }, /\.\. segments/],
    [{ method: 'GET', path: '/user?private_token=x' }, /use query/],
    [{ method: 'GET', path: '/user', headers: { 'private-token': 'x' } }, /does not accept headers/],
    [{ method: 'GET', path: '/user', query: { a: { b: 1 } } }, /query a/],
    [{ method: 'POST', path: '/x', body: {}, multipart: { files: [] } }, /mutually exclusive/],
    [{ method: 'POST', path: '/x', multipart: { files: [{ field: 'f', bytes: 'not bytes', filename: 'a' }] } }, /Uint8Array/],
    ['GET /user', /must be an object/],
  ])('rejects the malformed request %j', async (payload, message) => {
    await expect(handlers['sandlab:api'](APP, payload)).rejects.toThrow(message);
  });
});

describe('app channels', () => {
  it('reports the service status without secrets', async () => {
    const status = await handlers['sandlab:service-status'](APP, undefined);
    expect(status).toMatchObject({ listening: true, dataDir: join(dir, 'data'), appVersion: '0.0.0-test', error: null, vault: { kind: 'memory' } });
    expect(status.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(status.port).toBe(Number(new URL(status.url).port));
    expect(JSON.stringify(status)).not.toContain(token);
    await expect(handlers['sandlab:service-status'](APP, { anything: 1 })).rejects.toThrow(/no payload/);
  });

  it('reads and validates preferences, and applies them', async () => {
    expect((await handlers['sandlab:preferences-get'](APP, undefined)).port).toBe(8929);
    const r = await handlers['sandlab:preferences-set'](APP, { port: '0', theme: 'dark' });
    expect(r.preferences).toMatchObject({ port: 0, theme: 'dark' });
    expect(applyPreferences).toHaveBeenLastCalledWith(expect.objectContaining({ port: 8929 }), expect.objectContaining({ port: 0 }));
    await expect(handlers['sandlab:preferences-set'](APP, { port: 70000 })).rejects.toThrow(/0\.\.65535/);
    await expect(handlers['sandlab:preferences-set'](APP, { theme: 'neon' })).rejects.toThrow(/theme does not have a valid value/);
    await expect(handlers['sandlab:preferences-set'](APP, { dataDir: 'relative/dir' })).rejects.toThrow(/absolute/);
    await expect(handlers['sandlab:preferences-set'](APP, { windowBounds: {} })).rejects.toThrow(/does not accept windowBounds/);
  });

  it('keeps remote credentials in the vault and only ever returns their names', async () => {
    await handlers['sandlab:credentials-set'](APP, { name: 'migration:https://gitlab.example.com', value: 'glpat-remote-secret' });
    await handlers['sandlab:credentials-set'](APP, { name: 'providera', value: 'ghp_other' });
    expect(await vault.get('credential:providera')).toBe('ghp_other');
    const names = await handlers['sandlab:credentials-list'](APP, undefined);
    expect(names).toEqual(['migration:https://gitlab.example.com', 'providera']);
    expect(JSON.stringify(names)).not.toContain('glpat-remote-secret');
    // The desktop token lives in the same vault but is not a "credential".
    expect(names.some((n) => n.includes('desktop'))).toBe(false);
    expect(await handlers['sandlab:credentials-delete'](APP, { name: 'providera' })).toEqual({ deleted: true });
    expect(await handlers['sandlab:credentials-delete'](APP, { name: 'providera' })).toEqual({ deleted: false });
    await expect(handlers['sandlab:credentials-set'](APP, { name: 'bad name with spaces', value: 'x' })).rejects.toThrow(/name may hold/);
    await expect(handlers['sandlab:credentials-set'](APP, { name: 'ok', value: '' })).rejects.toThrow(/value is empty/);
    await expect(handlers['sandlab:credentials-set'](APP, { name: 'ok', value: 42 })).rejects.toThrow(/value must be a string/);
  });

  it('writes save-dialog data only to the path the user chose', async () => {
    const target = join(dir, 'saved.json');
    saveResult = { canceled: false, filePath: target };
    expect(await handlers['sandlab:dialog-save'](APP, { defaultName: 'saved.json', data: '{"a":1}' })).toEqual({ canceled: false, path: target });
    expect(readFileSync(target, 'utf8')).toBe('{"a":1}');
    saveResult = { canceled: true };
    expect(await handlers['sandlab:dialog-save'](APP, { data: new Uint8Array([1]) })).toEqual({ canceled: true, path: null });
    await expect(handlers['sandlab:dialog-save'](APP, { defaultName: '../x', data: 'a' })).rejects.toThrow(/file name/);
    await expect(handlers['sandlab:dialog-save'](APP, { data: 5 })).rejects.toThrow(/string or a Uint8Array/);
  });

  it('reveals the data folder', async () => {
    await handlers['sandlab:reveal-data-dir'](APP, undefined);
    expect(revealed).toEqual([join(dir, 'data')]);
  });

  it('writes text to the clipboard, and only text', async () => {
    await handlers['sandlab:clipboard-write'](APP, { text: 'curl --header "PRIVATE-TOKEN: <your_access_token>"' });
    expect(clipboard).toEqual(['curl --header "PRIVATE-TOKEN: <your_access_token>"']);
    await expect(handlers['sandlab:clipboard-write'](APP, { text: 42 })).rejects.toThrow('text must be a string');
    await expect(handlers['sandlab:clipboard-write'](APP, { text: 'x', html: '<b>' })).rejects.toThrow('does not accept html');
    expect(clipboard).toHaveLength(1);
  });
});
