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

describe('@gitbeaker/rest 43: members, tokens, notes (core audit)', () => {
  it('adds project and group members by userId and by username, lists inherited ones', async () => {
    const alice = await api.Users.create({ email: 'alice@example.com', username: 'alice', name: 'Alice', password: 'password1234' });
    const bob = await api.Users.create({ email: 'bob@example.com', username: 'bob', name: 'Bob', password: 'password1234' });
    const group = await api.Groups.create('Audit Group', 'audit-group');
    const project = await api.Projects.create({ name: 'audit-project', namespaceId: group.id });
    const byId = await api.GroupMembers.add(group.id, 20, { userId: alice.id });
    expect(byId.username).toBe('alice');
    const byName = await api.ProjectMembers.add(project.id, 30, { username: 'bob' });
    expect(byName.id).toBe(bob.id);
    const edited = await api.ProjectMembers.edit(project.id, bob.id, 40);
    expect(edited.access_level).toBe(40);
    const inherited = await api.ProjectMembers.all(project.id, { includeInherited: true });
    expect(inherited.map((m) => m.username)).toEqual(expect.arrayContaining(['alice', 'bob']));
    const one = await api.ProjectMembers.show(project.id, alice.id, { includeInherited: true });
    expect(one.access_level).toBe(20);
    await api.ProjectMembers.remove(project.id, bob.id);
    const direct = await api.ProjectMembers.all(project.id);
    expect(direct.map((m) => m.username)).not.toContain('bob');
  });

  it('creates, shows, rotates and revokes personal access tokens', async () => {
    const carol = await api.Users.create({ email: 'carol@example.com', username: 'carol', name: 'Carol', password: 'password1234' });
    const created = await api.PersonalAccessTokens.create(carol.id, 'carol-token', ['api']);
    expect(created.token).toMatch(/^glpat-/);
    const asCarol = new Gitlab({ host: served.url, token: created.token as string });
    const self = await asCarol.PersonalAccessTokens.show();
    expect(self.id).toBe(created.id);
    const rotated = await api.PersonalAccessTokens.rotate(created.id);
    expect(rotated.token).not.toBe(created.token);
    await api.PersonalAccessTokens.remove({ tokenId: rotated.id });
    const after = await api.PersonalAccessTokens.show({ tokenId: rotated.id });
    expect(after.revoked).toBe(true);
  });

  it('edits and removes issue and merge request notes; closes and reopens', async () => {
    const project = await api.Projects.create({ name: 'audit-notes' });
    const issue = await api.Issues.create(project.id, 'Audit', { labels: 'x,y' });
    expect(issue.labels).toEqual(['x', 'y']);
    const note = await api.IssueNotes.create(project.id, issue.iid, 'hello');
    const edited = await api.IssueNotes.edit(project.id, issue.iid, note.id, { body: 'edited' });
    expect(edited.body).toBe('edited');
    await api.IssueNotes.remove(project.id, issue.iid, note.id);
    expect(await api.IssueNotes.all(project.id, issue.iid)).toHaveLength(0);
    const mr = await api.MergeRequests.create(project.id, 'feature', 'main', 'Audit MR');
    const mrNote = await api.MergeRequestNotes.create(project.id, mr.iid, 'on mr');
    expect((await api.MergeRequestNotes.show(project.id, mr.iid, mrNote.id)).body).toBe('on mr');
    const closed = await api.MergeRequests.edit(project.id, mr.iid, { stateEvent: 'close' });
    expect(closed.state).toBe('closed');
    const reopened = await api.MergeRequests.edit(project.id, mr.iid, { stateEvent: 'reopen' });
    expect(reopened.state).toBe('opened');
    const shown = await api.MergeRequests.show(project.id, mr.iid);
    expect(Object.keys(shown.diff_refs as object).sort()).toEqual(['base_sha', 'head_sha', 'start_sha']);
  });
});
