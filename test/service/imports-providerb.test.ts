import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { waitForImport } from '../helpers/imports';
import { ProviderBServerStandIn } from '../helpers/stand-ins/providerb_server';
import { ProviderBCloudStandIn } from '../helpers/stand-ins/providerb_cloud';

// Provider B server (Bitbucket Server) and provider B cloud (Bitbucket Cloud) imports against stand-ins.
let s: TestService;
let bbs: ProviderBServerStandIn;
let bbc: ProviderBCloudStandIn;
let gina: { user: any; token: string };
let group: any;

const day = (d: number) => Date.UTC(2024, 2, d, 12);
const FROM = '1'.repeat(40);
const TO = '2'.repeat(40);

beforeAll(async () => {
  bbs = await new ProviderBServerStandIn().start();
  bbc = await new ProviderBCloudStandIn().start();
  process.env.SANDLAB_PROVIDERB_CLOUD_URL = bbc.url;
  s = await TestService.start();
  gina = await s.createUser({ username: 'gina', email: 'gina@example.com' });
  group = await s.createGroup({ path: 'bitbucket-imports' });
  await s.addMember('groups', group.id, gina.user.id, 50);

  bbs.addUser({ name: 'gina', emailAddress: 'gina@example.com', displayName: 'Gina' }, 'bbs-token');
  bbs.addUser({ name: 'hank', emailAddress: 'hank@upstream.example', displayName: 'Hank' });
  bbs.addProject({ key: 'PRJ', name: 'Platform', description: 'The platform team', public: false });
  bbs.addProject({ key: 'OPEN', name: 'Open Source', public: true });
  bbs.addRepo({
    projectKey: 'PRJ',
    slug: 'api',
    name: 'api',
    pulls: [
      {
        id: 1,
        title: 'Add endpoint',
        description: 'Adds /ping',
        state: 'MERGED',
        author: 'gina',
        mergedBy: 'hank',
        from: { branch: 'feature/ping', commit: FROM },
        to: { branch: 'main', commit: TO },
        createdDate: day(1),
        closedDate: day(3),
        comments: [
          { id: 11, text: 'Looks good', author: 'hank', createdDate: day(2), replies: [{ id: 12, text: 'Thanks!', author: 'gina', createdDate: day(2) + 1000 }] },
          { id: 13, text: 'Typo here', author: 'hank', createdDate: day(2) + 5000, anchor: { path: 'src/ping.ts', line: 7, lineType: 'ADDED' } },
        ],
      },
      { id: 2, title: 'Drop legacy', state: 'DECLINED', author: 'hank', from: { branch: 'drop', commit: FROM }, to: { branch: 'main', commit: TO }, createdDate: day(4), closedDate: day(5) },
      { id: 3, title: 'Still open', state: 'OPEN', author: 'gina', from: { branch: 'wip', commit: FROM }, to: { branch: 'develop', commit: TO }, createdDate: day(6) },
    ],
  });
  bbs.addRepo({ projectKey: 'OPEN', slug: 'lib', name: 'lib' });

  bbc.addUser({ username: 'gina-bb', display_name: 'Gina B' }, 'app-pass');
  bbc.addUser({ username: 'ivan', display_name: 'Ivan' });
  bbc.addRepo({
    workspace: 'acme',
    slug: 'site',
    name: 'site',
    description: 'The website',
    is_private: true,
    milestones: ['v1'],
    issues: [
      {
        id: 1,
        title: 'Broken link',
        content: 'The about page 404s',
        state: 'resolved',
        kind: 'bug',
        reporter: 'ivan',
        created_on: '2024-03-01T00:00:00.000000+00:00',
        comments: [
          { id: 31, content: 'Fixed', user: 'gina-bb', created_on: '2024-03-02T00:00:00.000000+00:00' },
          { id: 32, content: '', user: 'gina-bb', created_on: '2024-03-02T00:00:01.000000+00:00' },
        ],
      },
      { id: 2, title: 'Dark mode', state: 'new', kind: 'enhancement', reporter: 'gina-bb', created_on: '2024-03-03T00:00:00.000000+00:00' },
    ],
    pulls: [
      {
        id: 1,
        title: 'Fix link',
        state: 'MERGED',
        author: 'gina-bb',
        closed_by: 'ivan',
        source: { branch: 'fix-link', commit: 'abc123def456' },
        destination: { branch: 'main', commit: '0123456789ab' },
        created_on: '2024-03-01T10:00:00.000000+00:00',
        updated_on: '2024-03-02T10:00:00.000000+00:00',
        comments: [
          { id: 41, content: 'Inline remark', user: 'ivan', created_on: '2024-03-01T11:00:00.000000+00:00', inline: { path: 'about.html', to: 3 } },
          { id: 42, content: 'Agreed', user: 'gina-bb', created_on: '2024-03-01T12:00:00.000000+00:00', parent: 41 },
          { id: 43, content: 'gone', user: 'ivan', created_on: '2024-03-01T13:00:00.000000+00:00', deleted: true },
        ],
      },
      { id: 2, title: 'Superseded', state: 'SUPERSEDED', author: 'ivan', source: { branch: 'old', commit: 'aaaaaaaaaaaa' }, destination: { branch: 'main', commit: 'bbbbbbbbbbbb' }, created_on: '2024-03-04T00:00:00.000000+00:00' },
    ],
  });
  bbc.addRepo({ workspace: 'acme', slug: 'no-tracker', name: 'no-tracker', has_issues: false });
});
afterAll(async () => {
  await s.stop();
  await bbs.stop();
  await bbc.stop();
});

const serverImport = (body: Record<string, unknown>, path = '/import/bitbucket_server') =>
  s.post(
    path,
    {
      bitbucket_server_url: bbs.url,
      bitbucket_server_username: 'gina',
      personal_access_token: 'bbs-token',
      bitbucket_server_project: 'PRJ',
      bitbucket_server_repo: 'api',
      ...body,
    },
    { token: gina.token },
  );

describe('POST /import/bitbucket_server', () => {
  let projectId: number;

  it('answers 201 with the import result in the caller namespace by default', async () => {
    const res = await serverImport({});
    expect(res.status).toBe(201);
    projectId = res.body.id;
    expect(res.body).toMatchObject({ name: 'api', full_path: '/gina/api', import_source: 'Platform/api', import_status: 'scheduled', provider_link: '/Platform/api' });
    expect(bbs.requests[0].headers.authorization).toBe(`Basic ${Buffer.from('gina:bbs-token').toString('base64')}`);
  });

  it('imports pull requests as merge requests with their comments, threads and diff notes', async () => {
    expect((await waitForImport(s, projectId)).import_status).toBe('finished');
    const project = (await s.get(`/projects/${projectId}`, { token: gina.token })).body;
    expect(project).toMatchObject({ import_type: 'bitbucket_server', visibility: 'private', description: 'The platform team' });
    const mrs = (await s.get(`/projects/${projectId}/merge_requests`, { token: gina.token, query: { sort: 'asc' } })).body;
    expect(mrs.map((m: any) => [m.iid, m.state, m.source_branch, m.target_branch, m.imported_from])).toEqual([
      [1, 'merged', 'feature/ping', 'main', 'bitbucket_server'],
      [2, 'closed', 'drop', 'main', 'bitbucket_server'],
      [3, 'opened', 'wip', 'develop', 'bitbucket_server'],
    ]);
    expect(mrs[0].author.username).toBe('gina');
    expect(mrs[0].merged_by.name).toBe('Import User');
    expect(mrs[0].merged_at).toBe(new Date(day(3)).toISOString());
    expect(mrs[1].description).toBe('*Created by: Hank*\n\n');
    const discussions = (await s.get(`/projects/${projectId}/merge_requests/1/discussions`, { token: gina.token })).body;
    expect(discussions.map((d: any) => d.notes.map((n: any) => [n.type, n.body]))).toEqual([
      [
        ['DiscussionNote', '*Created by: Hank*\n\nLooks good'],
        ['DiscussionNote', 'Thanks!'],
      ],
      [['DiffNote', '*Created by: Hank*\n\nTypo here']],
    ]);
    expect(discussions[1].notes[0].position).toMatchObject({ new_path: 'src/ping.ts', new_line: 7, old_line: null, base_sha: TO, head_sha: FROM });
  });

  it('reads pull requests with start/limit paging until isLastPage', async () => {
    expect(bbs.requestsTo(/\/pull-requests$/).every((r) => r.query.get('state') === 'ALL')).toBe(true);
  });

  it('imports into target_namespace (python-gitlab) or new_namespace (GitLab), under the reference names too', async () => {
    const viaTarget = await serverImport({ target_namespace: group.full_path, new_name: 'api-target' });
    expect(viaTarget.status).toBe(201);
    expect(viaTarget.body.full_path).toBe(`/${group.full_path}/api-target`);
    const viaNew = await serverImport({ new_namespace: group.full_path, new_name: 'api-new' });
    expect(viaNew.body.full_path).toBe(`/${group.full_path}/api-new`);
    const neutral = await s.post(
      '/import/providerb_server',
      {
        providerb_server_url: bbs.url,
        providerb_server_username: 'gina',
        personal_access_token: 'bbs-token',
        providerb_server_project: 'OPEN',
        providerb_server_repo: 'lib',
        target_namespace: group.full_path,
      },
      { token: gina.token },
    );
    expect(neutral.status).toBe(201);
    expect(neutral.body).toMatchObject({ name: 'lib', import_source: 'Open Source/lib' });
    expect((await waitForImport(s, neutral.body.id)).import_status).toBe('finished');
    expect((await s.get(`/projects/${neutral.body.id}`, { token: gina.token })).body.visibility).toBe('private');
  });

  it('answers with GitLab errors: missing parameters under the family asked, bad key and slug, unknown repository, refused credentials, no rights', async () => {
    expect((await s.post('/import/providerb_server', {}, { token: gina.token })).body).toEqual({
      error:
        'providerb_server_url is missing, providerb_server_username is missing, personal_access_token is missing, providerb_server_project is missing, providerb_server_repo is missing',
    });
    expect((await s.post('/import/bitbucket_server', { personal_access_token: 'x' }, { token: gina.token })).body.error).toMatch(/^bitbucket_server_url is missing/);
    expect(await serverImport({ bitbucket_server_project: 'bad/key' }).then((r) => [r.status, r.body])).toEqual([422, { message: { error: 'Missing or invalid project key' } }]);
    expect(await serverImport({ bitbucket_server_repo: 'a/b' }).then((r) => [r.status, r.body])).toEqual([422, { message: { error: 'Missing or invalid repository slug' } }]);
    expect(await serverImport({ bitbucket_server_repo: 'nope' }).then((r) => [r.status, r.body])).toEqual([422, { message: { error: 'Project PRJ/nope could not be found' } }]);
    expect(await serverImport({ personal_access_token: 'wrong' }).then((r) => [r.status, r.body])).toEqual([400, { message: { error: 'Import failed due to a BitBucket Server error' } }]);
    expect(await serverImport({ bitbucket_server_url: 'not a url' }).then((r) => [r.status, r.body])).toEqual([400, { message: { error: 'Invalid URL: not a url' } }]);
    const other = await s.createGroup({ path: 'not-ginas' });
    expect(await serverImport({ target_namespace: other.full_path }).then((r) => [r.status, r.body])).toEqual([
      401,
      { message: { error: "You don't have permissions to import this project" } },
    ]);
    expect((await serverImport({})).body).toEqual({ message: { error: 'Name has already been taken, Path has already been taken' } });
  });

  it('answers 403 when the Bitbucket Server import source is disabled', async () => {
    await s.put('/application/settings', { import_sources: ['github', 'gitlab_project'] });
    try {
      expect(await serverImport({ new_name: 'off' }).then((r) => [r.status, r.body])).toEqual([403, { message: { error: ['bitbucket_server import source is disabled'] } }]);
    } finally {
      await s.put('/application/settings', { import_sources: ['github', 'bitbucket', 'bitbucket_server', 'gitlab_project'] });
    }
  });
});

const cloudImport = (body: Record<string, unknown>, path = '/import/bitbucket') =>
  s.post(path, { bitbucket_username: 'gina-bb', bitbucket_app_password: 'app-pass', repo_path: 'acme/site', target_namespace: group.full_path, ...body }, { token: gina.token });

describe('POST /import/bitbucket', () => {
  let projectId: number;

  it('answers 201 and imports issues (labelled by kind), comments, pull requests and their comments', async () => {
    const res = await cloudImport({});
    expect(res.status).toBe(201);
    projectId = res.body.id;
    expect(res.body).toMatchObject({ name: 'site', full_path: `/${group.full_path}/site`, import_source: 'acme/site', provider_link: '/acme/site' });
    expect((await waitForImport(s, projectId)).import_status).toBe('finished');

    const issues = (await s.get(`/projects/${projectId}/issues`, { token: gina.token, query: { sort: 'asc' } })).body;
    expect(issues.map((i: any) => [i.iid, i.title, i.state, i.labels, i.imported_from])).toEqual([
      [1, 'Broken link', 'closed', ['bug'], 'bitbucket'],
      [2, 'Dark mode', 'opened', ['enhancement'], 'bitbucket'],
    ]);
    expect(issues[0].description).toBe('*Created by: ivan*\n\nThe about page 404s');
    const notes = (await s.get(`/projects/${projectId}/issues/1/notes`, { token: gina.token })).body;
    expect(notes.map((n: any) => n.body)).toEqual(['*Created by: gina-bb*\n\nFixed']);

    const labels = (await s.get(`/projects/${projectId}/labels`, { token: gina.token })).body;
    expect(labels.map((l: any) => [l.name, l.color])).toEqual([
      ['bug', '#FF0000'],
      ['enhancement', '#428BCA'],
    ]);

    const mrs = (await s.get(`/projects/${projectId}/merge_requests`, { token: gina.token, query: { sort: 'asc' } })).body;
    expect(mrs.map((m: any) => [m.iid, m.state, m.source_branch, m.target_branch])).toEqual([
      [1, 'merged', 'fix-link', 'main'],
      [2, 'closed', 'old', 'main'],
    ]);
    const discussions = (await s.get(`/projects/${projectId}/merge_requests/1/discussions`, { token: gina.token })).body;
    expect(discussions.map((d: any) => d.notes.map((n: any) => [n.type, n.body]))).toEqual([
      [
        ['DiffNote', '*Created by: ivan*\n\nInline remark'],
        ['DiffNote', '*Created by: gina-bb*\n\nAgreed'],
      ],
    ]);
    expect(discussions[0].notes[0].position).toMatchObject({ new_path: 'about.html', new_line: 3 });
    expect(bbc.requests.every((r) => r.headers.authorization === `Basic ${Buffer.from('gina-bb:app-pass').toString('base64')}`)).toBe(true);
  });

  it('skips the issue stages for a repository without an issue tracker', async () => {
    const res = await s.post(
      '/import/providerb',
      { providerb_username: 'gina-bb', providerb_app_password: 'app-pass', repo_path: 'acme/no-tracker', target_namespace: group.full_path },
      { token: gina.token },
    );
    expect(res.status).toBe(201);
    expect((await waitForImport(s, res.body.id)).import_status).toBe('finished');
    expect(bbc.requestsTo(/no-tracker\/issues/)).toHaveLength(0);
  });

  it('answers with GitLab errors: missing parameters, refused credentials, unknown repository, no rights', async () => {
    expect((await s.post('/import/bitbucket', {}, { token: gina.token })).body).toEqual({
      error: 'bitbucket_username is missing, bitbucket_app_password is missing, repo_path is missing, target_namespace is missing',
    });
    expect((await s.post('/import/providerb', {}, { token: gina.token })).body.error).toMatch(/^providerb_username is missing, providerb_app_password is missing/);
    expect(await cloudImport({ bitbucket_app_password: 'wrong', new_name: 'x' }).then((r) => [r.status, r.body])).toEqual([
      401,
      { message: { error: 'Unable to authorize with Bitbucket. Check your credentials' } },
    ]);
    expect(await cloudImport({ repo_path: 'acme/nothing' }).then((r) => [r.status, r.body])).toEqual([422, { message: { error: 'Project acme/nothing could not be found' } }]);
    const other = await s.createGroup({ path: 'not-ginas-either' });
    expect(await cloudImport({ target_namespace: other.full_path }).then((r) => [r.status, r.body])).toEqual([
      401,
      { message: { error: "You don't have permissions to import this project" } },
    ]);
  });

  it('answers 429 when Bitbucket rate-limits the start', async () => {
    bbc.rateLimited = { retryAfter: 3600, times: 1 };
    const res = await cloudImport({ new_name: 'limited' });
    bbc.rateLimited = null;
    expect(res.status).toBe(429);
  });
});

describe('Sandlab-only repository listings', () => {
  it('lists the repositories the credentials reach, with what imports each', async () => {
    const server = await s.post(
      '/sandlab/import/bitbucket_server/repositories',
      { bitbucket_server_url: bbs.url, bitbucket_server_username: 'gina', personal_access_token: 'bbs-token', per_page: 1 },
      { token: gina.token },
    );
    expect(server.status).toBe(200);
    expect(server.body).toEqual([
      { name: 'api', full_name: 'PRJ/api', description: 'The platform team', private: true, web_url: `${bbs.url}/projects/PRJ/repos/api/browse`, import_params: { bitbucket_server_project: 'PRJ', bitbucket_server_repo: 'api' } },
    ]);
    expect(server.headers.get('x-next-page')).toBe('2');
    const cloud = await s.post('/sandlab/import/providerb/repositories', { providerb_username: 'gina-bb', providerb_app_password: 'app-pass' }, { token: gina.token });
    expect(cloud.body.map((r: any) => r.import_params)).toEqual([{ repo_path: 'acme/site' }, { repo_path: 'acme/no-tracker' }]);
    expect(cloud.headers.get('x-next-page')).toBe('');
    const refused = await s.post('/sandlab/import/bitbucket/repositories', { bitbucket_username: 'gina-bb', bitbucket_app_password: 'no' }, { token: gina.token });
    expect(refused.status).toBe(401);
  });

});
