import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, TestService } from '../helpers/service';
import { type SeededSource, seedSource, waitForImport } from '../helpers/migration-source';

/**
 * Direct transfer between two live instances: the source seeded through its API, the
 * destination migrating it through its own `/bulk_imports`, both compared record by record.
 */

let source: TestService;
let dest: TestService;
let seeded: SeededSource;

beforeAll(async () => {
  source = await TestService.start();
  dest = await TestService.start();
  seeded = await seedSource(source);
  // Alice exists here under another username with the same e-mail; Bob under the same username.
  await dest.createUser({ username: 'alice-dest', email: 'alice@example.com', name: 'Alice Here' });
  await dest.createUser({ username: 'bob', email: 'bob@dest.example', name: 'Bob Here' });
}, 60_000);

afterAll(async () => {
  await dest?.stop();
  await source?.stop();
});

const migrate = (entities: Record<string, unknown>[], extra: Record<string, unknown> = {}) =>
  dest.post('/bulk_imports', { configuration: { url: source.url, access_token: ROOT_TOKEN }, entities, ...extra });

/** Every page of a list, as a client following X-Next-Page would read it. */
async function all(svc: TestService, path: string, query: Record<string, string> = {}): Promise<any[]> {
  const out: any[] = [];
  for (let page = 1; ; page++) {
    const res = await svc.get(path, { query: { ...query, per_page: '100', page: String(page) } });
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
    out.push(...res.body);
    if (!res.headers.get('x-next-page')) return out;
  }
}

const pick = (o: any, keys: string[]) => Object.fromEntries(keys.map((k) => [k, o[k]]));
const enc = encodeURIComponent;

describe('a group tree migrated from another instance', () => {
  let imp: any;
  let entities: any[];

  beforeAll(async () => {
    const res = await migrate([{ source_type: 'group_entity', source_full_path: 'acme', destination_namespace: '', destination_slug: 'acme-copy' }]);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'created', source_type: 'gitlab', source_url: source.url, has_failures: false });
    imp = await waitForImport(dest, res.body.id);
    entities = (await dest.get(`/bulk_imports/${imp.id}/entities`, { query: { per_page: '100' } })).body;
  }, 90_000);

  it('finishes with every group and project as an entity', () => {
    expect(imp.status).toBe('finished');
    const paths = entities.map((e: any) => [e.entity_type, e.source_full_path, e.destination_full_path, e.status]);
    expect(paths).toEqual(
      expect.arrayContaining([
        ['group', 'acme', 'acme-copy', 'finished'],
        ['group', 'acme/platform', 'acme-copy/platform', 'finished'],
        ['group', 'acme/platform/infra', 'acme-copy/platform/infra', 'finished'],
        ['project', 'acme/web', 'acme-copy/web', 'finished'],
        ['project', 'acme/platform/api', 'acme-copy/platform/api', 'finished'],
      ]),
    );
    expect(entities).toHaveLength(5);
    const top = entities.find((e: any) => e.source_full_path === 'acme');
    expect(entities.filter((e: any) => e.parent_id === top.id).map((e: any) => e.source_full_path).sort()).toEqual(['acme/platform', 'acme/web']);
  });

  it('copies groups with their names and descriptions', async () => {
    for (const [src, dst] of [
      ['acme', 'acme-copy'],
      ['acme/platform', 'acme-copy/platform'],
      ['acme/platform/infra', 'acme-copy/platform/infra'],
    ]) {
      const a = (await source.get(`/groups/${enc(src)}`)).body;
      const b = (await dest.get(`/groups/${enc(dst)}`)).body;
      expect(pick(b, ['name', 'description', 'visibility'])).toEqual(pick(a, ['name', 'description', 'visibility']));
    }
  });

  it('maps members by e-mail, then username, and reports the one matching nobody', async () => {
    const acme = await all(dest, `/groups/${enc('acme-copy')}/members`);
    expect(acme.map((m: any) => [m.username, m.access_level]).sort()).toEqual([
      ['alice-dest', 30],
      ['root', 50],
    ]);
    const platform = await all(dest, `/groups/${enc('acme-copy/platform')}/members`);
    expect(platform.map((m: any) => [m.username, m.access_level])).toContainEqual(['bob', 40]);
    const top = entities.find((e: any) => e.source_full_path === 'acme');
    expect(top.has_failures).toBe(true);
    const failures = (await dest.get(`/bulk_imports/${imp.id}/entities/${top.id}/failures`)).body;
    expect(failures).toEqual([
      expect.objectContaining({ relation: 'members', exception_class: 'BulkImports::UserMappingError', source_title: 'carol' }),
    ]);
    expect(failures[0].exception_message).toContain("'carol'");
    expect(Object.keys(failures[0]).sort()).toEqual(['correlation_id_value', 'exception_class', 'exception_message', 'relation', 'source_title', 'source_url']);
    expect(failures[0].correlation_id_value).toMatch(/^[0-9a-f]{32}$/);
    expect(imp.has_failures).toBe(true);
  });

  it('copies group labels and badges', async () => {
    for (const [src, dst] of [
      ['acme', 'acme-copy'],
      ['acme/platform', 'acme-copy/platform'],
    ]) {
      const a = await all(source, `/groups/${enc(src)}/labels`, { only_group_labels: 'true', include_ancestor_groups: 'false' });
      const b = await all(dest, `/groups/${enc(dst)}/labels`, { only_group_labels: 'true', include_ancestor_groups: 'false' });
      const shape = (l: any) => pick(l, ['name', 'color', 'description']);
      expect(b.map(shape)).toEqual(a.map(shape));
    }
    const badges = await all(dest, `/groups/${enc('acme-copy')}/badges`);
    expect(badges.map((b: any) => pick(b, ['name', 'link_url', 'image_url', 'kind']))).toEqual([
      { name: 'CI', link_url: 'https://ci.example.com/%{project_path}', image_url: 'https://ci.example.com/badge.svg', kind: 'group' },
    ]);
  });

  it('copies epics with state, labels, author, dates, notes and parents across the tree', async () => {
    const a = await all(source, `/groups/${enc('acme')}/epics`, { include_descendant_groups: 'true' });
    const b = await all(dest, `/groups/${enc('acme-copy')}/epics`, { include_descendant_groups: 'true' });
    const shape = (e: any) => ({ ...pick(e, ['iid', 'title', 'description', 'state', 'labels', 'created_at', 'confidential']), author: e.author.username, parent_iid: e.parent_iid });
    expect(b.map(shape).sort((x: any, y: any) => x.title.localeCompare(y.title))).toEqual(
      a.map(shape).sort((x: any, y: any) => x.title.localeCompare(y.title)),
    );
    for (const e of b) expect(pick(e, ['imported', 'imported_from'])).toEqual({ imported: true, imported_from: 'gitlab' });
    const infraEpic = b.find((e: any) => e.title === 'Infra migration');
    const roadmap = b.find((e: any) => e.title === 'Roadmap 2026');
    expect(infraEpic.parent_id).toBe(roadmap.id);
    expect(infraEpic.group_id).not.toBe(roadmap.group_id);
    const notes = await all(dest, `/groups/${enc('acme-copy')}/epics/${roadmap.id}/notes`);
    expect(notes.map((n: any) => [n.body, n.author.username])).toEqual([['Kick-off notes', 'alice-dest']]);
  });

  it('copies issues with iids, states, labels, confidentiality, authors, created_at and notes', async () => {
    const a = await all(source, `/projects/${enc('acme/web')}/issues`, { scope: 'all' });
    const b = await all(dest, `/projects/${enc('acme-copy/web')}/issues`, { scope: 'all' });
    const shape = (i: any) => ({
      ...pick(i, ['iid', 'title', 'state', 'labels', 'confidential', 'created_at', 'updated_at', 'closed_at']),
      author: i.author.username,
    });
    const authors: Record<string, string> = { root: 'root', [seeded.users.alice.username]: 'alice-dest' };
    expect(b.map(shape)).toEqual(a.map((i: any) => ({ ...shape(i), author: authors[i.author.username] })));
    expect(b.find((i: any) => i.title === 'Login broken').created_at).toBe(seeded.oldIssueCreatedAt);
    for (const i of b) expect(pick(i, ['imported', 'imported_from'])).toEqual({ imported: true, imported_from: 'gitlab' });
    for (const issue of a) {
      const na = await all(source, `/projects/${enc('acme/web')}/issues/${issue.iid}/notes`, { sort: 'asc' });
      const nb = await all(dest, `/projects/${enc('acme-copy/web')}/issues/${issue.iid}/notes`, { sort: 'asc' });
      expect(nb.map((n: any) => [n.created_at, n.author.username, n.imported])).toEqual(na.map((n: any) => [n.created_at, authors[n.author.username], true]));
      expect(nb.map((n: any) => n.body.replace(/\/uploads\/[0-9a-f]{32}\//g, '/uploads/X/'))).toEqual(na.map((n: any) => n.body.replace(/\/uploads\/[0-9a-f]{32}\//g, '/uploads/X/')));
    }
  });

  it('re-uploads files linked from descriptions and notes and rewrites the links', async () => {
    const issue = (await dest.get(`/projects/${enc('acme-copy/web')}/issues/1`)).body;
    const link = /\/uploads\/([0-9a-f]{32})\/notes\.txt/.exec(issue.description);
    expect(link).not.toBeNull();
    expect(issue.description).not.toContain(seeded.upload.url);
    const project = (await dest.get(`/projects/${enc('acme-copy/web')}`)).body;
    const file = await dest.get(`/projects/${project.id}/uploads/${link![1]}/notes.txt`);
    expect(file.status).toBe(200);
    expect(file.text).toBe(seeded.upload.bytes);
    const notes = await all(dest, `/projects/${project.id}/issues/1/notes`);
    expect(notes.some((n: any) => n.body.includes(`/uploads/${link![1]}/notes.txt`))).toBe(true);
    const uploads = await all(dest, `/projects/${project.id}/uploads`);
    expect(uploads).toHaveLength(1);
  });

  it('copies merge requests with states, branches, notes and threads', async () => {
    const a = await all(source, `/projects/${enc('acme/web')}/merge_requests`, { scope: 'all' });
    const b = await all(dest, `/projects/${enc('acme-copy/web')}/merge_requests`, { scope: 'all' });
    const shape = (m: any) => pick(m, ['iid', 'title', 'state', 'source_branch', 'target_branch', 'labels', 'created_at']);
    expect(b.map(shape)).toEqual(a.map(shape));
    expect(b.find((m: any) => m.title === 'Fix login').author.username).toBe('bob');
    const da = (await source.get(`/projects/${enc('acme/web')}/merge_requests/1/discussions`)).body;
    const db = (await dest.get(`/projects/${enc('acme-copy/web')}/merge_requests/1/discussions`)).body;
    const thread = (d: any) => ({ individual_note: d.individual_note, notes: d.notes.map((n: any) => [n.body, n.created_at]) });
    expect(db.map(thread)).toEqual(da.map(thread));
  });

  it('copies group and project milestones, and the milestones issues and merge requests carry', async () => {
    const shape = (m: any) => pick(m, ['iid', 'title', 'description', 'state', 'start_date', 'due_date', 'created_at', 'updated_at']);
    for (const [src, dst] of [
      [`/groups/${enc('acme')}/milestones`, `/groups/${enc('acme-copy')}/milestones`],
      [`/projects/${enc('acme/web')}/milestones`, `/projects/${enc('acme-copy/web')}/milestones`],
    ]) {
      const a = await all(source, src);
      expect(a.length).toBeGreaterThan(0);
      expect((await all(dest, dst)).map(shape)).toEqual(a.map(shape));
    }
    const sprint = (await all(dest, `/projects/${enc('acme-copy/web')}/milestones`)).find((m: any) => m.title === 'Sprint 1');
    expect(pick(sprint, ['state', 'start_date', 'due_date'])).toEqual({ state: 'closed', start_date: '2026-01-05', due_date: '2026-01-16' });
    const issue = (await dest.get(`/projects/${enc('acme-copy/web')}/issues/1`)).body;
    expect(issue.milestone).toMatchObject({ id: sprint.id, title: 'Sprint 1' });
    const release = (await all(dest, `/groups/${enc('acme-copy')}/milestones`)).find((m: any) => m.title === 'Release 1');
    const mr = (await dest.get(`/projects/${enc('acme-copy/web')}/merge_requests/1`)).body;
    expect(mr.milestone).toMatchObject({ id: release.id, title: 'Release 1', group_id: release.group_id });
    const carried = await all(dest, `/projects/${enc('acme-copy/web')}/issues`, { milestone: 'Sprint 1', scope: 'all' });
    expect(carried.map((i: any) => i.title)).toEqual(['Login broken']);
  });

  it("fetches each project's git repository: every branch and tag at the same commit, HEAD and README", async () => {
    const refs = async (svc: TestService, path: string) => ({
      branches: (await all(svc, `/projects/${enc(path)}/repository/branches`)).map((b: any) => [b.name, b.commit.id, b.default]),
      tags: (await all(svc, `/projects/${enc(path)}/repository/tags`)).map((t: any) => [t.name, t.target, t.message]),
    });
    const a = await refs(source, 'acme/web');
    expect(a.branches.map((b) => b[0]).sort()).toEqual(['fix-login', 'main']);
    expect(await refs(dest, 'acme-copy/web')).toEqual(a);
    const file = await dest.get(`/projects/${enc('acme-copy/web')}/repository/files/${enc('src/login.js')}/raw`, { query: { ref: 'fix-login' } });
    expect(file.status).toBe(200);
    expect(file.text).toBe('export const login = () => true;\n');
    const project = (await dest.get(`/projects/${enc('acme-copy/web')}`)).body;
    expect(pick(project, ['empty_repo', 'default_branch'])).toEqual({ empty_repo: false, default_branch: 'main' });
    expect(project.readme_url).toMatch(/\/acme-copy\/web\/-\/blob\/main\/README\.md$/);
    // A project whose source repository is empty stays empty, without a failure.
    const api = entities.find((e: any) => e.source_full_path === 'acme/platform/api');
    expect(api.failures).toEqual([]);
    expect((await dest.get(`/projects/${api.project_id}`)).body.empty_repo).toBe(true);
  });

  it('copies snippets with every file, badges and feature flags with their user lists', async () => {
    const project = (await dest.get(`/projects/${enc('acme-copy/web')}`)).body;
    const snippets = await all(dest, `/projects/${project.id}/snippets`);
    expect(snippets).toHaveLength(1);
    expect(pick(snippets[0], ['title', 'visibility', 'imported', 'imported_from'])).toEqual({ title: 'Setup scripts', visibility: 'internal', imported: true, imported_from: 'gitlab' });
    expect(snippets[0].files.map((f: any) => f.path).sort()).toEqual(['docs/README.md', 'setup.sh']);
    const raw = await dest.get(`/projects/${project.id}/snippets/${snippets[0].id}/files/main/${enc('docs/README.md')}/raw`);
    expect(raw.text).toBe('# How to set up\n');

    const badges = await all(dest, `/projects/${project.id}/badges`);
    expect(badges.filter((b: any) => b.kind === 'project').map((b: any) => b.link_url)).toEqual(['https://docs.example.com']);

    const flags = await all(dest, `/projects/${project.id}/feature_flags`);
    expect(flags).toHaveLength(1);
    expect(pick(flags[0], ['name', 'description', 'active'])).toEqual({ name: 'new_checkout', description: 'The new checkout', active: true });
    const list = flags[0].strategies.find((s: any) => s.name === 'gitlabUserList').user_list;
    expect(pick(list, ['name', 'user_xids'])).toEqual({ name: 'beta testers', user_xids: 'u1,u2' });
    expect(flags[0].strategies.map((s: any) => s.scopes.map((sc: any) => sc.environment_scope))).toEqual([['production'], ['staging']]);
  });

  it('records stats per relation and marks the project imported', async () => {
    const web = entities.find((e: any) => e.source_full_path === 'acme/web');
    expect(web.stats).toMatchObject({
      issues: { source: 3, fetched: 3, imported: 3 },
      merge_requests: { source: 2, fetched: 2, imported: 2 },
      snippets: { source: 1, fetched: 1, imported: 1 },
      labels: { source: 1, fetched: 1, imported: 1 },
      milestones: { source: 1, fetched: 1, imported: 1 },
      feature_flags: { source: 1, fetched: 1, imported: 1 },
      uploads: { source: 1, fetched: 1, imported: 1 },
    });
    expect(web.stats.notes.imported).toBeGreaterThanOrEqual(5);
    expect(web.has_failures).toBe(false);
    const project = (await dest.get(`/projects/${enc('acme-copy/web')}`)).body;
    expect(pick(project, ['import_type', 'import_status', 'description', 'visibility'])).toEqual({
      import_type: 'gitlab_project_migration',
      import_status: 'finished',
      description: 'The web app',
      visibility: 'internal',
    });
  });
});

describe('POST /bulk_imports refuses what it cannot migrate', () => {
  const entity = { source_type: 'group_entity', source_full_path: 'acme', destination_namespace: '', destination_slug: 'elsewhere' };

  it("answers Grape's 400s for missing and malformed parameters", async () => {
    expect((await dest.post('/bulk_imports', {})).body).toEqual({
      error: 'configuration is missing, configuration[url] is missing, configuration[access_token] is missing, entities is missing',
    });
    const bad = await migrate([{ source_type: 'user_entity', source_full_path: 'http://example.com/acme', destination_namespace: 'a?b', destination_slug: '-x' }]);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toBe(
      'entities[0][source_type] does not have a valid value, ' +
        "entities[0][source_full_path] must be a relative path and not include protocol, sub-domain, or domain information. For example, 'source/full/path' not 'https://example.com/source/full/path', " +
        "entities[0][destination_namespace] must be a relative path and not include protocol, sub-domain, or domain information. For example, 'destination/full/path' not 'https://example.com/destination/full/path', " +
        "entities[0][destination_slug] can only include non-accented letters, digits, '_', '-' and '.'. It must not start with '-', '_', or '.', nor end with '-', '_', '.', '.git', or '.atom'. For example, 'destination_namespace' not 'destination/namespace'",
    );
    const both = await migrate([{ ...entity, destination_name: 'also' }]);
    expect(both.body).toEqual({ error: 'entities[0][destination_slug], entities[0][destination_name] are mutually exclusive' });
    const neither = await migrate([{ source_type: 'group_entity', source_full_path: 'acme', destination_namespace: '' }]);
    expect(neither.body).toEqual({ error: 'entities[0][destination_slug], entities[0][destination_name] are missing, at least one parameter must be provided' });
  });

  it('checks the source first: a bad token, an unknown path, a URL that is not GitLab, an unreachable host (422)', async () => {
    const as = (url: string, access_token: string, entities = [entity]) => dest.post('/bulk_imports', { configuration: { url, access_token }, entities });
    expect(await as(source.url, 'glpat-not-a-token').then((r) => [r.status, r.body])).toEqual([
      422,
      { message: 'Check that the source instance base URL and the personal access token meet the necessary requirements.' },
    ]);
    const missing = await as(source.url, ROOT_TOKEN, [{ ...entity, source_full_path: 'no/such/group' }]);
    expect([missing.status, missing.body]).toEqual([422, { message: "Import failed. 'no/such/group' not found." }]);
    const notGitlab = await as(`${source.url}/not-gitlab`, ROOT_TOKEN);
    expect([notGitlab.status, notGitlab.body]).toEqual([422, { message: 'Invalid source URL. Enter only the base URL of the source GitLab instance.' }]);
    const unreachable = await as('http://127.0.0.1:9', ROOT_TOKEN);
    expect(unreachable.status).toBe(422);
    expect(unreachable.body.message).toMatch(/^Failed to connect to http:\/\/127\.0\.0\.1:9\/api\/v4\/version/);
  });

  it("refuses a token that cannot export the group (not its Owner)", async () => {
    const res = await dest.post('/bulk_imports', { configuration: { url: source.url, access_token: seeded.tokens.alice }, entities: [entity] });
    expect([res.status, res.body]).toEqual([422, { message: "Import failed. You don't have permission to export 'acme'." }]);
  });

  it('then the destination: a namespace the user cannot create in, a path that is taken', async () => {
    const nsMissing = await migrate([{ ...entity, destination_namespace: 'nowhere' }]);
    expect([nsMissing.status, nsMissing.body]).toEqual([422, { message: "Import failed. Destination 'nowhere' is invalid, or you don't have permission." }]);
    const { token } = await dest.createUser();
    const group = await dest.createGroup();
    const notMine = await dest.post('/bulk_imports', {
      configuration: { url: source.url, access_token: ROOT_TOKEN },
      entities: [{ ...entity, destination_namespace: group.full_path }],
    }, { token });
    expect(notMine.body).toEqual({ message: `Import failed. Destination '${group.full_path}' is invalid, or you don't have permission.` });
    const taken = await migrate([{ ...entity, destination_namespace: '', destination_slug: group.path }]);
    expect([taken.status, taken.body]).toEqual([422, { message: `Import failed. '${group.path}' already exists. Change the destination and try again.` }]);
  });

  it('answers 404 while bulk_import_enabled is off, 401 without a token', async () => {
    expect((await dest.get('/bulk_imports', { token: null })).status).toBe(401);
    await dest.put('/application/settings', { bulk_import_enabled: false });
    try {
      for (const res of [await dest.get('/bulk_imports'), await migrate([entity]), await dest.post('/bulk_imports/1/cancel')]) {
        expect([res.status, res.body]).toEqual([404, { message: '404 Not Found' }]);
      }
    } finally {
      await dest.put('/application/settings', { bulk_import_enabled: true });
    }
  });
});

describe('reading and canceling migrations', () => {
  it("lists only the caller's own migrations and entities, filtered and sorted", async () => {
    const mine = (await dest.get('/bulk_imports')).body;
    expect(mine.length).toBeGreaterThan(0);
    expect((await dest.get('/bulk_imports', { query: { sort: 'asc' } })).body.map((b: any) => b.id)).toEqual(mine.map((b: any) => b.id).reverse());
    expect((await dest.get('/bulk_imports', { query: { status: 'finished' } })).body.every((b: any) => b.status === 'finished')).toBe(true);
    expect((await dest.get('/bulk_imports', { query: { status: 'bogus' } })).body).toEqual({ error: 'status does not have a valid value' });
    expect((await dest.get('/bulk_imports/entities')).body.length).toBeGreaterThanOrEqual(5);
    const { token } = await dest.createUser();
    expect((await dest.get('/bulk_imports', { token })).body).toEqual([]);
    expect((await dest.get('/bulk_imports/entities', { token })).body).toEqual([]);
    expect([(await dest.get(`/bulk_imports/${mine[0].id}`, { token })).status]).toEqual([404]);
    expect((await dest.get('/bulk_imports/999999')).body).toEqual({ message: '404 Not found' });
    expect((await dest.get('/bulk_imports/abc')).body).toEqual({ error: 'import_id is invalid' });
    expect((await dest.get(`/bulk_imports/${mine[0].id}/entities/999999`)).body).toEqual({ message: '404 Not found' });
  });

  it('cancels: 404 for an unknown migration, 403 for someone else\'s, 200 canceled for the owner', async () => {
    const mine = (await dest.get('/bulk_imports')).body[0];
    expect((await dest.post('/bulk_imports/999999/cancel')).body).toEqual({ message: '404 Not Found' });
    const { token } = await dest.createUser();
    expect([(await dest.post(`/bulk_imports/${mine.id}/cancel`, undefined, { token })).status]).toEqual([403]);
    const res = await dest.post(`/bulk_imports/${mine.id}/cancel`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: mine.id, status: 'canceled' });
    expect((await dest.get(`/bulk_imports/${mine.id}`)).body.status).toBe('canceled');
  });
});
