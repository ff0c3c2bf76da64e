import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

describe('core fidelity audit: notes, issue and merge request updates', () => {
  let s: TestService;
  let project: any;
  let issueIid: number;
  let mrIid: number;

  beforeAll(async () => {
    s = await TestService.start();
    project = await s.createProject();
    issueIid = (await s.post(`/projects/${project.id}/issues`, { title: 'Audit issue' })).body.iid;
    mrIid = (await s.post(`/projects/${project.id}/merge_requests`, { title: 'Audit MR', source_branch: 'feature', target_branch: 'main' })).body.iid;
  });
  afterAll(() => s.stop());

  it('answers a blank note body on create with the "Note {...}" bad request string', async () => {
    for (const kind of [`issues/${issueIid}`, `merge_requests/${mrIid}`]) {
      const res = await s.post(`/projects/${project.id}/${kind}/notes`, { body: '   ' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: `400 Bad request - Note {:note=>["can't be blank"]}` });
    }
  });

  it('answers a blank note body on update with "Failed to save note {...}"', async () => {
    const note = await s.post(`/projects/${project.id}/issues/${issueIid}/notes`, { body: 'first' });
    const res = await s.put(`/projects/${project.id}/issues/${issueIid}/notes/${note.body.id}`, { body: '' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: `400 Bad request - Failed to save note {:note=>["can't be blank"]}` });
  });

  it("lets a Maintainer edit another member's note, but not a Developer", async () => {
    const author = await s.createUser();
    const maintainer = await s.createUser();
    const developer = await s.createUser();
    await s.addMember('projects', project.id, author.user.id, 30);
    await s.addMember('projects', project.id, maintainer.user.id, 40);
    await s.addMember('projects', project.id, developer.user.id, 30);
    const note = await s.post(`/projects/${project.id}/issues/${issueIid}/notes`, { body: 'by author' }, { token: author.token });
    expect(note.status).toBe(201);
    const path = `/projects/${project.id}/issues/${issueIid}/notes/${note.body.id}`;
    expect((await s.put(path, { body: 'by developer' }, { token: developer.token })).status).toBe(403);
    const edited = await s.put(path, { body: 'by maintainer' }, { token: maintainer.token });
    expect(edited.status).toBe(200);
    expect(edited.body.body).toBe('by maintainer');
    expect(edited.body.author.id).toBe(author.user.id);
  });

  it('rejects an issue update without any updatable attribute (Grape at_least_one_of)', async () => {
    const res = await s.put(`/projects/${project.id}/issues/${issueIid}`, {});
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(
      'assignee_id, assignee_ids, confidential, created_at, description, discussion_locked, due_date, labels, add_labels, remove_labels, milestone_id, state_event, title, issue_type, weight, epic_id, epic_iid are missing, at least one parameter must be provided',
    );
    const ok = await s.put(`/projects/${project.id}/issues/${issueIid}`, { description: null });
    expect(ok.status).toBe(200);
  });

  it('rejects a merge request update without any updatable attribute (Grape at_least_one_of)', async () => {
    const res = await s.put(`/projects/${project.id}/merge_requests/${mrIid}`, {});
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^assignee_id, assignee_ids, reviewer_ids, description, .* are missing, at least one parameter must be provided$/);
    const ok = await s.put(`/projects/${project.id}/merge_requests/${mrIid}`, { squash: true });
    expect(ok.status).toBe(200);
    expect(ok.body.squash).toBe(true);
  });
});

describe('core fidelity audit: instance-wide issue and merge request lists', () => {
  let s: TestService;
  beforeAll(async () => {
    s = await TestService.start();
    const project = await s.createProject({ visibility: 'public' });
    await s.post(`/projects/${project.id}/issues`, { title: 'Public issue' });
    await s.post(`/projects/${project.id}/merge_requests`, { title: 'Public MR', source_branch: 'feature', target_branch: 'main' });
  });
  afterAll(() => s.stop());

  it('answers 401 to anonymous callers unless scope=all', async () => {
    for (const path of ['/issues', '/merge_requests']) {
      const denied = await s.get(path, { token: null });
      expect(denied.status).toBe(401);
      expect(denied.body).toEqual({ message: '401 Unauthorized' });
      const open = await s.get(path, { token: null, query: { scope: 'all' } });
      expect(open.status).toBe(200);
      expect(open.body).toHaveLength(1);
    }
  });
});

describe('core fidelity audit: merge request detail', () => {
  let s: TestService;
  beforeAll(async () => {
    s = await TestService.start();
  });
  afterAll(() => s.stop());

  it('reports user.can_merge only for Developers and up', async () => {
    const project = await s.createProject({ visibility: 'public' });
    const mr = await s.post(`/projects/${project.id}/merge_requests`, { title: 'Detail', source_branch: 'feature', target_branch: 'main' });
    const path = `/projects/${project.id}/merge_requests/${mr.body.iid}`;
    const reporter = await s.createUser();
    const developer = await s.createUser();
    const outsider = await s.createUser();
    await s.addMember('projects', project.id, reporter.user.id, 20);
    await s.addMember('projects', project.id, developer.user.id, 30);
    expect((await s.get(path)).body.user).toEqual({ can_merge: true });
    expect((await s.get(path, { token: developer.token })).body.user).toEqual({ can_merge: true });
    expect((await s.get(path, { token: reporter.token })).body.user).toEqual({ can_merge: false });
    expect((await s.get(path, { token: outsider.token })).body.user).toEqual({ can_merge: false });
    expect((await s.get(path, { token: null })).body.user).toEqual({ can_merge: false });
  });
});

describe('core fidelity audit: project update', () => {
  let s: TestService;
  beforeAll(async () => {
    s = await TestService.start();
  });
  afterAll(() => s.stop());

  it('rejects PUT /projects/:id without any updatable attribute (Grape at_least_one_of)', async () => {
    const project = await s.createProject();
    const res = await s.put(`/projects/${project.id}`, {});
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/^allow_merge_on_skipped_pipeline, analytics_access_level, .*, container_registry_enabled are missing, at least one parameter must be provided$/);
    const ok = await s.put(`/projects/${project.id}`, { description: 'changed' });
    expect(ok.status).toBe(200);
    expect(ok.body.description).toBe('changed');
  });
});

describe('core fidelity audit: personal access token list', () => {
  let s: TestService;
  beforeAll(async () => {
    s = await TestService.start();
  });
  afterAll(() => s.stop());

  it("answers 401 when a non-admin filters by another user's id", async () => {
    const a = await s.createUser();
    const b = await s.createUser();
    const res = await s.get('/personal_access_tokens', { token: a.token, query: { user_id: b.user.id } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: '401 Unauthorized' });
    const own = await s.get('/personal_access_tokens', { token: a.token, query: { user_id: a.user.id } });
    expect(own.status).toBe(200);
    expect(own.body.every((t: any) => t.user_id === a.user.id)).toBe(true);
    const admin = await s.get('/personal_access_tokens', { query: { user_id: b.user.id } });
    expect(admin.body.map((t: any) => t.user_id)).toEqual([b.user.id]);
  });
});

describe('core fidelity audit: internal notes', () => {
  let s: TestService;
  beforeAll(async () => {
    s = await TestService.start();
  });
  afterAll(() => s.stop());

  it('answers "404 Note Not Found" when a Guest asks for an internal note', async () => {
    const project = await s.createProject({ visibility: 'public' });
    const guest = await s.createUser();
    await s.addMember('projects', project.id, guest.user.id, 10);
    const issue = await s.post(`/projects/${project.id}/issues`, { title: 'Has an internal note' });
    const note = await s.post(`/projects/${project.id}/issues/${issue.body.iid}/notes`, { body: 'secret', internal: true });
    expect(note.body.internal).toBe(true);
    const res = await s.get(`/projects/${project.id}/issues/${issue.body.iid}/notes/${note.body.id}`, { token: guest.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: '404 Note Not Found' });
    const listed = await s.get(`/projects/${project.id}/issues/${issue.body.iid}/notes`, { token: guest.token });
    expect(listed.body).toEqual([]);
  });
});

describe('core fidelity audit: POST /users validation', () => {
  let s: TestService;
  beforeAll(async () => {
    s = await TestService.start();
  });
  afterAll(() => s.stop());

  it('reports missing params in Grape declaration order, password group after email', async () => {
    const none = await s.post('/users', {});
    expect(none.status).toBe(400);
    expect(none.body).toEqual({
      error:
        'email is missing, password, reset_password, force_random_password are missing, at least one parameter must be provided, name is missing, username is missing',
    });
    const noEmail = await s.post('/users', { name: 'N', username: 'nn' });
    expect(noEmail.body.error).toBe('email is missing, password, reset_password, force_random_password are missing, at least one parameter must be provided');
    const onlyPassword = await s.post('/users', { email: 'x@example.com', name: 'N', username: 'nn' });
    expect(onlyPassword.body.error).toBe('password, reset_password, force_random_password are missing, at least one parameter must be provided');
  });

  it('validates params before checking for an admin, then answers 403 to non-admins', async () => {
    const u = await s.createUser();
    expect((await s.post('/users', {}, { token: u.token })).status).toBe(400);
    const valid = await s.post('/users', { email: 'y@example.com', name: 'Y', username: 'yy', password: 'password1234' }, { token: u.token });
    expect(valid.status).toBe(403);
  });
});

describe('core fidelity audit: project create namespace', () => {
  let s: TestService;
  beforeAll(async () => {
    s = await TestService.start();
  });
  afterAll(() => s.stop());

  it('answers an unknown namespace_id like a forbidden one: 400 namespace is not valid', async () => {
    const res = await s.post('/projects', { name: 'nowhere', namespace_id: 999999 });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { namespace: ['is not valid'] } });
  });
});

describe('core fidelity audit: group list', () => {
  let s: TestService;
  beforeAll(async () => {
    s = await TestService.start();
  });
  afterAll(() => s.stop());

  it('all_available=true shows a non-admin the private groups they belong to, besides public ones', async () => {
    const u = await s.createUser();
    const mine = await s.createGroup({ visibility: 'private' });
    const open = await s.createGroup({ visibility: 'public' });
    const hidden = await s.createGroup({ visibility: 'private' });
    await s.addMember('groups', mine.id, u.user.id, 10);
    const res = await s.get('/groups', { token: u.token, query: { all_available: true } });
    const ids = res.body.map((g: any) => g.id);
    expect(ids).toContain(mine.id);
    expect(ids).toContain(open.id);
    expect(ids).not.toContain(hidden.id);
    const membersOnly = await s.get('/groups', { token: u.token });
    expect(membersOnly.body.map((g: any) => g.id)).toEqual([mine.id]);
  });
});

describe('core fidelity audit: merge request list views', () => {
  let s: TestService;
  beforeAll(async () => {
    s = await TestService.start();
  });
  afterAll(() => s.stop());

  it('view=simple answers MergeRequestSimple records', async () => {
    const project = await s.createProject();
    await s.post(`/projects/${project.id}/merge_requests`, { title: 'Simple', source_branch: 'feature', target_branch: 'main' });
    const res = await s.get(`/projects/${project.id}/merge_requests`, { query: { view: 'simple' } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body[0]).sort()).toEqual(['created_at', 'description', 'id', 'iid', 'project_id', 'state', 'title', 'updated_at', 'web_url']);
    expect(res.body[0].title).toBe('Simple');
  });
});

describe('core fidelity audit: GET /users/:id', () => {
  let s: TestService;
  beforeAll(async () => {
    s = await TestService.start();
  });
  afterAll(() => s.stop());

  it('gives a non-admin the public profile even for themself, and admins the full record', async () => {
    const u = await s.createUser();
    const self = await s.get(`/users/${u.user.id}`, { token: u.token });
    expect(self.status).toBe(200);
    expect(self.body.username).toBe(u.user.username);
    expect(self.body).not.toHaveProperty('email');
    expect((await s.get('/user', { token: u.token })).body.email).toBe(u.user.email);
    const asAdmin = await s.get(`/users/${u.user.id}`);
    expect(asAdmin.body.email).toBe(u.user.email);
    expect(asAdmin.body.is_admin).toBe(false);
  });
});
