import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s.stop());

describe('error tracking settings', () => {
  it('answers 404 before any setting exists, and PATCH does not create one', async () => {
    const project = await s.createProject();
    const got = await s.get(`/projects/${project.id}/error_tracking/settings`);
    expect(got.status).toBe(404);
    expect(got.body).toEqual({ message: '404 Error Tracking Setting Not Found' });
    const patched = await s.patch(`/projects/${project.id}/error_tracking/settings`, { active: true });
    expect(patched.status).toBe(404);
    expect(patched.body).toEqual({ message: '404 Error Tracking Setting Not Found' });
  });

  it('creates with PUT and answers both field name families', async () => {
    const project = await s.createProject();
    const put = await s.put(`/projects/${project.id}/error_tracking/settings`, { active: true, integrated: true });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      active: true,
      project_name: null,
      sentry_external_url: null,
      errortracker_external_url: null,
      api_url: null,
      integrated: true,
    });
    expect((await s.get(`/projects/${project.id}/error_tracking/settings`)).body).toEqual(put.body);
  });

  it('takes query parameters with an empty body, as gitbeaker sends them', async () => {
    const project = await s.createProject();
    const put = await s.put(`/projects/${project.id}/error_tracking/settings`, {}, { query: { active: false, integrated: true } });
    expect(put.body).toMatchObject({ active: false, integrated: true });
  });

  it('PATCH needs active and keeps integrated unless given', async () => {
    const project = await s.createProject();
    const path = `/projects/${project.id}/error_tracking/settings`;
    await s.put(path, { active: true, integrated: true });
    expect((await s.patch(path, {})).body).toEqual({ error: 'active is missing' });
    // `allow_blank: false`: an empty value is "empty", not "invalid".
    expect((await s.patch(path, undefined, { form: { active: '' } })).body).toEqual({ error: 'active is empty' });
    expect((await s.patch(path, { active: false })).body).toMatchObject({ active: false, integrated: true });
    expect((await s.patch(path, { active: true, integrated: false })).body).toMatchObject({ active: true, integrated: false });
  });

  it('PUT needs both active and integrated', async () => {
    const project = await s.createProject();
    const res = await s.put(`/projects/${project.id}/error_tracking/settings`, {});
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'active is missing, integrated is missing' });
    expect((await s.put(`/projects/${project.id}/error_tracking/settings`, { active: 'maybe', integrated: true })).body).toEqual({
      error: 'active is invalid',
    });
  });
});

describe('error tracking client keys', () => {
  it('creates keys with a glet_ public key and a DSN pointing at this instance', async () => {
    const project = await s.createProject();
    const created = await s.post(`/projects/${project.id}/error_tracking/client_keys`);
    expect(created.status).toBe(201);
    expect(created.body.public_key).toMatch(/^glet_[0-9a-f]{32}$/);
    expect(created.body.active).toBe(true);
    const host = new URL(s.url).host;
    const dsn = `http://${created.body.public_key}@${host}/api/v4/error_tracking/collector/${project.id}`;
    expect(created.body.sentry_dsn).toBe(dsn);
    expect(created.body.errortracker_dsn).toBe(dsn);
    expect(Object.keys(created.body).sort()).toEqual(['active', 'errortracker_dsn', 'id', 'public_key', 'sentry_dsn']);
  });

  it('lists keys with pagination headers', async () => {
    const project = await s.createProject();
    for (let i = 0; i < 3; i++) await s.post(`/projects/${project.id}/error_tracking/client_keys`);
    const list = await s.get(`/projects/${project.id}/error_tracking/client_keys`, { query: { per_page: 2 } });
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(2);
    expect(list.headers.get('x-total')).toBe('3');
    expect(list.headers.get('link')).toContain('rel="next"');
  });

  it('deletes a key answering 200 with it, and 404 for an unknown key', async () => {
    const project = await s.createProject();
    const key = (await s.post(`/projects/${project.id}/error_tracking/client_keys`)).body;
    const del = await s.del(`/projects/${project.id}/error_tracking/client_keys/${key.id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual(key);
    expect((await s.get(`/projects/${project.id}/error_tracking/client_keys`)).body).toEqual([]);
    const again = await s.del(`/projects/${project.id}/error_tracking/client_keys/${key.id}`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ message: '404 Not found' });
    expect((await s.del(`/projects/${project.id}/error_tracking/client_keys/abc`)).body).toEqual({ error: 'key_id is invalid' });
  });

  it('does not delete another project\'s key', async () => {
    const a = await s.createProject();
    const b = await s.createProject();
    const key = (await s.post(`/projects/${a.id}/error_tracking/client_keys`)).body;
    expect((await s.del(`/projects/${b.id}/error_tracking/client_keys/${key.id}`)).status).toBe(404);
  });
});

describe('error tracking roles', () => {
  it('needs Maintainer for settings and keys', async () => {
    const project = await s.createProject();
    const dev = await s.createUser();
    await s.addMember('projects', project.id, dev.user.id, 30);
    const maint = await s.createUser();
    await s.addMember('projects', project.id, maint.user.id, 40);
    const settings = `/projects/${project.id}/error_tracking/settings`;
    const keys = `/projects/${project.id}/error_tracking/client_keys`;
    expect((await s.put(settings, { active: true, integrated: true }, { token: dev.token })).status).toBe(403);
    expect((await s.get(keys, { token: dev.token })).status).toBe(403);
    expect((await s.post(keys, undefined, { token: dev.token })).status).toBe(403);
    expect((await s.put(settings, { active: true, integrated: true }, { token: maint.token })).status).toBe(200);
    expect((await s.post(keys, undefined, { token: maint.token })).status).toBe(201);
    const stranger = await s.createUser();
    expect((await s.get(settings, { token: stranger.token })).status).toBe(404);
    expect((await s.get(settings, { token: null })).status).toBe(401);
  });
});
