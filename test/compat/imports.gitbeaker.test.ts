import { Gitlab } from '@gitbeaker/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, startServe } from './harness';
import { ProviderAStandIn } from '../helpers/stand-ins/providera';
import { ProviderBServerStandIn } from '../helpers/stand-ins/providerb_server';

// @gitbeaker/rest 43's Import resource, unchanged, against a live `serve` with stand-in providers.
let served: Served;
let api: InstanceType<typeof Gitlab>;
let gh: ProviderAStandIn;
let bbs: ProviderBServerStandIn;

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200 && !(await check()); i++) await new Promise((r) => setTimeout(r, 50));
}

beforeAll(async () => {
  gh = await new ProviderAStandIn().start();
  bbs = await new ProviderBServerStandIn().start();
  gh.addUser({ login: 'octo', email: 'admin@example.com' }, 'gh-token');
  gh.addRepo({ id: 88, owner: 'octo', name: 'slow-repo', issues: Array.from({ length: 30 }, (_, i) => ({ number: i + 1, title: `I${i + 1}`, user: 'octo' })), delayMs: 150 });
  gh.addRepo({ id: 89, owner: 'octo', name: 'enterprise-repo', issues: [{ number: 1, title: 'Hi', user: 'octo' }] });
  gh.addGist({ id: 'g1', owner: 'octo', description: 'A gist', public: true, files: { 'a.txt': 'A' } });
  bbs.addUser({ name: 'admin', emailAddress: 'admin@example.com', displayName: 'Admin' }, 'bbs-token');
  bbs.addProject({ key: 'GB', name: 'Gitbeaker' });
  bbs.addRepo({ projectKey: 'GB', slug: 'repo', name: 'repo' });
  process.env.SANDLAB_PROVIDERA_URL = gh.url;
  served = await startServe();
  api = new Gitlab({ host: served.url, token: served.token });
});
afterAll(async () => {
  await served?.stop();
  await gh?.stop();
  await bbs?.stop();
});

describe('@gitbeaker/rest 43 Import', () => {
  it('importGithubRepository with pagination and a GitHub Enterprise host, then cancelGithubRepositoryImport', async () => {
    const started: any = await api.Import.importGithubRepository('gh-token', 88, 'root', { paginationLimit: 1 } as never);
    expect(started).toMatchObject({ name: 'slow-repo', import_status: 'scheduled', provider_link: '/octo/slow-repo' });
    await until(async () => (await api.Projects.show(started.id)).import_status === 'started');
    const canceled: any = await api.Import.cancelGithubRepositoryImport(started.id);
    expect(canceled).toMatchObject({ id: started.id, import_status: 'canceled', human_import_status_name: 'canceled' });
    await expect(api.Import.cancelGithubRepositoryImport(started.id)).rejects.toThrow();

    const enterprise: any = await api.Import.importGithubRepository('gh-token', 89, 'root', { githubHostname: gh.url, newName: 'from-ghe', optionalStages: { collaboratorsImport: false } } as never);
    expect(enterprise).toMatchObject({ name: 'from-ghe', import_source: 'octo/enterprise-repo' });
    await until(async () => (await api.Projects.show(enterprise.id)).import_status === 'finished');
    expect(gh.requestsTo(/^\/api\/v3\/repos\/octo\/enterprise-repo\/issues$/).length).toBeGreaterThan(0);
    expect((await api.Issues.all({ projectId: enterprise.id })).map((i: any) => i.title)).toEqual(['Hi']);
  });

  it('importGithubGists answers 202', async () => {
    await api.Import.importGithubGists('gh-token');
    await until(async () => (await api.Snippets.all()).some((sn: any) => sn.title === 'A gist'));
    expect((await api.Snippets.all()).find((sn: any) => sn.title === 'A gist')).toMatchObject({ imported: true, imported_from: 'github' });
  });

  it('importBitbucketServerRepository into a target namespace', async () => {
    const group: any = await api.Groups.create('gb-imports', 'gb-imports');
    const res: any = await api.Import.importBitbucketServerRepository(bbs.url, 'admin', 'bbs-token', 'GB', 'repo', { targetNamespace: group.full_path, newName: 'bb-repo' } as never);
    expect(res).toMatchObject({ name: 'bb-repo', full_path: '/gb-imports/bb-repo', import_source: 'Gitbeaker/repo' });
    await until(async () => (await api.Projects.show(res.id)).import_status === 'finished');
    expect((await api.Projects.show(res.id)).import_type).toBe('bitbucket_server');
  });
});
