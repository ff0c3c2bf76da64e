import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Conf from 'conf';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parsePreferencesUpdate } from '../../../src/main/ipc/schemas';
import { PreferencesService, preferencesStoreOptions } from '../../../src/main/settings/preferences';
import { registerDataDir, registerSecret, sweepingAfterRun } from '../../helpers/secrets-registry';
import { TestService } from '../../helpers/service';
import { TestClock, type World, buildWorld } from '../../helpers/world';

// Secrets never rest in plain text: after the flows that carry them (passwords, personal access
// tokens, job tokens, alert integration keys, service account tokens, import and migration
// credentials), no value appears in any file of the data dir (database, WAL, uploads), in the
// desktop shell's preferences file, nor in anything the service logged. (The same search runs
// over every data dir of the whole suite afterwards: test/secrets-sweep.ts.)

let s: TestService;
let world: World;
const clock = new TestClock();
const logged: string[] = [];
const outbound: string[] = [];
const PROVIDER_TOKEN = 'ghp_providerSecretValue0123456789abcdef';
const SOURCE_TOKEN = 'glpat-sourceInstanceSecret-0123456789';
const BITBUCKET_PASSWORD = 'bb-app-password-Secret-0123456789';

beforeAll(async () => {
  for (const method of ['log', 'error', 'warn', 'info'] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' ')));
  }
  // Providers and migration sources answer "unauthorized": the credentials are used, then dropped.
  s = await TestService.start({
    clock: clock.now,
    fetch: async (input: string | URL | Request, init?: RequestInit) => {
      outbound.push(`${String(input)} ${JSON.stringify(init?.headers ?? {})}`);
      return new Response('{"message":"401 Unauthorized"}', { status: 401, headers: { 'content-type': 'application/json' } });
    },
  });
  world = await buildWorld(s, clock);
}, 180_000);
const prefsDir = mkdtempSync(join(tmpdir(), 'sandlab-prefs-'));
registerDataDir(prefsDir);

afterAll(async () => {
  vi.restoreAllMocks();
  await s.stop();
  if (!sweepingAfterRun()) rmSync(prefsDir, { recursive: true, force: true });
});

/**
 * The shell's preferences file, written as the app writes it: electron-store's engine (conf) with
 * the app's store options, updated through the preferences channel's own validation and service
 * with what the Migrations workspace sends after a migration starts (the source URL as the user
 * typed it, credentials included) and the other settings a user changes.
 */
function writePreferencesAsTheShellDoes(sourceUrlAsTyped: string): string {
  const store = new Conf({ ...preferencesStoreOptions(), cwd: prefsDir, projectName: 'sandlab' } as never) as unknown as { get(k: string): unknown; set(k: string, v: unknown): void; path: string };
  const prefs = new PreferencesService(store);
  prefs.update(parsePreferencesUpdate({ recentMigrationSources: [sourceUrlAsTyped, 'http://other.example/gitlab'], theme: 'dark', port: 8930, dataDir: s.dataDir }));
  prefs.rememberMigrationSource(sourceUrlAsTyped);
  prefs.setWindowBounds({ x: 10, y: 20, width: 1000, height: 700 });
  return store.path;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('secrets at rest', () => {
  it('keeps no token, password or provider credential in the data dir or the logs', async () => {
    const g = world.group;
    await s.post('/import/github', { personal_access_token: PROVIDER_TOKEN, repo_id: 1, target_namespace: g.full_path, new_name: 'imported' });
    await s.post('/import/github/gists', { personal_access_token: PROVIDER_TOKEN });
    await s.post('/import/bitbucket', { bitbucket_username: 'someone', bitbucket_app_password: BITBUCKET_PASSWORD, repo_path: 'a/b', target_namespace: g.full_path });
    await s.post('/bulk_imports', {
      configuration: { url: 'http://source.example', access_token: SOURCE_TOKEN },
      entities: [{ source_type: 'group_entity', source_full_path: 'src', destination_slug: 'dst', destination_namespace: g.full_path }],
    });
    // A token rotated is a new secret too.
    const rotated = await s.post(`/personal_access_tokens/self/rotate`, undefined, { token: world.headers.developer['private-token'] });
    const secrets = [...world.secrets, PROVIDER_TOKEN, SOURCE_TOKEN, BITBUCKET_PASSWORD, ...(rotated.body?.token ? [rotated.body.token] : [])];
    registerSecret(...secrets);
    expect(outbound.some((line) => line.includes(PROVIDER_TOKEN) || line.includes(SOURCE_TOKEN))).toBe(true);
    const prefsFile = writePreferencesAsTheShellDoes(`http://oauth2:${SOURCE_TOKEN}@source.example/gitlab/?private_token=${SOURCE_TOKEN}`);
    const kept = JSON.parse(readFileSync(prefsFile, 'utf8'));
    // The source is remembered, without its credentials.
    expect(kept.recentMigrationSources[0]).toBe('http://source.example/gitlab');

    // Flush the WAL into the database file too, so both are searched as they sit on disk.
    s.service.context.db.pragma('wal_checkpoint(PASSIVE)');
    const files = [...filesUnder(s.dataDir), ...filesUnder(prefsDir)];
    const found: string[] = [];
    for (const file of files) {
      const bytes = readFileSync(file);
      for (const secret of secrets) if (bytes.includes(Buffer.from(secret))) found.push(`${secret.slice(0, 12)}... in ${file.slice(s.dataDir.length)}`);
    }
    for (const line of logged) for (const secret of secrets) if (line.includes(secret)) found.push(`${secret.slice(0, 12)}... logged: ${line.slice(0, 80)}`);
    process.stdout.write(`secrets: ${secrets.length} values searched in ${files.length} files and ${logged.length} log lines\n`);
    expect(found).toEqual([]);
    expect(secrets.length).toBeGreaterThan(15);
  }, 120_000);
});
