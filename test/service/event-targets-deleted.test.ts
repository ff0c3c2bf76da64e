import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

// GitLab's Note, Issue and MergeRequest each `has_many :events, as: :target, dependent:`: deleting
// one deletes its events, and deleting an issue, merge request or snippet destroys its notes with
// theirs. Every list is read once before the delete, so a page kept from that read must not answer.
let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s.stop());

type Row = [string, string | null, string | null];
const rows = (body: any[]): Row[] => body.map((e) => [e.action_name, e.target_type, e.target_title]);

async function lists(projectId: number, user: { user: any; token: string }): Promise<{ project: Row[]; mine: Row[]; theirs: Row[]; total: string | null }> {
  const project = await s.get(`/projects/${projectId}/events`, { token: user.token, query: { sort: 'asc' } });
  const mine = await s.get('/events', { token: user.token, query: { sort: 'asc' } });
  const theirs = await s.get(`/users/${user.user.id}/events`, { query: { sort: 'asc' } });
  return { project: rows(project.body), mine: rows(mine.body), theirs: rows(theirs.body), total: project.headers.get('x-total') };
}

describe('events of deleted targets', () => {
  it('a deleted comment takes its "commented on" event from every list', async () => {
    const u = await s.createUser();
    const p = await s.createProject({}, u.token);
    const issue = (await s.post(`/projects/${p.id}/issues`, { title: 'Bug' }, { token: u.token })).body;
    await s.post(`/projects/${p.id}/issues/${issue.iid}/notes`, { body: 'kept' }, { token: u.token });
    const gone = (await s.post(`/projects/${p.id}/issues/${issue.iid}/notes`, { body: 'gone' }, { token: u.token })).body;
    const before = await lists(p.id, u);
    expect(before.project).toEqual([
      ['created', null, null],
      ['opened', 'Issue', 'Bug'],
      ['commented on', 'Note', 'Bug'],
      ['commented on', 'Note', 'Bug'],
    ]);
    expect((await s.del(`/projects/${p.id}/issues/${issue.iid}/notes/${gone.id}`, { token: u.token })).status).toBe(204);
    const after = await lists(p.id, u);
    const expected: Row[] = [
      ['created', null, null],
      ['opened', 'Issue', 'Bug'],
      ['commented on', 'Note', 'Bug'],
    ];
    expect(after).toEqual({ project: expected, mine: expected, theirs: expected, total: '3' });
    const notes = (await s.get(`/projects/${p.id}/events`, { token: u.token, query: { target_type: 'note' } })).body;
    expect(notes.map((e: any) => e.note.body)).toEqual(['kept']);
  });

  it('a deleted issue takes its own events and its comments’ events; its destroyed event stays', async () => {
    const u = await s.createUser();
    const p = await s.createProject({}, u.token);
    const keep = (await s.post(`/projects/${p.id}/issues`, { title: 'Keep' }, { token: u.token })).body;
    const drop = (await s.post(`/projects/${p.id}/issues`, { title: 'Drop' }, { token: u.token })).body;
    await s.put(`/projects/${p.id}/issues/${drop.iid}`, { state_event: 'close' }, { token: u.token });
    await s.post(`/projects/${p.id}/issues/${drop.iid}/notes`, { body: 'on drop' }, { token: u.token });
    await s.post(`/projects/${p.id}/issues/${keep.iid}/notes`, { body: 'on keep' }, { token: u.token });
    expect((await lists(p.id, u)).project).toHaveLength(6);
    expect((await s.del(`/projects/${p.id}/issues/${drop.iid}`, { token: u.token })).status).toBe(204);
    const expected: Row[] = [
      ['created', null, null],
      ['opened', 'Issue', 'Keep'],
      ['commented on', 'Note', 'Keep'],
      ['destroyed', 'Issue', 'Drop'],
    ];
    expect(await lists(p.id, u)).toEqual({ project: expected, mine: expected, theirs: expected, total: '4' });
  });

  it('a deleted merge request takes its events and its threads’ events', async () => {
    const u = await s.createUser();
    const p = await s.createProject({ initialize_with_readme: true }, u.token);
    const branch = { branch: 'f', start_branch: 'main', commit_message: 'Add f', actions: [{ action: 'create', file_path: 'f.txt', content: 'f' }] };
    expect((await s.post(`/projects/${p.id}/repository/commits`, branch, { token: u.token })).status).toBe(201);
    const mr = (await s.post(`/projects/${p.id}/merge_requests`, { source_branch: 'f', target_branch: 'main', title: 'Feature' }, { token: u.token })).body;
    await s.post(`/projects/${p.id}/merge_requests/${mr.iid}/discussions`, { body: 'thread' }, { token: u.token });
    await s.post(`/projects/${p.id}/merge_requests/${mr.iid}/notes`, { body: 'plain' }, { token: u.token });
    expect((await lists(p.id, u)).project.filter((r) => r[2] === 'Feature')).toEqual([
      ['opened', 'MergeRequest', 'Feature'],
      ['commented on', 'DiscussionNote', 'Feature'],
      ['commented on', 'Note', 'Feature'],
    ]);
    expect((await s.del(`/projects/${p.id}/merge_requests/${mr.iid}`, { token: u.token })).status).toBe(204);
    const after = await lists(p.id, u);
    expect(after.project.filter((r) => r[2] === 'Feature')).toEqual([['destroyed', 'MergeRequest', 'Feature']]);
    expect(after.mine).toEqual(after.project);
  });

  it("a deleted snippet's comments leave no events behind", async () => {
    const u = await s.createUser();
    const p = await s.createProject({}, u.token);
    const snippet = (await s.post(`/projects/${p.id}/snippets`, { title: 'Snip', file_name: 'a.rb', content: 'x', visibility: 'private' }, { token: u.token })).body;
    await s.post(`/projects/${p.id}/snippets/${snippet.id}/notes`, { body: 'nice' }, { token: u.token });
    expect((await lists(p.id, u)).project).toEqual([
      ['created', null, null],
      ['commented on', 'Note', 'Snip'],
    ]);
    expect((await s.del(`/projects/${p.id}/snippets/${snippet.id}`, { token: u.token })).status).toBe(204);
    const expected: Row[] = [['created', null, null]];
    expect(await lists(p.id, u)).toEqual({ project: expected, mine: expected, theirs: expected, total: '1' });
  });
});

// Event#target_title is target.try(:title), read live (a note's title is its noteable's): a renamed
// issue, merge request or milestone shows its new title on its events and its comments' events.
describe('events of renamed targets', () => {
  it('show the issue, merge request and milestone as now named, their comments too, in every list', async () => {
    const u = await s.createUser();
    const p = await s.createProject({ initialize_with_readme: true }, u.token);
    const issue = (await s.post(`/projects/${p.id}/issues`, { title: 'Bug' }, { token: u.token })).body;
    const other = (await s.post(`/projects/${p.id}/issues`, { title: 'Other' }, { token: u.token })).body;
    await s.post(`/projects/${p.id}/issues/${issue.iid}/notes`, { body: 'on bug' }, { token: u.token });
    await s.post(`/projects/${p.id}/issues/${other.iid}/notes`, { body: 'on other' }, { token: u.token });
    const branch = { branch: 'f', start_branch: 'main', commit_message: 'Add f', actions: [{ action: 'create', file_path: 'f.txt', content: 'f' }] };
    expect((await s.post(`/projects/${p.id}/repository/commits`, branch, { token: u.token })).status).toBe(201);
    const mr = (await s.post(`/projects/${p.id}/merge_requests`, { source_branch: 'f', target_branch: 'main', title: 'Feature' }, { token: u.token })).body;
    await s.post(`/projects/${p.id}/merge_requests/${mr.iid}/discussions`, { body: 'thread' }, { token: u.token });
    const milestone = (await s.post(`/projects/${p.id}/milestones`, { title: 'v1' }, { token: u.token })).body;
    await s.put(`/projects/${p.id}/milestones/${milestone.id}`, { state_event: 'close' }, { token: u.token });
    const titled = (bug: string, feature: string, v1: string): Row[] => [
      ['created', null, null],
      ['pushed new', null, null],
      ['opened', 'Issue', bug],
      ['opened', 'Issue', 'Other'],
      ['commented on', 'Note', bug],
      ['commented on', 'Note', 'Other'],
      ['pushed new', null, null],
      ['opened', 'MergeRequest', feature],
      ['commented on', 'DiscussionNote', feature],
      ['opened', 'Milestone', v1],
      ['closed', 'Milestone', v1],
    ];
    const before = titled('Bug', 'Feature', 'v1');
    expect(await lists(p.id, u)).toEqual({ project: before, mine: before, theirs: before, total: '11' });
    // Read once before: what a list kept must learn of each rename. A write without a new title changes nothing.
    await s.put(`/projects/${p.id}/issues/${issue.iid}`, { title: 'Bug', description: 'same title' }, { token: u.token });
    expect((await lists(p.id, u)).project).toEqual(before);
    await s.put(`/projects/${p.id}/issues/${issue.iid}`, { title: 'Bug, renamed' }, { token: u.token });
    const afterIssue = titled('Bug, renamed', 'Feature', 'v1');
    expect(await lists(p.id, u)).toEqual({ project: afterIssue, mine: afterIssue, theirs: afterIssue, total: '11' });
    await s.put(`/projects/${p.id}/merge_requests/${mr.iid}`, { title: 'Feature, renamed' }, { token: u.token });
    await s.put(`/projects/${p.id}/milestones/${milestone.id}`, { title: 'v2' }, { token: u.token });
    const after = titled('Bug, renamed', 'Feature, renamed', 'v2');
    expect(await lists(p.id, u)).toEqual({ project: after, mine: after, theirs: after, total: '11' });
    // The filtered lists and a single project's page of one target type read the same rows.
    expect(rows((await s.get(`/projects/${p.id}/events`, { token: u.token, query: { target_type: 'merge_request' } })).body)).toEqual([['opened', 'MergeRequest', 'Feature, renamed']]);
    expect(rows((await s.get('/events', { token: u.token, query: { action: 'commented', sort: 'asc' } })).body).map((r) => r[2])).toEqual(['Bug, renamed', 'Other', 'Feature, renamed']);
  });

  it("show a project snippet's comments under the snippet's new title after a rename", async () => {
    const u = await s.createUser();
    const p = await s.createProject({}, u.token);
    const snippet = (await s.post(`/projects/${p.id}/snippets`, { title: 'Notes', visibility: 'private', files: [{ file_path: 'a.txt', content: 'a' }] }, { token: u.token })).body;
    const other = (await s.post(`/projects/${p.id}/snippets`, { title: 'Other', visibility: 'private', files: [{ file_path: 'b.txt', content: 'b' }] }, { token: u.token })).body;
    await s.post(`/projects/${p.id}/snippets/${snippet.id}/notes`, { body: 'first' }, { token: u.token });
    await s.post(`/projects/${p.id}/snippets/${other.id}/notes`, { body: 'second' }, { token: u.token });
    const titled = (notes: string): Row[] => [
      ['created', null, null],
      ['commented on', 'Note', notes],
      ['commented on', 'Note', 'Other'],
    ];
    expect(await lists(p.id, u)).toEqual({ project: titled('Notes'), mine: titled('Notes'), theirs: titled('Notes'), total: '3' });
    // A write that keeps the title changes nothing; a rename shows in every list read before it.
    expect((await s.put(`/projects/${p.id}/snippets/${snippet.id}`, { title: 'Notes', description: 'same title' }, { token: u.token })).status).toBe(200);
    expect((await lists(p.id, u)).project).toEqual(titled('Notes'));
    expect((await s.put(`/projects/${p.id}/snippets/${snippet.id}`, { title: 'Notes, renamed' }, { token: u.token })).status).toBe(200);
    const after = titled('Notes, renamed');
    expect(await lists(p.id, u)).toEqual({ project: after, mine: after, theirs: after, total: '3' });
    expect(rows((await s.get(`/projects/${p.id}/events`, { token: u.token, query: { target_type: 'note', sort: 'asc' } })).body)).toEqual(after.slice(1));
  });
});
