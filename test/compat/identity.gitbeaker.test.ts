import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { type Served, startServe } from './harness';

let served: Served;
let api: InstanceType<typeof Gitlab>;

/** A direct call, for the few endpoints whose gitbeaker 43 method builds a wrong path. */
async function call(method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${served.url}/api/v4${path}`, {
    method,
    headers: { 'private-token': served.token, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}
const statusOf = (p: Promise<unknown>) => p.then(() => 200, (e: any) => e?.cause?.response?.status);
beforeAll(async () => {
  served = await startServe();
  api = new Gitlab({ host: served.url, token: served.token });
});
afterAll(async () => served?.stop());

describe('@gitbeaker/rest 43: service accounts, SAML, group labels, epics', () => {
  it('creates instance and group service accounts, then a token it rotates', async () => {
    const inst: any = await api.ServiceAccounts.create();
    expect(inst.username).toMatch(/^service_account_[0-9a-f]{32}$/);
    const group: any = await api.Groups.create('gb-sa', 'gb-sa');
    const sa: any = await api.GroupServiceAccounts.create(group.id, { name: 'Deploy bot' } as any);
    expect(sa.name).toBe('Deploy bot');
    // Provisioned by the group but not a member: the Owner adds it, as GitLab's docs describe.
    const member: any = await api.GroupMembers.add(group.id, 30, { userId: sa.id } as any);
    expect(member).toMatchObject({ id: sa.id, access_level: 30 });
    // gitbeaker 43 drops `/personal_access_tokens` from this path; GitLab answers that path with 405.
    expect(await statusOf(api.GroupServiceAccounts.createPersonalAccessToken(group.id, sa.id, { name: 'ci', scopes: ['api'] } as any))).toBe(405);
    const created = await call('POST', `/groups/${group.id}/service_accounts/${sa.id}/personal_access_tokens`, { name: 'ci', scopes: ['api'] });
    expect(created.status).toBe(201);
    const token = created.body;
    expect(token.token).toMatch(/^glpat-/);
    const rotated: any = await api.GroupServiceAccounts.rotatePersonalAccessToken(group.id, sa.id, token.id);
    expect(rotated.token).not.toBe(token.token);
    const asBot = new Gitlab({ host: served.url, token: rotated.token });
    expect(((await asBot.Users.showCurrentUser()) as any).id).toBe(sa.id);
    await expect(new Gitlab({ host: served.url, token: token.token }).Users.showCurrentUser()).rejects.toThrow();
  });

  it('reads and edits SAML identities and manages SAML group links', async () => {
    const group: any = await api.Groups.create('gb-saml', 'gb-saml');
    const user: any = await api.Users.create({
      email: 'gb-saml@example.com',
      username: 'gb_saml',
      name: 'GB',
      password: 'password123',
      provider: 'group_saml',
      externUid: 'ext-1',
      groupIdForSaml: group.id,
    } as any);
    expect(await api.GroupSAMLIdentities.all(group.id, {})).toEqual([{ extern_uid: 'ext-1', user_id: user.id }]);
    const edited: any = await api.GroupSAMLIdentities.edit(group.id, 'ext-1', { externUid: 'ext-2' } as any);
    expect(edited).toEqual({ extern_uid: 'ext-2', user_id: user.id });
    const link: any = await api.GroupSAMLLinks.create(group.id, 'devs', 30);
    expect(link).toMatchObject({ name: 'devs', access_level: 30 });
    expect(((await api.GroupSAMLLinks.show(group.id, 'devs', {})) as any).access_level).toBe(30);
    expect((await api.GroupSAMLLinks.all(group.id, {})).length).toBe(1);
    await api.GroupSAMLLinks.remove(group.id, 'devs');
    expect(await api.GroupSAMLLinks.all(group.id, {})).toEqual([]);
  });

  it('manages group labels', async () => {
    const group: any = await api.Groups.create('gb-labels', 'gb-labels');
    const created: any = await api.GroupLabels.create(group.id, 'bug', '#FF0000', { description: 'Broken' });
    expect(created).toMatchObject({ name: 'bug', color: '#FF0000', text_color: '#FFFFFF' });
    const edited: any = await api.GroupLabels.edit(group.id, created.id, { newName: 'defect', color: 'green' } as any);
    expect(edited).toMatchObject({ name: 'defect', color: '#008000' });
    expect(((await api.GroupLabels.show(group.id, 'defect')) as any).id).toBe(created.id);
    // gitbeaker 43 posts (un)subscribe under /groups/:id/issues/:label, a path GitLab does not have.
    expect(await statusOf(api.GroupLabels.subscribe(group.id, created.id))).toBe(404);
    expect((await call('POST', `/groups/${group.id}/labels/${created.id}/subscribe`)).body.subscribed).toBe(true);
    expect((await call('POST', `/groups/${group.id}/labels/${created.id}/unsubscribe`)).body.subscribed).toBe(false);
    expect((await api.GroupLabels.all(group.id)).map((l: any) => l.name)).toEqual(['defect']);
    await api.GroupLabels.remove(group.id, created.id);
    expect(await api.GroupLabels.all(group.id)).toEqual([]);
  });

  it('manages epics and their to-dos', async () => {
    const group: any = await api.Groups.create('gb-epics', 'gb-epics');
    const epic: any = await api.Epics.create(group.id, 'Big thing', { labels: 'a,b', description: 'd' } as any);
    expect(epic).toMatchObject({ iid: 1, title: 'Big thing', labels: ['a', 'b'] });
    const edited: any = await api.Epics.edit(group.id, epic.iid, { stateEvent: 'close', removeLabels: 'a' } as any);
    expect(edited).toMatchObject({ state: 'closed', labels: ['b'] });
    expect(edited.closed_at).not.toBeNull();
    expect(((await api.Epics.show(group.id, epic.iid)) as any).title).toBe('Big thing');
    expect((await api.Epics.all(group.id, { state: 'closed' } as any)).length).toBe(1);
    // gitbeaker 43 posts to `/todos`; GitLab's route is `/todo`.
    expect(await statusOf(api.Epics.createTodo(group.id, epic.iid))).toBe(404);
    const todo = await call('POST', `/groups/${group.id}/epics/${epic.iid}/todo`);
    expect(todo.status).toBe(201);
    expect(todo.body).toMatchObject({ target_type: 'Epic', action_name: 'marked' });
    await api.Epics.remove(group.id, epic.iid);
    expect(await api.Epics.all(group.id)).toEqual([]);
  });
});
