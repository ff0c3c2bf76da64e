import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { VaultKind, VaultStatus } from '../../shared/ipc';

/** The keychain service name every Sandlab secret is filed under. */
export const KEYCHAIN_SERVICE = 'Sandlab';

/**
 * Where secrets live: the OS keychain when one answers, else a file encrypted with Electron's
 * safeStorage, else (no encryption at all) memory for this session only. Never plain text on disk.
 */
export interface TokenVault {
  readonly status: VaultStatus;
  get(account: string): Promise<string | null>;
  set(account: string, value: string): Promise<void>;
  /** true when something was deleted. */
  delete(account: string): Promise<boolean>;
  accounts(): Promise<string[]>;
}

/** The part of keytar the vault uses (keytar itself, or its binding built for Electron). */
export interface KeytarLike {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
  findCredentials(service: string): Promise<{ account: string; password: string }[]>;
}

/** The part of Electron's safeStorage the fallback uses. */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plain: string): Buffer;
  decryptString(encrypted: Buffer): string;
  /** Linux only: 'basic_text' means a hard-coded key, i.e. no real protection. */
  getSelectedStorageBackend?(): string;
}

function status(kind: VaultKind, message: string | null): VaultStatus {
  return { kind, persistent: kind !== 'memory', message };
}

export class KeytarVault implements TokenVault {
  readonly status = status('keychain', null);
  constructor(
    private readonly keytar: KeytarLike,
    private readonly service = KEYCHAIN_SERVICE,
  ) {}
  get(account: string): Promise<string | null> {
    return this.keytar.getPassword(this.service, account);
  }
  set(account: string, value: string): Promise<void> {
    return this.keytar.setPassword(this.service, account, value);
  }
  delete(account: string): Promise<boolean> {
    return this.keytar.deletePassword(this.service, account);
  }
  async accounts(): Promise<string[]> {
    return (await this.keytar.findCredentials(this.service)).map((c) => c.account);
  }
}

/** One file holding every secret, the whole JSON map encrypted with safeStorage. */
export class EncryptedFileVault implements TokenVault {
  readonly status: VaultStatus;
  constructor(
    private readonly safe: SafeStorageLike,
    private readonly file: string,
    reason: string,
  ) {
    this.status = status('encrypted-file', `No OS keychain answered (${reason}); secrets are kept in a file encrypted by Electron's safeStorage: ${file}`);
  }
  private read(): Record<string, string> {
    if (!existsSync(this.file)) return {};
    return JSON.parse(this.safe.decryptString(readFileSync(this.file))) as Record<string, string>;
  }
  private write(map: Record<string, string>): void {
    mkdirSync(dirname(this.file), { recursive: true });
    const tmp = `${this.file}.tmp`;
    writeFileSync(tmp, this.safe.encryptString(JSON.stringify(map)), { mode: 0o600 });
    renameSync(tmp, this.file);
  }
  async get(account: string): Promise<string | null> {
    return this.read()[account] ?? null;
  }
  async set(account: string, value: string): Promise<void> {
    this.write({ ...this.read(), [account]: value });
  }
  async delete(account: string): Promise<boolean> {
    const map = this.read();
    if (!(account in map)) return false;
    delete map[account];
    this.write(map);
    return true;
  }
  async accounts(): Promise<string[]> {
    return Object.keys(this.read());
  }
}

/** Last resort: nothing on disk, nothing survives a restart, and the window says so. */
export class MemoryVault implements TokenVault {
  readonly status: VaultStatus;
  private readonly map = new Map<string, string>();
  constructor(reason: string) {
    this.status = status('memory', `No OS keychain and no encryption available (${reason}); secrets are kept in memory for this session only and are not saved.`);
  }
  async get(account: string): Promise<string | null> {
    return this.map.get(account) ?? null;
  }
  async set(account: string, value: string): Promise<void> {
    this.map.set(account, value);
  }
  async delete(account: string): Promise<boolean> {
    return this.map.delete(account);
  }
  async accounts(): Promise<string[]> {
    return [...this.map.keys()];
  }
}

export interface OpenVaultOptions {
  /** Loads keytar; throws when the module is missing or built for another runtime. */
  loadKeytar: () => KeytarLike;
  safeStorage: SafeStorageLike | null;
  /** Where the encrypted fallback file goes. */
  fallbackFile: string;
  service?: string;
}

/**
 * Picks the backend: keytar when a Secret Service / Keychain / Credential Manager answers a real
 * call (loading the module proves nothing on Linux), else the encrypted file, else memory.
 */
export async function openTokenVault(opts: OpenVaultOptions): Promise<TokenVault> {
  let reason: string;
  try {
    const keytar = opts.loadKeytar();
    await keytar.findCredentials(opts.service ?? KEYCHAIN_SERVICE);
    return new KeytarVault(keytar, opts.service);
  } catch (err) {
    reason = describeKeychainFailure(err);
  }
  const safe = opts.safeStorage;
  if (safe && safe.isEncryptionAvailable()) {
    const backend = safe.getSelectedStorageBackend?.();
    if (backend !== 'basic_text') return new EncryptedFileVault(safe, opts.fallbackFile, reason);
    return new MemoryVault(`${reason}; safeStorage only offers a hard-coded key ('basic_text')`);
  }
  return new MemoryVault(`${reason}; safeStorage encryption is not available`);
}

/** Turns keytar's failures into one readable line (the D-Bus ones are cryptic). */
export function describeKeychainFailure(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  if (/autolaunch D-Bus without X11|org\.freedesktop\.secrets was not provided|Secret Service|DBUS_SESSION_BUS_ADDRESS/i.test(msg)) {
    return `no Secret Service on the session bus: ${msg.split('\n')[0]}`;
  }
  if (/NODE_MODULE_VERSION|Cannot find module|was compiled against a different/i.test(msg)) {
    return `the keytar module cannot be loaded in this runtime: ${msg.split('\n')[0]}`;
  }
  return `keychain error: ${msg.split('\n')[0]}`;
}

/** The keychain account for a data dir's desktop token; one per data dir. */
export const desktopTokenAccount = (dataDir: string): string => `desktop-token:${dataDir}`;

/** Remote credentials (migration sources, providers) the user enters, by name. */
export const CREDENTIAL_PREFIX = 'credential:';
