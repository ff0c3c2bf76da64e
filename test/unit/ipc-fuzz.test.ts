import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Conf from 'conf';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IPC_CHANNELS } from '../../src/shared/ipc';
import { createIpcHandlers, registerIpcHandlers, UntrustedSenderError, type IpcSender } from '../../src/main/ipc/handlers';
import { IpcValidationError } from '../../src/main/ipc/schemas';
import { MemoryVault } from '../../src/main/secrets/vault';
import { PreferencesService, preferencesStoreOptions } from '../../src/main/settings/preferences';
import { ServiceHost } from '../../src/main/service-host';

// Every IPC channel under hostile payloads (fast-check's `anything`, plus shapes close to the
// real ones) and hostile senders: a message is answered or rejected with a validation or
// untrusted-sender error, never thrown into the main process as anything else.

let dir: string;
let host: ServiceHost;
const listeners = new Map<string, (e: IpcSender, p: unknown) => unknown>();
const sideEffects: string[] = [];
const APP: IpcSender = { sender: { id: 1 }, senderFrame: { url: 'file:///app/out/renderer/index.html' } };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sandlab-ipc-fuzz-'));
  const vault = new MemoryVault('fuzz');
  host = await ServiceHost.start({ dataDir: join(dir, 'data'), port: 0, vault, appVersion: '0.0.0-fuzz' });
  const preferences = new PreferencesService(new Conf({ ...preferencesStoreOptions(), cwd: join(dir, 'prefs'), projectName: 'fuzz' } as never) as never);
  const handlers = createIpcHandlers({
    host,
    vault,
    preferences,
    applyPreferences: async () => host.status(),
    showOpenDialog: async () => ({ canceled: true, filePaths: [] }),
    showSaveDialog: async () => ({ canceled: true }),
    revealPath: async (p) => void sideEffects.push(`reveal ${p}`),
    writeClipboard: (text) => void sideEffects.push(`clipboard ${text.length}`),
    publishProgress: () => undefined,
  });
  registerIpcHandlers({ handle: (c, l) => void listeners.set(c, l), removeHandler: (c) => void listeners.delete(c) }, handlers, (e) => e.sender.id === 1 && e.senderFrame?.url === APP.senderFrame?.url);
}, 60_000);
afterAll(async () => {
  await host.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Payloads near the real shapes: objects with the channels' field names holding wrong things. */
const nearShapes = fc.dictionary(
  fc.constantFrom('method', 'path', 'query', 'body', 'multipart', 'progressId', 'name', 'value', 'port', 'dataDir', 'theme', 'files', 'fields', 'text', 'filters', 'defaultPath', '__proto__', 'constructor'),
  fc.oneof(fc.anything(), fc.constantFrom('GET', 'DELETE', '/api/v4/../../etc/passwd', '../../x', 'http://evil.example/', '\u0000', 'x'.repeat(100_000), -1, 1e308, [], {})),
  { maxKeys: 5 },
);

const hostileSender: fc.Arbitrary<IpcSender> = fc.record({
  sender: fc.record({ id: fc.integer({ min: 2, max: 1000 }) }),
  senderFrame: fc.option(fc.record({ url: fc.oneof(fc.webUrl(), fc.constantFrom('file:///etc/passwd', 'devtools://devtools', 'about:blank', '')) }), { nil: null }),
}) as fc.Arbitrary<IpcSender>;

async function outcome(channel: string, sender: IpcSender, payload: unknown): Promise<string> {
  try {
    await listeners.get(channel)!(sender, payload);
    return 'answered';
  } catch (err) {
    if (err instanceof IpcValidationError) return 'invalid';
    if (err instanceof UntrustedSenderError) return 'untrusted';
    return `THREW ${(err as Error)?.constructor?.name}: ${(err as Error)?.message}`;
  }
}

describe('IPC channels under hostile input', () => {
  it('registers a handler for every channel of the contract', () => {
    expect([...listeners.keys()].sort()).toEqual([...IPC_CHANNELS].sort());
  });

  it.each(IPC_CHANNELS)('%s rejects or answers any payload from the app window, never throws otherwise', async (channel) => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.anything(), nearShapes), async (payload) => {
        const got = await outcome(channel, APP, payload);
        expect(got.startsWith('THREW') ? `${got} for ${JSON.stringify(payload)?.slice(0, 200)}` : 'ok').toBe('ok');
      }),
      { numRuns: 40, seed: 18 },
    );
  });

  it('rejects every channel from any other sender before looking at the payload', async () => {
    const before = sideEffects.length;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...IPC_CHANNELS), hostileSender, fc.anything(), async (channel, sender, payload) => {
        expect(await outcome(channel, sender, payload)).toBe('untrusted');
      }),
      { numRuns: 200, seed: 18 },
    );
    expect(sideEffects.length).toBe(before);
  });
});
