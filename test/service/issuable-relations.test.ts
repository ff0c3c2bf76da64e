import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

let s: TestService;
let project: any;
let other: any;
let dev: { user: any; token: string };
let outsider: { user: any; token: string };

beforeAll(async () => {
  s = await TestService.start();
  dev = await s.createUser({ username: 'devuser' });
  outsider = await s.createUser();
  project = await s.createProject({ name: 'tracker', initialize_with_readme: true });
  other = await s.createProject({ name: 'elsewhere' });
  await s.addMember('projects', project.id, dev.user.id, 30);
});
afterAll(async () => s.stop());

const newIssue = async (title: string, extra: Record<string, unknown> = {}, p = project) => (await s.post(`/projects/${p.id}/issues`, { title, ...extra })).body;

describe('issue links', () => {
  it('links two issues, lists them from both sides with the link fields, and unlinks', async () => {
    const a = await newIssue('A');
    const b = await newIssue('B');
    const created = await s.post(`/projects/${project.id}/issues/${a.iid}/links`, { target_project_id: project.id, target_issue_iid: b.iid });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body)).toEqual(['source_issue', 'target_issue', 'link_type']);
    expect(created.body).toMatchObject({ source_issue: { id: a.id }, target_issue: { id: b.id }, link_type: 'relates_to' });
    const fromA = await s.get(`/projects/${project.id}/issues/${a.iid}/links`);
    expect(fromA.body.map((i: any) => [i.iid, i.link_type])).toEqual([[b.iid, 'relates_to']]);
    expect(fromA.body[0]).toHaveProperty('issue_link_id');
    expect(fromA.body[0]).toHaveProperty('link_created_at');
    const fromB = await s.get(`/projects/${project.id}/issues/${b.iid}/links`);
    expect(fromB.body.map((i: any) => i.iid)).toEqual([a.iid]);
    const linkId = fromA.body[0].issue_link_id;
    expect((await s.get(`/projects/${project.id}/issues/${a.iid}/links/${linkId}`)).body.link_type).toBe('relates_to');
    const again = await s.post(`/projects/${project.id}/issues/${b.iid}/links`, { target_project_id: project.id, target_issue_iid: a.iid });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ message: 'Issue(s) already assigned' });
    const notes = await s.get(`/projects/${project.id}/issues/${a.iid}/notes`);
    expect(notes.body.some((n: any) => n.system && n.body === `marked this issue as related to #${b.iid}`)).toBe(true);
    const del = await s.del(`/projects/${project.id}/issues/${a.iid}/links/${linkId}`);
    expect(del.status).toBe(200);
    expect(del.body.link_type).toBe('relates_to');
    expect((await s.get(`/projects/${project.id}/issues/${a.iid}/links`)).body).toEqual([]);
    expect((await s.get(`/projects/${project.id}/issues/${a.iid}/links/${linkId}`)).body).toEqual({ message: '404 Not found' });
  });

  it('keeps "is_blocked_by" as the other issue blocking this one, across projects', async () => {
    const a = await newIssue('blocked');
    const c = await newIssue('blocker', {}, other);
    const res = await s.post(`/projects/${project.id}/issues/${a.iid}/links`, {
      target_project_id: other.path_with_namespace,
      target_issue_iid: c.iid,
      link_type: 'is_blocked_by',
    });
    expect(res.body).toMatchObject({ source_issue: { id: c.id }, target_issue: { id: a.id }, link_type: 'blocks' });
    expect((await s.get(`/projects/${project.id}/issues/${a.iid}/links`)).body.map((i: any) => i.link_type)).toEqual(['is_blocked_by']);
    expect((await s.get(`/projects/${other.id}/issues/${c.iid}/links`)).body.map((i: any) => i.link_type)).toEqual(['blocks']);
    expect((await s.post(`/projects/${project.id}/issues/${a.iid}/links`, { target_project_id: project.id, target_issue_iid: 999 })).body).toEqual({ message: '404 Not found' });
    expect((await s.post(`/projects/${project.id}/issues/${a.iid}/links`, { target_project_id: project.id })).body).toEqual({ error: 'target_issue_iid is missing' });
    expect((await s.post(`/projects/${project.id}/issues/${a.iid}/links`, { target_project_id: project.id, target_issue_iid: c.iid, link_type: 'duplicates' })).body).toEqual({
      error: 'link_type does not have a valid value',
    });
    expect((await s.get(`/projects/${project.id}/issues/${a.iid}/links`, { token: null })).status).toBe(401);
  });
});

describe('participants, closing and related merge requests', () => {
  it('lists the author, assignees, commenters and mentioned users once each', async () => {
    const i = await newIssue('who', { assignee_ids: [dev.user.id], description: 'cc @root' });
    await s.post(`/projects/${project.id}/issues/${i.iid}/notes`, { body: 'me too' }, { token: dev.token });
    const res = await s.get(`/projects/${project.id}/issues/${i.iid}/participants`);
    expect(res.status).toBe(200);
    // GitLab's order: assignees, commenters, the author, the mentioned (see participants-order.test.ts).
    expect(res.body.map((u: any) => u.username)).toEqual(['devuser', 'root']);
    expect(Object.keys(res.body[0])).toEqual(['id', 'username', 'name', 'state', 'locked', 'avatar_url', 'web_url']);
  });

  it('tracks the issues a merge request closes: closed_by, closes_issues, related_merge_requests, merge_requests_count', async () => {
    const i1 = await newIssue('fix me');
    const i2 = await newIssue('me too');
    const mentioned = await newIssue('just mentioned');
    const mr = (
      await s.post(`/projects/${project.id}/merge_requests`, {
        title: 'Fix things',
        source_branch: 'fix',
        target_branch: 'main',
        description: `Closes #${i1.iid} and #${i2.iid}. See also #${mentioned.iid}`,
      })
    ).body;
    expect((await s.get(`/projects/${project.id}/merge_requests/${mr.iid}/closes_issues`)).body.map((i: any) => i.iid)).toEqual([i1.iid, i2.iid]);
    const closedBy = await s.get(`/projects/${project.id}/issues/${i1.iid}/closed_by`);
    expect(closedBy.body.map((m: any) => m.iid)).toEqual([mr.iid]);
    expect((await s.get(`/projects/${project.id}/issues/${i1.iid}`)).body.merge_requests_count).toBe(1);
    expect((await s.get(`/projects/${project.id}/issues/${mentioned.iid}/closed_by`)).body).toEqual([]);
    const related = await s.get(`/projects/${project.id}/issues/${mentioned.iid}/related_merge_requests`);
    expect(related.body.map((m: any) => m.iid)).toEqual([mr.iid]);
    expect(related.body[0]).toHaveProperty('diff_refs');
    expect((await s.get(`/projects/${project.id}/merge_requests/${mr.iid}/related_issues`)).body.map((i: any) => i.iid)).toEqual([i1.iid, i2.iid, mentioned.iid]);
    await s.put(`/projects/${project.id}/merge_requests/${mr.iid}`, { description: 'Nothing closes now' });
    expect((await s.get(`/projects/${project.id}/issues/${i1.iid}/closed_by`)).body).toEqual([]);
  });
});

describe('subscriptions and to-dos', () => {
  it('subscribes and unsubscribes, 304 when nothing changes; participants start subscribed', async () => {
    const i = await newIssue('watch');
    expect((await s.get(`/projects/${project.id}/issues/${i.iid}`)).body.subscribed).toBe(true);
    expect((await s.get(`/projects/${project.id}/issues/${i.iid}`, { token: dev.token })).body.subscribed).toBe(false);
    const sub = await s.post(`/projects/${project.id}/issues/${i.iid}/subscribe`, undefined, { token: dev.token });
    expect(sub.status).toBe(201);
    expect(sub.body.subscribed).toBe(true);
    expect((await s.post(`/projects/${project.id}/issues/${i.iid}/subscribe`, undefined, { token: dev.token })).status).toBe(304);
    const unsub = await s.post(`/projects/${project.id}/issues/${i.iid}/unsubscribe`, undefined, { token: dev.token });
    expect(unsub.body.subscribed).toBe(false);
    expect((await s.post(`/projects/${project.id}/issues/${i.iid}/unsubscribe`)).body.subscribed).toBe(false);
    const mr = (await s.post(`/projects/${project.id}/merge_requests`, { title: 'w', source_branch: 'w', target_branch: 'main' })).body;
    expect((await s.post(`/projects/${project.id}/merge_requests/${mr.iid}/unsubscribe`)).status).toBe(201);
    expect((await s.get(`/projects/${project.id}/issues`)).body[0]).not.toHaveProperty('subscribed');
  });

  it('marks a to-do, lists and finishes to-dos, and creates them for assignees and mentions', async () => {
    const i = await newIssue('todo target');
    const marked = await s.post(`/projects/${project.id}/issues/${i.iid}/todo`);
    expect(marked.status).toBe(201);
    expect(Object.keys(marked.body)).toEqual([
      'id', 'project', 'author', 'action_name', 'target_type', 'target', 'target_url', 'body', 'state', 'created_at', 'updated_at',
    ]);
    expect(marked.body).toMatchObject({
      action_name: 'marked',
      target_type: 'Issue',
      target: { iid: i.iid },
      target_url: `${s.url}/${project.path_with_namespace}/-/issues/${i.iid}`,
      body: 'todo target',
      state: 'pending',
      project: { id: project.id, path_with_namespace: project.path_with_namespace },
    });
    expect((await s.post(`/projects/${project.id}/issues/${i.iid}/todo`)).status).toBe(304);
    await s.post('/todos/mark_as_done', undefined, { token: dev.token });
    await newIssue('assigned to dev', { assignee_ids: [dev.user.id] });
    await newIssue('mentions dev', { description: 'please look @devuser' });
    const devTodos = await s.get('/todos', { token: dev.token });
    expect(devTodos.body.map((t: any) => [t.action_name, t.body])).toEqual([
      ['mentioned', 'mentions dev'],
      ['assigned', 'assigned to dev'],
    ]);
    expect((await s.get('/todos', { token: dev.token, query: { action: 'assigned' } })).body.length).toBe(1);
    expect((await s.get('/todos', { token: dev.token, query: { action: 'bogus' } })).body).toEqual({ error: 'action does not have a valid value' });
    const done = await s.post(`/todos/${devTodos.body[0].id}/mark_as_done`, undefined, { token: dev.token });
    expect(done.status).toBe(201);
    expect(done.body.state).toBe('done');
    expect((await s.post(`/todos/${devTodos.body[0].id}/mark_as_done`)).body).toEqual({ message: '404 Not found' });
    expect((await s.get('/todos', { token: dev.token, query: { state: 'done' } })).body.map((t: any) => t.id)).toContain(devTodos.body[0].id);
    expect((await s.post('/todos/mark_as_done', undefined, { token: dev.token })).status).toBe(204);
    expect((await s.get('/todos', { token: dev.token })).body).toEqual([]);
    expect((await s.get('/todos', { token: null })).status).toBe(401);
  });

  it('closing an issue settles its to-dos', async () => {
    const i = await newIssue('closing');
    await s.post(`/projects/${project.id}/issues/${i.iid}/todo`, undefined, { token: dev.token });
    await s.put(`/projects/${project.id}/issues/${i.iid}`, { state_event: 'close' });
    expect((await s.get('/todos', { token: dev.token })).body).toEqual([]);
  });
});

describe('resource label, state and weight events', () => {
  it('records label adds and removes (creating missing project labels), state changes and weights', async () => {
    const i = await newIssue('eventful', { labels: 'bug' });
    await s.put(`/projects/${project.id}/issues/${i.iid}`, { labels: 'feature', weight: 13 });
    await s.put(`/projects/${project.id}/issues/${i.iid}`, { state_event: 'close' });
    await s.put(`/projects/${project.id}/issues/${i.iid}`, { state_event: 'reopen' });
    const labels = await s.get(`/projects/${project.id}/issues/${i.iid}/resource_label_events`);
    expect(labels.body.map((e: any) => [e.action, e.label.name])).toEqual([
      ['add', 'bug'],
      ['add', 'feature'],
      ['remove', 'bug'],
    ]);
    expect(Object.keys(labels.body[0])).toEqual(['id', 'user', 'created_at', 'resource_type', 'resource_id', 'label', 'action']);
    expect((await s.get(`/projects/${project.id}/issues/${i.iid}/resource_label_events/${labels.body[0].id}`)).body).toEqual(labels.body[0]);
    expect((await s.get(`/projects/${project.id}/labels`)).body.map((l: any) => l.name)).toEqual(expect.arrayContaining(['bug', 'feature']));
    const states = await s.get(`/projects/${project.id}/issues/${i.iid}/resource_state_events`);
    expect(states.body.map((e: any) => e.state)).toEqual(['closed', 'reopened']);
    expect(Object.keys(states.body[0])).toEqual(['id', 'user', 'created_at', 'resource_type', 'resource_id', 'source_commit', 'source_merge_request_id', 'state']);
    const weights = await s.get(`/projects/${project.id}/issues/${i.iid}/resource_weight_events`);
    expect(weights.body.map((e: any) => [e.issue_id, e.weight])).toEqual([[i.id, 13]]);
    await s.post(`/projects/${project.id}/repository/commits`, { branch: 'ev', start_branch: 'main', commit_message: 'Ev', actions: [{ action: 'create', file_path: 'ev.txt', content: 'ev' }] });
    const mr = (await s.post(`/projects/${project.id}/merge_requests`, { title: 'm', source_branch: 'ev', target_branch: 'main', labels: 'bug' })).body;
    await s.put(`/projects/${project.id}/merge_requests/${mr.iid}/merge`);
    expect((await s.get(`/projects/${project.id}/merge_requests/${mr.iid}/resource_state_events`)).body.map((e: any) => e.state)).toEqual(['merged']);
    expect((await s.get(`/projects/${project.id}/merge_requests/${mr.iid}/resource_label_events`)).body.map((e: any) => e.label.name)).toEqual(['bug']);
    expect((await s.get(`/projects/${project.id}/issues/${i.iid}/resource_label_events`, { token: outsider.token })).status).toBe(404);
  });

  // EE CommonSystemNotesService#handle_weight_change runs on create too (is_update false): its spec's
  // 'on issuable create' expects a ResourceWeightEvent for a new issue with a weight.
  it('records a weight event for an issue created with a weight, zero too, and none without one', async () => {
    const weights = async (iid: number) =>
      (await s.get(`/projects/${project.id}/issues/${iid}/resource_weight_events`)).body.map((e: any) => [e.weight, e.user.id]);
    const heavy = await s.post(`/projects/${project.id}/issues`, { title: 'heavy', weight: 5 }, { token: dev.token });
    expect(await weights(heavy.body.iid)).toEqual([[5, dev.user.id]]);
    const zero = await newIssue('zero', { weight: 0 });
    expect((await weights(zero.iid)).map((e: unknown[]) => e[0])).toEqual([0]);
    const none = await newIssue('none');
    expect(await weights(none.iid)).toEqual([]);
    await s.put(`/projects/${project.id}/issues/${heavy.body.iid}`, { weight: 8 });
    await s.put(`/projects/${project.id}/issues/${none.iid}`, { weight: 2 });
    expect((await weights(heavy.body.iid)).map((e: unknown[]) => e[0])).toEqual([5, 8]);
    expect((await weights(none.iid)).map((e: unknown[]) => e[0])).toEqual([2]);
  });
});
