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

/** A fresh user and a gitbeaker client acting as them (the token is minted by root over plain HTTP). */
async function asNewUser(username: string): Promise<{ id: number; api: InstanceType<typeof Gitlab> }> {
  const user = await api.Users.create({ email: `${username}@example.org`, username, name: username, password: 'S3cure-password!' } as never);
  const res = await fetch(`${served.url}/api/v4/users/${user.id}/personal_access_tokens`, {
    method: 'POST',
    headers: { 'private-token': served.token, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'compat', scopes: ['api'] }),
  });
  const { token } = (await res.json()) as { token: string };
  return { id: user.id, api: new Gitlab({ host: served.url, token }) };
}

describe('@gitbeaker/rest 43 against the collaboration areas', () => {
  it('Project/GroupAccessRequests: request, all, approve, deny', async () => {
    const requester = await asNewUser('gb-requester');
    const project = await api.Projects.create({ name: 'gb-ar-project', visibility: 'public' });
    const group = await api.Groups.create('gb-ar-group', 'gb-ar-group', { visibility: 'public' });
    const asked = await requester.api.ProjectAccessRequests.request(project.id);
    expect(asked).toMatchObject({ id: requester.id, username: 'gb-requester', state: 'active' });
    expect(asked.requested_at).toEqual(expect.any(String));
    expect((await api.ProjectAccessRequests.all(project.id)).map((r) => r.id)).toEqual([requester.id]);
    const member = await api.ProjectAccessRequests.approve(project.id, requester.id, { accessLevel: 20 });
    expect(member).toMatchObject({ id: requester.id, access_level: 20 });
    expect(await api.ProjectAccessRequests.all(project.id)).toEqual([]);
    await requester.api.GroupAccessRequests.request(group.id);
    await api.GroupAccessRequests.deny(group.id, requester.id);
    expect(await api.GroupAccessRequests.all(group.id)).toEqual([]);
  });

  it('ProjectInvitations: add by e-mail and by user id, all with query, edit, remove', async () => {
    const invitee = await asNewUser('gb-invitee');
    const project = await api.Projects.create({ name: 'gb-inv-project' });
    expect(await api.ProjectInvitations.add(project.id, 30, { email: 'one@example.org,two@example.org' })).toEqual({ status: 'success' });
    expect(await api.ProjectInvitations.add(project.id, 20, { userId: String(invitee.id) })).toEqual({ status: 'success' });
    const again: any = await api.ProjectInvitations.add(project.id, 30, { email: 'one@example.org' });
    expect(again).toEqual({ status: 'error', message: { 'one@example.org': 'Invite email has already been taken' } });
    const found = await api.ProjectInvitations.all(project.id, { query: 'two@example.org' } as never);
    expect(found.map((i) => i.invite_email)).toEqual(['two@example.org']);
    const edited = await api.ProjectInvitations.edit(project.id, 'two@example.org', { accessLevel: 40, expiresAt: '2099-01-01' } as never);
    expect(edited).toMatchObject({ invite_email: 'two@example.org', access_level: 40, expires_at: '2099-01-01' });
    await api.ProjectInvitations.remove(project.id, 'one@example.org');
    expect((await api.ProjectInvitations.all(project.id)).map((i) => i.invite_email)).toEqual(['two@example.org']);
    expect((await api.ProjectMembers.show(project.id, invitee.id)).access_level).toBe(20);
  });

  it('NotificationSettings: global, project and custom events', async () => {
    const project = await api.Projects.create({ name: 'gb-notify' });
    expect(await api.NotificationSettings.show()).toMatchObject({ level: expect.any(String), notification_email: expect.any(String) });
    expect((await api.NotificationSettings.edit({ level: 'watch' } as never)).level).toBe('watch');
    expect(await api.NotificationSettings.show({ projectId: project.id })).toEqual({ level: 'global' });
    const custom: any = await api.NotificationSettings.edit({ projectId: project.id, level: 'custom', newNote: true } as never);
    expect(custom.level).toBe('custom');
    expect(custom.events.new_note).toBe(true);
    expect(custom.events.new_issue).toBeNull();
  });

  it('Events: the current user, a user by id, a project with filters', async () => {
    const project = await api.Projects.create({ name: 'gb-events-project' });
    const mine = await api.Events.all({ action: 'created', sort: 'asc' } as never);
    expect(mine.some((e) => e.project_id === project.id && e.action_name === 'created')).toBe(true);
    const root = await api.Users.showCurrentUser();
    expect((await api.Events.all({ userId: root.id, action: 'created' } as never)).length).toBeGreaterThan(0);
    expect(await api.Events.all({ userId: root.id, targetType: 'note' } as never)).toEqual([]);
    expect((await api.Events.all({ projectId: project.id, action: 'commented' } as never))).toEqual([]);
    const fresh = await asNewUser('gb-fresh');
    expect(await api.Events.all({ userId: fresh.id })).toEqual([]);
  });

  it('MergeRequestDraftNotes.edit sends POST, which GitLab (and Sandlab) answer 405; the PUT updates', async () => {
    const project = await api.Projects.create({ name: 'gb-draft-edit' });
    const mr = await api.MergeRequests.create(project.id, 'feature', 'main', 'Review');
    const draft = await api.MergeRequestDraftNotes.create(project.id, mr.iid, 'before');
    const status = await api.MergeRequestDraftNotes.edit(project.id, mr.iid, draft.id, { note: 'after' } as never).then(
      () => 200,
      (e: any) => e?.cause?.response?.status,
    );
    expect(status).toBe(405);
    const res = await fetch(`${served.url}/api/v4/projects/${project.id}/merge_requests/${mr.iid}/draft_notes/${draft.id}`, {
      method: 'PUT',
      headers: { 'private-token': served.token, 'content-type': 'application/json' },
      body: JSON.stringify({ note: 'after' }),
    });
    expect(res.status).toBe(200);
    expect((await api.MergeRequestDraftNotes.show(project.id, mr.iid, draft.id)).note).toBe('after');
  });

  it('MergeRequestDiscussions and IssueDiscussions: create, addNote, editNote, show, resolve, removeNote', async () => {
    const project = await api.Projects.create({ name: 'gb-discussions' });
    const mr = await api.MergeRequests.create(project.id, 'feature', 'main', 'Discuss');
    const thread = await api.MergeRequestDiscussions.create(project.id, mr.iid, 'opening');
    const reply = await api.MergeRequestDiscussions.addNote(project.id, mr.iid, thread.id, 'reply');
    expect(reply).toMatchObject({ body: 'reply', type: 'DiscussionNote' });
    const edited = await api.MergeRequestDiscussions.editNote(project.id, mr.iid, thread.id, reply.id, { body: 'edited' } as never);
    expect(edited.body).toBe('edited');
    const resolved: any = await api.MergeRequestDiscussions.resolve(project.id, mr.iid, thread.id, true);
    expect(resolved.notes.every((n: any) => n.resolved)).toBe(true);
    await api.MergeRequestDiscussions.removeNote(project.id, mr.iid, thread.id, reply.id);
    const shown: any = await api.MergeRequestDiscussions.show(project.id, mr.iid, thread.id);
    expect(shown.notes.map((n: any) => n.body)).toEqual(['opening']);
    const issue = await api.Issues.create(project.id, 'Talk');
    const issueThread = await api.IssueDiscussions.create(project.id, issue.iid, 'issue thread');
    await api.IssueDiscussions.addNote(project.id, issue.iid, issueThread.id, 'issue reply');
    expect((await api.IssueDiscussions.all(project.id, issue.iid)).map((d) => d.notes!.length)).toEqual([2]);
  });
});

describe('@gitbeaker/rest 43: Issues.move and Issues.clone', () => {
  it('moves an issue to another project and clones it back with its notes', async () => {
    const a = await api.Projects.create({ name: 'gb-move-a' });
    const b = await api.Projects.create({ name: 'gb-move-b' });
    const issue = await api.Issues.create(a.id, 'on the move', { description: 'text' });
    await api.IssueNotes.create(a.id, issue.iid, 'a note');
    const moved = await api.Issues.move(a.id, issue.iid, b.id);
    expect(moved).toMatchObject({ project_id: b.id, iid: 1, title: 'on the move', description: 'text', state: 'opened' });
    expect(await api.Issues.show(issue.iid, { projectId: a.id })).toMatchObject({ state: 'closed', moved_to_id: moved.id });
    const cloned = await api.Issues.clone(b.id, moved.iid, a.id, { withNotes: true });
    expect(cloned).toMatchObject({ project_id: a.id, iid: 2, title: 'on the move' });
    const notes = await api.IssueNotes.all(a.id, cloned.iid);
    expect(notes.filter((n) => !n.system).map((n) => n.body)).toEqual(['a note']);
    await expect(api.Issues.move(b.id, moved.iid, b.id)).rejects.toMatchObject({ cause: { response: { status: 400 } } });
  });
});
