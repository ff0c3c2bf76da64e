import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Conf from 'conf';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_PREFERENCES, PreferencesService, preferencesStoreOptions, sanitizeSourceUrl } from '../../src/main/settings/preferences';

// conf is electron-store's engine: the same schema, defaults and file format, in plain Node.
const dirs: string[] = [];
function open(dir = mkdtempSync(join(tmpdir(), 'sandlab-prefs-'))): { prefs: PreferencesService; store: Conf; dir: string } {
  dirs.push(dir);
  const store = new Conf({ ...preferencesStoreOptions(), cwd: dir, projectName: 'sandlab-test' } as ConstructorParameters<typeof Conf>[0]);
  return { prefs: new PreferencesService(store as never), store, dir };
}
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('preferences', () => {
  it('starts from the defaults', () => {
    expect(open().prefs.all()).toEqual(DEFAULT_PREFERENCES);
  });

  it('persists updates across instances', () => {
    const { prefs, dir } = open();
    prefs.update({ port: 0, theme: 'dark', dataDir: '/srv/sandlab' });
    expect(open(dir).prefs.all()).toMatchObject({ port: 0, theme: 'dark', dataDir: '/srv/sandlab' });
  });

  it('rejects values outside the schema', () => {
    const { prefs } = open();
    expect(() => prefs.update({ port: 70000 })).toThrow(/schema/i);
    expect(() => prefs.update({ theme: 'neon' as never })).toThrow(/schema/i);
    expect(prefs.all().port).toBe(DEFAULT_PREFERENCES.port);
  });

  it('resets a hand-broken file to the defaults instead of failing', () => {
    const { dir, store } = open();
    writeFileSync(store.path, JSON.stringify({ port: 'not a port' }));
    expect(open(dir).prefs.all().port).toBe(DEFAULT_PREFERENCES.port);
  });

  it('remembers migration sources newest first, without credentials or duplicates', () => {
    const { prefs, store } = open();
    prefs.rememberMigrationSource('https://gitlab.example.com/');
    prefs.rememberMigrationSource('https://user:glpat-secret@other.example.com/group?private_token=glpat-x');
    prefs.rememberMigrationSource('https://gitlab.example.com');
    prefs.rememberMigrationSource('file:///etc/passwd');
    expect(prefs.all().recentMigrationSources).toEqual(['https://gitlab.example.com', 'https://other.example.com/group']);
    expect(readFileSync(store.path, 'utf8')).not.toContain('glpat');
  });

  it('keeps at most ten recent sources', () => {
    const { prefs } = open();
    for (let i = 0; i < 12; i++) prefs.rememberMigrationSource(`http://127.0.0.1:${9000 + i}`);
    expect(prefs.all().recentMigrationSources).toHaveLength(10);
    expect(prefs.all().recentMigrationSources[0]).toBe('http://127.0.0.1:9011');
  });

  it('stores rounded window bounds', () => {
    const { prefs } = open();
    prefs.setWindowBounds({ x: 10.4, y: 20.6, width: 900.2, height: 50 });
    expect(prefs.all().windowBounds).toEqual({ x: 10, y: 21, width: 900, height: 150 });
  });
});

describe('sanitizeSourceUrl', () => {
  it('keeps only the scheme, host and path of http(s) URLs', () => {
    expect(sanitizeSourceUrl(' https://a:b@host:8443/x/?q=1#f ')).toBe('https://host:8443/x');
    expect(sanitizeSourceUrl('javascript:alert(1)')).toBeNull();
    expect(sanitizeSourceUrl('not a url')).toBeNull();
  });
});
