import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, TestService } from '../helpers/service';

// A page of groups hands out again, after a write elsewhere, the entities (and their JSON texts) of
// the groups whose rows and inputs read the same as when they were built (entities.ts group,
// db/connection.ts unchangedEntity). These tests pin that every change to what a group shows (its
// row through the API or in SQL, its settings, a parent's name, the instance's defaults for project
// creation and branch protection) shows on the next page, each row as the group's own GET shows it.

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s?.stop());

const sql = (text: string, ...args: unknown[]) => s.service.context.db.prepare(text).run(...args);

describe('group pages after writes', () => {
  let top: any;
  let sub: any;
  let other: any;

  /** The list, and each row against the group's own GET (whose detail fields come after the list's). */
  const page = async (path: string): Promise<any[]> => {
    const res = await s.get(path);
    expect(res.status).toBe(200);
    expect(res.text).toBe(JSON.stringify(res.body));
    for (const row of res.body) {
      const own = ok(await s.get(`/groups/${row.id}`));
      expect(JSON.stringify(row)).toBe(JSON.stringify(Object.fromEntries(Object.entries(own).slice(0, Object.keys(row).length))));
    }
    return res.body;
  };
  const lists = (): string[] => ['/groups?per_page=100', `/groups/${top.id}/subgroups`, '/groups?search=layer&per_page=100'];
  /** Every list read twice with a write elsewhere before each (the entities are built, then handed out again), then `change`, then the lists. */
  const after = async (change: () => Promise<unknown> | unknown): Promise<Map<number, any>> => {
    for (let i = 0; i < 2; i++) {
      ok(await s.put(`/groups/${other.id}`, { description: `elsewhere ${Math.random()}` }));
      for (const path of lists()) await page(path);
    }
    await change();
    const rows = new Map<number, any>();
    for (const path of lists()) for (const row of await page(path)) rows.set(row.id, row);
    return rows;
  };

  beforeAll(async () => {
    top = await s.createGroup({ name: 'Top layer', path: 'top-layer' });
    sub = await s.createGroup({ name: 'Sub layer', path: 'sub-layer', parent_id: top.id });
    other = await s.createGroup({ name: 'Other', path: 'other' });
  });

  it('shows its own row written through the API and in SQL', async () => {
    expect((await after(() => s.put(`/groups/${sub.id}`, { description: 'By the API' }))).get(sub.id).description).toBe('By the API');
    const renamed = await after(() => sql("UPDATE namespaces SET name = 'Sub layer renamed', path = 'sub-renamed', full_path = 'top-layer/sub-renamed' WHERE id = ?", sub.id));
    expect(renamed.get(sub.id)).toMatchObject({ name: 'Sub layer renamed', full_name: 'Top layer / Sub layer renamed', full_path: 'top-layer/sub-renamed' });
    expect(renamed.get(sub.id).web_url).toMatch(/\/groups\/top-layer\/sub-renamed$/);
    const settings = await after(() => sql(`UPDATE namespaces SET settings = json_set(settings, '$.lfs_enabled', json('false')) WHERE id = ?`, sub.id));
    expect(settings.get(sub.id).lfs_enabled).toBe(false);
  });

  it("shows a parent's new name in full_name", async () => {
    const rows = await after(() => sql("UPDATE namespaces SET name = 'Top layer renamed' WHERE id = ?", top.id));
    expect(rows.get(sub.id).full_name).toBe('Top layer renamed / Sub layer renamed');
  });

  it("shows the instance's defaults for groups without their own", async () => {
    const before = await after(() => undefined);
    expect(before.get(top.id).default_branch_protection).toBe(2);
    const protection = await after(() => s.put('/application/settings', { default_branch_protection: 1 }));
    expect(protection.get(top.id).default_branch_protection).toBe(1);
    expect(protection.get(top.id).default_branch_protection_defaults).not.toEqual(before.get(top.id).default_branch_protection_defaults);
    const creation = await after(() => s.put('/application/settings', { default_project_creation: 1 }));
    expect(creation.get(top.id).project_creation_level).toBe('maintainer');
    expect(before.get(top.id).project_creation_level).not.toBe('maintainer');
  });
});
