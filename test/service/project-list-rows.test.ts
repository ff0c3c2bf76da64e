import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { queryPlan, statementReads } from '../helpers/lists';

// Lists of projects read a page's ids from the order and its rows by id, each row kept until
// core/146's log names its project written (areas/core/project-rows.ts, db/written-rows.ts
// rowsByIds). These tests pin that every write to a project — through the API, in SQL, an insert,
// a delete, an activity time an issue moves, more writes than the log keeps — shows at the next
// page of GET /projects and of a group's projects, in every order, each page as the same list read
// with nothing kept (inside a transaction); and that a page after a write reads only the rows written.

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s?.stop());

const db = () => s.service.context.db;
const sql = (text: string, ...args: unknown[]) => db().prepare(text).run(...args);
/** rowsByIds' read of projects by id: their rows as one JSON text (readTableRows), or each value (a BLOB). */
const BY_ID = /^SELECT (\*|json_group_array\(json_array\([^)]*\)\) AS page) FROM projects WHERE id IN \(SELECT value FROM json_each\(\?\)\)$/;

/** The ids each read of projects by id asked for while `fn` ran. */
async function rowsRead(fn: () => Promise<unknown>): Promise<number[][]> {
  return (await statementReads(s, (text) => BY_ID.test(text), fn)).map((read) => JSON.parse(read.args[0] as string) as number[]);
}

describe('rows of project lists kept until written', () => {
  let group: any;
  const projects: any[] = [];
  let touches = 0;

  const lists = (): string[] => [
    '/projects?order_by=name&sort=asc&per_page=3&page=2',
    '/projects?order_by=name&per_page=100',
    '/projects?order_by=last_activity_at&per_page=100',
    '/projects?order_by=id&sort=asc&per_page=100&simple=true',
    `/groups/${group.id}/projects?order_by=path&per_page=100`,
  ];

  /** Every list's text twice (the second reads what the first kept), each as the same list read inside a transaction, where no row is kept. */
  const expectLists = async (): Promise<Record<string, any[]>> => {
    const fresh: Record<string, string> = {};
    sql('SAVEPOINT afresh');
    try {
      for (const path of lists()) fresh[path] = ok(await s.get(path)) && (await s.get(path)).text;
    } finally {
      sql('RELEASE afresh');
    }
    const out: Record<string, any[]> = {};
    for (let round = 0; round < 2; round++) {
      for (const path of lists()) {
        const res = await s.get(path);
        expect(res.status, path).toBe(200);
        expect(res.text, `${path} round ${round}`).toBe(fresh[path]);
        out[path] = res.body;
      }
    }
    return out;
  };

  beforeAll(async () => {
    group = await s.createGroup({ path: 'rows-group' });
    for (const name of ['delta', 'alpha', 'echo', 'charlie', 'bravo']) projects.push(await s.createProject({ name, path: name, namespace_id: group.id }));
  });

  it('show writes through the API and in SQL at the next page, in every order', async () => {
    await expectLists();
    ok(await s.put(`/projects/${projects[0].id}`, { description: `described ${++touches}` }));
    expect((await expectLists())['/projects?order_by=name&per_page=100'].find((p) => p.id === projects[0].id).description).toBe(`described ${touches}`);
    // A rename in SQL moves the project in the name order.
    sql("UPDATE projects SET name = 'zulu' WHERE id = ?", projects[1].id);
    expect((await expectLists())['/projects?order_by=name&per_page=100'][0].id).toBe(projects[1].id);
    sql("UPDATE projects SET settings = json_set(settings, '$.issues_access_level', 'private'), visibility = 'internal' WHERE id = ?", projects[2].id);
    await expectLists();
    // An issue (an event: the project's activity) and a later activity time written in SQL: first in that order.
    ok(await s.post(`/projects/${projects[3].id}/issues`, { title: 'activity' }));
    await expectLists();
    sql("UPDATE projects SET last_activity_at = '2999-01-01T00:00:00.000Z' WHERE id = ?", projects[3].id);
    expect((await expectLists())['/projects?order_by=last_activity_at&per_page=100'][0].id).toBe(projects[3].id);
  });

  it('show projects added and deleted, through the API and in SQL', async () => {
    await expectLists();
    const added = await s.createProject({ name: 'aaa-first', path: 'aaa-first', namespace_id: group.id });
    expect((await expectLists())[`/groups/${group.id}/projects?order_by=path&per_page=100`].map((p) => p.id)).toContain(added.id);
    sql('DELETE FROM projects WHERE id = ?', added.id);
    expect((await expectLists())['/projects?order_by=name&per_page=100'].map((p) => p.id)).not.toContain(added.id);
    ok(await s.del(`/projects/${projects[4].id}`));
    await expectLists();
  });

  it('show every write after more writes than the log keeps', async () => {
    await expectLists();
    const update = db().prepare('UPDATE projects SET description = ? WHERE id = ?');
    for (let i = 0; i < 1005; i++) update.run(`bulk ${i}`, projects[i % 4].id);
    const lists = await expectLists();
    expect(lists['/projects?order_by=name&per_page=100'].find((p) => p.id === projects[0].id).description).toBe('bulk 1004');
  });

  it('read after a write only the rows written, the page ids from the order', async () => {
    await expectLists();
    const path = '/projects?order_by=name&per_page=100';
    // Written in SQL: the list reads that row again, and only it.
    sql('UPDATE projects SET description = ? WHERE id = ?', `described ${++touches}`, projects[2].id);
    expect(await rowsRead(() => s.get(path))).toEqual([[projects[2].id]]);
    expect(await rowsRead(() => s.get(path))).toEqual([]);
    // Written through the API: its answer read the row written (findProjectById keeps project rows
    // in the same store), so the list reads none.
    ok(await s.put(`/projects/${projects[2].id}`, { description: `described ${++touches}` }));
    expect(await rowsRead(() => s.get(path))).toEqual([]);
    // The page's ids come from the name order's index alone.
    expect(queryPlan(db(), 'SELECT p.id AS id FROM projects p WHERE 1 = 1 ORDER BY p.name desc, p.id desc LIMIT 21 OFFSET ?', 0)).toBe('SCAN p USING COVERING INDEX projects_name');
  });
});
