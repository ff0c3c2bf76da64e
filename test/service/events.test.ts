import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s.stop());

describe('activity events', () => {
  it('has no events for a fresh user', async () => {
    const u = await s.createUser();
    const res = await s.get(`/users/${u.user.id}/events`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    expect((await s.get('/events', { token: u.token })).body).toEqual([]);
  });

  it('records project, issue, merge request and note activity with GitLab\'s action names', async () => {
    const u = await s.createUser();
    const p = await s.createProject({ initialize_with_readme: true }, u.token);
    const issue = (await s.post(`/projects/${p.id}/issues`, { title: 'Bug' }, { token: u.token })).body;
    await s.put(`/projects/${p.id}/issues/${issue.iid}`, { state_event: 'close' }, { token: u.token });
    await s.put(`/projects/${p.id}/issues/${issue.iid}`, { state_event: 'reopen' }, { token: u.token });
    const note = (await s.post(`/projects/${p.id}/issues/${issue.iid}/notes`, { body: 'hi' }, { token: u.token })).body;
    const branch = { branch: 'f', start_branch: 'main', commit_message: 'Add f', actions: [{ action: 'create', file_path: 'f.txt', content: 'f' }] };
    expect((await s.post(`/projects/${p.id}/repository/commits`, branch, { token: u.token })).status).toBe(201);
    const mr = (await s.post(`/projects/${p.id}/merge_requests`, { source_branch: 'f', target_branch: 'main', title: 'Feature' }, { token: u.token })).body;
    await s.put(`/projects/${p.id}/merge_requests/${mr.iid}/merge`, {}, { token: u.token });
    const res = await s.get(`/projects/${p.id}/events`, { token: u.token, query: { sort: 'asc' } });
    expect(res.status).toBe(200);
    expect(res.body.map((e: any) => [e.action_name, e.target_type])).toEqual([
      ['created', null],
      ['pushed new', null],
      ['opened', 'Issue'],
      ['closed', 'Issue'],
      ['opened', 'Issue'],
      ['commented on', 'Note'],
      ['pushed new', null],
      ['opened', 'MergeRequest'],
      ['accepted', 'MergeRequest'],
      ['pushed to', null],
    ]);
    const opened = res.body[2];
    expect(opened).toEqual({
      id: expect.any(Number),
      title: null,
      project_id: p.id,
      action_name: 'opened',
      target_id: issue.id,
      target_iid: issue.iid,
      target_type: 'Issue',
      author_id: u.user.id,
      target_title: 'Bug',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      author: { id: u.user.id, username: u.user.username, name: u.user.name, state: 'active', locked: false, avatar_url: null, web_url: expect.any(String) },
      author_username: u.user.username,
      imported: false,
      imported_from: 'none',
    });
    const commented = res.body[5];
    expect(commented.target_id).toBe(note.id);
    expect(commented.target_iid).toBeNull();
    expect(commented.note).toMatchObject({ id: note.id, body: 'hi', system: false, noteable_id: issue.id, noteable_type: 'Issue', noteable_iid: issue.iid });
    expect(commented.note).toHaveProperty('attachment', null);
    expect(res.body[0]).not.toHaveProperty('note');
    expect(res.body[0]).not.toHaveProperty('push_data');
  });

  it('filters by action, target_type, before, after and sorts newest first by default', async () => {
    const u = await s.createUser();
    const p = await s.createProject({}, u.token);
    await s.post(`/projects/${p.id}/issues`, { title: 'A' }, { token: u.token });
    await s.post(`/projects/${p.id}/issues`, { title: 'B' }, { token: u.token });
    const all = (await s.get('/events', { token: u.token })).body;
    expect(all.map((e: any) => e.target_title)).toEqual(['B', 'A', null]);
    expect((await s.get('/events', { token: u.token, query: { action: 'created', target_type: 'issue' } })).body).toHaveLength(2);
    expect((await s.get('/events', { token: u.token, query: { target_type: 'merge_request' } })).body).toEqual([]);
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86400_000).toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86400_000).toISOString().slice(0, 10);
    expect((await s.get('/events', { token: u.token, query: { before: today } })).body).toEqual([]);
    expect((await s.get('/events', { token: u.token, query: { before: tomorrow, after: yesterday } })).body).toHaveLength(3);
    expect((await s.get('/events', { token: u.token, query: { after: today } })).body).toEqual([]);
    const bad = await s.get('/events', { token: u.token, query: { action: 'exploded' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'action does not have a valid value' });
    expect((await s.get('/events', { token: u.token, query: { target_type: 'galaxy' } })).body).toEqual({ error: 'target_type does not have a valid value' });
    expect((await s.get('/events', { token: u.token, query: { before: 'soon' } })).body).toEqual({ error: 'before is invalid' });
  });

  it('paginates with GitLab headers', async () => {
    const u = await s.createUser();
    const p = await s.createProject({}, u.token);
    for (let i = 0; i < 4; i++) await s.post(`/projects/${p.id}/issues`, { title: `i${i}` }, { token: u.token });
    const res = await s.get(`/users/${u.user.username}/events`, { query: { per_page: 2, page: 2 } });
    expect(res.body).toHaveLength(2);
    expect(res.headers.get('x-total')).toBe('5');
    expect(res.headers.get('x-next-page')).toBe('3');
    expect(res.headers.get('link')).toContain('rel="next"');
  });

  it('shows the caller\'s own events on /events and all of their projects\' with scope=all', async () => {
    const owner = await s.createUser();
    const mate = await s.createUser();
    const p = await s.createProject({}, owner.token);
    await s.addMember('projects', p.id, mate.user.id, 30);
    await s.post(`/projects/${p.id}/issues`, { title: 'by mate' }, { token: mate.token });
    const own = (await s.get('/events', { token: owner.token })).body;
    expect(own.every((e: any) => e.author_id === owner.user.id)).toBe(true);
    const all = (await s.get('/events', { token: owner.token, query: { scope: 'all' } })).body;
    expect(all.some((e: any) => e.author_id === mate.user.id && e.target_title === 'by mate')).toBe(true);
  });

  it('hides events of private projects from those who cannot see them', async () => {
    const owner = await s.createUser();
    const stranger = await s.createUser();
    const secret = await s.createProject({ visibility: 'private' }, owner.token);
    const open = await s.createProject({ visibility: 'public' }, owner.token);
    await s.post(`/projects/${secret.id}/issues`, { title: 'hidden' }, { token: owner.token });
    await s.post(`/projects/${open.id}/issues`, { title: 'visible' }, { token: owner.token });
    const seen = (await s.get(`/users/${owner.user.id}/events`, { token: stranger.token })).body;
    expect(seen.map((e: any) => e.project_id).every((id: number) => id === open.id)).toBe(true);
    expect(seen.some((e: any) => e.target_title === 'visible')).toBe(true);
    expect((await s.get(`/projects/${secret.id}/events`, { token: stranger.token })).status).toBe(404);
    expect((await s.get(`/projects/${open.id}/events`, { token: null })).status).toBe(200);
    const mine = (await s.get(`/users/${owner.user.id}/events`, { token: owner.token })).body;
    expect(mine.some((e: any) => e.target_title === 'hidden')).toBe(true);
  });

  it('hides internal notes from those below Planner', async () => {
    const owner = await s.createUser();
    const p = await s.createProject({ visibility: 'public' }, owner.token);
    const issue = (await s.post(`/projects/${p.id}/issues`, { title: 'i' }, { token: owner.token })).body;
    await s.post(`/projects/${p.id}/issues/${issue.iid}/notes`, { body: 'psst', internal: true }, { token: owner.token });
    const outsider = await s.createUser();
    const events = (await s.get(`/projects/${p.id}/events`, { token: outsider.token, query: { action: 'commented' } })).body;
    expect(events).toEqual([]);
    expect((await s.get(`/projects/${p.id}/events`, { token: owner.token, query: { action: 'commented' } })).body).toHaveLength(1);
  });

  it('answers 200 [] for a private profile and 404 for an unknown user', async () => {
    const shy = await s.createUser({ private_profile: true });
    await s.createProject({ visibility: 'public' }, shy.token);
    const other = await s.createUser();
    expect((await s.get(`/users/${shy.user.id}/events`, { token: other.token })).body).toEqual([]);
    expect((await s.get(`/users/${shy.user.id}/events`, { token: shy.token })).body).toHaveLength(1);
    const missing = await s.get('/users/nobody_here/events');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 User Not Found' });
  });

  it('accepts read_user tokens and refuses anonymous callers on /events', async () => {
    const u = await s.createUser({}, ['read_user']);
    expect((await s.get('/events', { token: u.token })).status).toBe(200);
    expect((await s.get(`/users/${u.user.id}/events`, { token: u.token })).status).toBe(200);
    expect((await s.get('/events', { token: null })).status).toBe(401);
  });

  it('records joined and left for project members', async () => {
    const u = await s.createUser();
    const p = await s.createProject();
    await s.addMember('projects', p.id, u.user.id, 30);
    await s.del(`/projects/${p.id}/members/${u.user.id}`);
    const res = (await s.get(`/projects/${p.id}/events`, { query: { sort: 'asc' } })).body;
    expect(res.slice(-2).map((e: any) => [e.action_name, e.author_id])).toEqual([
      ['joined', u.user.id],
      ['left', u.user.id],
    ]);
  });
});
