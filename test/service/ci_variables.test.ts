import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

let s: TestService;
let project: any;
let group: any;
let dev: { user: any; token: string };

beforeAll(async () => {
  s = await TestService.start();
  project = await s.createProject({ name: 'ci' });
  group = await s.createGroup({ path: 'cigroup' });
  dev = await s.createUser();
  await s.addMember('projects', project.id, dev.user.id, 30);
});
afterAll(async () => s.stop());

describe('project variables', () => {
  it('creates, reads, updates and deletes a variable, values kept as given', async () => {
    const created = await s.post(`/projects/${project.id}/variables`, { key: 'TOKEN', value: ' spaced value\nline2 ', description: 'what it is' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      variable_type: 'env_var',
      key: 'TOKEN',
      value: ' spaced value\nline2 ',
      hidden: false,
      protected: false,
      masked: false,
      raw: false,
      environment_scope: '*',
      description: 'what it is',
    });
    expect((await s.get(`/projects/${project.id}/variables/TOKEN`)).body.value).toBe(' spaced value\nline2 ');
    const upd = await s.put(`/projects/${project.id}/variables/TOKEN`, { value: 'new', protected: true, variable_type: 'file', raw: true });
    expect(upd.body).toMatchObject({ value: 'new', protected: true, variable_type: 'file', raw: true, description: 'what it is' });
    const list = await s.get(`/projects/${project.id}/variables`);
    expect(list.headers.get('x-total')).toBe('1');
    expect((await s.del(`/projects/${project.id}/variables/TOKEN`)).status).toBe(204);
    expect((await s.get(`/projects/${project.id}/variables/TOKEN`)).body).toEqual({ message: '404 Variable Not Found' });
  });

  it('validates keys, masked values and duplicates as the model does', async () => {
    expect((await s.post(`/projects/${project.id}/variables`, { key: 'BAD-KEY', value: 'x' })).body).toEqual({
      message: { key: ["can contain only letters, digits and '_'."] },
    });
    expect((await s.post(`/projects/${project.id}/variables`, { key: 'SHORT', value: 'abc', masked: true })).body).toEqual({ message: { value: ['is invalid'] } });
    expect((await s.post(`/projects/${project.id}/variables`, { key: 'MASKED', value: 'abcdefgh1234', masked: true })).body.masked).toBe(true);
    expect((await s.post(`/projects/${project.id}/variables`, { key: 'MASKED', value: 'x' })).body).toEqual({ message: { key: ['(MASKED) has already been taken'] } });
    expect((await s.post(`/projects/${project.id}/variables`, { key: 'NOVALUE' })).body).toEqual({ error: 'value is missing' });
    expect((await s.post(`/projects/${project.id}/variables`, { key: 'T', value: 'x', variable_type: 'secret' })).body).toEqual({
      error: 'variable_type does not have a valid value',
    });
    const hidden = await s.post(`/projects/${project.id}/variables`, { key: 'HIDDEN', value: 'hidden-value-1', masked_and_hidden: true });
    expect(hidden.body).toMatchObject({ value: null, hidden: true, masked: true });
  });

  it('keeps one key per environment scope; the filter picks one, 409 without it', async () => {
    await s.post(`/projects/${project.id}/variables`, { key: 'DEPLOY', value: 'prod', environment_scope: 'production' });
    await s.post(`/projects/${project.id}/variables`, { key: 'DEPLOY', value: 'stage', environment_scope: 'staging' });
    const ambiguous = await s.get(`/projects/${project.id}/variables/DEPLOY`);
    expect(ambiguous.status).toBe(409);
    expect(ambiguous.body).toEqual({ message: "There are multiple variables with provided parameters. Please use 'filter[environment_scope]'" });
    expect((await s.get(`/projects/${project.id}/variables/DEPLOY?filter[environment_scope]=staging`)).body.value).toBe('stage');
    const upd = await s.put(`/projects/${project.id}/variables/DEPLOY?filter[environment_scope]=production`, { value: 'prod2' });
    expect(upd.body).toMatchObject({ value: 'prod2', environment_scope: 'production' });
    expect((await s.del(`/projects/${project.id}/variables/DEPLOY?filter[environment_scope]=staging`)).status).toBe(204);
    expect((await s.get(`/projects/${project.id}/variables/DEPLOY`)).body.environment_scope).toBe('production');
  });

  it('is for Maintainers', async () => {
    expect((await s.get(`/projects/${project.id}/variables`, { token: dev.token })).status).toBe(403);
    expect((await s.get(`/projects/${project.id}/variables`, { token: null })).status).toBe(401);
  });
});

describe('group and instance variables', () => {
  it('manages group variables with environment scopes', async () => {
    const created = await s.post(`/groups/${group.id}/variables`, { key: 'GROUP_VAR', value: 'g', protected: true });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ key: 'GROUP_VAR', protected: true, environment_scope: '*', hidden: false });
    expect((await s.get(`/groups/${group.id}/variables`)).body.map((v: any) => v.key)).toEqual(['GROUP_VAR']);
    expect((await s.put(`/groups/${group.id}/variables/GROUP_VAR`, { value: 'g2' })).body.value).toBe('g2');
    expect((await s.del(`/groups/${group.id}/variables/GROUP_VAR`)).status).toBe(204);
  });

  it('manages instance variables for administrators only, without scope fields', async () => {
    const created = await s.post('/admin/ci/variables', { key: 'INSTANCE_VAR', value: 'i' });
    expect(created.body).toEqual({ variable_type: 'env_var', key: 'INSTANCE_VAR', value: 'i', protected: false, masked: false, raw: false, description: null });
    expect((await s.get('/admin/ci/variables')).body.map((v: any) => v.key)).toEqual(['INSTANCE_VAR']);
    expect((await s.get('/admin/ci/variables/INSTANCE_VAR')).body.value).toBe('i');
    expect((await s.get('/admin/ci/variables', { token: dev.token })).status).toBe(403);
    expect((await s.del('/admin/ci/variables/INSTANCE_VAR')).status).toBe(204);
  });
});
