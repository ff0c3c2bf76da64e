import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

let s: TestService;
let project: any;
beforeAll(async () => {
  s = await TestService.start();
  project = await s.createProject();
});
afterAll(async () => s.stop());

const flags = (suffix = ''): string => `/projects/${project.id}/feature_flags${suffix}`;
let seq = 0;
const uniqueName = (): string => `flag_${++seq}`;

describe('feature flags', () => {
  it('creates a flag with 201 and the full entity', async () => {
    const res = await s.post(flags(), {
      name: 'awesome_feature',
      version: 'new_version_flag',
      description: 'a flag',
      strategies: [{ name: 'userWithId', parameters: { userIds: 'user1,user2' }, scopes: [{ environment_scope: 'production' }] }],
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'awesome_feature', description: 'a flag', active: true, version: 'new_version_flag', scopes: [] });
    expect(Object.keys(res.body)).toEqual(['name', 'description', 'active', 'version', 'created_at', 'updated_at', 'scopes', 'strategies']);
    expect(res.body.strategies).toHaveLength(1);
    expect(res.body.strategies[0]).toEqual({
      id: expect.any(Number),
      name: 'userWithId',
      parameters: { userIds: 'user1,user2' },
      scopes: [{ id: expect.any(Number), environment_scope: 'production' }],
    });
  });

  it('defaults to a new-version flag with no strategies', async () => {
    const res = await s.post(flags(), { name: uniqueName() });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ description: null, active: true, version: 'new_version_flag', strategies: [] });
  });

  it('accepts parameters as a JSON string and form-encoded strategies', async () => {
    const json = await s.post(flags(), { name: uniqueName(), strategies: [{ name: 'gradualRolloutUserId', parameters: '{"groupId":"default","percentage":"25"}' }] });
    expect(json.status).toBe(201);
    expect(json.body.strategies[0].parameters).toEqual({ groupId: 'default', percentage: '25' });
    const form = await s.post(flags(), undefined, {
      form: { name: uniqueName(), 'strategies[][name]': 'default', 'strategies[][scopes][][environment_scope]': '*' },
    });
    expect(form.status).toBe(201);
    expect(form.body.strategies[0]).toMatchObject({ name: 'default', parameters: {}, scopes: [{ environment_scope: '*' }] });
  });

  it('refuses versions other than new_version_flag', async () => {
    const res = await s.post(flags(), { name: uniqueName(), version: 'legacy_flag' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'Version is invalid' });
  });

  it('requires a name', async () => {
    const res = await s.post(flags(), {});
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'name is missing' });
  });

  it('answers duplicates with the full message array', async () => {
    const name = uniqueName();
    await s.post(flags(), { name });
    const res = await s.post(flags(), { name });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: ['Name has already been taken'] });
  });

  it.each([
    ['Bad-Name', ["Name can contain only lowercase letters, digits, '_' and '-'. Must start with a letter, and cannot end with '-' or '_'"]],
    ['a', ['Name is too short (minimum is 2 characters)']],
    ['x'.repeat(64), ['Name is too long (maximum is 63 characters)']],
    ['ends_', ["Name can contain only lowercase letters, digits, '_' and '-'. Must start with a letter, and cannot end with '-' or '_'"]],
  ])('applies the name rules to %s', async (name, message) => {
    const res = await s.post(flags(), { name });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message });
  });

  it('allows at most 200 flags per project', async () => {
    const p = await s.createProject();
    const db = s.service.context.db;
    const insert = db.prepare('INSERT INTO feature_flags (project_id, iid, name, active, created_at, updated_at) VALUES (?, ?, ?, 1, ?, ?)');
    const now = new Date().toISOString();
    for (let i = 1; i <= 200; i++) insert.run(p.id, i, `seeded_${i}`, now, now);
    const res = await s.post(`/projects/${p.id}/feature_flags`, { name: 'one_too_many' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: ['Maximum number of project feature flags (200) exceeded'] });
  });

  it('limits descriptions to 255 characters', async () => {
    const res = await s.post(flags(), { name: uniqueName(), description: 'd'.repeat(256) });
    expect(res.body).toEqual({ message: ['Description is too long (maximum is 255 characters)'] });
  });

  it.each([
    [{ name: 'nope' }, ['Strategies name strategy name is invalid']],
    [{ name: 'default', parameters: { groupId: 'x' } }, ['Strategies parameters parameters are invalid']],
    [{ name: 'gradualRolloutUserId', parameters: { groupId: 'default', percentage: 50 } }, ['Strategies parameters percentage must be a string between 0 and 100 inclusive']],
    [{ name: 'gradualRolloutUserId', parameters: { groupId: 'Bad1', percentage: '101' } }, ['Strategies parameters percentage must be a string between 0 and 100 inclusive', 'Strategies parameters groupId parameter is invalid']],
    [{ name: 'flexibleRollout', parameters: { groupId: 'default', rollout: '50', stickiness: 'nope' } }, ['Strategies parameters stickiness parameter must be default, userId, sessionId, or random']],
    [{ name: 'flexibleRollout', parameters: { groupId: 'default', rollout: '-1', stickiness: 'userId' } }, ['Strategies parameters rollout must be a string between 0 and 100 inclusive']],
    [{ name: 'userWithId', parameters: { userIds: 'a,a' } }, ['Strategies parameters userIds must be a string of unique comma separated values each 256 characters or less']],
    [{ name: 'userWithId', parameters: { userIds: 'a, b' } }, ['Strategies parameters userIds must be a string of unique comma separated values each 256 characters or less']],
    [{ name: 'gitlabUserList' }, ["Strategies user list can't be blank"]],
  ])('validates strategy %j', async (strategy, message) => {
    const res = await s.post(flags(), { name: uniqueName(), strategies: [strategy] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message });
  });

  it('accepts every strategy with valid parameters', async () => {
    const res = await s.post(flags(), {
      name: uniqueName(),
      strategies: [
        { name: 'default', parameters: {} },
        { name: 'gradualRolloutUserId', parameters: { groupId: 'default', percentage: '0' } },
        { name: 'flexibleRollout', parameters: { groupId: 'default', rollout: '100', stickiness: 'random' } },
        { name: 'userWithId', parameters: { userIds: '1,2,3' } },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.strategies.map((x: any) => x.name)).toEqual(['default', 'gradualRolloutUserId', 'flexibleRollout', 'userWithId']);
  });

  it('points the user-list strategy at a list, under either name', async () => {
    const list = await s.post(flags('_user_lists'), { name: `list-${++seq}`, user_xids: 'u1,u2' });
    for (const name of ['gitlabUserList', 'platformUserList']) {
      const res = await s.post(flags(), { name: uniqueName(), strategies: [{ name, user_list_id: list.body.id }] });
      expect(res.status).toBe(201);
      expect(res.body.strategies[0]).toMatchObject({ name, parameters: {}, user_list: { id: list.body.id, iid: list.body.iid, name: list.body.name, user_xids: 'u1,u2' } });
    }
    const unknown = await s.post(flags(), { name: uniqueName(), strategies: [{ name: 'gitlabUserList', user_list_id: 999999 }] });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ message: '404 Not found' });
    const misplaced = await s.post(flags(), { name: uniqueName(), strategies: [{ name: 'default', user_list_id: list.body.id }] });
    expect(misplaced.body).toEqual({ message: ['Strategies user list must be blank'] });
  });

  it('lists flags by name, filters by scope and paginates', async () => {
    const p = await s.createProject();
    for (const [name, active] of [['zeta', true], ['alpha', false], ['mid', true]] as const) {
      await s.post(`/projects/${p.id}/feature_flags`, { name, active });
    }
    const all = await s.get(`/projects/${p.id}/feature_flags`);
    expect(all.body.map((f: any) => f.name)).toEqual(['alpha', 'mid', 'zeta']);
    expect(all.headers.get('x-total')).toBe('3');
    expect((await s.get(`/projects/${p.id}/feature_flags`, { query: { scope: 'enabled' } })).body.map((f: any) => f.name)).toEqual(['mid', 'zeta']);
    expect((await s.get(`/projects/${p.id}/feature_flags`, { query: { scope: 'disabled' } })).body.map((f: any) => f.name)).toEqual(['alpha']);
    const page = await s.get(`/projects/${p.id}/feature_flags`, { query: { per_page: 1, page: 2 } });
    expect(page.body.map((f: any) => f.name)).toEqual(['mid']);
    const bad = await s.get(`/projects/${p.id}/feature_flags`, { query: { scope: 'all' } });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'scope does not have a valid value' });
  });

  it('gets a flag by name and answers 404 "Not found" for unknown names', async () => {
    const name = uniqueName();
    await s.post(flags(), { name });
    const got = await s.get(flags(`/${encodeURIComponent(name)}`));
    expect(got.body.name).toBe(name);
    await s.put(flags(`/${name}`), { strategies: [{ name: 'default' }] });
    expect((await s.get(flags(`/${name}`))).body.strategies[0].user_list).toBeNull();
    const missing = await s.get(flags('/no_such_flag'));
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: '404 Not found' });
  });

  it('updates name, description and active', async () => {
    const name = uniqueName();
    await s.post(flags(), { name });
    const renamed = `${name}_new`;
    const res = await s.put(flags(`/${name}`), { name: renamed, description: 'now described', active: false });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: renamed, description: 'now described', active: false });
    expect((await s.get(flags(`/${name}`))).status).toBe(404);
  });

  it('adds, updates and destroys strategies and scopes by id', async () => {
    const name = uniqueName();
    const created = await s.post(flags(), {
      name,
      strategies: [{ name: 'default', scopes: [{ environment_scope: 'staging' }, { environment_scope: 'review/*' }] }],
    });
    const strategy = created.body.strategies[0];
    const [staging, review] = strategy.scopes;
    const res = await s.put(flags(`/${name}`), {
      strategies: [
        {
          id: strategy.id,
          name: 'userWithId',
          parameters: { userIds: 'a' },
          scopes: [{ id: staging.id, environment_scope: 'production' }, { id: review.id, _destroy: true }, { environment_scope: 'qa' }],
        },
        { name: 'flexibleRollout', parameters: { groupId: 'default', rollout: '10', stickiness: 'default' } },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.strategies).toHaveLength(2);
    expect(res.body.strategies[0]).toMatchObject({ id: strategy.id, name: 'userWithId', parameters: { userIds: 'a' } });
    expect(res.body.strategies[0].scopes.map((x: any) => x.environment_scope)).toEqual(['production', 'qa']);
    const destroyed = await s.put(flags(`/${name}`), { strategies: [{ id: strategy.id, _destroy: true }] });
    expect(destroyed.body.strategies.map((x: any) => x.name)).toEqual(['flexibleRollout']);
  });

  it('validates updates like creates', async () => {
    const name = uniqueName();
    const other = uniqueName();
    await s.post(flags(), { name });
    await s.post(flags(), { name: other });
    expect((await s.put(flags(`/${name}`), { name: other })).body).toEqual({ message: ['Name has already been taken'] });
    const bad = await s.put(flags(`/${name}`), { strategies: [{ name: 'flexibleRollout', parameters: {} }] });
    expect(bad.body).toEqual({ message: ['Strategies parameters parameters are invalid'] });
  });

  it('deletes a flag with 200 and the deleted flag', async () => {
    const name = uniqueName();
    await s.post(flags(), { name, description: 'bye' });
    const res = await s.del(flags(`/${name}`));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name, description: 'bye' });
    expect((await s.get(flags(`/${name}`))).status).toBe(404);
  });

  it('records an audit event and bumps the project flag update time on each change', async () => {
    const db = s.service.context.db;
    const name = uniqueName();
    const before = (db.prepare('SELECT count(*) AS n FROM feature_flag_audit_events WHERE project_id = ?').get(project.id) as { n: number }).n;
    await s.post(flags(), { name, description: 'audited' });
    await s.put(flags(`/${name}`), { active: false });
    await s.del(flags(`/${name}`));
    const events = db.prepare('SELECT message FROM feature_flag_audit_events WHERE project_id = ? ORDER BY id').all(project.id) as { message: string }[];
    expect(events.length - before).toBe(3);
    expect(events[events.length - 3].message).toBe(`Created feature flag ${name} with description "audited".`);
    expect(events[events.length - 1].message).toBe(`Deleted feature flag ${name}.`);
    expect(db.prepare('SELECT last_feature_flag_updated_at FROM feature_flags_clients WHERE project_id = ?').get(project.id)).toBeTruthy();
  });

  it('requires Developer: reporters get 403', async () => {
    const reporter = await s.createUser();
    await s.addMember('projects', project.id, reporter.user.id, 20);
    for (const res of [
      await s.get(flags(), { token: reporter.token }),
      await s.post(flags(), { name: uniqueName() }, { token: reporter.token }),
      await s.get(flags('_user_lists'), { token: reporter.token }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ message: '403 Forbidden' });
    }
    const developer = await s.createUser();
    await s.addMember('projects', project.id, developer.user.id, 30);
    expect((await s.post(flags(), { name: uniqueName() }, { token: developer.token })).status).toBe(201);
  });
});

describe('feature flag user lists', () => {
  const lists = (suffix = ''): string => `/projects/${project.id}/feature_flags_user_lists${suffix}`;

  it('creates, gets, updates and deletes a list', async () => {
    const created = await s.post(lists(), { name: 'beta-testers', user_xids: 'a,b' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'beta-testers', user_xids: 'a,b', project_id: project.id });
    expect(created.body.path).toBe(`/${project.path_with_namespace}/-/feature_flags_user_lists/${created.body.iid}`);
    expect(created.body.edit_path).toBe(`${created.body.path}/edit`);
    const iid = created.body.iid;
    expect((await s.get(lists(`/${iid}`))).body.name).toBe('beta-testers');
    const updated = await s.put(lists(`/${iid}`), { user_xids: 'c' });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: 'beta-testers', user_xids: 'c' });
    expect((await s.get(lists(), { query: { search: 'beta' } })).body.map((l: any) => l.iid)).toContain(iid);
    expect((await s.del(lists(`/${iid}`))).status).toBe(204);
    const gone = await s.get(lists(`/${iid}`));
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ message: '404 Not found' });
  });

  it('reports missing parameters as a message', async () => {
    const res = await s.post(lists(), { name: 'x' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'user_xids is missing' });
  });

  it('rejects duplicate names and bad user ids', async () => {
    await s.post(lists(), { name: 'dup-list', user_xids: '' });
    expect((await s.post(lists(), { name: 'dup-list', user_xids: 'a' })).body).toEqual({ message: ['Name has already been taken'] });
    expect((await s.post(lists(), { name: 'bad-ids', user_xids: 'a,,b' })).body).toEqual({
      message: ['User xids user_xids must be a string of unique comma separated values each 256 characters or less'],
    });
  });

  it('answers 409 when a strategy still uses the list', async () => {
    const list = await s.post(lists(), { name: `used-${++seq}`, user_xids: 'a' });
    await s.post(flags(), { name: uniqueName(), strategies: [{ name: 'gitlabUserList', user_list_id: list.body.id }] });
    const res = await s.del(lists(`/${list.body.iid}`));
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ message: ['User list is associated with a strategy'] });
  });

  it('refuses a user list of another project on update with 404', async () => {
    const other = await s.createProject();
    const foreign = await s.post(`/projects/${other.id}/feature_flags_user_lists`, { name: 'foreign', user_xids: 'a' });
    const name = uniqueName();
    await s.post(flags(), { name });
    const res = await s.put(flags(`/${name}`), { strategies: [{ name: 'gitlabUserList', user_list_id: foreign.body.id }] });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: 'Not Found' });
  });
});

describe('project deletion', () => {
  it('removes the project\'s flags, user lists, allowlist links and job tokens with it', async () => {
    const p = await s.createProject();
    const other = await s.createProject();
    const list = await s.post(`/projects/${p.id}/feature_flags_user_lists`, { name: 'l', user_xids: 'a' });
    await s.post(`/projects/${p.id}/feature_flags`, { name: 'ff', strategies: [{ name: 'gitlabUserList', user_list_id: list.body.id }] });
    await s.post(`/projects/${other.id}/job_token_scope/allowlist`, { target_project_id: p.id });
    const token = (await s.post('/sandlab/job_tokens', { project_id: p.id })).body.token;
    expect([202, 204]).toContain((await s.del(`/projects/${p.id}`)).status);
    const db = s.service.context.db;
    expect(db.prepare('SELECT count(*) AS n FROM feature_flags WHERE project_id = ?').get(p.id)).toEqual({ n: 0 });
    expect(db.prepare('SELECT count(*) AS n FROM feature_flag_user_lists WHERE project_id = ?').get(p.id)).toEqual({ n: 0 });
    expect((await s.get(`/projects/${other.id}/job_token_scope/allowlist`)).body).toHaveLength(1);
    expect((await s.get('/user', { token: null, headers: { 'job-token': token } })).status).toBe(401);
  });
});
