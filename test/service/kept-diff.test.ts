import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ROOT_TOKEN } from '../helpers/service';
import { registerDataDir, registerSecret, sweepingAfterRun } from '../helpers/secrets-registry';
import { runKeptDiff, seedKeptDiffData } from '../helpers/kept-diff';

/**
 * What a service keeps between requests (whole pages, entities, remembered reads, anchors, kept
 * counts) never answers stale: after every batch of random writes of the kinds a GitLab user makes
 * through the API, every list of the pool (every list endpoint, scope, caller, filter, order, page
 * and keyset cursor it draws) answers the long-running service exactly as a service started afresh
 * on the same data dir: status, body, X-Total, X-Total-Pages, X-Next-Page, X-Prev-Page and Link.
 * bench/kept-diff.ts runs the same check with any seed and size, on any data dir.
 */
const dataDir = mkdtempSync(join(tmpdir(), 'sandlab-kept-diff-'));
registerDataDir(dataDir);
registerSecret(ROOT_TOKEN);
afterAll(() => {
  if (!sweepingAfterRun()) rmSync(dataDir, { recursive: true, force: true });
});

it('answers every list after random writes as a service started afresh', async () => {
  await seedKeptDiffData(dataDir, ROOT_TOKEN);
  const result = await runKeptDiff({ dataDir, rootToken: ROOT_TOKEN, seed: 24, batches: 8, writesPerBatch: 14, readsPerBatch: 35, secret: (v) => registerSecret(v) });
  expect(result.divergences.map((d) => `batch ${d.batch} ${d.who} GET ${d.path}: ${d.what}`)).toEqual([]);
  // The check did what it says: most writes landed, and the pool was read after each batch.
  const landed = Object.values(result.writes).reduce((n, w) => n + w.ok, 0);
  expect(landed).toBeGreaterThan(8 * 14 * 0.5);
  expect(result.reads).toBeGreaterThan(8 * 70);
  // And reached what is kept: some reads of a project's issues, and of the callers besides the
  // administrator, were answered by the kept service with fewer statements than by the fresh one.
  for (const kind of ['GET /projects/:id/issues', 'GET /groups/:id/epics', 'caller reporter', 'caller guest', 'caller external']) expect(result.kinds[kind]?.reached, kind).toBeGreaterThan(0);
  // Writes to an archived project were refused as GitLab refuses them (403; a merge 401), none landed.
  expect(result.writes['archived write']?.ok).toBeGreaterThan(0);
  expect(result.writes['archived write']?.failed ?? 0).toBe(0);
  // And compared lists past COUNT_LIMIT (10,000 rows: no X-Total, X-Total-Pages or rel="last"), of
  // issues and of merge requests, where counts and pages take other paths.
  const past = (list: string): number => Object.entries(result.kinds).reduce((n, [kind, t]) => n + (kind.startsWith('list past 10,000 rows: ') && kind.endsWith(list) ? t.reads : 0), 0);
  for (const list of ['/issues', '/merge_requests']) expect(past(list), list).toBeGreaterThan(0);
}, 240_000);
