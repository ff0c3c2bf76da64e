import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { waitForImport } from '../helpers/imports';
import { gitOk, scratchDir, withCredentials } from '../helpers/git';
import { type UpstreamRepository, makeUpstreamRepository } from '../helpers/stand-ins/git';
import { ProviderAStandIn } from '../helpers/stand-ins/providera';
import { ProviderBServerStandIn } from '../helpers/stand-ins/providerb_server';
import { ProviderBCloudStandIn } from '../helpers/stand-ins/providerb_cloud';

// Imports bring the git repository itself: the stand-ins serve their repositories over git's smart
// HTTP at the clone URLs their APIs answer, and each import fetches every branch and tag from there.
let s: TestService;
let gh: ProviderAStandIn;
let bbs: ProviderBServerStandIn;
let bbc: ProviderBCloudStandIn;
let upstream: UpstreamRepository;
/** Its first branch is `trunk`: Bitbucket Server's API does not name it, the upstream HEAD does. */
let trunkUpstream: UpstreamRepository;
let rosa: { user: any; token: string };

beforeAll(async () => {
  upstream = await makeUpstreamRepository();
  trunkUpstream = await makeUpstreamRepository('trunk');
  gh = await new ProviderAStandIn().start();
  bbs = await new ProviderBServerStandIn().start();
  bbc = await new ProviderBCloudStandIn().start();
  process.env.SANDLAB_PROVIDERA_URL = gh.url;
  process.env.SANDLAB_PROVIDERB_CLOUD_URL = bbc.url;
  s = await TestService.start();
  rosa = await s.createUser({ username: 'rosa', email: 'rosa@example.com' });
  gh.addUser({ login: 'octo', email: null }, 'gh-rosa');
  gh.addRepo({ id: 77, owner: 'octo', name: 'rocket', description: 'A small rocket', git: upstream.dir });
  gh.addRepo({ id: 78, owner: 'octo', name: 'hollow' });
  bbs.addUser({ name: 'rosa', emailAddress: 'rosa@example.com', displayName: 'Rosa' }, 'bbs-rosa');
  bbs.addProject({ key: 'SPACE', name: 'Space' });
  bbs.addRepo({ projectKey: 'SPACE', slug: 'station', name: 'station', git: trunkUpstream.dir });
  bbc.addUser({ username: 'rosa-bb', display_name: 'Rosa' }, 'rosa-app-pass');
  bbc.addRepo({ workspace: 'acme', slug: 'probe', name: 'probe', git: upstream.dir });
});
afterAll(async () => {
  await s.stop();
  await Promise.all([gh.stop(), bbs.stop(), bbc.stop()]);
  upstream.remove();
  trunkUpstream.remove();
});

const githubImport = (repoId: number, newName?: string) =>
  s.post('/import/github', { personal_access_token: 'gh-rosa', repo_id: repoId, target_namespace: 'rosa', ...(newName ? { new_name: newName } : {}) }, { token: rosa.token });

/** The project's branches and tags as the repository API lists them: name -> commit id. */
async function refsOf(projectId: number): Promise<{ branches: Record<string, string>; tags: Record<string, string> }> {
  const list = async (kind: string) => Object.fromEntries((await s.get(`/projects/${projectId}/repository/${kind}`, { token: rosa.token })).body.map((r: any) => [r.name, r.commit.id]));
  return { branches: await list('branches'), tags: await list('tags') };
}

describe('the repository of a GitHub import', () => {
  let projectId: number;

  it('fetches every branch and tag, with HEAD on the upstream default branch', async () => {
    const res = await githubImport(77);
    expect(res.status).toBe(201);
    projectId = res.body.id;
    expect((await waitForImport(s, projectId)).import_status).toBe('finished');
    expect(await refsOf(projectId)).toEqual({ branches: upstream.branches, tags: upstream.tags });
    const project = (await s.get(`/projects/${projectId}`, { token: rosa.token })).body;
    expect(project).toMatchObject({ default_branch: 'main', empty_repo: false, readme_url: `${project.web_url}/-/blob/main/README.md` });
    const readme = await s.get(`/projects/${projectId}/repository/files/README.md/raw`, { token: rosa.token, query: { ref: 'main' } });
    expect(readme.text).toBe('# Rocket\n\nGoes up.\n');
    // The annotated tag came as a tag object, not flattened to its commit.
    const tag = (await s.get(`/projects/${projectId}/repository/tags/v1.1`, { token: rosa.token })).body;
    expect(tag).toMatchObject({ name: 'v1.1', message: 'Second release', commit: { id: upstream.tags['v1.1'] } });
    expect(tag.target).toMatch(/^[0-9a-f]{40}$/);
    expect(tag.target).not.toBe(upstream.tags['v1.1']);
  });

  it('sends the token to git as GitHub takes it (the Basic username), never in the URL', async () => {
    const gitRequests = gh.requestsTo(/^\/octo\/rocket\.git\//);
    expect(gitRequests.length).toBeGreaterThan(0);
    for (const r of gitRequests) expect(r.headers.authorization).toBe(`Basic ${Buffer.from('gh-rosa:').toString('base64')}`);
    const project = (await s.get(`/projects/${projectId}`, { token: rosa.token })).body;
    expect(project.import_url).toBe(`${gh.url}/octo/rocket.git`);
  });

  it('is no push: no push events, as on GitLab', async () => {
    const events = (await s.get(`/projects/${projectId}/events`, { token: rosa.token, query: { action: 'pushed' } })).body;
    expect(events).toEqual([]);
  });

  it('can be cloned from Sandlab with the same history', async () => {
    const project = (await s.get(`/projects/${projectId}`, { token: rosa.token })).body;
    const dir = scratchDir();
    await gitOk(dir, ['clone', '--quiet', withCredentials(project.http_url_to_repo, 'oauth2', rosa.token), 'rocket']);
    expect((await gitOk(`${dir}/rocket`, ['log', '--format=%s', 'origin/feature'])).trim().split('\n')).toEqual(['More thrust', 'Add a README', 'Start the rocket']);
  });

  it('leaves an empty upstream repository empty, and the import still finishes', async () => {
    const res = await githubImport(78);
    const status = await waitForImport(s, res.body.id);
    expect(status.import_status).toBe('finished');
    expect((await s.get(`/projects/${res.body.id}`, { token: rosa.token })).body.empty_repo).toBe(true);
  });

  it('fails the import with a readable error, without the token, when the clone is refused', async () => {
    gh.faults.push({ path: /^\/octo\/rocket\.git\//, status: 403 });
    try {
      const res = await githubImport(77, 'rocket-refused');
      const status = await waitForImport(s, res.body.id);
      expect(status.import_status).toBe('failed');
      expect(status.import_error).toMatch(/^Failed to import the repository: .*returned error: 403/);
      expect(status.import_error).not.toContain('gh-rosa');
      expect(status.stats.imported).toEqual({});
    } finally {
      gh.faults.length = 0;
    }
  });
});

describe('the repository of Bitbucket imports', () => {
  it('Bitbucket Server: fetched with the username and token, the default branch the upstream HEAD', async () => {
    const res = await s.post(
      '/import/bitbucket_server',
      { bitbucket_server_url: bbs.url, bitbucket_server_username: 'rosa', personal_access_token: 'bbs-rosa', bitbucket_server_project: 'SPACE', bitbucket_server_repo: 'station' },
      { token: rosa.token },
    );
    expect(res.status).toBe(201);
    expect((await waitForImport(s, res.body.id)).import_status).toBe('finished');
    expect(await refsOf(res.body.id)).toEqual({ branches: trunkUpstream.branches, tags: trunkUpstream.tags });
    expect(Object.keys(trunkUpstream.branches).sort()).toEqual(['feature', 'trunk']);
    expect((await s.get(`/projects/${res.body.id}`, { token: rosa.token })).body.default_branch).toBe('trunk');
    expect(bbs.requestsTo(/^\/scm\/space\/station\.git\//).length).toBeGreaterThan(0);
    for (const r of bbs.requestsTo(/^\/scm\/space\/station\.git\//)) expect(r.headers.authorization).toBe(`Basic ${Buffer.from('rosa:bbs-rosa').toString('base64')}`);
  });

  it('Bitbucket Cloud: fetched with the username and app password', async () => {
    const res = await s.post('/import/bitbucket', { bitbucket_username: 'rosa-bb', bitbucket_app_password: 'rosa-app-pass', repo_path: 'acme/probe', target_namespace: 'rosa' }, { token: rosa.token });
    expect(res.status).toBe(201);
    expect((await waitForImport(s, res.body.id)).import_status).toBe('finished');
    expect(await refsOf(res.body.id)).toEqual({ branches: upstream.branches, tags: upstream.tags });
    expect(bbc.requestsTo(/^\/acme\/probe\.git\//).length).toBeGreaterThan(0);
    for (const r of bbc.requestsTo(/^\/acme\/probe\.git\//)) expect(r.headers.authorization).toBe(`Basic ${Buffer.from('rosa-bb:rosa-app-pass').toString('base64')}`);
  });
});
