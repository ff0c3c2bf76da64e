import { appendFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Every data dir the suite writes and every secret value it uses (passwords, tokens, provider and
 * source credentials), recorded for the sweep that runs after the whole run (test/secrets-sweep.ts,
 * vitest's globalSetup). Test files run in parallel worker processes: each appends JSON lines to
 * its own file in the directory the sweep created (SANDLAB_SECRETS_REGISTRY). Outside vitest
 * (a bench script using the helpers) nothing is recorded.
 */
const registry = process.env.SANDLAB_SECRETS_REGISTRY;

/** Shorter values (fuzz junk, "x") would match anywhere and say nothing. */
const MIN_SECRET_LENGTH = 8;

export interface RegistryLine {
  dir?: string;
  secret?: string;
  log?: string;
}

function record(line: RegistryLine): void {
  if (!registry) return;
  appendFileSync(join(registry, `${process.pid}.jsonl`), `${JSON.stringify(line)}\n`);
}

/** Whether data dirs are kept for the sweep (it removes them afterwards). */
export const sweepingAfterRun = (): boolean => !!registry;

export function registerDataDir(dir: string): void {
  record({ dir });
}

const known = new Set<string>();

export function registerSecret(...values: unknown[]): void {
  for (const value of values) {
    if (typeof value !== 'string' || value.length < MIN_SECRET_LENGTH || known.has(value)) continue;
    known.add(value);
    record({ secret: value });
  }
}

/** Request fields that carry a password, a token or a credential, whatever the endpoint. */
const SECRET_FIELDS = /^(password|new_password|password_confirmation|access_token|personal_access_token|private_token|token|bitbucket_app_password|app_password|secret|secret_token|api_key|authorization_key)$/;

/** Registers every secret-carrying field of a request or response body, at any depth. */
export function registerSecretsIn(body: unknown, depth = 0): void {
  if (!body || typeof body !== 'object' || depth > 6) return;
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    if (typeof value === 'string' && SECRET_FIELDS.test(key)) registerSecret(value);
    else if (value && typeof value === 'object') registerSecretsIn(value, depth + 1);
  }
}

/** What a service printed (console, stderr), for the sweep of the logs. */
export function registerLog(text: string): void {
  record({ log: text });
}
