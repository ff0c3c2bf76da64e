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

describe('@gitbeaker/rest 43 against a live Sandlab', () => {
  it('reads the current user and metadata', async () => {
    const me = await api.Users.showCurrentUser();
    expect(me.username).toBe('root');
    const meta = await api.Metadata.show();
    expect(typeof meta.version).toBe('string');
  });

  it('creates groups and projects and auto-paginates through Link headers', async () => {
    const group = await api.Groups.create('Beaker Group', 'beaker-group');
    for (let i = 0; i < 12; i++) await api.Projects.create({ name: `beaker-${i}`, namespaceId: group.id });
    const all = await api.Groups.allProjects(group.id, { perPage: 5 });
    expect(all).toHaveLength(12);
    const { data, paginationInfo } = await api.Groups.allProjects(group.id, { perPage: 5, page: 2, showExpanded: true });
    expect(data).toHaveLength(5);
    expect(paginationInfo).toMatchObject({ total: 12, next: 3, current: 2, previous: 1, perPage: 5, totalPages: 3 });
    const byPath = await api.Projects.show('beaker-group/beaker-3');
    expect(byPath.name).toBe('beaker-3');
  });

  it('works with issues, merge requests and notes', async () => {
    const project = await api.Projects.create({ name: 'beaker-work' });
    const issue = await api.Issues.create(project.id, 'Beaker issue', { labels: 'a,b' });
    expect(issue.labels).toEqual(['a', 'b']);
    const closed = await api.Issues.edit(project.id, issue.iid, { stateEvent: 'close' });
    expect(closed.state).toBe('closed');
    const note = await api.IssueNotes.create(project.id, issue.iid, 'beaker note');
    expect(note.body).toBe('beaker note');
    const mr = await api.MergeRequests.create(project.id, 'feature', 'main', 'Beaker MR');
    const shown = await api.MergeRequests.show(project.id, mr.iid);
    expect(shown.diff_refs).toHaveProperty('base_sha');
    await api.MergeRequestNotes.create(project.id, mr.iid, 'looks good');
    const notes = await api.MergeRequestNotes.all(project.id, mr.iid);
    expect(notes.map((n) => n.body)).toEqual(['looks good']);
    await api.Projects.remove(project.id);
  });

  it('surfaces GitLab error bodies as errors with the right status', async () => {
    await expect(api.Projects.show(999999)).rejects.toMatchObject({ cause: { response: { status: 404 } } });
  });
});
