import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';

// An event row reads its project's import state from the project's row as every request finds it
// (kept across writes to other tables, core/099), not a statement per event: these tests pin that a
// project's "created" event reads "imported" exactly while the project is an import, through SQL
// writes to the project, in the project's, the user's and the instance's event lists.

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s?.stop());

const sql = (text: string, ...args: unknown[]) => s.service.context.db.prepare(text).run(...args);

describe('event rows', () => {
  it("show a project's creation as imported while the project is an import", async () => {
    const { user, token } = await s.createUser();
    const imported = await s.createProject({}, token);
    const plain = await s.createProject({}, token);
    const created = async (): Promise<Record<number, string>> => {
      const out: Record<number, string> = {};
      for (const path of [`/projects/${imported.id}/events`, `/projects/${plain.id}/events`, `/users/${user.id}/events`, '/events?scope=all&per_page=100']) {
        const res = await s.get(path, { token: path.startsWith('/events') ? undefined : token });
        expect(res.status, path).toBe(200);
        for (const e of res.body as any[]) if (!e.target_type && (e.project_id === imported.id || e.project_id === plain.id)) out[e.project_id] = e.action_name;
      }
      return out;
    };
    expect(await created()).toEqual({ [imported.id]: 'created', [plain.id]: 'created' });
    sql("UPDATE projects SET import_type = 'github', import_status = 'finished' WHERE id = ?", imported.id);
    expect(await created()).toEqual({ [imported.id]: 'imported', [plain.id]: 'created' });
    // A write elsewhere keeps the project's row: the next page reads the same.
    ok(await s.put(`/projects/${plain.id}`, { description: 'elsewhere' }, { token }));
    expect(await created()).toEqual({ [imported.id]: 'imported', [plain.id]: 'created' });
    sql("UPDATE projects SET import_status = 'none' WHERE id = ?", imported.id);
    expect(await created()).toEqual({ [imported.id]: 'created', [plain.id]: 'created' });
    sql("UPDATE projects SET import_status = 'failed', import_type = NULL WHERE id = ?", imported.id);
    expect(await created()).toEqual({ [imported.id]: 'created', [plain.id]: 'created' });
    sql("UPDATE projects SET import_type = 'gitlab_project' WHERE id = ?", imported.id);
    expect(await created()).toEqual({ [imported.id]: 'imported', [plain.id]: 'created' });
  });
});
