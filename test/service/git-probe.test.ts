import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TestService } from '../helpers/service';

/**
 * git is looked for (`git --version`) after the service listens, not on the way to its first
 * answer; a request that needs git sooner finds it then. A git that records each run stands in.
 */
let dir: string;
let runs: string;
let recordingGit: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sandlab-git-probe-'));
  runs = join(dir, 'runs.log');
  recordingGit = join(dir, 'git');
  writeFileSync(recordingGit, `#!/bin/sh\necho "$*" >> '${runs}'\nexec git "$@"\n`);
  chmodSync(recordingGit, 0o755);
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

const recordedRuns = (): string[] => (existsSync(runs) ? readFileSync(runs, 'utf8').trim().split('\n') : []);

describe('looking for git', () => {
  it('runs no git while starting, then looks for it once in the background', async () => {
    const svc = await TestService.start({ gitCommand: recordingGit });
    try {
      expect(recordedRuns()).toEqual([]);
      expect((await svc.get('/user')).status).toBe(200);
      expect(recordedRuns()).toEqual([]);
      await expect.poll(recordedRuns, { timeout: 10_000 }).toEqual(['--version']);
      // The look under way is the one a caller waits for.
      expect((await svc.service.context.git.probe()).ok).toBe(true);
      expect(svc.service.context.git.available).toBe(true);
      expect(recordedRuns()).toEqual(['--version']);
    } finally {
      await svc.stop();
    }
  });

  it('finds git at once when a request needs it before the background look', async () => {
    const svc = await TestService.start({ gitCommand: recordingGit });
    try {
      const project = await svc.post('/projects', { name: 'Readme', initialize_with_readme: true });
      expect(project.status).toBe(201);
      expect(recordedRuns()[0]).toBe('--version');
      expect((await svc.get(`/projects/${project.body.id}/repository/files/README.md/raw`, { query: { ref: 'main' } })).status).toBe(200);
      // The background look finds git already known: no second `git --version`.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(recordedRuns().filter((r) => r === '--version')).toEqual(['--version']);
    } finally {
      await svc.stop();
    }
  });

  it('says once on stderr, after the start, that repositories are unavailable without git', async () => {
    const stderr = vi.spyOn(process.stderr, 'write');
    const svc = await TestService.start({ gitCommand: join(dir, 'no-such-git') });
    try {
      const said = () => stderr.mock.calls.map(([chunk]) => String(chunk)).filter((s) => s.includes('repositories are unavailable'));
      expect(said()).toEqual([]);
      await expect.poll(said, { timeout: 10_000 }).toEqual(['[sandlab] repositories are unavailable: git was not found on PATH: Sandlab needs the git program (2.38 or newer) for repositories\n']);
    } finally {
      await svc.stop();
      stderr.mockRestore();
    }
  });
});
