import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';

// A page of epics hands out again, after a write elsewhere, the entities (and their JSON texts) of
// the epics whose rows and parts read the same as when they were built (unchangedEntity), and
// reads their rows by id from memory while epics/011's log names none written (db/written-rows.ts).
// These tests pin that every change to what an epic shows (its row, through the API or in SQL; its
// parent, the children and grandchildren its dates come from, its thumbs, its labels' details, its
// author, its group's path, what the viewer may administer) shows on the next page, each row as
// its own GET shows it.

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s?.stop());

const sql = (text: string, ...args: unknown[]) => s.service.context.db.prepare(text).run(...args);
const text = (record: unknown): string => JSON.stringify(record);

describe('epic pages after writes', () => {
  let group: any;
  let sub: any;
  let other: any;
  let reporter: { user: any; token: string };
  let author: { user: any; token: string };
  const epics: Record<string, any> = {};
  let touches = 0;

  /** The page through `from` (the top group unless said), and each row against its own GET. */
  const page = async (token?: string, query = 'per_page=100', from: any = group): Promise<any[]> => {
    const res = await s.get(`/groups/${from.id}/epics?${query}`, { token });
    expect(res.status).toBe(200);
    expect(res.text).toBe(JSON.stringify(res.body));
    for (const row of res.body) {
      const own = ok(await s.get(`/groups/${row.group_id}/epics/${row.iid}`, { token }));
      const fromPath = row.group_id === from.id ? own.references.relative : own.references.full;
      const expected = { ...own, references: { ...own.references, relative: fromPath } };
      delete expected.subscribed;
      // A single epic shows label names; with_labels_details, the page shows each label's entity (pinned in entity-pages.test.ts).
      if (query.includes('with_labels_details')) expected.labels = row.labels;
      expect(text(row)).toBe(text(expected));
    }
    return res.body;
  };
  /** The page read twice with a write elsewhere before each, then `change`, a write elsewhere and the page. */
  const after = async (change: () => Promise<unknown> | unknown, token?: string, query?: string, from?: any): Promise<any[]> => {
    for (let i = 0; i < 2; i++) {
      ok(await s.put(`/groups/${other.id}`, { description: `elsewhere ${++touches}` }));
      await page(token, query, from);
    }
    await change();
    ok(await s.put(`/groups/${other.id}`, { description: `elsewhere ${++touches}` }));
    return page(token, query, from);
  };
  const byId = (rows: any[], key: string): any => rows.find((r) => r.id === epics[key].id);

  beforeAll(async () => {
    reporter = await s.createUser();
    author = await s.createUser();
    group = await s.createGroup({ visibility: 'private' });
    sub = await s.createGroup({ parent_id: group.id, visibility: 'private' });
    other = await s.createGroup();
    await s.addMember('groups', group.id, reporter.user.id, 20);
    await s.addMember('groups', group.id, author.user.id, 30);
    ok(await s.post(`/groups/${group.id}/labels`, { name: 'shared', color: '#0000ff' }));
    const make = async (key: string, groupId: number, body: Record<string, unknown>, token?: string) =>
      (epics[key] = ok(await s.post(`/groups/${groupId}/epics`, { title: key, ...body }, { token })));
    await make('parent', group.id, { labels: 'shared,zeta', description: 'Every part: ünïcödé \u2028' }, author.token);
    await make('child', group.id, { parent_id: epics.parent.id, start_date_is_fixed: true, start_date_fixed: '2026-01-05' });
    await make('inherits', group.id, { parent_id: epics.parent.id });
    await make('grandchild', group.id, { parent_id: epics.inherits.id, due_date_is_fixed: true, due_date_fixed: '2026-03-01' });
    await make('in-sub', sub.id, { parent_id: epics.parent.id, labels: 'shared', color: '#123456' });
    await make('plain', group.id, {});
    ok(await s.post(`/groups/${group.id}/epics/${epics.parent.iid}/award_emoji`, { name: 'thumbsup' }));
  });

  it('shows columns written in SQL without updated_at, for the administrator and a Reporter', async () => {
    for (const [column, value, read, shown] of [
      ['title', 'Retitled in SQL', (r: any) => r.title, 'Retitled in SQL'],
      ['description', 'Described in SQL', (r: any) => r.description, 'Described in SQL'],
      ['color', '#ffffff', (r: any) => r.text_color, '#333333'],
      ['labels', '["sql"]', (r: any) => r.labels, ['sql']],
      ['start_date_fixed', '2020-01-01', (r: any) => r.start_date, '2020-01-01'],
      ['imported_from', 'github', (r: any) => r.imported, true],
    ] as const) {
      for (const token of [undefined, reporter.token]) {
        const before = (s.service.context.db.prepare(`SELECT ${column} AS v FROM epics WHERE id = ?`).get(epics.child.id) as { v: unknown }).v;
        const rows = await after(() => sql(`UPDATE epics SET ${column} = ? WHERE id = ?`, value, epics.child.id), token);
        expect(read(byId(rows, 'child')), column).toEqual(shown);
        sql(`UPDATE epics SET ${column} = ? WHERE id = ?`, before, epics.child.id);
      }
    }
  });

  it("shows a child's and a grandchild's new dates on the epics above them, and a new parent", async () => {
    let rows = await after(() => sql("UPDATE epics SET start_date_fixed = '2025-06-01' WHERE id = ?", epics.child.id));
    expect(byId(rows, 'parent').start_date).toBe('2025-06-01');
    rows = await after(() => s.put(`/groups/${group.id}/epics/${epics.grandchild.iid}`, { due_date_fixed: '2027-01-01' }));
    expect(byId(rows, 'inherits').due_date).toBe('2027-01-01');
    expect(byId(rows, 'parent').due_date).toBe('2027-01-01');
    rows = await after(() => sql("UPDATE epics SET due_date_fixed = '2028-02-02' WHERE id = ?", epics.grandchild.id));
    expect(byId(rows, 'parent').due_date).toBe('2028-02-02');
    rows = await after(() => sql('UPDATE epics SET parent_id = ? WHERE id = ?', epics.inherits.id, epics.plain.id));
    expect(byId(rows, 'plain').parent_iid).toBe(epics.inherits.iid);
    // The parent's own iid changes (in SQL): its children's links follow.
    rows = await after(() => sql('UPDATE epics SET iid = 900 WHERE id = ?', epics.inherits.id));
    expect(byId(rows, 'plain')._links.parent).toMatch(/\/epics\/900$/);
  });

  it("shows thumbs, a label's new colour, the author's new name, the group's new path and the viewer's new role", async () => {
    let rows = await after(() => s.post(`/groups/${group.id}/epics/${epics.plain.iid}/award_emoji`, { name: 'thumbsdown' }));
    expect(byId(rows, 'plain').downvotes).toBe(1);
    rows = await after(() => sql("UPDATE labels SET color = '#00ff00' WHERE title = 'shared' AND group_id = ?", group.id), undefined, 'per_page=100&with_labels_details=true');
    expect(byId(rows, 'parent').labels.find((l: any) => l.name === 'shared').color).toBe('#00ff00');
    rows = await after(() => s.put(`/users/${author.user.id}`, { name: 'Renamed Author' }));
    expect(byId(rows, 'parent').author.name).toBe('Renamed Author');
    rows = await after(() => sql('UPDATE users SET username = ? WHERE id = ?', 'author-sql', author.user.id));
    expect(byId(rows, 'parent').author.username).toBe('author-sql');
    rows = await after(() => s.put(`/groups/${sub.id}`, { path: `${sub.path}-moved` }));
    expect(byId(rows, 'in-sub').web_url).toContain(`${sub.path}-moved/-/epics/`);
    expect(byId(rows, 'in-sub').references.relative).toBe(`${group.full_path}/${sub.path}-moved&${epics['in-sub'].iid}`);
    // Read through the subgroup: its epic is `&iid` from there.
    rows = await after(() => undefined, undefined, 'per_page=100', sub);
    expect(byId(rows, 'in-sub').references.relative).toBe(`&${epics['in-sub'].iid}`);
    // A Reporter administers the epics (date settings); made a Guest, no longer.
    rows = await after(() => undefined, reporter.token);
    expect('start_date_is_fixed' in byId(rows, 'plain')).toBe(true);
    rows = await after(() => sql('UPDATE members SET access_level = 10 WHERE user_id = ? AND source_id = ?', reporter.user.id, group.id), reporter.token);
    expect('start_date_is_fixed' in byId(rows, 'plain')).toBe(false);
  });
});
