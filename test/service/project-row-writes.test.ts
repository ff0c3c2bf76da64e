import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { statementReads } from '../helpers/lists';
import { TestService, ok } from '../helpers/service';

/**
 * A project's row (findProjectById) outlives writes to other projects: it is found again among
 * the rows kept by id until the projects' write log (core/146) names it, so a request to one
 * project after another's description changed reads no project row off the table; a project
 * written in any way (the API, SQL, another connection, a delete) is read again.
 */
let s: TestService;
let a: number;
let b: number;

beforeAll(async () => {
  s = await TestService.start();
  a = (await s.createProject({ name: 'row-a', path: 'row-a' })).id;
  b = (await s.createProject({ name: 'row-b', path: 'row-b' })).id;
});
afterAll(() => s.stop());

const PROJECT_ROWS = /FROM projects WHERE id (= \?|IN \(SELECT value FROM json_each\(\?\)\))/;

/** GET /projects/:id's name, and the project rows read off the table meanwhile (by id). */
async function nameOf(id: number): Promise<{ name: string | undefined; status: number; read: unknown[][] }> {
  let res: Awaited<ReturnType<TestService['get']>> | undefined;
  const reads = await statementReads(s, (sql) => PROJECT_ROWS.test(sql), async () => (res = await s.get(`/projects/${id}`)));
  return { name: (res!.body as { name?: string }).name, status: res!.status, read: reads.map((r) => r.args) };
}

it("reads no project's row again after a write to another project, and every project written again", async () => {
  expect((await nameOf(a)).name).toBe('row-a');
  // Another project written: project A's row is kept.
  ok(await s.put(`/projects/${b}`, { description: 'written' }));
  expect(await nameOf(a)).toEqual({ name: 'row-a', status: 200, read: [] });
  // Written in SQL through the service's connection: read again.
  s.service.context.db.prepare("UPDATE projects SET name = 'row-a-sql' WHERE id = ?").run(a);
  expect(await nameOf(a)).toEqual({ name: 'row-a-sql', status: 200, read: [[JSON.stringify([a])]] });
  // Written by another connection: seen once this one writes (its lookups last until its own next write), read again then.
  const other = new Database(join(s.dataDir, 'sandlab.db'));
  other.prepare("UPDATE projects SET name = 'row-a-other' WHERE id = ?").run(a);
  other.close();
  ok(await s.put(`/projects/${b}`, { description: 'written again' }));
  expect(await nameOf(a)).toEqual({ name: 'row-a-other', status: 200, read: [[JSON.stringify([a])]] });
  expect((await nameOf(b)).name).toBe('row-b');
  // An issue's notes (whose visibility asks the caller's access in the project) read no project row either.
  const issue = ok(await s.post(`/projects/${a}/issues`, { title: 'noted' }));
  ok(await s.post(`/projects/${a}/issues/${issue.iid}/notes`, { body: 'a note' }));
  ok(await s.get(`/projects/${a}/issues/${issue.iid}/notes`));
  ok(await s.put(`/projects/${b}`, { description: 'written for notes' }));
  const reads = await statementReads(s, (sql) => PROJECT_ROWS.test(sql), () => s.get(`/projects/${a}/issues/${issue.iid}/notes`), 'get');
  expect(reads).toEqual([]);
  // Deleted in SQL: gone.
  s.service.context.db.prepare('DELETE FROM projects WHERE id = ?').run(a);
  expect((await nameOf(a)).status).toBe(404);
});
