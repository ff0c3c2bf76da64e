import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EncryptedFileVault, KeytarVault, MemoryVault, describeKeychainFailure, openTokenVault, type KeytarLike } from '../../src/main/secrets/vault';
import { fakeSafeStorage } from './desktop-fakes';

const dirs: string[] = [];
const scratch = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'sandlab-vault-'));
  dirs.push(d);
  return d;
};
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

const noSecretService = (): KeytarLike => {
  const fail = () => Promise.reject(new Error('Cannot autolaunch D-Bus without X11 $DISPLAY'));
  return { getPassword: fail, setPassword: fail, deletePassword: fail, findCredentials: fail };
};

/** An in-memory keychain with keytar's API. */
function fakeKeytar(): KeytarLike & { entries: Map<string, string> } {
  const entries = new Map<string, string>();
  const key = (s: string, a: string) => `${s}\u0000${a}`;
  return {
    entries,
    getPassword: async (s, a) => entries.get(key(s, a)) ?? null,
    setPassword: async (s, a, p) => void entries.set(key(s, a), p),
    deletePassword: async (s, a) => entries.delete(key(s, a)),
    findCredentials: async (s) =>
      [...entries].filter(([k]) => k.startsWith(`${s}\u0000`)).map(([k, password]) => ({ account: k.split('\u0000')[1], password })),
  };
}

describe('openTokenVault', () => {
  it('uses the keychain when keytar answers a real call', async () => {
    const vault = await openTokenVault({ loadKeytar: fakeKeytar, safeStorage: fakeSafeStorage(), fallbackFile: join(scratch(), 's.enc') });
    expect(vault).toBeInstanceOf(KeytarVault);
    expect(vault.status).toEqual({ kind: 'keychain', persistent: true, message: null });
  });

  it('falls back to the safeStorage file, and says why, when no Secret Service answers', async () => {
    const file = join(scratch(), 'secrets.enc');
    const vault = await openTokenVault({ loadKeytar: noSecretService, safeStorage: fakeSafeStorage(), fallbackFile: file });
    expect(vault).toBeInstanceOf(EncryptedFileVault);
    expect(vault.status.kind).toBe('encrypted-file');
    expect(vault.status.message).toMatch(/no Secret Service/);
    expect(vault.status.message).toContain(file);
  });

  it('falls back when keytar cannot even be loaded', async () => {
    const vault = await openTokenVault({
      loadKeytar: () => {
        throw new Error("Cannot find module 'keytar'");
      },
      safeStorage: fakeSafeStorage(),
      fallbackFile: join(scratch(), 's.enc'),
    });
    expect(vault.status.kind).toBe('encrypted-file');
    expect(vault.status.message).toMatch(/cannot be loaded/);
  });

  it('never falls back to a hard-coded key: basic_text safeStorage means memory only, said out loud', async () => {
    const vault = await openTokenVault({ loadKeytar: noSecretService, safeStorage: fakeSafeStorage({ backend: 'basic_text' }), fallbackFile: join(scratch(), 's.enc') });
    expect(vault).toBeInstanceOf(MemoryVault);
    expect(vault.status).toMatchObject({ kind: 'memory', persistent: false });
    expect(vault.status.message).toMatch(/basic_text/);
  });

  it('keeps secrets in memory only when safeStorage cannot encrypt', async () => {
    const vault = await openTokenVault({ loadKeytar: noSecretService, safeStorage: fakeSafeStorage({ available: false }), fallbackFile: join(scratch(), 's.enc') });
    expect(vault.status.kind).toBe('memory');
    expect(vault.status.message).toMatch(/not saved/);
  });
});

describe('EncryptedFileVault', () => {
  it('stores, lists and deletes secrets without any plain text on disk', async () => {
    const file = join(scratch(), 'secrets.enc');
    const safe = fakeSafeStorage();
    const vault = new EncryptedFileVault(safe, file, 'test');
    await vault.set('credential:source', 'glpat-very-secret-value');
    await vault.set('desktop-token:/data', 'glpat-desktop');
    expect(await vault.get('credential:source')).toBe('glpat-very-secret-value');
    expect((await vault.accounts()).sort()).toEqual(['credential:source', 'desktop-token:/data']);
    const raw = readFileSync(file);
    expect(raw.includes('glpat-very-secret-value')).toBe(false);
    expect(raw.includes('credential:source')).toBe(false);
    expect(await vault.delete('credential:source')).toBe(true);
    expect(await vault.delete('credential:source')).toBe(false);
    // A second instance over the same file and key reads what the first wrote.
    expect(await new EncryptedFileVault(safe, file, 'test').get('desktop-token:/data')).toBe('glpat-desktop');
  });
});

describe('describeKeychainFailure', () => {
  it('names the missing Secret Service in one line', () => {
    expect(describeKeychainFailure(new Error('The name org.freedesktop.secrets was not provided by any .service files'))).toMatch(/^no Secret Service/);
    expect(describeKeychainFailure(new Error('The module was compiled against a different Node.js version using NODE_MODULE_VERSION 115'))).toMatch(/cannot be loaded/);
  });
});
