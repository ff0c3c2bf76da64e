import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, TestService } from '../helpers/service';

// A page of projects hands out again, after a write elsewhere, the entities (and their JSON texts)
// of the projects whose rows and parts read the same as when they were built (entities.ts
// listedProject, db/connection.ts unchangedEntity). These tests pin that every change to what a
// project shows (its row, through the API or straight in SQL; its group and the groups above; a
// personal namespace's owner; its stars and open issues; the instance's Auto DevOps default; the
// viewer's admin flag and memberships) shows on the next page, each row as its own GET shows it.

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s?.stop());

const sql = (text: string, ...args: unknown[]) => s.service.context.db.prepare(text).run(...args);

describe('project pages after writes', () => {
  let top: any;
  let sub: any;
  let owner: { user: any; token: string };
  let viewer: { user: any; token: string };
  let inTop: any;
  let inSub: any;
  let personal: any;

  /** The list, and each row against the project's own GET, as text. */
  const page = async (path: string, token?: string): Promise<any[]> => {
    const res = await s.get(path, { token });
    expect(res.status).toBe(200);
    expect(res.text).toBe(JSON.stringify(res.body));
    for (const row of res.body) expect(JSON.stringify(row)).toBe(JSON.stringify(ok(await s.get(`/projects/${row.id}`, { token }))));
    return res.body;
  };
  const lists = (token?: string): string[] => [`/groups/${top.id}/projects?include_subgroups=true`, token ? '/projects?membership=true' : '/projects'];
  /** Every list read twice with a write elsewhere before each (the entities are built, then handed out again), then `change`, then the lists. */
  const after = async (change: () => Promise<unknown> | unknown, token?: string): Promise<Map<number, any>> => {
    const other = await s.createProject();
    for (let i = 0; i < 2; i++) {
      ok(await s.put(`/projects/${other.id}`, { description: `elsewhere ${i}` }));
      for (const path of lists(token)) await page(path, token);
    }
    await change();
    const rows = new Map<number, any>();
    for (const path of lists(token)) for (const row of await page(path, token)) rows.set(row.id, row);
    return rows;
  };

  beforeAll(async () => {
    owner = await s.createUser();
    viewer = await s.createUser();
    top = await s.createGroup({ visibility: 'public' });
    sub = await s.createGroup({ parent_id: top.id, visibility: 'public' });
    inTop = await s.createProject({ namespace_id: top.id, visibility: 'public', description: 'In **top**' });
    inSub = await s.createProject({ namespace_id: sub.id, visibility: 'public' });
    personal = ok(await s.post('/projects', { name: 'personal', visibility: 'public' }, { token: owner.token }));
    await s.addMember('projects', inTop.id, viewer.user.id, 30);
    await s.addMember('projects', personal.id, viewer.user.id, 20);
  });

  it("shows the project's own columns changed through the API and in SQL", async () => {
    let rows = await after(() => s.put(`/projects/${inTop.id}`, { name: 'Renamed top project', merge_method: 'ff' }));
    expect(rows.get(inTop.id)).toMatchObject({ name: 'Renamed top project', merge_method: 'ff' });
    rows = await after(() => sql("UPDATE projects SET description = 'Now *here*', topics = '[\"x\"]' WHERE id = ?", inSub.id));
    expect(rows.get(inSub.id)).toMatchObject({ description: 'Now *here*', topics: ['x'] });
    expect(rows.get(inSub.id).description_html).toContain('<em>here</em>');
  });

  it('shows a new name of its group and of the group above', async () => {
    let rows = await after(() => s.put(`/groups/${sub.id}`, { name: 'Sub renamed' }));
    expect(rows.get(inSub.id).name_with_namespace).toContain('Sub renamed / ');
    rows = await after(() => sql('UPDATE namespaces SET name = ? WHERE id = ?', 'Top in SQL', top.id));
    expect(rows.get(inSub.id).name_with_namespace).toMatch(/^Top in SQL \/ Sub renamed \/ /);
    expect(rows.get(inTop.id).namespace.name).toBe('Top in SQL');
  });

  it("shows a personal namespace's owner renamed", async () => {
    const rows = await after(() => sql('UPDATE users SET name = ? WHERE id = ?', 'Owner in SQL', owner.user.id));
    expect(rows.get(personal.id).owner.name).toBe('Owner in SQL');
  });

  it('shows new stars and open issues', async () => {
    let rows = await after(() => s.post(`/projects/${inTop.id}/star`));
    expect(rows.get(inTop.id).star_count).toBe(1);
    rows = await after(() => s.post(`/projects/${inSub.id}/issues`, { title: 'Open' }));
    expect(rows.get(inSub.id).open_issues_count).toBe(1);
    // Closed in SQL: the project's row reads the same, its count does not.
    rows = await after(() => sql("UPDATE issues SET state = 'closed' WHERE project_id = ?", inSub.id));
    expect(rows.get(inSub.id).open_issues_count).toBe(0);
  });

  it("shows the instance's Auto DevOps default and a group's own", async () => {
    const before = (await after(() => undefined)).get(inSub.id).auto_devops_enabled;
    let rows = await after(() => s.put('/application/settings', { auto_devops_enabled: !before }));
    expect(rows.get(inSub.id).auto_devops_enabled).toBe(!before);
    rows = await after(() => s.put(`/groups/${top.id}`, { auto_devops_enabled: before }));
    expect(rows.get(inSub.id).auto_devops_enabled).toBe(before);
  });

  it("shows the viewer's memberships and admin flag", async () => {
    let rows = await after(() => s.addMember('groups', sub.id, viewer.user.id, 40), viewer.token);
    expect(rows.get(inSub.id).permissions.group_access).toMatchObject({ access_level: 40 });
    rows = await after(() => s.put(`/projects/${inTop.id}/members/${viewer.user.id}`, { access_level: 40 }), viewer.token);
    expect(rows.get(inTop.id).permissions.project_access).toMatchObject({ access_level: 40 });
    expect(rows.get(inTop.id).import_url).toBeNull();
    expect('import_url' in rows.get(personal.id)).toBe(false);
    rows = await after(() => sql('UPDATE users SET admin = 1 WHERE id = ?', viewer.user.id), viewer.token);
    expect(rows.get(personal.id).import_url).toBeNull();
  });
});
