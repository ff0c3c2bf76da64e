import { Gitlab } from '@gitbeaker/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, startServe } from './harness';

let served: Served;
let api: InstanceType<typeof Gitlab>;
beforeAll(async () => {
  served = await startServe();
  api = new Gitlab({ host: served.url, token: served.token });
});
afterAll(async () => served?.stop());

describe('@gitbeaker/rest 43 against the CI/CD areas', () => {
  it('ProjectJobTokenScopes: show, edit, allowlists', async () => {
    const p = await api.Projects.create({ name: 'jts-source' });
    const t = await api.Projects.create({ name: 'jts-target' });
    const g = await api.Groups.create('jts-group', 'jts-group');
    expect(await api.ProjectJobTokenScopes.show(p.id)).toEqual({ inbound_enabled: true, outbound_enabled: false });
    await api.ProjectJobTokenScopes.edit(p.id, false);
    expect((await api.ProjectJobTokenScopes.show(p.id)).inbound_enabled).toBe(false);
    expect(await api.ProjectJobTokenScopes.addToInboundAllowList(p.id, t.id)).toEqual({ source_project_id: p.id, target_project_id: t.id });
    expect((await api.ProjectJobTokenScopes.showInboundAllowList(p.id)).map((x) => x.id)).toEqual([p.id, t.id]);
    await api.ProjectJobTokenScopes.removeFromInboundAllowList(p.id, t.id);
    expect(await api.ProjectJobTokenScopes.addToGroupsAllowList(p.id, g.id)).toEqual({ source_project_id: p.id, target_group_id: g.id });
    expect((await api.ProjectJobTokenScopes.showGroupsAllowList(p.id)).map((x) => x.id)).toEqual([g.id]);
    await api.ProjectJobTokenScopes.removeFromGroupsAllowList(p.id, g.id);
    expect(await api.ProjectJobTokenScopes.showGroupsAllowList(p.id)).toEqual([]);
  });

  // gitbeaker's `jobToken` sends JOB-TOKEN: read where GitLab marks a route job_token_allowed, anonymous elsewhere.
  it('a job token client reads merge requests, and is anonymous on other routes', async () => {
    const p = await api.Projects.create({ name: 'job-client', visibility: 'private' });
    const minted = await fetch(`${served.url}/api/v4/sandlab/job_tokens`, {
      method: 'POST',
      headers: { 'private-token': served.token, 'content-type': 'application/json' },
      body: JSON.stringify({ project_id: p.id }),
    });
    const job = new Gitlab({ host: served.url, jobToken: ((await minted.json()) as { token: string }).token });
    expect(await job.MergeRequests.all({ projectId: p.id })).toEqual([]);
    const statusOf = (call: Promise<unknown>) => call.then(() => 200, (e: any) => e?.cause?.response?.status);
    expect(await statusOf(job.Projects.show(p.id))).toBe(404);
    expect(await statusOf(job.Users.showCurrentUser())).toBe(401);
  });

  it('FeatureFlags and FeatureFlagUserLists', async () => {
    const p = await api.Projects.create({ name: 'ff-compat' });
    const list = await api.FeatureFlagUserLists.create(p.id, 'testers', 'a,b');
    expect(list).toMatchObject({ name: 'testers', user_xids: 'a,b' });
    const flag: any = await api.FeatureFlags.create(p.id, 'new_checkout', 'new_version_flag', {
      description: 'checkout',
      strategies: [
        { name: 'flexibleRollout', parameters: { groupId: 'default', rollout: '50', stickiness: 'default' }, scopes: [{ environmentScope: '*' }] },
        { name: 'gitlabUserList', userListId: list.id },
      ] as never,
    });
    expect(flag.strategies.map((s: any) => s.name)).toEqual(['flexibleRollout', 'gitlabUserList']);
    expect(flag.strategies[0].parameters).toEqual({ groupId: 'default', rollout: '50', stickiness: 'default' });
    const edited = await api.FeatureFlags.edit(p.id, 'new_checkout', { active: false });
    expect(edited.active).toBe(false);
    expect((await api.FeatureFlags.all(p.id, { scope: 'disabled' } as never)).map((f: any) => f.name)).toEqual(['new_checkout']);
    expect((await api.FeatureFlags.show(p.id, 'new_checkout')).description).toBe('checkout');
    await api.FeatureFlags.remove(p.id, 'new_checkout');
    expect(await api.FeatureFlags.all(p.id)).toEqual([]);
    expect((await api.FeatureFlagUserLists.edit(p.id, list.iid, { name: 'renamed' })).name).toBe('renamed');
    await api.FeatureFlagUserLists.remove(p.id, list.iid);
    expect(await api.FeatureFlagUserLists.all(p.id)).toEqual([]);
  });

  it('Lint: lint (POST) and check (GET)', async () => {
    const p = await api.Projects.create({ name: 'lint-gitbeaker' });
    const res = await api.Lint.lint(p.id, 'test:\n  script: echo 1\n', { includeJobs: true });
    expect(res.valid).toBe(true);
    expect((res as any).jobs.map((j: any) => j.name)).toEqual(['test']);
    await expect(api.Lint.check(p.id, {})).rejects.toThrow();
  });
});
