import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, TestService } from '../helpers/service';

/**
 * The participants endpoints' order, as GitLab's Participable#raw_participants builds it: the
 * record's participant attributes (Issuable `:author, :notes_with_associations, :assignees`,
 * MergeRequest `:reviewers`) walked as a stack, so reviewers, assignees, the notes' authors in note
 * order (a system note's author too), the author; then the users mentioned, internal notes' first,
 * then the title, the description and the other notes in order. Each user once.
 */
let s: TestService;
let project: { id: number };
const users: Record<string, { user: { id: number; username: string }; token: string }> = {};

beforeAll(async () => {
  s = await TestService.start();
  for (const name of ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'grace', 'heidi', 'ivan', 'judy', 'guest']) users[name] = await s.createUser({ username: name });
  project = ok(await s.post('/projects', { name: 'who', visibility: 'public' }));
  for (const name of ['alice', 'bob', 'carol', 'dave', 'erin', 'frank']) await s.addMember('projects', project.id, users[name].user.id, 30);
  await s.addMember('projects', project.id, users.guest.user.id, 10);
}, 60_000);
afterAll(async () => s?.stop());

const as = (name: string) => ({ token: users[name].token });
const names = async (path: string, token?: string): Promise<string[]> => {
  const res = await s.get(path, { token, query: { per_page: '100' } });
  expect(res.status).toBe(200);
  return (res.body as { username: string }[]).map((u) => u.username);
};

describe('participants order', () => {
  it("an issue's: assignees, commenters in note order (a system note's author, internal notes for Planners), the author, then mentions (internal notes' first)", async () => {
    const issue = ok(await s.post(`/projects/${project.id}/issues`, { title: 'Ask @heidi', description: 'cc @ivan and @alice', assignee_ids: [users.bob.user.id, users.carol.user.id] }, as('alice')));
    const other = ok(await s.post(`/projects/${project.id}/issues`, { title: 'other' }, as('alice')));
    const notes = `/projects/${project.id}/issues/${issue.iid}/notes`;
    ok(await s.post(notes, { body: 'first' }, as('dave')));
    ok(await s.post(notes, { body: 'the author answers' }, as('alice')));
    ok(await s.post(notes, { body: 'an assignee answers' }, as('bob')));
    // A system note ("marked this issue as related to"), by someone not yet listed.
    ok(await s.post(`/projects/${project.id}/issues/${issue.iid}/links`, { target_project_id: project.id, target_issue_iid: other.iid }, as('erin')));
    ok(await s.post(notes, { body: 'private: ask @grace', internal: true }, as('frank')));
    ok(await s.post(notes, { body: 'and @judy' }, as('dave')));
    const path = `/projects/${project.id}/issues/${issue.iid}/participants`;
    // grace, mentioned only in the internal note, cannot read internal notes (not a member): not a participant.
    expect(await names(path)).toEqual(['bob', 'carol', 'dave', 'alice', 'erin', 'frank', 'heidi', 'ivan', 'judy']);
    // Without internal notes: their author and their mentions are not participants.
    expect(await names(path, users.guest.token)).toEqual(['bob', 'carol', 'dave', 'alice', 'erin', 'heidi', 'ivan', 'judy']);
    // Paged in that order.
    const page = await s.get(path, { query: { per_page: '3', page: '2' } });
    expect((page.body as { username: string }[]).map((u) => u.username)).toEqual(['alice', 'erin', 'frank']);
    expect(page.headers.get('x-total')).toBe('9');
  });

  it('the author after the commenters, before the mentioned, with no assignee', async () => {
    const issue = ok(await s.post(`/projects/${project.id}/issues`, { title: 'solo', description: '@ivan look' }, as('carol')));
    const path = `/projects/${project.id}/issues/${issue.iid}/participants`;
    expect(await names(path)).toEqual(['carol', 'ivan']);
    ok(await s.post(`/projects/${project.id}/issues/${issue.iid}/notes`, { body: 'on it' }, as('bob')));
    expect(await names(path)).toEqual(['bob', 'carol', 'ivan']);
  });

  it("a merge request's: reviewers, assignees, commenters, the author, then mentions", async () => {
    const mr = ok(
      await s.post(
        `/projects/${project.id}/merge_requests`,
        { title: 'Fix for @ivan', source_branch: 'fix', target_branch: 'main', assignee_ids: [users.carol.user.id], reviewer_ids: [users.dave.user.id, users.bob.user.id] },
        as('alice'),
      ),
    );
    ok(await s.post(`/projects/${project.id}/merge_requests/${mr.iid}/notes`, { body: 'looks good, @heidi?' }, as('erin')));
    ok(await s.post(`/projects/${project.id}/merge_requests/${mr.iid}/notes`, { body: 'thanks' }, as('alice')));
    expect(await names(`/projects/${project.id}/merge_requests/${mr.iid}/participants`)).toEqual(['dave', 'bob', 'carol', 'erin', 'alice', 'ivan', 'heidi']);
  });

  it("users mentioned in internal notes count only if they can read internal notes (a Planner or more); users who cannot read the project never", async () => {
    const priv = ok(await s.post('/projects', { name: 'hidden', visibility: 'private' }));
    for (const name of ['alice', 'bob']) await s.addMember('projects', priv.id, users[name].user.id, 30);
    await s.addMember('projects', priv.id, users.carol.user.id, 15);
    await s.addMember('projects', priv.id, users.guest.user.id, 10);
    const issue = ok(await s.post(`/projects/${priv.id}/issues`, { title: 'private', description: 'cc @heidi (not a member) and @guest' }, as('alice')));
    const notes = `/projects/${priv.id}/issues/${issue.iid}/notes`;
    ok(await s.post(notes, { body: 'internal: @carol @guest @ivan @root', internal: true }, as('bob')));
    const path = `/projects/${priv.id}/issues/${issue.iid}/participants`;
    // carol (Planner) and root (administrator) read internal notes; guest (Guest) is listed for the description's mention; ivan and heidi cannot read the project.
    expect(await names(path)).toEqual(['bob', 'alice', 'carol', 'root', 'guest']);
    expect(await names(path, users.alice.token)).toEqual(['bob', 'alice', 'carol', 'root', 'guest']);
    // The guest reads no internal note: neither its author nor its mentions.
    expect(await names(path, users.guest.token)).toEqual(['alice', 'guest']);
    // subscribed (participant?): a mention in an internal note subscribes only a user who could read it.
    const pub = ok(await s.post(`/projects/${project.id}/issues`, { title: 'subs' }, as('alice')));
    ok(await s.post(`/projects/${project.id}/issues/${pub.iid}/notes`, { body: 'internal: @guest @dave', internal: true }, as('bob')));
    const subscribed = async (name: string) => ok(await s.get(`/projects/${project.id}/issues/${pub.iid}`, as(name))).subscribed;
    expect(await subscribed('dave')).toBe(true);
    expect(await subscribed('guest')).toBe(false);
  });
});
