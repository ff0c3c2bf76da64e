import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, TestService } from '../helpers/service';
import { seedSource, waitForImport } from '../helpers/migration-source';

/**
 * Migrations that do not go smoothly: a source list answering 500, a retry, a cancel, a restart in
 * the middle, a full queue; and the dry run that plans without writing.
 */

let source: TestService;
const cleanup: (() => Promise<void>)[] = [];

beforeAll(async () => {
  source = await TestService.start();
  await seedSource(source);
}, 60_000);

afterAll(async () => {
  for (const c of cleanup.reverse()) await c();
  await source?.stop();
});

/** A destination whose outbound fetch can be slowed down or made to fail for some URLs. */
async function destination(behaviour: { failing?: RegExp | null; delayMs?: number } = {}, dataDir?: string) {
  const fetchThrough: typeof fetch = async (input, init) => {
    const url = String(input);
    if (behaviour.delayMs) await new Promise((r) => setTimeout(r, behaviour.delayMs));
    if (behaviour.failing?.test(url)) return new Response('{"message":"500 Internal Server Error"}', { status: 500, headers: { 'content-type': 'application/json' } });
    return fetch(input, init);
  };
  const svc = await TestService.start({ fetch: fetchThrough, ...(dataDir ? { dataDir } : {}) });
  if (!dataDir) {
    // Alice and Bob exist here too (by e-mail, by username); Carol does not.
    await svc.createUser({ username: 'alice-here', email: 'alice@example.com' });
    await svc.createUser({ username: 'bob', email: 'bob@here.example' });
  }
  return svc;
}

const groupEntity = (slug: string) => ({ source_type: 'group_entity', source_full_path: 'acme', destination_namespace: '', destination_slug: slug });
const start = (dest: TestService, entities: Record<string, unknown>[], token = ROOT_TOKEN) =>
  dest.post('/bulk_imports', { configuration: { url: source.url, access_token: token }, entities });
const entitiesOf = async (dest: TestService, id: number): Promise<any[]> => (await dest.get(`/bulk_imports/${id}/entities`, { query: { per_page: '100' } })).body;
const count = async (svc: TestService, path: string): Promise<number> => Number((await svc.get(path, { query: { per_page: '1' } })).headers.get('x-total'));

describe('a source that answers 500 for one list', () => {
  let dest: TestService;
  const behaviour = { failing: /\/projects\/\d+\/merge_requests\?/ as RegExp | null };
  let importId: number;
  let web: any;

  beforeAll(async () => {
    dest = await destination(behaviour);
    cleanup.push(() => dest.stop());
    const res = await start(dest, [groupEntity('acme-500')]);
    importId = res.body.id;
    await waitForImport(dest, importId);
    web = (await entitiesOf(dest, importId)).find((e) => e.source_full_path === 'acme/web');
  }, 90_000);

  it('records one failure for that list while everything else finishes', async () => {
    expect((await dest.get(`/bulk_imports/${importId}`)).body).toMatchObject({ status: 'finished', has_failures: true });
    expect(web.status).toBe('finished');
    expect(web.has_failures).toBe(true);
    const failures = (await dest.get(`/bulk_imports/${importId}/entities/${web.id}/failures`)).body;
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ relation: 'merge_requests', exception_class: 'BulkImports::NetworkError', source_title: 'merge_requests' });
    expect(failures[0].exception_message).toMatch(/^Unsuccessful response 500 from \/api\/v4\/projects\/\d+\/merge_requests/);
    expect(failures[0].source_url).toMatch(new RegExp(`^${source.url}/api/v4/projects/\\d+/merge_requests\\?`));
    expect(web.failures[0]).toMatchObject({ relation: 'merge_requests', step: 'extractor', pipeline_step: 'extractor', pipeline_class: 'BulkImports::Projects::Pipelines::MergeRequestsPipeline' });
    expect(await count(dest, `/projects/${web.project_id}/issues`)).toBe(3);
    expect(await count(dest, `/projects/${web.project_id}/merge_requests`)).toBe(0);
  });

  it('retries only what failed: the merge requests come, nothing is copied twice', async () => {
    behaviour.failing = null;
    const res = await dest.post(`/bulk_imports/${importId}/entities/${web.id}/retry`, { configuration: { access_token: ROOT_TOKEN } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: web.id, status: 'created', failures: [], has_failures: false });
    expect((await dest.get(`/bulk_imports/${importId}`)).body.status).toBe('started');
    await waitForImport(dest, importId);
    const after = (await dest.get(`/bulk_imports/${importId}/entities/${web.id}`)).body;
    expect(after).toMatchObject({ status: 'finished', has_failures: false });
    expect(after.stats.merge_requests).toEqual({ source: 2, fetched: 2, imported: 2 });
    expect(after.stats.issues).toEqual({ source: 3, fetched: 3, imported: 3 });
    expect(await count(dest, `/projects/${web.project_id}/merge_requests`)).toBe(2);
    expect(await count(dest, `/projects/${web.project_id}/issues`)).toBe(3);
    expect(await count(dest, `/projects/${web.project_id}/snippets`)).toBe(1);
    expect((await dest.get(`/bulk_imports/${importId}`)).body).toMatchObject({ status: 'finished' });
  });

  it('refuses to retry an entity that is still running, or without a token once the migration ended', async () => {
    const done = (await dest.post(`/bulk_imports/${importId}/entities/${web.id}/retry`)).body;
    expect(done).toEqual({
      message: 'The source access token is no longer held (Sandlab restarted, or this migration ended): send configuration[access_token] again to retry.',
    });
  });
});

describe('a source repository that cannot be fetched', () => {
  it('is one failure record of the repository relation; the project and its issues still come', async () => {
    const group = await source.createGroup({ path: 'broken' });
    const project = await source.createProject({ path: 'repo', namespace_id: group.id, initialize_with_readme: true });
    await source.post(`/projects/${project.id}/issues`, { title: 'Still here' });
    // The refs stay, the objects go: the source says the repository has commits but cannot serve them.
    const objects = join(source.dataDir, 'repositories', `${project.id}.git`, 'objects');
    for (const name of readdirSync(objects)) if (/^[0-9a-f]{2}$|^pack$/.test(name)) rmSync(join(objects, name), { recursive: true, force: true });
    const dest = await destination();
    cleanup.push(() => dest.stop());
    const res = await start(dest, [{ source_type: 'project_entity', source_full_path: 'broken/repo', destination_namespace: '', destination_slug: 'repo' }]);
    const imp = await waitForImport(dest, res.body.id);
    expect(imp).toMatchObject({ status: 'finished', has_failures: true });
    const [entity] = await entitiesOf(dest, imp.id);
    const failures = (await dest.get(`/bulk_imports/${imp.id}/entities/${entity.id}/failures`)).body;
    expect(failures).toEqual([
      expect.objectContaining({ relation: 'repository', source_title: 'broken/repo', source_url: `${source.url}/broken/repo` }),
    ]);
    expect(failures[0].exception_message).not.toContain(ROOT_TOKEN);
    expect(entity.failures[0]).toMatchObject({ pipeline_class: 'BulkImports::Projects::Pipelines::RepositoryPipeline', pipeline_step: 'loader' });
    expect(await count(dest, `/projects/${entity.project_id}/issues`)).toBe(1);
    expect((await dest.get(`/projects/${entity.project_id}`)).body.empty_repo).toBe(true);
  });
});

describe('canceling a running migration', () => {
  it('ends it canceled at once, stops its entities, and it stays canceled', async () => {
    const dest = await destination({ delayMs: 40 });
    cleanup.push(() => dest.stop());
    const res = await start(dest, [groupEntity('acme-cancel')]);
    const id = res.body.id;
    for (let i = 0; i < 100 && (await dest.get(`/bulk_imports/${id}`)).body.status !== 'started'; i++) await new Promise((r) => setTimeout(r, 20));
    const canceled = await dest.post(`/bulk_imports/${id}/cancel`);
    expect([canceled.status, canceled.body.status]).toEqual([200, 'canceled']);
    await new Promise((r) => setTimeout(r, 1500));
    expect((await dest.get(`/bulk_imports/${id}`)).body.status).toBe('canceled');
    const entities = await entitiesOf(dest, id);
    expect(entities.every((e) => e.status === 'canceled' || e.status === 'finished')).toBe(true);
    expect(entities.some((e) => e.status === 'canceled')).toBe(true);
    // Nothing was added after the cancel: no entity exists that was created once it had ended.
    const count = entities.length;
    await new Promise((r) => setTimeout(r, 500));
    expect(await entitiesOf(dest, id)).toHaveLength(count);
  });
});

describe('a restart in the middle of a migration', () => {
  it('fails the unfinished entities saying the token is needed, then resumes them without duplicates when it is given', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sandlab-restart-'));
    cleanup.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const first = await destination({ delayMs: 80 }, dataDir);
    const res = await start(first, [groupEntity('acme-restart')]);
    const id = res.body.id;
    // Let it get part of the way: the top group made, some entities under way.
    for (let i = 0; i < 300; i++) {
      const entities = await entitiesOf(first, id);
      if (entities.length >= 2 && entities.some((e) => e.stats.labels)) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await first.service.close();

    const second = await destination({}, dataDir);
    cleanup.push(() => second.service.close());
    const imp = await waitForImport(second, id);
    expect(imp.status, JSON.stringify((await entitiesOf(second, id)).map((e) => [e.source_full_path, e.status]))).toBe('failed');
    let entities = await entitiesOf(second, id);
    const unfinished = entities.filter((e) => e.status === 'failed');
    expect(unfinished.length).toBeGreaterThan(0);
    for (const e of unfinished) {
      expect(e.failures.at(-1).exception_message).toContain('send configuration[access_token] again to retry');
    }
    // Nothing stays started after a restart.
    expect(entities.some((e) => e.status === 'started')).toBe(false);

    for (let round = 0; round < 10; round++) {
      const failed = (await entitiesOf(second, id)).filter((e) => e.status === 'failed');
      if (!failed.length) break;
      for (const e of failed) {
        const retried = await second.post(`/bulk_imports/${id}/entities/${e.id}/retry`, { configuration: { access_token: ROOT_TOKEN } });
        expect(retried.status).toBe(200);
      }
      await waitForImport(second, id);
    }
    expect((await second.get(`/bulk_imports/${id}`)).body.status).toBe('finished');
    entities = await entitiesOf(second, id);
    expect(entities.map((e) => e.destination_full_path).sort()).toEqual([
      'acme-restart',
      'acme-restart/platform',
      'acme-restart/platform/api',
      'acme-restart/platform/infra',
      'acme-restart/web',
    ]);
    const web = entities.find((e) => e.source_full_path === 'acme/web');
    expect(await count(second, `/projects/${web.project_id}/issues`)).toBe(3);
    expect(await count(second, `/projects/${web.project_id}/merge_requests`)).toBe(2);
    expect((await second.get(`/groups/${encodeURIComponent('acme-restart')}/labels`, { query: { include_ancestor_groups: 'false' } })).body).toHaveLength(2);
    expect((await second.get(`/groups/${encodeURIComponent('acme-restart')}/epics`, { query: { include_descendant_groups: 'false' } })).body).toHaveLength(2);
  });
});

describe('the job queue', () => {
  it('answers 503 with Retry-After when it is full', async () => {
    const dest = await TestService.start({ limits: { maxQueuedJobs: 1 } });
    cleanup.push(() => dest.stop());
    const res = await start(dest, [groupEntity('one'), groupEntity('two')]);
    expect([res.status, res.body]).toEqual([503, { message: '503 Service Unavailable' }]);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await dest.get('/bulk_imports')).body).toEqual([]);
  });
});

describe('one project migrated on its own', () => {
  it('lands in the destination group with its records', async () => {
    const dest = await TestService.start();
    cleanup.push(() => dest.stop());
    const group = await dest.createGroup({ path: 'team' });
    const res = await start(dest, [{ source_type: 'project_entity', source_full_path: 'acme/web', destination_namespace: group.full_path, destination_slug: 'web-copy' }]);
    expect(res.status).toBe(201);
    const imp = await waitForImport(dest, res.body.id);
    expect(imp.status).toBe('finished');
    const [entity] = await entitiesOf(dest, imp.id);
    expect(entity).toMatchObject({ entity_type: 'project', destination_full_path: 'team/web-copy', namespace_id: null, parent_id: null });
    expect(await count(dest, `/projects/${entity.project_id}/issues`)).toBe(3);
    // Labels of the source's groups come along where its issues use them.
    const labels = (await dest.get(`/projects/${entity.project_id}/labels`)).body.map((l: any) => l.name).sort();
    expect(labels).toEqual(['bug', 'feature', 'frontend']);
    // The project's own milestone comes with it; its group's milestone, which the merge request
    // carries, is made in the project so that the merge request keeps it.
    const milestones = (await dest.get(`/projects/${entity.project_id}/milestones`)).body.map((m: any) => [m.title, m.state]).sort();
    expect(milestones).toEqual([
      ['Release 1', 'active'],
      ['Sprint 1', 'closed'],
    ]);
    const mr = (await dest.get(`/projects/${entity.project_id}/merge_requests/1`)).body;
    expect(mr.milestone).toMatchObject({ title: 'Release 1', project_id: entity.project_id });
  });
});

describe('a dry run', () => {
  it('answers the plan with destination paths, source counts and conflicts, and writes nothing', async () => {
    const dest = await TestService.start();
    cleanup.push(() => dest.stop());
    const target = await dest.createGroup({ path: 'target' });
    await dest.post(`/groups/${target.id}/labels`, { name: 'bug', color: '#000000' });
    await dest.createGroup({ path: 'web', parent_id: target.id });
    const before = (await dest.get('/groups', { query: { all_available: 'true' } })).body.length;

    const res = await dest.post('/bulk_imports', {
      configuration: { url: source.url, access_token: ROOT_TOKEN },
      entities: [{ source_type: 'group_entity', source_full_path: 'acme', destination_namespace: 'target', destination_slug: 'acme' }],
      dry_run: true,
    });
    expect(res.status).toBe(200);
    const plan = res.body;
    expect(plan).toMatchObject({ dry_run: true, source_url: source.url });
    expect(plan.entities.map((e: any) => [e.entity_type, e.source_full_path, e.destination_full_path])).toEqual([
      ['group', 'acme', 'target/acme'],
      ['project', 'acme/web', 'target/acme/web'],
      ['group', 'acme/platform', 'target/acme/platform'],
      ['project', 'acme/platform/api', 'target/acme/platform/api'],
      ['group', 'acme/platform/infra', 'target/acme/platform/infra'],
    ]);
    const web = plan.entities.find((e: any) => e.source_full_path === 'acme/web');
    expect(web.stats).toMatchObject({ issues: { source: 3 }, merge_requests: { source: 2 }, snippets: { source: 1 }, labels: { source: 1 }, uploads: { source: 1 } });
    expect(plan.entities[0].stats).toMatchObject({ members: { source: 3 }, labels: { source: 2 }, epics: { source: 2 }, badges: { source: 1 } });
    const conflicts = plan.conflicts.map((c: any) => [c.type, c.source_full_path, c.username ?? c.label ?? null]);
    expect(conflicts).toEqual(
      expect.arrayContaining([
        ['unmatched_member', 'acme', 'alice'],
        ['unmatched_member', 'acme', 'carol'],
        ['label_exists', 'acme', 'bug'],
      ]),
    );
    expect((await dest.get('/groups', { query: { all_available: 'true' } })).body).toHaveLength(before);
    expect((await dest.get('/bulk_imports')).body).toEqual([]);

    const taken = await dest.post('/bulk_imports', {
      configuration: { url: source.url, access_token: ROOT_TOKEN },
      entities: [{ source_type: 'project_entity', source_full_path: 'acme/web', destination_namespace: 'target', destination_slug: 'web' }],
      dry_run: 'true',
    });
    expect(taken.body.conflicts).toContainEqual(expect.objectContaining({ type: 'path_taken', destination_full_path: 'target/web' }));
    const takenGroup = await dest.post('/bulk_imports', {
      configuration: { url: source.url, access_token: ROOT_TOKEN },
      entities: [{ source_type: 'group_entity', source_full_path: 'acme/platform', destination_namespace: 'target', destination_slug: 'web' }],
      dry_run: true,
    });
    expect(takenGroup.body.conflicts).toContainEqual(
      expect.objectContaining({ type: 'path_taken', destination_full_path: 'target/web', message: "Import failed. 'target/web' already exists. Change the destination and try again." }),
    );
  });
});
