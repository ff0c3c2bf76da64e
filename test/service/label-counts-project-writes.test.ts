import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { preparedBy } from '../helpers/lists';
import { TestService } from '../helpers/service';

/**
 * An administrator's counts of a project's own labels (`with_counts`) read the label counters
 * without a project row per counter (the project is the labels' own): the statement names no
 * `projects`, so its answers stay across a write to a project and go at a write to the counters.
 * Others' counts, and a group's labels (summed over its projects), still read the projects.
 */
let s: TestService;
let p: number;
let q: number;
let local: number;
let guest: { user: { id: number }; token: string };

const counts = async (token?: string) => {
  const res = await s.get(`/projects/${p}/labels`, { query: { with_counts: 'true', per_page: '100' }, token });
  expect(res.status).toBe(200);
  const l = (res.body as { id: number; open_issues_count: number; closed_issues_count: number; open_merge_requests_count: number }[]).find((x) => x.id === local)!;
  return [l.open_issues_count, l.closed_issues_count, l.open_merge_requests_count];
};

beforeAll(async () => {
  s = await TestService.start();
  const group = (await s.createGroup({ visibility: 'public' })).id;
  p = (await s.createProject({ name: 'p', namespace_id: group, visibility: 'public' })).id;
  q = (await s.createProject({ name: 'q', namespace_id: group, visibility: 'public' })).id;
  local = (await s.post(`/projects/${p}/labels`, { name: 'local', color: '#00ff00' })).body.id;
  guest = await s.createUser();
  await s.addMember('projects', p, guest.user.id, 10);
  await s.post(`/projects/${p}/issues`, { title: 'one', labels: 'local' });
  await s.post(`/projects/${p}/issues`, { title: 'two', labels: 'local', confidential: true });
  await s.post(`/projects/${p}/issues`, { title: 'three', labels: 'local' });
  await s.put(`/projects/${p}/issues/3`, { state_event: 'close' });
  expect((await s.post(`/projects/${p}/merge_requests`, { source_branch: 'a', target_branch: 'main', title: 'mr', labels: 'local' })).status).toBe(201);
});
afterAll(() => s.stop());

it('counts as the records say, for an administrator and a guest', async () => {
  expect(await counts()).toEqual([2, 1, 1]);
  expect(await counts(guest.token)).toEqual([1, 1, 1]);
});

it('reads no project row for an administrator, and still does for a guest', async () => {
  const reads = async (path: string, token?: string) =>
    (await preparedBy(s, () => s.get(path, { query: { with_counts: 'true' }, token }))).filter((sql) => sql.includes('FROM label_counts c'));
  const admin = await reads(`/projects/${p}/labels`);
  expect(admin.length).toBeGreaterThan(0);
  for (const sql of admin) expect(sql).not.toMatch(/\bprojects\b/);
  for (const sql of await reads(`/projects/${p}/labels`, guest.token)) expect(sql).toMatch(/JOIN projects p ON p\.id = c\.project_id/);
});

it("keeps an administrator's counts across a project's write, and reads them again after a write to the counters", async () => {
  const first = await counts();
  // Another connection moves the counter, every table version put back: this connection does not see it.
  const behind = new Database(join(s.dataDir, 'sandlab.db'));
  try {
    const versions = behind.prepare('SELECT name, version FROM table_versions').all() as { name: string; version: number }[];
    behind.prepare("UPDATE label_counts SET n = n + 5 WHERE issuable_type = 'Issue' AND project_id = ? AND title = 'local' AND state = 'opened' AND confidential = 0").run(p);
    const put = behind.prepare('UPDATE table_versions SET version = ? WHERE name = ?');
    for (const v of versions) put.run(v.version, v.name);
  } finally {
    behind.close();
  }
  expect((await s.put(`/projects/${q}`, { description: 'written' })).status).toBe(200);
  expect((await s.put(`/projects/${p}`, { description: 'written' })).status).toBe(200);
  expect(await counts()).toEqual(first);
  // An issue with the label: the counters are read again (the five added behind show too).
  await s.post(`/projects/${p}/issues`, { title: 'four', labels: 'local' });
  expect(await counts()).toEqual([first[0] + 6, first[1], first[2]]);
});
