import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s.stop());

async function mint(projectId: number, userId?: number): Promise<string> {
  const res = await s.post('/sandlab/job_tokens', { project_id: projectId, ...(userId ? { user_id: userId } : {}) });
  expect(res.status).toBe(201);
  return res.body.token;
}

describe('job token scope settings', () => {
  it('reports inbound enabled and the deprecated outbound flag for a new project', async () => {
    const p = await s.createProject();
    const res = await s.get(`/projects/${p.id}/job_token_scope`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ inbound_enabled: true, outbound_enabled: false });
  });

  it('answers 204 to PATCH and stores enabled', async () => {
    const p = await s.createProject();
    const res = await s.patch(`/projects/${p.id}/job_token_scope`, { enabled: false });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await s.get(`/projects/${p.id}/job_token_scope`)).body.inbound_enabled).toBe(false);
    expect((await s.patch(`/projects/${p.id}/job_token_scope`, undefined, { form: { enabled: 'true' } })).status).toBe(204);
    expect((await s.get(`/projects/${p.id}/job_token_scope`)).body.inbound_enabled).toBe(true);
  });

  it('requires enabled as a boolean', async () => {
    const p = await s.createProject();
    expect((await s.patch(`/projects/${p.id}/job_token_scope`, {})).body).toEqual({ error: 'enabled is missing' });
    expect((await s.patch(`/projects/${p.id}/job_token_scope`, { enabled: null })).body).toEqual({ error: 'enabled is missing' });
    const bad = await s.patch(`/projects/${p.id}/job_token_scope`, { enabled: 123 });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'enabled is invalid' });
  });

  it('answers 401 anonymously, 403 to developers and 404 to strangers of a private project', async () => {
    const p = await s.createProject({ visibility: 'private' });
    const dev = await s.createUser();
    const stranger = await s.createUser();
    await s.addMember('projects', p.id, dev.user.id, 30);
    expect((await s.get(`/projects/${p.id}/job_token_scope`, { token: null })).status).toBe(401);
    const forbidden = await s.get(`/projects/${p.id}/job_token_scope`, { token: dev.token });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body).toEqual({ message: '403 Forbidden' });
    expect((await s.patch(`/projects/${p.id}/job_token_scope`, { enabled: false }, { token: dev.token })).status).toBe(403);
    const hidden = await s.get(`/projects/${p.id}/job_token_scope`, { token: stranger.token });
    expect(hidden.body).toEqual({ message: '404 Project Not Found' });
  });
});

describe('project allowlist', () => {
  it('lists the project itself first, with the limited project record', async () => {
    const p = await s.createProject();
    const res = await s.get(`/projects/${p.id}/job_token_scope/allowlist`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-total')).toBe('1');
    expect(res.body).toHaveLength(1);
    expect(Object.keys(res.body[0])).toEqual([
      'id', 'description', 'name', 'name_with_namespace', 'path', 'path_with_namespace', 'created_at', 'default_branch',
      'tag_list', 'topics', 'ssh_url_to_repo', 'http_url_to_repo', 'web_url', 'avatar_url', 'star_count', 'last_activity_at',
      'namespace',
    ]);
    expect(res.body[0].id).toBe(p.id);
    expect(Object.keys(res.body[0].namespace)).toEqual(['id', 'name', 'path', 'kind', 'full_path', 'parent_id', 'avatar_url', 'web_url']);
  });

  it('adds a project with 201 and the addition result, then lists and paginates it', async () => {
    const p = await s.createProject();
    const a = await s.createProject();
    const b = await s.createProject();
    const res = await s.post(`/projects/${p.id}/job_token_scope/allowlist`, { target_project_id: a.id });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ source_project_id: p.id, target_project_id: a.id });
    await s.post(`/projects/${p.id}/job_token_scope/allowlist`, undefined, { form: { target_project_id: String(b.id) } });
    const list = await s.get(`/projects/${p.id}/job_token_scope/allowlist`, { query: { per_page: 2 } });
    expect(list.body.map((x: any) => x.id)).toEqual([p.id, a.id]);
    expect(list.headers.get('x-total')).toBe('3');
    expect(list.headers.get('link')).toContain('rel="next"');
  });

  it('rejects duplicates and the project itself with 400', async () => {
    const p = await s.createProject();
    const a = await s.createProject();
    await s.post(`/projects/${p.id}/job_token_scope/allowlist`, { target_project_id: a.id });
    const dup = await s.post(`/projects/${p.id}/job_token_scope/allowlist`, { target_project_id: a.id });
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({ message: '400 Bad request - This project is already in the job token allowlist.' });
    const self = await s.post(`/projects/${p.id}/job_token_scope/allowlist`, { target_project_id: p.id });
    expect(self.status).toBe(400);
    expect(self.body).toEqual({ message: "400 Bad request - Validation failed: Target project can't be the same as the source project" });
  });

  it('answers 404 for an unknown target and 400 for one the caller cannot read', async () => {
    const owner = await s.createUser();
    const p = await s.createProject({}, owner.token);
    const unknown = await s.post(`/projects/${p.id}/job_token_scope/allowlist`, { target_project_id: 999999 }, { token: owner.token });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ message: '404 target_project_id not found Not Found' });
    const secret = await s.createProject({ visibility: 'private' });
    const hidden = await s.post(`/projects/${p.id}/job_token_scope/allowlist`, { target_project_id: secret.id }, { token: owner.token });
    expect(hidden.status).toBe(400);
    expect(hidden.body.message).toBe(
      "400 Bad request - The target_project that you are attempting to access does not exist or you don't have permission to perform this action",
    );
  });

  it('allows at most 200 projects and 200 groups per allowlist', async () => {
    const p = await s.createProject();
    const a = await s.createProject();
    const g = await s.createGroup();
    const db = s.service.context.db;
    const now = new Date().toISOString();
    // Links to the project itself stand in for 200 distinct targets (the unique key is per pair).
    db.exec('PRAGMA foreign_keys = OFF');
    const insert = db.prepare('INSERT INTO job_token_project_links (source_project_id, target_project_id, created_at) VALUES (?, ?, ?)');
    const insertGroup = db.prepare('INSERT INTO job_token_group_links (source_project_id, target_group_id, created_at) VALUES (?, ?, ?)');
    for (let i = 0; i < 200; i++) {
      insert.run(p.id, 1_000_000 + i, now);
      insertGroup.run(p.id, 1_000_000 + i, now);
    }
    db.exec('PRAGMA foreign_keys = ON');
    const res = await s.post(`/projects/${p.id}/job_token_scope/allowlist`, { target_project_id: a.id });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: '400 Bad request - Validation failed: Source project exceeds the allowable number of project links in this direction' });
    const group = await s.post(`/projects/${p.id}/job_token_scope/groups_allowlist`, { target_group_id: g.id });
    expect(group.body).toEqual({ message: '400 Bad request - Validation failed: Source project exceeds the allowable number of group links' });
  });

  it('validates target_project_id', async () => {
    const p = await s.createProject();
    expect((await s.post(`/projects/${p.id}/job_token_scope/allowlist`, {})).body).toEqual({ error: 'target_project_id is missing' });
    expect((await s.post(`/projects/${p.id}/job_token_scope/allowlist`, { target_project_id: '' })).body).toEqual({ error: 'target_project_id is empty' });
    expect((await s.post(`/projects/${p.id}/job_token_scope/allowlist`, { target_project_id: 12.34 })).body).toEqual({ error: 'target_project_id is invalid' });
  });

  it('removes a project with 204 and explains what cannot be removed', async () => {
    const p = await s.createProject();
    const a = await s.createProject();
    await s.post(`/projects/${p.id}/job_token_scope/allowlist`, { target_project_id: a.id });
    const del = await s.del(`/projects/${p.id}/job_token_scope/allowlist/${a.id}`);
    expect(del.status).toBe(204);
    expect((await s.get(`/projects/${p.id}/job_token_scope/allowlist`)).body).toHaveLength(1);
    const again = await s.del(`/projects/${p.id}/job_token_scope/allowlist/${a.id}`);
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ message: '400 Bad request - Target project is not in the job token scope' });
    const self = await s.del(`/projects/${p.id}/job_token_scope/allowlist/${p.id}`);
    expect(self.body).toEqual({ message: '400 Bad request - Source project cannot be removed from the job token scope' });
    const unknown = await s.del(`/projects/${p.id}/job_token_scope/allowlist/999999`);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ message: '404 Project Not Found' });
  });

  it('refuses removal to non-maintainers with a reason', async () => {
    const p = await s.createProject({ visibility: 'public' });
    const a = await s.createProject({ visibility: 'public' });
    await s.post(`/projects/${p.id}/job_token_scope/allowlist`, { target_project_id: a.id });
    const stranger = await s.createUser();
    const res = await s.del(`/projects/${p.id}/job_token_scope/allowlist/${a.id}`, { token: stranger.token });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: '403 Forbidden - Insufficient permissions to modify the job token scope' });
  });
});

describe('group allowlist', () => {
  it('is empty by default, adds a group with 201 and lists it', async () => {
    const p = await s.createProject();
    const g = await s.createGroup();
    expect((await s.get(`/projects/${p.id}/job_token_scope/groups_allowlist`)).body).toEqual([]);
    const res = await s.post(`/projects/${p.id}/job_token_scope/groups_allowlist`, { target_group_id: g.id });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ source_project_id: p.id, target_group_id: g.id });
    const list = await s.get(`/projects/${p.id}/job_token_scope/groups_allowlist`);
    expect(list.body).toEqual([{ id: g.id, web_url: g.web_url, name: g.name }]);
    expect(list.headers.get('x-total')).toBe('1');
  });

  it('answers 404 for unknown groups, 400 for duplicates and for groups not listed', async () => {
    const p = await s.createProject();
    const g = await s.createGroup();
    const unknown = await s.post(`/projects/${p.id}/job_token_scope/groups_allowlist`, { target_group_id: 999999 });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ message: '404 target_group_id not found Not Found' });
    await s.post(`/projects/${p.id}/job_token_scope/groups_allowlist`, { target_group_id: g.id });
    const dup = await s.post(`/projects/${p.id}/job_token_scope/groups_allowlist`, { target_group_id: g.id });
    expect(dup.body).toEqual({ message: '400 Bad request - This group is already in the job token allowlist.' });
    expect((await s.del(`/projects/${p.id}/job_token_scope/groups_allowlist/${g.id}`)).status).toBe(204);
    const gone = await s.del(`/projects/${p.id}/job_token_scope/groups_allowlist/${g.id}`);
    expect(gone.body).toEqual({ message: '400 Bad request - Target group is not in the job token scope' });
    const none = await s.del(`/projects/${p.id}/job_token_scope/groups_allowlist/999999`);
    expect(none.status).toBe(404);
    expect(none.body).toEqual({ message: '404 target_group_id not found Not Found' });
  });

  it('answers 400 for a group the caller cannot read', async () => {
    const owner = await s.createUser();
    const p = await s.createProject({}, owner.token);
    const g = await s.createGroup({ visibility: 'private' });
    const res = await s.post(`/projects/${p.id}/job_token_scope/groups_allowlist`, { target_group_id: g.id }, { token: owner.token });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(
      "400 Bad request - The target_group that you are attempting to access does not exist or you don't have permission to perform this action",
    );
  });
});

describe('CI job tokens', () => {
  it('mints job tokens for administrators only (Sandlab-only endpoint)', async () => {
    const p = await s.createProject();
    const user = await s.createUser();
    expect((await s.post('/sandlab/job_tokens', { project_id: p.id }, { token: user.token })).status).toBe(403);
    expect((await s.post('/sandlab/job_tokens', { project_id: 999999 })).body).toEqual({ message: '404 Project Not Found' });
    const res = await s.post('/sandlab/job_tokens', { project_id: p.id, user_id: user.user.id });
    expect(res.status).toBe(201);
    expect(res.body.token).toMatch(/^glcbt-/);
    expect(res.body).toMatchObject({ project_id: p.id, user_id: user.user.id });
  });

  // A job token is read on job_token_allowed routes only (job-token-routes.test.ts): the merge request list is one, /user is not.
  it('authenticates with the JOB-TOKEN header and the job_token parameter as the triggering user', async () => {
    const p = await s.createProject({ visibility: 'private' });
    const token = await mint(p.id);
    expect((await s.get(`/projects/${p.id}/merge_requests`, { token: null, headers: { 'job-token': token } })).status).toBe(200);
    expect((await s.get(`/projects/${p.id}/merge_requests`, { token: null, query: { job_token: token } })).status).toBe(200);
    expect((await s.get(`/projects/${p.id}/merge_requests`, { token: null, headers: { 'job-token': 'glcbt-nope' } })).status).toBe(401);
    expect((await s.get('/user', { token: null, headers: { 'job-token': token } })).status).toBe(401);
  });

  it('stops authenticating once the job token is revoked', async () => {
    const p = await s.createProject();
    const res = await s.post('/sandlab/job_tokens', { project_id: p.id });
    expect((await s.del(`/sandlab/job_tokens/${res.body.id}`)).status).toBe(204);
    expect((await s.get('/user', { token: null, headers: { 'job-token': res.body.token } })).status).toBe(401);
  });

  it('reaches another project only through its inbound allowlist', async () => {
    const dev = await s.createUser();
    const source = await s.createProject({ visibility: 'private' });
    const target = await s.createProject({ visibility: 'private' });
    await s.addMember('projects', source.id, dev.user.id, 30);
    await s.addMember('projects', target.id, dev.user.id, 30);
    const token = await mint(source.id, dev.user.id);
    const headers = { 'job-token': token };
    expect((await s.get(`/projects/${source.id}/merge_requests`, { token: null, headers })).status).toBe(200);
    // API::Helpers#find_project!'s handle_job_token_failure!: a 403 naming both projects, not a 404.
    const notAllowed = { message: `403 Forbidden - Authentication by CI/CD job token not allowed from ${source.path} to ${target.path}.` };
    const refused = await s.get(`/projects/${target.id}/merge_requests`, { token: null, headers });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(notAllowed);
    expect((await s.get(`/projects/${target.id}/merge_requests/1`, { token: null, headers })).body).toEqual(notAllowed);

    await s.post(`/projects/${target.id}/job_token_scope/allowlist`, { target_project_id: source.id });
    expect((await s.get(`/projects/${target.id}/merge_requests`, { token: null, headers })).status).toBe(200);
    // The project is reached; it has no merge request !1.
    expect((await s.get(`/projects/${target.id}/merge_requests/1`, { token: null, headers })).body).toEqual({ message: '404 Not found' });

    await s.del(`/projects/${target.id}/job_token_scope/allowlist/${source.id}`);
    expect((await s.get(`/projects/${target.id}/merge_requests`, { token: null, headers })).body).toEqual(notAllowed);
    // With the scope off, every project's jobs may reach it (the user's own role still applies).
    await s.patch(`/projects/${target.id}/job_token_scope`, { enabled: false });
    expect((await s.get(`/projects/${target.id}/merge_requests`, { token: null, headers })).status).toBe(200);
  });

  it('is not accepted by the job token scope endpoints themselves', async () => {
    const p = await s.createProject();
    const headers = { 'job-token': await mint(p.id) };
    for (const res of [
      await s.get(`/projects/${p.id}/job_token_scope`, { token: null, headers }),
      await s.patch(`/projects/${p.id}/job_token_scope`, { enabled: false }, { token: null, headers }),
      await s.post(`/projects/${p.id}/job_token_scope/allowlist`, { target_project_id: p.id }, { token: null, headers }),
      await s.post('/sandlab/job_tokens', { project_id: p.id }, { token: null, headers }),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: '401 Unauthorized' });
    }
  });

  it('honours a group on the allowlist for projects in it and its subgroups', async () => {
    const group = await s.createGroup();
    const sub = await s.createGroup({ parent_id: group.id });
    const source = await s.createProject({ namespace_id: sub.id });
    const target = await s.createProject({ visibility: 'private' });
    const headers = { 'job-token': await mint(source.id) };
    expect((await s.get(`/projects/${target.id}/merge_requests`, { token: null, headers })).status).toBe(403);
    await s.post(`/projects/${target.id}/job_token_scope/groups_allowlist`, { target_group_id: group.id });
    expect((await s.get(`/projects/${target.id}/merge_requests`, { token: null, headers })).status).toBe(200);
  });

  it('does not widen the triggering user\'s own access', async () => {
    const user = await s.createUser();
    const source = await s.createProject({}, user.token);
    const target = await s.createProject({ visibility: 'private' });
    await s.post(`/projects/${target.id}/job_token_scope/allowlist`, { target_project_id: source.id });
    const headers = { 'job-token': await mint(source.id, user.user.id) };
    // The user is no member: refused as a job token's failure (find_project! asks can? :read_project first).
    const refused = await s.get(`/projects/${target.id}/merge_requests`, { token: null, headers });
    expect([refused.status, refused.body]).toEqual([403, { message: `403 Forbidden - Authentication by CI/CD job token not allowed from ${source.path} to ${target.path}.` }]);
    // A project that does not exist is still 404.
    expect((await s.get('/projects/999999/merge_requests', { token: null, headers })).body).toEqual({ message: '404 Project Not Found' });
  });
});
