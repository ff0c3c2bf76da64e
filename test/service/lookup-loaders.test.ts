import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

/**
 * The lookups every request makes (its token's identity and user, its project, the project's
 * namespace, the instance's settings) are loaded by functions made once, given the service they
 * read (db/connection.ts cachedLookup's `arg`), not by a closure per call. Two services in one
 * process, with the same root token value and records of the same ids, each answer from their
 * own database, read in turn, and after a write on one of them.
 */
let a: TestService;
let b: TestService;
beforeAll(async () => {
  a = await TestService.start();
  b = await TestService.start();
});
afterAll(async () => {
  await a.stop();
  await b.stop();
});

describe("each service's lookups read its own database", () => {
  it('token identity and user, project, namespace and settings, read in turn and after writes', async () => {
    const group = await a.createGroup({ path: 'alpha-group', name: 'alpha-group' });
    const pa = await a.createProject({ name: 'alpha', namespace_id: group.id });
    const pb = await b.createProject({ name: 'beta' });
    expect(pa.id).toBe(pb.id);
    const { user, token } = await a.createUser({ username: 'only-on-a' });

    const readBoth = async () => {
      const out: Record<string, unknown>[] = [];
      for (const s of [a, b, a, b]) {
        const me = await s.get('/user');
        const project = await s.get(`/projects/${pa.id}`);
        const settings = await s.get('/application/settings');
        out.push({ me: me.body.name, project: project.body.path_with_namespace, namespace: project.body.namespace.full_path, limit: settings.body.default_projects_limit });
      }
      return out;
    };
    expect(await readBoth()).toEqual([
      { me: 'Administrator', project: 'alpha-group/alpha', namespace: 'alpha-group', limit: 100000 },
      { me: 'Administrator', project: 'root/beta', namespace: 'root', limit: 100000 },
      { me: 'Administrator', project: 'alpha-group/alpha', namespace: 'alpha-group', limit: 100000 },
      { me: 'Administrator', project: 'root/beta', namespace: 'root', limit: 100000 },
    ]);
    // A token of A's is no one on B.
    expect((await a.get('/user', { token })).body.id).toBe(user.id);
    expect((await b.get('/user', { token })).status).toBe(401);

    // Writes on B: its root's name, its project's path, its settings. A reads as before.
    expect((await b.put('/users/1', { name: 'Root of B' })).status).toBe(200);
    expect((await b.put(`/projects/${pb.id}`, { path: 'beta-moved' })).status).toBe(200);
    expect((await b.put('/application/settings', { default_projects_limit: 7 })).status).toBe(200);
    expect(await readBoth()).toEqual([
      { me: 'Administrator', project: 'alpha-group/alpha', namespace: 'alpha-group', limit: 100000 },
      { me: 'Root of B', project: 'root/beta-moved', namespace: 'root', limit: 7 },
      { me: 'Administrator', project: 'alpha-group/alpha', namespace: 'alpha-group', limit: 100000 },
      { me: 'Root of B', project: 'root/beta-moved', namespace: 'root', limit: 7 },
    ]);
    // A's user blocked on A: its token is refused there, as the identity is read again.
    expect((await a.post(`/users/${user.id}/block`)).status).toBe(201);
    expect((await a.get('/user', { token })).status).toBe(403);
    expect((await b.get('/user', { token })).status).toBe(401);
  });
});
