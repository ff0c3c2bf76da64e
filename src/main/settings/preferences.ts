import type { Preferences, PreferencesUpdate, WindowBounds } from '../../shared/ipc';

/** Used when the preferences have no port yet: fixed, so scripts can rely on it. */
export const DEFAULT_PORT = 8929;
export const MAX_RECENT_SOURCES = 10;

export const DEFAULT_PREFERENCES: Preferences = {
  port: DEFAULT_PORT,
  dataDir: '',
  windowBounds: { width: 1200, height: 800 },
  recentMigrationSources: [],
  theme: 'system',
};

/** JSON schema of each key (electron-store / conf validate every write with it). */
export const PREFERENCES_SCHEMA = {
  port: { type: 'integer', minimum: 0, maximum: 65535 },
  dataDir: { type: 'string' },
  windowBounds: {
    type: 'object',
    properties: {
      x: { type: 'integer' },
      y: { type: 'integer' },
      width: { type: 'integer', minimum: 200 },
      height: { type: 'integer', minimum: 150 },
    },
    required: ['width', 'height'],
    additionalProperties: false,
  },
  recentMigrationSources: { type: 'array', items: { type: 'string' }, maxItems: MAX_RECENT_SOURCES },
  theme: { type: 'string', enum: ['system', 'light', 'dark'] },
} as const;

/** What electron-store (in the app) and conf (in tests) both offer. */
export interface KeyValueStore {
  get(key: string): unknown;
  set(key: string, value: unknown): void;
}

/** Options for `new ElectronStore(...)` / `new Conf(...)`: one schema, one set of defaults. */
export function preferencesStoreOptions(): {
  name: string;
  schema: typeof PREFERENCES_SCHEMA;
  defaults: Preferences;
  clearInvalidConfig: boolean;
} {
  // A hand-edited file that breaks the schema resets to defaults instead of stopping the app.
  return { name: 'preferences', schema: PREFERENCES_SCHEMA, defaults: DEFAULT_PREFERENCES, clearInvalidConfig: true };
}

/**
 * A migration source as it may be remembered: the base URL only — credentials and query strings
 * are dropped (tokens belong in the keychain). null when not an http(s) URL.
 */
export function sanitizeSourceUrl(raw: string): string | null {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
}

/** Typed access to the preferences store. */
export class PreferencesService {
  constructor(private readonly store: KeyValueStore) {}

  all(): Preferences {
    const get = <K extends keyof Preferences>(k: K): Preferences[K] => (this.store.get(k) as Preferences[K] | undefined) ?? DEFAULT_PREFERENCES[k];
    return {
      port: get('port'),
      dataDir: get('dataDir'),
      windowBounds: get('windowBounds'),
      recentMigrationSources: get('recentMigrationSources'),
      theme: get('theme'),
    };
  }

  /** Applies an already validated update; returns the new preferences. */
  update(u: PreferencesUpdate): Preferences {
    if (u.port !== undefined) this.store.set('port', u.port);
    if (u.dataDir !== undefined) this.store.set('dataDir', u.dataDir);
    if (u.theme !== undefined) this.store.set('theme', u.theme);
    if (u.recentMigrationSources !== undefined) {
      const clean = u.recentMigrationSources.map(sanitizeSourceUrl).filter((s): s is string => !!s);
      this.store.set('recentMigrationSources', [...new Set(clean)].slice(0, MAX_RECENT_SOURCES));
    }
    return this.all();
  }

  /** Most recent first, without duplicates. */
  rememberMigrationSource(url: string): void {
    const clean = sanitizeSourceUrl(url);
    if (!clean) return;
    const rest = this.all().recentMigrationSources.filter((s) => s !== clean);
    this.store.set('recentMigrationSources', [clean, ...rest].slice(0, MAX_RECENT_SOURCES));
  }

  setWindowBounds(b: WindowBounds): void {
    const round = (n: number | undefined): number | undefined => (n === undefined ? undefined : Math.round(n));
    const next: WindowBounds = { width: Math.max(200, Math.round(b.width)), height: Math.max(150, Math.round(b.height)) };
    if (b.x !== undefined && b.y !== undefined) Object.assign(next, { x: round(b.x), y: round(b.y) });
    this.store.set('windowBounds', next);
  }
}
