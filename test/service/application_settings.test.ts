import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

describe('application settings', () => {
  let svc: TestService;
  let userToken: string;
  beforeAll(async () => {
    svc = await TestService.start();
    userToken = (await svc.createUser()).token;
  });
  afterAll(async () => svc.stop());

  it('answers 401 anonymously and 403 to a non-admin', async () => {
    expect((await svc.get('/application/settings', { token: null })).status).toBe(401);
    const res = await svc.get('/application/settings', { token: userToken });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: '403 Forbidden' });
    expect((await svc.put('/application/settings', { signup_enabled: false }, { token: userToken })).status).toBe(403);
  });

  it('lists every setting with its default, direct transfer on', async () => {
    const res = await svc.get('/application/settings');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: 1,
      bulk_import_enabled: true,
      signup_enabled: true,
      default_project_visibility: 'private',
      default_group_visibility: 'private',
      default_snippet_visibility: 'private',
      restricted_visibility_levels: [],
      recaptcha_enabled: false,
      default_projects_limit: 100000,
    });
    expect(res.body.import_sources).toEqual(expect.arrayContaining(['github', 'bitbucket', 'bitbucket_server', 'gitlab_project']));
    expect(res.body.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('updates settings from a query string, form or JSON and reads them back', async () => {
    const res = await svc.api('PUT', '/application/settings', { query: { signup_enabled: 'false', default_project_visibility: 'internal' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ signup_enabled: false, default_project_visibility: 'internal' });
    const form = await svc.api('PUT', '/application/settings', { form: { 'import_sources[]': ['github', 'git'], default_group_visibility: '20' } });
    expect(form.body).toMatchObject({ import_sources: ['github', 'git'], default_group_visibility: 'public' });
    const json = await svc.put('/application/settings', { import_sources: 'bitbucket_server,gitea', max_attachment_size: 50 });
    expect(json.body).toMatchObject({ import_sources: ['bitbucket_server', 'gitea'], max_attachment_size: 50 });
    const again = await svc.get('/application/settings');
    expect(again.body).toMatchObject({ signup_enabled: false, default_project_visibility: 'internal', default_group_visibility: 'public', max_attachment_size: 50 });
    expect(again.body.updated_at >= again.body.created_at).toBe(true);
  });

  it('accepts a setting it does not know and reads it back as given', async () => {
    const res = await svc.put('/application/settings', { some_future_setting: 'on', nested_setting: { a: 1 } });
    expect(res.status).toBe(200);
    expect((await svc.get('/application/settings')).body).toMatchObject({ some_future_setting: 'on', nested_setting: { a: 1 } });
  });

  it('puts a setting back to its default with null', async () => {
    await svc.put('/application/settings', { default_projects_limit: 5 });
    const res = await svc.put('/application/settings', { default_projects_limit: null });
    expect(res.body.default_projects_limit).toBe(100000);
  });

  it('refuses values Grape would refuse, and changes nothing', async () => {
    const before = (await svc.get('/application/settings')).body;
    const bad = await svc.put('/application/settings', { default_project_visibility: 'secret', signup_enabled: true });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'default_project_visibility does not have a valid value' });
    expect((await svc.put('/application/settings', { import_sources: ['github', 'svn'] })).body).toEqual({ error: 'import_sources does not have a valid value' });
    expect((await svc.put('/application/settings', { default_projects_limit: 'many' })).body).toEqual({ error: 'default_projects_limit is invalid' });
    expect((await svc.get('/application/settings')).body).toEqual(before);
  });

  it('answers at_least_one_of when nothing is given', async () => {
    const res = await svc.put('/application/settings', {});
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/are missing, at least one parameter must be provided$/);
  });
});
