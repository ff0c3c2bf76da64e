import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestService } from '../helpers/service';
import { eventually, waitForImport } from '../helpers/imports';
import { ProviderAStandIn, type ARepo } from '../helpers/stand-ins/providera';

// How provider A imports run: cancel, restarts, rate limits, timeout strategies, optional stages.
let s: TestService;
let gh: ProviderAStandIn;
const SHA = 'c'.repeat(40);

/** A repository of `n` issues, one per page at pagination_limit 1. */
function repoWithIssues(id: number, name: string, n: number, extra: Partial<ARepo> = {}): ARepo {
  return {
    id,
    owner: 'octo',
    name,
    issues: Array.from({ length: n }, (_, i) => ({ number: i + 1, title: `Issue ${i + 1}`, body: `Body ${i + 1}`, user: 'octo' })),
    ...extra,
  };
}

beforeAll(async () => {
  gh = await new ProviderAStandIn().start();
  process.env.SANDLAB_PROVIDERA_URL = gh.url;
  s = await TestService.start();
  gh.addUser({ login: 'octo', email: 'octo@example.com' }, 'gh-token');
  await s.createUser({ username: 'octo', email: 'octo@example.com' });
});
afterAll(async () => {
  await s.stop();
  await gh.stop();
});

const start = (repoId: number, body: Record<string, unknown> = {}) =>
  s.post('/import/github', { personal_access_token: 'gh-token', repo_id: repoId, target_namespace: 'root', pagination_limit: 1, ...body });
const issueCount = async (projectId: number): Promise<number> => Number((await s.get(`/projects/${projectId}/issues`, { query: { per_page: 1 } })).headers.get('x-total'));

describe('POST /import/github/cancel', () => {
  it('cancels a running import promptly and keeps what it imported', async () => {
    gh.addRepo(repoWithIssues(1001, 'slow', 40, { delayMs: 150 }));
    const res = await start(1001);
    expect(res.status).toBe(201);
    const id = res.body.id;
    await eventually(async () => (await issueCount(id)) >= 2);
    const canceled = await s.post('/import/github/cancel', { project_id: id });
    expect(canceled.status).toBe(200);
    expect(canceled.body).toEqual({
      id,
      name: 'slow',
      full_path: '/root/slow',
      full_name: 'root / slow',
      import_source: 'octo/slow',
      import_status: 'canceled',
      human_import_status_name: 'canceled',
      provider_link: '/octo/slow',
    });
    const requestsAtCancel = gh.requestsTo(/\/repos\/octo\/slow\//).length;
    await new Promise((r) => setTimeout(r, 600));
    // At most the page in flight completes; nothing more is asked of the provider.
    expect(gh.requestsTo(/\/repos\/octo\/slow\//).length).toBeLessThanOrEqual(requestsAtCancel + 1);
    const kept = await issueCount(id);
    expect(kept).toBeGreaterThanOrEqual(2);
    expect(kept).toBeLessThan(40);
    expect((await s.get(`/projects/${id}/import`)).body.import_status).toBe('canceled');
    expect((await s.get(`/projects/${id}`)).body.import_status).toBe('canceled');
  });

  it('answers 400 for an import that is over', async () => {
    gh.addRepo(repoWithIssues(1002, 'quick', 1));
    const res = await start(1002);
    await waitForImport(s, res.body.id);
    const again = await s.post('/import/github/cancel', { project_id: res.body.id });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ message: 'The import cannot be canceled because it is finished' });
    expect((await s.post('/import/providera/cancel', { project_id: res.body.id })).status).toBe(400);
  });

  it('answers 404 for an unknown project or one not imported from GitHub, 400 without project_id', async () => {
    expect(await s.post('/import/github/cancel', { project_id: 987654 }).then((r) => [r.status, r.body])).toEqual([404, { message: '404 Not found' }]);
    const plain = await s.createProject({ name: 'never-imported' });
    expect((await s.post('/import/github/cancel', { project_id: plain.id })).status).toBe(404);
    expect((await s.post('/import/github/cancel', {})).body).toEqual({ error: 'project_id is missing' });
  });

  it('answers 403 to a member who is not an owner', async () => {
    gh.addRepo(repoWithIssues(1003, 'others', 30, { delayMs: 200 }));
    const res = await start(1003);
    const dev = await s.createUser();
    await s.addMember('projects', res.body.id, dev.user.id, 40);
    const refused = await s.post('/import/github/cancel', { project_id: res.body.id }, { token: dev.token });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ message: 'Unauthorized access' });
    expect((await s.post('/import/github/cancel', { project_id: res.body.id })).status).toBe(200);
  });
});

describe('rate limits', () => {
  it('waits out a short rate limit (Retry-After) and finishes', async () => {
    gh.addRepo(repoWithIssues(1101, 'retry-after', 3));
    gh.secondaryLimit = { retryAfter: 1, times: 1, path: /\/issues$/ };
    const res = await start(1101);
    const status = await waitForImport(s, res.body.id);
    expect(status.import_status).toBe('finished');
    expect(await issueCount(res.body.id)).toBe(3);
    gh.secondaryLimit = null;
  });

  it('fails an import whose rate limit runs out mid-import with an error that says so, keeping what was imported', async () => {
    gh.addRepo(repoWithIssues(1102, 'exhausted', 10));
    gh.rateLimit = { limit: 5000, remaining: 6, resetAt: Math.floor(Date.now() / 1000) + 3600 };
    try {
      const res = await start(1102);
      const status = await waitForImport(s, res.body.id);
      expect(status.import_status).toBe('failed');
      expect(status.import_error).toMatch(/^GitHub API rate limit exceeded; it resets at \d{4}-\d\d-\d\dT/);
      const project = (await s.get(`/projects/${res.body.id}`)).body;
      expect(project.import_error).toBe(status.import_error);
      const kept = await issueCount(res.body.id);
      expect(kept).toBeGreaterThan(0);
      expect(kept).toBeLessThan(10);
    } finally {
      gh.rateLimit = { limit: 5000, remaining: 5000, resetAt: Math.floor(Date.now() / 1000) + 3600 };
    }
  });
});

describe('timeout_strategy', () => {
  it('pessimistic (the default) fails the import at the stage the provider failed', async () => {
    gh.addRepo(repoWithIssues(1201, 'pessimist', 2));
    gh.faults.push({ path: /^\/repos\/octo\/pessimist\/pulls\/comments$/, status: 502, body: { message: 'Server Error' } });
    const res = await start(1201);
    const status = await waitForImport(s, res.body.id);
    expect(status.import_status).toBe('failed');
    expect(status.import_error).toBe('GitHub answered 502: Server Error');
    expect(await issueCount(res.body.id)).toBe(2);
  });

  it('optimistic records the failed stage and goes on to the next', async () => {
    gh.addRepo(repoWithIssues(1202, 'optimist', 2, { comments: [{ id: 7, number: 1, user: 'octo', body: 'still imported' }] }));
    gh.faults.push({ path: /^\/repos\/octo\/optimist\/pulls\/comments$/, status: 502, body: { message: 'Server Error' } });
    const res = await start(1202, { timeout_strategy: 'optimistic' });
    const status = await waitForImport(s, res.body.id);
    expect(status.import_status).toBe('finished');
    expect(status.failed_relations).toEqual([
      { id: expect.any(Number), created_at: expect.any(String), exception_class: 'ProviderError', source: 'diff_notes', exception_message: null, relation_name: 'diff_notes', line_number: null },
    ]);
    expect((await s.get(`/projects/${res.body.id}/issues/1/notes`)).body.map((n: any) => n.body)).toEqual(['still imported']);
  });
});

describe('optional stages', () => {
  it('single_endpoint_notes_import reads each issue and pull request comments on their own', async () => {
    gh.addRepo(
      repoWithIssues(1301, 'single-endpoint', 2, {
        pulls: [{ number: 3, title: 'PR', user: 'octo', head: { ref: 'f', sha: SHA }, base: { ref: 'main', sha: SHA } }],
        comments: [
          { id: 11, number: 1, user: 'octo', body: 'on issue 1' },
          { id: 12, number: 3, user: 'octo', body: 'on PR 3' },
        ],
      }),
    );
    const res = await start(1301, { optional_stages: { single_endpoint_notes_import: 'true' } });
    expect((await waitForImport(s, res.body.id)).import_status).toBe('finished');
    expect(gh.requestsTo(/^\/repos\/octo\/single-endpoint\/issues\/comments$/)).toHaveLength(0);
    expect(gh.requestsTo(/^\/repos\/octo\/single-endpoint\/issues\/\d+\/comments$/).map((r) => r.path)).toEqual([
      '/repos/octo/single-endpoint/issues/1/comments',
      '/repos/octo/single-endpoint/issues/2/comments',
      '/repos/octo/single-endpoint/issues/3/comments',
    ]);
    expect((await s.get(`/projects/${res.body.id}/merge_requests/3/notes`)).body.map((n: any) => n.body)).toEqual(['on PR 3']);
  });

  it('attachments_import downloads linked attachments into the project uploads and rewrites the links', async () => {
    gh.attachments.set('shot.png', Buffer.from('PNGDATA'));
    gh.addRepo({
      id: 1302,
      owner: 'octo',
      name: 'with-attachments',
      issues: [{ number: 1, title: 'Look', body: `See ![shot](${gh.attachmentUrl('shot.png')}) and [elsewhere](https://example.com/x.png)`, user: 'octo' }],
    });
    const res = await start(1302, { optional_stages: { attachments_import: true } });
    const status = await waitForImport(s, res.body.id);
    expect(status.import_status).toBe('finished');
    expect(status.stats.imported.attachment).toBe(1);
    const issue = (await s.get(`/projects/${res.body.id}/issues/1`)).body;
    const m = /^See !\[shot\]\((\/uploads\/[0-9a-f]{32}\/shot\.png)\) and \[elsewhere\]\(https:\/\/example\.com\/x\.png\)$/.exec(issue.description);
    expect(m).not.toBeNull();
    const file = await fetch(`${s.url}/api/v4/projects/${res.body.id}${m![1]}`, { headers: { 'private-token': 'glpat-test-root-token-000000' } });
    expect(file.status).toBe(200);
    expect(await file.text()).toBe('PNGDATA');
  });

  it('without attachments_import the links stay as written', async () => {
    gh.addRepo({ id: 1303, owner: 'octo', name: 'links-kept', issues: [{ number: 1, title: 'Look', body: `![shot](${gh.attachmentUrl('shot.png')})`, user: 'octo' }] });
    const res = await start(1303);
    await waitForImport(s, res.body.id);
    expect((await s.get(`/projects/${res.body.id}/issues/1`)).body.description).toBe(`![shot](${gh.attachmentUrl('shot.png')})`);
  });
});

describe('a restart mid-import', () => {
  it('ends the import failed with a readable error (the token was in memory only) and keeps what was imported', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sandlab-restart-'));
    gh.addRepo(repoWithIssues(1401, 'interrupted', 30, { delayMs: 100 }));
    let first: TestService | null = await TestService.start({ dataDir });
    try {
      const res = await first.post('/import/github', { personal_access_token: 'gh-token', repo_id: 1401, target_namespace: 'root', pagination_limit: 1 });
      const id = res.body.id;
      await eventually(async () => Number((await first!.get(`/projects/${id}/issues`, { query: { per_page: 1 } })).headers.get('x-total')) >= 2);
      await first.service.close();
      first = null;
      const second = await TestService.start({ dataDir });
      try {
        const status = (await second.get(`/projects/${id}/import`)).body;
        expect(status.import_status).toBe('failed');
        expect(status.import_error).toBe(
          'Sandlab restarted during the import and no longer holds the provider credentials, which are kept in memory only: start the import again.',
        );
        const kept = Number((await second.get(`/projects/${id}/issues`, { query: { per_page: 1 } })).headers.get('x-total'));
        expect(kept).toBeGreaterThanOrEqual(2);
        expect(kept).toBeLessThan(30);
      } finally {
        await second.service.close();
      }
    } finally {
      if (first) await first.service.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('never stores the upstream token', async () => {
    const { readFileSync, readdirSync } = await import('node:fs');
    const files = readdirSync(s.dataDir).filter((f) => f.startsWith('sandlab.db'));
    for (const f of files) expect(readFileSync(join(s.dataDir, f)).includes('gh-token')).toBe(false);
  });
});
