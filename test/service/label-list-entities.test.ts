import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';

// Every change to what a label shows (its row, through the API or in SQL; its counts; the
// viewer's subscription; the list it is read through) shows on the next page after writes
// elsewhere, each row as its own GET shows it: the pins for the label entities a list keeps across
// writes (unchangedEntity: row, counts, subscription and a group label's priority in the project).

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s?.stop());

const sql = (text: string, ...args: unknown[]) => s.service.context.db.prepare(text).run(...args);
const COUNTS = ['open_issues_count', 'closed_issues_count', 'open_merge_requests_count'];
const without = (record: Record<string, unknown>, keys: string[]): Record<string, unknown> => Object.fromEntries(Object.entries(record).filter(([k]) => !keys.includes(k)));

describe('label pages after writes', () => {
  let group: any;
  let project: any;
  let other: any;
  let dev: { user: any; token: string };
  const ids: Record<string, number> = {};
  let touches = 0;

  /** The project's page (with counts, unless `plain`), each row against its own GET; and the group's page against the project's rows of the same labels. */
  const pages = async (token?: string, plain = false): Promise<any[]> => {
    const res = await s.get(`/projects/${project.id}/labels?per_page=100${plain ? '' : '&with_counts=true'}`, { token });
    expect(res.status).toBe(200);
    expect(res.text).toBe(JSON.stringify(res.body));
    for (const row of res.body) {
      const own = ok(await s.get(`/projects/${project.id}/labels/${row.id}`, { token }));
      expect(JSON.stringify(row)).toBe(JSON.stringify(plain ? without(own, COUNTS) : own));
    }
    const fromGroup = ok(await s.get(`/groups/${group.id}/labels?per_page=100`, { token }));
    for (const row of fromGroup) {
      const inProject = res.body.find((l: any) => l.id === row.id);
      expect(JSON.stringify(row)).toBe(JSON.stringify(without(inProject, [...COUNTS, 'priority', 'is_project_label'])));
    }
    return res.body;
  };
  const after = async (change: () => Promise<unknown> | unknown, token?: string, plain = false): Promise<any[]> => {
    for (let i = 0; i < 2; i++) {
      ok(await s.put(`/projects/${other.id}`, { description: `elsewhere ${++touches}` }));
      await pages(token, plain);
    }
    await change();
    ok(await s.put(`/projects/${other.id}`, { description: `elsewhere ${++touches}` }));
    return pages(token, plain);
  };
  const named = (rows: any[], id: number): any => rows.find((l) => l.id === id);

  beforeAll(async () => {
    dev = await s.createUser();
    group = await s.createGroup({ visibility: 'public' });
    project = await s.createProject({ namespace_id: group.id, visibility: 'public' });
    other = await s.createProject();
    await s.addMember('projects', project.id, dev.user.id, 30);
    ids.bug = ok(await s.post(`/projects/${project.id}/labels`, { name: 'bug', color: '#d9534f', description: 'A **bug** ünïcödé \u2028', priority: 2 })).id;
    ids.plain = ok(await s.post(`/projects/${project.id}/labels`, { name: 'plain', color: '#eeeeee' })).id;
    ids.team = ok(await s.post(`/groups/${group.id}/labels`, { name: 'team', color: '#00ff00' })).id;
    ok(await s.post(`/projects/${project.id}/issues`, { title: 'one', labels: 'bug,team' }));
  });

  it('shows label columns written in SQL, for the administrator and a Developer, with counts and without', async () => {
    for (const [column, value, read, shown] of [
      ['title', 'renamed', (l: any) => l.name, 'renamed'],
      ['color', '#000000', (l: any) => l.text_color, '#FFFFFF'],
      ['description', 'Now *emphasised*', (l: any) => l.description_html, expect.stringContaining('<em>emphasised</em>')],
      ['priority', 7, (l: any) => l.priority, 7],
    ] as const) {
      for (const [token, plain] of [
        [undefined, false],
        [dev.token, true],
      ] as const) {
        for (const id of [ids.bug, ids.team]) {
          if (column === 'priority' && id === ids.team) continue;
          const before = (s.service.context.db.prepare(`SELECT ${column} AS v FROM labels WHERE id = ?`).get(id) as { v: unknown }).v;
          const rows = await after(() => sql(`UPDATE labels SET ${column} = ? WHERE id = ?`, value, id), token, plain);
          expect(read(named(rows, id)), column).toEqual(shown);
          sql(`UPDATE labels SET ${column} = ? WHERE id = ?`, before, id);
        }
      }
    }
  });

  it("shows the viewer's subscriptions and the labels' counts as they change", async () => {
    let rows = await after(() => s.post(`/projects/${project.id}/labels/${ids.plain}/subscribe`, undefined, { token: dev.token }), dev.token);
    expect(named(rows, ids.plain).subscribed).toBe(true);
    // Another viewer's subscription is theirs alone.
    rows = await after(() => undefined);
    expect(named(rows, ids.plain).subscribed).toBe(false);
    rows = await after(() => s.post(`/projects/${project.id}/labels/${ids.plain}/unsubscribe`, undefined, { token: dev.token }), dev.token);
    expect(named(rows, ids.plain).subscribed).toBe(false);
    let issue: any;
    rows = await after(async () => (issue = ok(await s.post(`/projects/${project.id}/issues`, { title: 'two', labels: 'plain' }))));
    expect(named(rows, ids.plain).open_issues_count).toBe(1);
    rows = await after(() => s.put(`/projects/${project.id}/issues/${issue.iid}`, { state_event: 'close' }));
    expect(named(rows, ids.plain)).toMatchObject({ open_issues_count: 0, closed_issues_count: 1 });
  });

  it("shows a group label's priority in the project (label_priorities) as it changes", async () => {
    let rows = await after(() => sql('INSERT INTO label_priorities (project_id, label_id, priority) VALUES (?, ?, 4)', project.id, ids.team));
    expect(named(rows, ids.team).priority).toBe(4);
    rows = await after(() => sql('UPDATE label_priorities SET priority = 9 WHERE project_id = ? AND label_id = ?', project.id, ids.team));
    expect(named(rows, ids.team).priority).toBe(9);
    rows = await after(() => sql('DELETE FROM label_priorities WHERE project_id = ? AND label_id = ?', project.id, ids.team));
    expect(named(rows, ids.team).priority).toBeNull();
  });
});
