import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { expectEveryPage, queryPlan, statementReads } from '../helpers/lists';

/**
 * One author's issues of a project or a group counted by labels=Any or labels=None (with
 * due_date=0 too, and for a Guest with the confidentiality check) read core/392's (project_id,
 * author_id, labels, confidential, due_date) index alone, not each of the author's records by
 * issues_project_author_created. The index only changes the read: every page and header of
 * those lists against the records, for an administrator and a Guest, before and after writes.
 */
let s: TestService;
let group: number;
let project: number;
let author: number;
let guest: string;
const db = () => s.service.context.db;

const ids = (where: string, token?: string): number[] =>
  (
    db()
      .prepare(`SELECT x.id FROM issues x WHERE x.project_id = ? AND x.author_id = ? AND ${where}${token === guest ? ' AND x.confidential = 0' : ''} ORDER BY x.created_at DESC, x.id DESC`)
      .all(project, author) as { id: number }[]
  ).map((r) => r.id);

const LISTS: [Record<string, string>, string][] = [
  [{ labels: 'Any' }, "x.labels != '[]'"],
  [{ labels: 'None' }, "x.labels = '[]'"],
  [{ labels: 'Any', due_date: '0', state: 'all' }, "x.labels != '[]' AND x.due_date IS NULL"],
  [{ labels: 'Any', state: 'closed' }, "x.labels != '[]' AND x.state = 'closed'"],
];

async function expectLists(): Promise<void> {
  for (const token of [undefined, guest]) {
    for (const [query, where] of LISTS) {
      const q = { ...query, author_id: String(author), state: query.state ?? 'opened' };
      const want = ids(`${where}${query.state ? '' : " AND x.state = 'opened'"}`, token);
      await expectEveryPage(s, `/projects/${project}/issues`, q, want, 7, token);
      await expectEveryPage(s, `/groups/${group}/issues`, q, want, 7, token);
    }
  }
}

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ visibility: 'private' })).id;
  project = (await s.createProject({ name: 'labelled', namespace_id: group, visibility: 'private' })).id;
  const a = await s.createUser();
  author = a.user.id;
  const g = await s.createUser();
  guest = g.token;
  await s.addMember('groups', group, g.user.id, 10);
  const insert = db().prepare(
    `INSERT INTO issues (project_id, iid, title, state, author_id, confidential, labels, due_date, created_at, updated_at)
     VALUES (?, ?, 'Labelled', ?, ?, ?, ?, ?, ?, ?)`,
  );
  // 300 issues: two of three the author's, every 4th labelled bug, every 5th feature too, every 9th due, every 6th closed, every 11th confidential.
  db().transaction(() => {
    for (let i = 1; i <= 300; i++) {
      const at = new Date(Date.UTC(2024, 4, 1) + Math.floor(i / 2) * 1000).toISOString();
      const labels = JSON.stringify([...(i % 4 === 0 ? ['bug'] : []), ...(i % 5 === 0 ? ['feature'] : [])]);
      insert.run(project, i, i % 6 === 0 ? 'closed' : 'opened', i % 3 ? author : 1, i % 11 === 0 ? 1 : 0, labels, i % 9 === 0 ? '2030-01-01' : null, at, at);
    }
  })();
}, 60_000);
afterAll(async () => s?.stop());

describe("one author's issues counted by labels=Any or labels=None", () => {
  it('reads the counts from issues_project_author_labels alone, for an administrator and a Guest (core/392)', async () => {
    for (const token of [undefined, guest]) {
      for (const path of [`/projects/${project}/issues`, `/groups/${group}/issues`]) {
        const counts = await statementReads(
          s,
          (sql) => /^SELECT count\(\*\) AS n FROM \(SELECT 1 FROM issues x WHERE x\.labels != '\[\]' AND x\.author_id = \?/.test(sql),
          () => s.get(path, { token, query: { labels: 'Any', author_id: String(author), state: 'all', due_date: '0' } }),
          ['all', 'get'],
        );
        expect(counts.length, path).toBeGreaterThan(0);
        for (const { sql, args } of counts) expect(queryPlan(db(), sql, ...args), path).toContain('USING COVERING INDEX issues_project_author_labels (project_id=? AND author_id=?)');
      }
    }
  });

  it('answers every page and header as the records say, before and after writes', async () => {
    await expectLists();
    const iids = (db().prepare('SELECT iid FROM issues WHERE project_id = ? AND author_id = ? ORDER BY iid').all(project, author) as { iid: number }[]).map((r) => r.iid);
    ok(await s.put(`/projects/${project}/issues/${iids[0]}`, { labels: 'bug' }));
    ok(await s.put(`/projects/${project}/issues/${iids[5]}`, { labels: '' }));
    ok(await s.put(`/projects/${project}/issues/${iids[7]}`, { labels: 'feature', state_event: 'close', due_date: '2031-03-03' }));
    ok(await s.put(`/projects/${project}/issues/${iids[10]}`, { confidential: true }));
    ok(await s.put(`/projects/${project}/issues/${iids[12]}`, { due_date: null }));
    expect((await s.api('DELETE', `/projects/${project}/issues/${iids[14]}`)).status).toBe(204);
    await expectLists();
  }, 120_000);
});
