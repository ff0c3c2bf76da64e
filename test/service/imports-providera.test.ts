import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { waitForImport } from '../helpers/imports';
import { ProviderAStandIn, type ARepo } from '../helpers/stand-ins/providera';

// Provider A (GitHub) imports against a stand-in of its REST API v3 on 127.0.0.1.
let s: TestService;
let gh: ProviderAStandIn;
let alice: { user: any; token: string };
let group: any;

const SHA_BASE = 'b'.repeat(40);
const SHA_HEAD = 'a'.repeat(40);
const T = (d: number) => `2024-02-0${d}T10:00:00Z`;

function widgets(id: number, name: string): ARepo {
  return {
    id,
    owner: 'octo',
    name,
    description: 'Widgets for everyone',
    labels: [
      { name: 'bug', color: 'd73a4a', description: 'Something is broken' },
      { name: 'feature', color: '0e8a16' },
      { name: 'docs', color: '0075ca' },
    ],
    issues: [
      { number: 1, title: 'Crash on start', body: 'It crashes.', state: 'closed', user: 'alice', labels: ['bug'], created_at: T(1), updated_at: T(3), closed_at: T(3) },
      { number: 3, title: 'Add a dark theme', body: 'Please.', user: 'bob', labels: ['feature', 'docs'], assignees: ['alice', 'bob'], created_at: T(2), updated_at: T(2) },
      { number: 6, title: 'No body', body: null, user: 'carol', created_at: T(5), updated_at: T(5) },
    ],
    pulls: [
      {
        number: 2,
        title: 'Fix the crash',
        body: 'Fixes #1',
        state: 'closed',
        user: 'alice',
        labels: ['bug'],
        head: { ref: 'fix-crash', sha: SHA_HEAD },
        base: { ref: 'main', sha: SHA_BASE },
        merged_at: T(3),
        merged_by: 'bob',
        created_at: T(2),
        updated_at: T(3),
        closed_at: T(3),
      },
      { number: 4, title: 'Dark theme', body: 'WIP', user: 'bob', draft: true, head: { ref: 'dark', sha: SHA_HEAD }, base: { ref: 'main', sha: SHA_BASE }, created_at: T(4), updated_at: T(4) },
      { number: 5, title: 'Rejected idea', user: 'alice', state: 'closed', head: { ref: 'idea', sha: SHA_HEAD }, base: { ref: 'main', sha: SHA_BASE }, created_at: T(4), updated_at: T(5), closed_at: T(5) },
    ],
    comments: [
      { id: 101, number: 1, user: 'bob', body: 'Seen it too.', created_at: T(2), updated_at: T(2) },
      { id: 102, number: 2, user: 'alice', body: 'Ready for review.', created_at: T(2), updated_at: T(2) },
      { id: 103, number: 1, user: 'alice', body: 'Fixed by !2', created_at: T(3), updated_at: T(3) },
    ],
    reviewComments: [
      { id: 201, pull: 2, user: 'bob', body: 'Why this line?', path: 'src/app.ts', line: 12, side: 'RIGHT', commit_id: SHA_HEAD, created_at: T(2), updated_at: T(2) },
      { id: 202, pull: 2, user: 'alice', body: 'Because.', path: 'src/app.ts', line: 12, side: 'RIGHT', commit_id: SHA_HEAD, in_reply_to_id: 201, created_at: T(3), updated_at: T(3) },
      { id: 203, pull: 2, user: 'bob', body: 'Removed line', path: 'src/old.ts', line: 4, side: 'LEFT', commit_id: SHA_HEAD, created_at: T(3), updated_at: T(3) },
    ],
    collaborators: [{ login: 'alice', permission: 'maintain' }],
  };
}

beforeAll(async () => {
  gh = await new ProviderAStandIn().start();
  process.env.SANDLAB_PROVIDERA_URL = gh.url;
  s = await TestService.start();
  alice = await s.createUser({ username: 'alice', email: 'alice@example.com' });
  group = await s.createGroup({ path: 'imports' });
  await s.addMember('groups', group.id, alice.user.id, 40);
  gh.addUser({ login: 'alice', email: 'alice@example.com' }, 'gh-alice');
  gh.addUser({ login: 'bob', email: 'bob@upstream.example' }, 'gh-bob');
  gh.addUser({ login: 'carol', email: null });
  gh.addUser({ login: 'octo', email: null });
  gh.addRepo(widgets(4242, 'widgets'));
});
afterAll(async () => {
  await s.stop();
  await gh.stop();
});

const start = (body: Record<string, unknown>, token = alice.token) =>
  s.post('/import/github', { personal_access_token: 'gh-alice', repo_id: 4242, target_namespace: group.full_path, ...body }, { token });

describe('POST /import/github', () => {
  let projectId: number;

  it('answers 201 with the import result, import_status scheduled', async () => {
    const res = await start({ pagination_limit: 2, optional_stages: { collaborators_import: true } });
    expect(res.status).toBe(201);
    projectId = res.body.id;
    expect(res.body).toEqual({
      id: projectId,
      name: 'widgets',
      full_path: `/${group.full_path}/widgets`,
      full_name: `${group.name} / widgets`,
      refs_url: `/${group.full_path}/widgets/refs`,
      import_source: 'octo/widgets',
      import_status: 'scheduled',
      human_import_status_name: 'scheduled',
      provider_link: '/octo/widgets',
      relation_type: null,
      import_warning: null,
    });
  });

  it('imports the repository and reports it finished', async () => {
    const status = await waitForImport(s, projectId);
    expect(status).toMatchObject({ import_status: 'finished', import_type: 'github', import_error: null, failed_relations: [], import_source: 'octo/widgets' });
    expect(status.stats).toEqual({
      fetched: { label: 3, pull_request: 3, collaborator: 1, pull_request_merged_by: 1, issue: 3, diff_note: 3, note: 3 },
      imported: { label: 3, pull_request: 3, collaborator: 1, pull_request_merged_by: 1, issue: 3, diff_note: 3, note: 3 },
    });
    const project = await s.get(`/projects/${projectId}`);
    expect(project.body).toMatchObject({ import_status: 'finished', import_type: 'github', import_error: null, description: 'Widgets for everyone', visibility: 'private' });
  });

  it('reads every list a page of pagination_limit at a time, following the Link header', async () => {
    const labelPages = gh.requestsTo(/^\/repos\/octo\/widgets\/labels$/);
    expect(labelPages.map((r) => [r.query.get('per_page'), r.query.get('page')])).toEqual([
      ['2', null],
      ['2', '2'],
    ]);
    expect(gh.requestsTo(/^\/repos\/octo\/widgets\/issues$/).every((r) => r.query.get('state') === 'all')).toBe(true);
    // API requests carry the token as Bearer (git's, to the clone URL, as Basic: imports-repository.test.ts).
    expect(gh.requests.every((r) => r.path.startsWith('/raw') || r.path.includes('.git/') || r.headers.authorization === 'Bearer gh-alice')).toBe(true);
  });

  it('creates the labels', async () => {
    const labels = await s.get(`/projects/${projectId}/labels`);
    expect(labels.body.map((l: any) => [l.name, l.color, l.description])).toEqual([
      ['bug', '#d73a4a', 'Something is broken'],
      ['docs', '#0075ca', null],
      ['feature', '#0e8a16', null],
    ]);
  });

  it('imports issues with their numbers, states and labels, mapping authors by e-mail, and skips the pull requests', async () => {
    const issues = (await s.get(`/projects/${projectId}/issues`, { query: { sort: 'asc' } })).body;
    expect(issues.map((i: any) => [i.iid, i.title, i.state, i.labels])).toEqual([
      [1, 'Crash on start', 'closed', ['bug']],
      [3, 'Add a dark theme', 'opened', ['docs', 'feature']],
      [6, 'No body', 'opened', []],
    ]);
    const [crash, theme] = issues;
    expect(crash).toMatchObject({ imported: true, imported_from: 'github', description: 'It crashes.', created_at: T(1), closed_at: T(3) });
    expect(crash.author.username).toBe('alice');
    // bob has no user here: the placeholder user carries it, and the text names bob.
    expect(theme.author.name).toBe('Import User');
    expect(theme.description).toBe('*Created by: bob*\n\nPlease.');
    expect(theme.assignees.map((a: any) => a.username)).toEqual(['alice']);
  });

  it('imports pull requests as merge requests: branches, state, draft, merged', async () => {
    const mrs = (await s.get(`/projects/${projectId}/merge_requests`, { query: { sort: 'asc' } })).body;
    expect(mrs.map((m: any) => [m.iid, m.title, m.state, m.source_branch, m.target_branch, m.draft])).toEqual([
      [2, 'Fix the crash', 'merged', 'fix-crash', 'main', false],
      [4, 'Draft: Dark theme', 'opened', 'dark', 'main', true],
      [5, 'Rejected idea', 'closed', 'idea', 'main', false],
    ]);
    const fix = (await s.get(`/projects/${projectId}/merge_requests/2`)).body;
    expect(fix).toMatchObject({ imported: true, imported_from: 'github', merged_at: T(3), labels: ['bug'], sha: SHA_HEAD });
    expect(fix.author.username).toBe('alice');
    expect(fix.merged_by.name).toBe('Import User');
    expect(fix.diff_refs).toEqual({ base_sha: SHA_BASE, head_sha: SHA_HEAD, start_sha: SHA_BASE });
    expect(gh.requestsTo(/^\/repos\/octo\/widgets\/pulls\/2$/)).toHaveLength(1);
  });

  it('imports comments on issues and on pull requests, and names an unmatched merger in a note', async () => {
    const onIssue = (await s.get(`/projects/${projectId}/issues/1/notes`, { query: { sort: 'asc' } })).body;
    expect(onIssue.map((n: any) => [n.body, n.author.username === 'alice', n.imported_from])).toEqual([
      ['*Created by: bob*\n\nSeen it too.', false, 'github'],
      ['Fixed by !2', true, 'github'],
    ]);
    const onMr = (await s.get(`/projects/${projectId}/merge_requests/2/notes`, { query: { sort: 'asc', order_by: 'created_at' } })).body.map((n: any) => n.body);
    expect(onMr).toContain('Ready for review.');
    expect(onMr).toContain(`*Merged by: bob at ${T(3)}*`);
  });

  it('imports review comments as diff notes, replies in their thread', async () => {
    const discussions = (await s.get(`/projects/${projectId}/merge_requests/2/discussions`)).body.filter((d: any) => d.notes[0].type === 'DiffNote');
    expect(discussions.map((d: any) => d.notes.map((n: any) => n.body))).toEqual([
      ['*Created by: bob*\n\nWhy this line?', 'Because.'],
      ['*Created by: bob*\n\nRemoved line'],
    ]);
    expect(discussions[0].notes[0].position).toEqual({
      base_sha: SHA_BASE,
      start_sha: SHA_BASE,
      head_sha: SHA_HEAD,
      old_path: 'src/app.ts',
      new_path: 'src/app.ts',
      position_type: 'text',
      old_line: null,
      new_line: 12,
      line_range: null,
    });
    expect(discussions[1].notes[0].position).toMatchObject({ old_path: 'src/old.ts', old_line: 4, new_line: null });
  });

  it('adds matched collaborators as members (collaborators_import)', async () => {
    const member = await s.get(`/projects/${projectId}/members/${alice.user.id}`);
    expect(member.status).toBe(200);
    expect(member.body.access_level).toBe(40);
  });
});

describe('POST /import/github refusals', () => {
  it('answers 400 for missing and invalid parameters, all at once', async () => {
    const res = await s.post('/import/github', {}, { token: alice.token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'personal_access_token is missing, repo_id is missing, target_namespace is missing' });
    expect((await start({ target_namespace: '' })).body).toEqual({ error: 'target_namespace is empty' });
    expect((await start({ repo_id: 'abc' })).body).toEqual({ error: 'repo_id is invalid' });
    expect((await start({ pagination_limit: 101 })).body).toEqual({ error: 'pagination_limit does not have a valid value' });
    expect((await start({ pagination_limit: 0 })).status).toBe(400);
    expect((await start({ timeout_strategy: 'reckless' })).body).toEqual({ error: 'timeout_strategy does not have a valid value' });
    expect((await start({ optional_stages: 'all' })).body).toEqual({ error: 'optional_stages is invalid' });
  });

  it('answers 401 without a user', async () => {
    expect((await start({}, null as unknown as string)).status).toBe(401);
  });

  it('answers 422 for a namespace that does not exist or that the caller may not import into', async () => {
    const missing = await start({ target_namespace: 'no/such/group' });
    expect(missing.status).toBe(422);
    expect(missing.body).toEqual({ errors: 'Namespace or group to import repository into does not exist.' });
    const other = await s.createGroup({ path: 'not-alices' });
    const developer = await s.createGroup({ path: 'alice-develops' });
    await s.addMember('groups', developer.id, alice.user.id, 30);
    for (const ns of [other.full_path, developer.full_path, 'root']) {
      const res = await start({ target_namespace: ns });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ errors: 'You are not allowed to import projects in this namespace.' });
    }
  });

  it('answers 401 when the provider refuses the token', async () => {
    const res = await start({ personal_access_token: 'not-a-token' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Access denied to your GitHub account.' });
  });

  it('answers 422 with the provider error for an unknown repository', async () => {
    const res = await start({ repo_id: 999999 });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ errors: 'Import failed because of a GitHub error: Not Found (HTTP 404)' });
  });

  it('answers 422 when the token may not read the repository', async () => {
    gh.faults.push({ path: /^\/repositories\/4242$/, status: 403, body: { message: 'Resource not accessible by personal access token' } });
    try {
      const res = await start({});
      expect(res.status).toBe(422);
      expect(res.body.errors).toMatch(/^Your GitHub personal access token does not have read access to the repository\./);
    } finally {
      gh.faults.length = 0;
    }
  });

  it('answers 429 when the provider rate limit is spent at the start', async () => {
    const saved = { ...gh.rateLimit };
    gh.rateLimit.remaining = 0;
    try {
      const res = await start({ new_name: 'rate-limited' });
      expect(res.status).toBe(429);
      expect(res.body).toEqual({ error: 'Too Many Requests' });
    } finally {
      gh.rateLimit = saved;
    }
    expect((await s.get(`/projects/${encodeURIComponent(`${group.full_path}/rate-limited`)}`)).status).toBe(404);
  });

  it('answers 422 with the validation messages for a taken path and a bad name', async () => {
    const taken = await start({});
    expect(taken.status).toBe(422);
    expect(taken.body).toEqual({ errors: 'Name has already been taken, Path has already been taken' });
    const bad = await start({ new_name: 'bad--name' });
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({ errors: 'Path must not start or end with a special character and must not contain consecutive special characters.' });
  });

  it('answers 400 for a hostname that is not an http(s) URL', async () => {
    const res = await start({ github_hostname: 'ftp://github.example.com' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ errors: 'Invalid URL: ftp://github.example.com' });
  });

  it('answers 403 when the instance has the GitHub import source disabled', async () => {
    await s.put('/application/settings', { import_sources: ['bitbucket', 'gitlab_project'] });
    try {
      const res = await start({ new_name: 'disabled-source' });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ errors: ['github import source is disabled'] });
    } finally {
      await s.put('/application/settings', { import_sources: ['github', 'bitbucket', 'bitbucket_server', 'gitlab_project'] });
    }
  });
});

describe('the reference names and enterprise hosts', () => {
  it('answers at /import/providera with providera_hostname, reading <hostname>/api/v3', async () => {
    gh.addRepo({ ...widgets(5151, 'enterprise-widgets') });
    const before = gh.requests.length;
    const res = await s.post(
      '/import/providera',
      { personal_access_token: 'gh-alice', repo_id: 5151, target_namespace: group.full_path, providera_hostname: gh.url, new_name: 'from-enterprise' },
      { token: alice.token },
    );
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'from-enterprise', import_source: 'octo/enterprise-widgets' });
    expect((await waitForImport(s, res.body.id)).import_status).toBe('finished');
    // Every API request went to the enterprise API; git fetched from the clone URL the API answered.
    expect(gh.requests.slice(before).every((r) => r.path.startsWith('/api/v3/') || r.path.startsWith('/octo/enterprise-widgets.git/'))).toBe(true);
    expect((await s.get(`/projects/${res.body.id}/issues`)).body).toHaveLength(3);
  });

  it('accepts a hostname that already ends in /api/v3 (GitLab 16.5 to 17.1)', async () => {
    const res = await start({ github_hostname: `${gh.url}/api/v3`, repo_id: 5151, new_name: 'with-suffix' });
    expect(res.status).toBe(201);
    expect((await waitForImport(s, res.body.id)).import_status).toBe('finished');
  });
});

describe('GET /projects/:id/import', () => {
  it('reports a project that was never imported', async () => {
    const p = await s.createProject({ name: 'plain' });
    const res = await s.get(`/projects/${p.id}/import`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: p.id,
      description: null,
      name: 'plain',
      name_with_namespace: 'root / plain',
      path: 'plain',
      path_with_namespace: 'root/plain',
      created_at: p.created_at,
      import_status: 'none',
      import_type: null,
      correlation_id: null,
      failed_relations: [],
      import_error: null,
      stats: null,
      import_source: null,
    });
  });

  it('answers 404 for a project the caller cannot see', async () => {
    const p = await s.createProject({ name: 'secret-plain' });
    expect((await s.get(`/projects/${p.id}/import`, { token: alice.token })).status).toBe(404);
  });
});

describe('an imported project as others see it', () => {
  it('shows import_url (without credentials), import_type and import_error to Maintainers only', async () => {
    const projects = (await s.get('/projects', { token: alice.token, query: { search: 'widgets' } })).body;
    const imported = projects.find((p: any) => p.name === 'widgets');
    expect(imported).toMatchObject({ import_url: `${gh.url}/octo/widgets.git`, import_type: 'github', import_status: 'finished', import_error: null });
    const reporter = await s.createUser();
    await s.addMember('projects', imported.id, reporter.user.id, 20);
    const seen = (await s.get(`/projects/${imported.id}`, { token: reporter.token })).body;
    expect(seen.import_status).toBe('finished');
    expect(seen).not.toHaveProperty('import_url');
    expect(seen).not.toHaveProperty('import_type');
    expect(seen).not.toHaveProperty('import_error');
  });
});

describe('POST /sandlab/import/github/repositories (Sandlab-only)', () => {
  it('lists the repositories the token reaches, a page at a time, with what imports each', async () => {
    const res = await s.post('/sandlab/import/github/repositories', { personal_access_token: 'gh-alice', per_page: 1 }, { token: alice.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { name: 'widgets', full_name: 'octo/widgets', description: 'Widgets for everyone', private: false, web_url: `${gh.url}/octo/widgets`, import_params: { repo_id: 4242 } },
    ]);
    expect(res.headers.get('x-next-page')).toBe('2');
    const enterprise = await s.post('/sandlab/import/providera/repositories', { personal_access_token: 'gh-alice', providera_hostname: gh.url, page: 2, per_page: 1 }, { token: alice.token });
    expect(enterprise.body.map((r: any) => r.full_name)).toEqual(['octo/enterprise-widgets']);
    const refused = await s.post('/sandlab/import/github/repositories', { personal_access_token: 'nope' }, { token: alice.token });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ message: 'GitHub refused the credentials: Bad credentials' });
  });
});

describe('GET /projects?imported=true', () => {
  it('lists the projects the caller imported, and only those', async () => {
    const mine = (await s.get('/projects', { token: alice.token, query: { imported: true, per_page: 100 } })).body;
    expect(mine.length).toBeGreaterThan(0);
    expect(mine.every((p: any) => p.import_type === 'github')).toBe(true);
    expect(mine.map((p: any) => p.name)).toContain('widgets');
    expect((await s.get('/projects', { query: { imported: true } })).body).toEqual([]);
  });
});
