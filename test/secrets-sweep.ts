import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RegistryLine } from './helpers/secrets-registry';

/**
 * vitest globalSetup: after the whole run, searches every data dir the tests registered (database,
 * WAL, uploads, repositories, the preferences file) and everything the services logged for every
 * secret value the tests used; one found fails the run. Test files register what they use through
 * test/helpers/secrets-registry.ts (TestService does it for every service and call).
 */
export default function setup(): () => void {
  // Each vitest project runs the global setup: the first one sweeps for all of them.
  if (process.env.SANDLAB_SECRETS_REGISTRY) return () => undefined;
  const registry = mkdtempSync(join(tmpdir(), 'sandlab-secrets-registry-'));
  process.env.SANDLAB_SECRETS_REGISTRY = registry;
  return () => {
    try {
      sweep(registry);
    } finally {
      delete process.env.SANDLAB_SECRETS_REGISTRY;
    }
  };
}

function filesUnder(path: string): string[] {
  let st;
  try {
    st = statSync(path);
  } catch {
    return [];
  }
  if (!st.isDirectory()) return [path];
  return readdirSync(path).flatMap((name) => filesUnder(join(path, name)));
}

function sweep(registry: string): void {
  const lines: RegistryLine[] = readdirSync(registry)
    .filter((f) => f.endsWith('.jsonl'))
    .flatMap((f) =>
      readFileSync(join(registry, f), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as RegistryLine),
    );
  const dirs = [...new Set(lines.flatMap((l) => (l.dir ? [l.dir] : [])))];
  const secrets = [...new Set(lines.flatMap((l) => (l.secret ? [l.secret] : [])))];
  const logs = lines.flatMap((l) => (l.log ? [l.log] : []));
  const needles = secrets.map((s) => ({ s, bytes: Buffer.from(s) }));
  const found: string[] = [];
  let files = 0;
  for (const dir of dirs) {
    for (const file of filesUnder(dir)) {
      files++;
      const bytes = readFileSync(file);
      for (const n of needles) if (bytes.includes(n.bytes)) found.push(`${n.s.slice(0, 10)}... in ${file}`);
    }
  }
  for (const log of logs) for (const n of needles) if (log.includes(n.s)) found.push(`${n.s.slice(0, 10)}... logged: ${log.slice(0, 100)}`);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  rmSync(registry, { recursive: true, force: true });
  process.stdout.write(`secrets sweep: ${secrets.length} values searched in ${files} files of ${dirs.length} data dirs and ${logs.length} log lines: ${found.length} found\n`);
  if (!found.length) return;
  // vitest reports an error thrown here without failing the run: fail it outright.
  process.stderr.write(`secrets found at rest after the run:\n${[...new Set(found)].slice(0, 50).join('\n')}\n`);
  process.exitCode = 1;
  throw new Error('secrets found at rest after the run (listed above)');
}
