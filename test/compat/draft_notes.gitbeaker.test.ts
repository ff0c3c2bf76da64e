import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Gitlab } from '@gitbeaker/rest';
import { type Served, startServe } from './harness';

let served: Served;
beforeAll(async () => {
  served = await startServe();
});
afterAll(async () => served?.stop());

describe('@gitbeaker/rest 43: draft notes, access requests, invitations, events', () => {
  it('drafts, publishes one and bulk-publishes the rest', async () => {
    const api = new Gitlab({ host: served.url, token: served.token });
    const project = await api.Projects.create({ name: 'gb-drafts' });
    const mr = await api.MergeRequests.create(project.id, 'feature', 'main', 'Review');
    const a = await api.MergeRequestDraftNotes.create(project.id, mr.iid, 'first');
    await api.MergeRequestDraftNotes.create(project.id, mr.iid, 'second');
    expect((await api.MergeRequestDraftNotes.show(project.id, mr.iid, a.id)).note).toBe('first');
    expect(await api.MergeRequestDraftNotes.all(project.id, mr.iid)).toHaveLength(2);
    await api.MergeRequestDraftNotes.publish(project.id, mr.iid, a.id);
    await api.MergeRequestDraftNotes.publishBulk(project.id, mr.iid);
    expect(await api.MergeRequestDraftNotes.all(project.id, mr.iid)).toEqual([]);
    const notes = await api.MergeRequestNotes.all(project.id, mr.iid, { sort: 'asc' });
    expect(notes.map((n) => n.body)).toEqual(['first', 'second']);
    const third = await api.MergeRequestDraftNotes.create(project.id, mr.iid, 'third');
    await api.MergeRequestDraftNotes.remove(project.id, mr.iid, third.id);
    expect(await api.MergeRequestDraftNotes.all(project.id, mr.iid)).toEqual([]);
  });

  it('invitations, notification settings and events', async () => {
    const api = new Gitlab({ host: served.url, token: served.token });
    const group = await api.Groups.create('gb-group', 'gb-group');
    const res = await api.GroupInvitations.add(group.id, 30, { email: 'gb@example.org' });
    expect(res).toMatchObject({ status: 'success' });
    const edited = await api.GroupInvitations.edit(group.id, 'gb@example.org', { accessLevel: 20 });
    expect(edited.access_level).toBe(20);
    expect((await api.GroupInvitations.all(group.id)).map((i) => i.invite_email)).toEqual(['gb@example.org']);
    await api.GroupInvitations.remove(group.id, 'gb@example.org');
    const settings = await api.NotificationSettings.edit({ groupId: group.id, level: 'watch' } as never);
    expect(settings.level).toBe('watch');
    const project = await api.Projects.create({ name: 'gb-events' });
    const events = await api.Events.all({ projectId: project.id });
    expect(events.map((e) => e.action_name)).toEqual(['created']);
  });
});
