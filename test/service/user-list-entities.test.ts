import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, TestService } from '../helpers/service';

// An administrator's page of users hands out again, after a write elsewhere, the full records
// (and their JSON texts) of the users whose rows, identities, namespace and creator read the same
// as when they were built (entities.ts usersFor, db/connection.ts unchangedEntity). These tests
// pin that every change to what a user shows there shows on the next page, each row as the
// user's own GET shows it to the same administrator.

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s?.stop());

const sql = (text: string, ...args: unknown[]) => s.service.context.db.prepare(text).run(...args);

describe('user pages after writes', () => {
  let admin: { user: any; token: string };
  let made: { user: any; token: string };
  let plain: { user: any; token: string };
  let project: any;

  /** Pages of users (by id, by name, a search), each row against the user's own GET, as text. */
  const page = async (token: string): Promise<Map<number, any>> => {
    const rows = new Map<number, any>();
    for (const query of ['per_page=100&order_by=id', 'per_page=100&order_by=name&sort=asc', 'search=user&per_page=100']) {
      const res = await s.get(`/users?${query}`, { token });
      expect(res.status).toBe(200);
      expect(res.text).toBe(JSON.stringify(res.body));
      for (const row of res.body) {
        expect(JSON.stringify(row)).toBe(JSON.stringify(ok(await s.get(`/users/${row.id}`, { token }))));
        rows.set(row.id, row);
      }
    }
    return rows;
  };
  /** The pages read twice with a write elsewhere before each (the records are built, then handed out again), then `change`, then the pages. */
  const after = async (change: () => Promise<unknown> | unknown, token = admin.token): Promise<Map<number, any>> => {
    for (let i = 0; i < 2; i++) {
      ok(await s.put(`/projects/${project.id}`, { description: `elsewhere ${i}` }));
      await page(token);
    }
    await change();
    return page(token);
  };

  beforeAll(async () => {
    admin = await s.createUser({ username: 'user-admin', admin: true });
    plain = await s.createUser({ username: 'user-plain' });
    // Made by the administrator: `created_by` shows them.
    const created = ok(await s.post('/users', { username: 'user-made', name: 'Made', email: 'made@example.com', password: 'password-1234567' }, { token: admin.token }));
    made = { user: created, token: '' };
    project = await s.createProject();
  });

  it("shows a user's own columns changed through the API and in SQL", async () => {
    let rows = await after(() => s.put(`/users/${plain.user.id}`, { name: 'Plain renamed', bio: 'Bio' }));
    expect(rows.get(plain.user.id)).toMatchObject({ name: 'Plain renamed', bio: 'Bio' });
    rows = await after(() => sql("UPDATE users SET note = 'noted', admin = 1 WHERE id = ?", plain.user.id));
    expect(rows.get(plain.user.id)).toMatchObject({ note: 'noted', is_admin: true });
  });

  it('shows a new identity and a new personal namespace', async () => {
    let rows = await after(() => sql("INSERT INTO identities (user_id, provider, extern_uid, created_at) VALUES (?, 'github', 'gh-1', '2026-01-01T00:00:00Z')", plain.user.id));
    expect(rows.get(plain.user.id).identities).toEqual([{ provider: 'github', extern_uid: 'gh-1', saml_provider_id: null }]);
    const before = rows.get(plain.user.id).namespace_id;
    rows = await after(() => sql("UPDATE namespaces SET owner_id = NULL WHERE kind = 'user' AND owner_id = ?", plain.user.id));
    expect(rows.get(plain.user.id).namespace_id).toBeNull();
    rows = await after(() => sql("UPDATE namespaces SET owner_id = ? WHERE id = ?", plain.user.id, before));
    expect(rows.get(plain.user.id).namespace_id).toBe(before);
  });

  it("shows the creator's new name", async () => {
    const rows = await after(() => sql('UPDATE users SET name = ? WHERE id = ?', 'Admin in SQL', admin.user.id));
    expect(rows.get(made.user.id).created_by).toMatchObject({ id: admin.user.id, name: 'Admin in SQL' });
  });

  it('shows the shape the viewer gets when they stop being an administrator', async () => {
    const viewer = await s.createUser({ username: 'user-viewer', admin: true });
    await page(viewer.token);
    sql('UPDATE users SET admin = 0 WHERE id = ?', viewer.user.id);
    ok(await s.put(`/projects/${project.id}`, { description: 'elsewhere again' }));
    const res = await s.get('/users?per_page=100&order_by=id', { token: viewer.token });
    // Not an administrator: every user's basic record, their own too.
    expect(res.body.find((u: any) => u.id === plain.user.id)).not.toHaveProperty('email');
    expect(res.body.find((u: any) => u.id === viewer.user.id)).not.toHaveProperty('is_admin');
  });
});
