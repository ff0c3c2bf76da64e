import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, TestService } from '../helpers/service';
import { statementReads } from '../helpers/lists';

// A page of issues, merge requests, snippets, events or epics whose rows (the same frozen objects) and what they
// read besides read as when its entities were built hands those entities out again, checked once
// per page (db/connection.ts unchangedPage, areas/core/entities.ts issuablePage, snippets',
// events' and epics' entities). issue-list-entities and entity-builders pin that every change to what a row shows
// reaches the next page; these pin what a page kept whole adds: pages that start with the same
// record (other lengths, orders, viewers) each show their own rows, a path or a day that changes
// with no row written shows on the next page.

let now = new Date('2026-03-02T10:00:00Z');
let s: TestService;
beforeAll(async () => {
  s = await TestService.start({ clock: () => new Date(now) });
});
afterAll(async () => s?.stop());

const without = (record: Record<string, unknown>, ...keys: string[]): Record<string, unknown> =>
  Object.fromEntries(Object.entries(record).filter(([k]) => !keys.includes(k)));

describe('pages of issues and merge requests kept whole', () => {
  let project: any;
  let milestone: any;
  const issues: any[] = [];
  const mrs: any[] = [];

  /** The page as `token` reads it, each row against the record's own GET (the fields a list shows), as text. */
  const page = async (kind: 'issues' | 'merge_requests', query: string, token?: string | null): Promise<any[]> => {
    const res = await s.get(`/projects/${project.id}/${kind}?${query}`, { token });
    expect(res.status).toBe(200);
    expect(res.text).toBe(JSON.stringify(res.body));
    for (const row of res.body) {
      const own = ok(await s.get(`/projects/${project.id}/${kind}/${row.iid}`, { token }));
      const listed = kind === 'issues' ? without(own, 'subscribed') : Object.fromEntries(Object.keys(row).map((k) => [k, own[k]]));
      expect(JSON.stringify(row)).toBe(JSON.stringify(listed));
    }
    return res.body;
  };
  const iids = (rows: any[]): number[] => rows.map((r) => r.iid);

  beforeAll(async () => {
    project = await s.createProject({ visibility: 'public' });
    milestone = ok(await s.post(`/projects/${project.id}/milestones`, { title: 'today', due_date: '2026-03-02' }));
    // Created in this order; by title (descending) the newest comes first, then the others in another order.
    for (const title of ['bb', 'mm', 'aa', 'zz']) {
      issues.push(ok(await s.post(`/projects/${project.id}/issues`, { title, milestone_id: milestone.id })));
      mrs.push(ok(await s.post(`/projects/${project.id}/merge_requests`, { title, source_branch: `b-${title}`, target_branch: 'main', milestone_id: milestone.id })));
    }
    // A merge request the administrator may see and an anonymous reader may not closes the newest issue.
    const hidden = await s.createProject({ visibility: 'private' });
    ok(await s.post(`/projects/${hidden.id}/merge_requests`, { title: 'Hidden', source_branch: 'h', target_branch: 'main', description: `Closes ${project.path_with_namespace}#${issues[3].iid}` }));
  });

  it('show their own rows when they start with the same record: other lengths, orders and viewers', async () => {
    const newest = (list: any[]) => [...list].reverse().map((r) => r.iid);
    const byTitle = (list: any[]) => [...list].sort((a, b) => b.title.localeCompare(a.title)).map((r) => r.iid);
    for (const [kind, records] of [['issues', issues], ['merge_requests', mrs]] as const) {
      for (let round = 0; round < 2; round++) {
        // A write elsewhere between rounds: the pages read in the first are checked, not built, in the second.
        const other = await s.createProject();
        ok(await s.put(`/projects/${other.id}`, { description: `round ${round}` }));
        expect(iids(await page(kind, 'per_page=2'))).toEqual(newest(records).slice(0, 2));
        expect(iids(await page(kind, 'per_page=3'))).toEqual(newest(records).slice(0, 3));
        expect(iids(await page(kind, 'per_page=2&order_by=title'))).toEqual(byTitle(records).slice(0, 2));
        expect(iids(await page(kind, 'per_page=3'))).toEqual(newest(records).slice(0, 3));
        expect(iids(await page(kind, 'per_page=2&order_by=title', null))).toEqual(byTitle(records).slice(0, 2));
        expect(iids(await page(kind, 'per_page=2'))).toEqual(newest(records).slice(0, 2));
      }
    }
    // The same rows, each viewer its own entities: the closing merge request shows to the administrator only.
    expect((await page('issues', 'per_page=2'))[0].merge_requests_count).toBe(1);
    expect((await page('issues', 'per_page=2', null))[0].merge_requests_count).toBe(0);
    expect((await page('issues', 'per_page=2'))[0].merge_requests_count).toBe(1);
  });

  it("show their project's new path, and its group's, with no milestone on the page to show it too", async () => {
    const group = await s.createGroup();
    const plain = await s.createProject({ namespace_id: group.id });
    const issue = ok(await s.post(`/projects/${plain.id}/issues`, { title: 'No milestone' }));
    const mr = ok(await s.post(`/projects/${plain.id}/merge_requests`, { title: 'No milestone', source_branch: 'nm', target_branch: 'main' }));
    const urls = async (): Promise<string[]> => [
      ...(ok(await s.get(`/projects/${plain.id}/issues`)) as any[]).map((r) => r.web_url),
      ...(ok(await s.get(`/projects/${plain.id}/merge_requests`)) as any[]).map((r) => r.web_url),
    ];
    for (const [change, path] of [
      [() => s.put(`/projects/${plain.id}`, { path: `renamed-${plain.id}` }), `${group.path}/renamed-${plain.id}`],
      [() => s.put(`/groups/${group.id}`, { path: `regrouped-${group.id}` }), `regrouped-${group.id}/renamed-${plain.id}`],
    ] as const) {
      await urls();
      ok(await change());
      expect(await urls()).toEqual([`${s.url}/${path}/-/issues/${issue.iid}`, `${s.url}/${path}/-/merge_requests/${mr.iid}`]);
    }
  });

  it("show a milestone's issues (IssueBasic) as the issues read after writes that leave their rows alone", async () => {
    const author = await s.createUser();
    const mine = ok(await s.post(`/projects/${project.id}/issues`, { title: 'basic', milestone_id: milestone.id }, { token: author.token }));
    const basics = async (): Promise<any[]> => {
      const res = await s.get(`/projects/${project.id}/milestones/${milestone.id}/issues`);
      expect(res.status).toBe(200);
      for (const row of res.body) {
        const own = ok(await s.get(`/projects/${project.id}/issues/${row.iid}`));
        expect(JSON.stringify(row)).toBe(JSON.stringify(Object.fromEntries(Object.keys(row).map((k) => [k, own[k]]))));
      }
      return res.body;
    };
    for (const [change, shows] of [
      [() => s.put(`/users/${author.user.id}`, { name: 'Renamed Basic' }), (row: any) => row.author.name === 'Renamed Basic'],
      [() => s.put(`/projects/${project.id}/milestones/${milestone.id}`, { description: 'Described' }), (row: any) => row.milestone.description === 'Described'],
      [() => s.post(`/projects/${project.id}/issues/${mine.iid}/award_emoji`, { name: 'thumbsup' }), (row: any) => row.upvotes === 1],
    ] as const) {
      await basics();
      ok(await change());
      expect(shows((await basics()).find((r) => r.iid === mine.iid))).toBe(true);
    }
  });

  it('show a milestone expired once its day has passed, with nothing written in between', async () => {
    /** Each `expired` the page's milestones show. */
    const expired = async (kind: string): Promise<boolean[]> => [...new Set<boolean>((await s.get(`/projects/${project.id}/${kind}`, { token: null })).body.map((r: any) => r.milestone.expired))];
    for (const kind of ['issues', 'merge_requests'] as const) {
      now = new Date('2026-03-02T10:00:00Z');
      const other = await s.createProject();
      ok(await s.put(`/projects/${other.id}`, { description: kind }));
      // Read anonymously: a request without a token writes nothing (no token's last use), so the page is not checked again.
      for (let i = 0; i < 2; i++) expect(await expired(kind)).toEqual([false]);
      now = new Date('2026-03-03T10:00:00Z');
      expect(await expired(kind)).toEqual([true]);
      expect(ok(await s.get(`/projects/${project.id}/milestones/${milestone.id}`)).expired).toBe(true);
    }
  });
});

describe('pages of snippets kept whole', () => {
  it("show their own rows for each length and viewer, and their project's and group's new path", async () => {
    const author = await s.createUser();
    const other = await s.createUser();
    const group = await s.createGroup({ visibility: 'public' });
    const project = await s.createProject({ namespace_id: group.id, visibility: 'public' });
    await s.addMember('projects', project.id, author.user.id, 30);
    const made: any[] = [];
    for (const title of ['one', 'two', 'three']) {
      made.push(ok(await s.post(`/projects/${project.id}/snippets`, { title, file_name: `${title}.txt`, content: title, visibility: 'public' }, { token: author.token })));
    }
    /** The page as `token` reads it, each row against the snippet's own GET. */
    const page = async (query: string, token?: string | null): Promise<any[]> => {
      const res = await s.get(`/projects/${project.id}/snippets?${query}`, { token });
      expect(res.status).toBe(200);
      for (const row of res.body) expect(JSON.stringify(row)).toBe(JSON.stringify(ok(await s.get(`/projects/${project.id}/snippets/${row.id}`, { token }))));
      return res.body;
    };
    const newest = made.map((m) => m.id).reverse();
    for (let round = 0; round < 2; round++) {
      const elsewhere = await s.createProject();
      ok(await s.put(`/projects/${elsewhere.id}`, { description: `round ${round}` }));
      expect((await page('per_page=2')).map((r) => r.id)).toEqual(newest.slice(0, 2));
      expect((await page('per_page=3')).map((r) => r.id)).toEqual(newest);
      // The author's e-mail shows to the administrator and to the author, not to another user.
      expect((await page('per_page=2', author.token))[0].author.email).toBe(author.user.email);
      expect((await page('per_page=2', other.token))[0].author.email).not.toBe(author.user.email);
      expect((await page('per_page=2'))[0].author.email).toBe(author.user.email);
    }
    ok(await s.put(`/groups/${group.id}`, { path: `snippets-moved-${group.id}` }));
    expect((await page('per_page=3')).map((r) => r.web_url)).toEqual(newest.map((id) => `${s.url}/snippets-moved-${group.id}/${project.path}/-/snippets/${id}`));
  });
});

describe('pages of events kept whole', () => {
  it("show their own rows for each length, and their project's import state changed with no event written", async () => {
    const project = await s.createProject({ visibility: 'public' });
    for (const title of ['one', 'two']) ok(await s.post(`/projects/${project.id}/issues`, { title }));
    const page = async (query: string): Promise<any[]> => (ok(await s.get(`/projects/${project.id}/events?${query}`)) as any[]).map((e) => [e.id, e.action_name, e.target_title]);
    const all = await page('per_page=20');
    expect(all.map((e) => e[1])).toEqual(['opened', 'opened', 'created']);
    for (let round = 0; round < 2; round++) {
      const elsewhere = await s.createProject();
      ok(await s.put(`/projects/${elsewhere.id}`, { description: `round ${round}` }));
      expect(await page('per_page=2')).toEqual(all.slice(0, 2));
      expect(await page('per_page=3')).toEqual(all);
      expect(await page('per_page=2&sort=asc')).toEqual([...all].reverse().slice(0, 2));
    }
    // The project's first event reads "imported" once the project was imported (a project row the events do not name).
    s.service.context.db.prepare("UPDATE projects SET import_type = 'github', import_status = 'finished' WHERE id = ?").run(project.id);
    expect((await page('per_page=3')).map((e) => e[1])).toEqual(['opened', 'opened', 'imported']);
  });
});

describe('pages of epics kept whole', () => {
  it("show the fields an epics administrator sees once the viewer's role grants them, with no epic written", async () => {
    const group = await s.createGroup({ visibility: 'public' });
    const viewer = await s.createUser();
    await s.addMember('groups', group.id, viewer.user.id, 10);
    for (const title of ['one', 'two']) ok(await s.post(`/groups/${group.id}/epics`, { title }));
    const page = async (): Promise<any[]> => {
      const res = await s.get(`/groups/${group.id}/epics`, { token: viewer.token });
      expect(res.status).toBe(200);
      for (const row of res.body) expect(JSON.stringify(row)).toBe(JSON.stringify(ok(await s.get(`/groups/${group.id}/epics/${row.iid}`, { token: viewer.token }))).replace(/,"subscribed":(true|false)/, ''));
      return res.body;
    };
    for (let round = 0; round < 2; round++) {
      const elsewhere = await s.createProject();
      ok(await s.put(`/projects/${elsewhere.id}`, { description: `round ${round}` }));
      expect((await page()).map((e) => 'start_date_is_fixed' in e)).toEqual([false, false]);
    }
    // A Planner administers the group's epics: a members write, no epic, user or namespace written.
    ok(await s.put(`/groups/${group.id}/members/${viewer.user.id}`, { access_level: 15 }));
    expect((await page()).map((e) => 'start_date_is_fixed' in e)).toEqual([true, true]);
  });
});

describe('pages moved along by one row', () => {
  // A record added before a page moves it along by one: its rows are the kept page's rows but its
  // last, after the row that moved in from the page before. The kept entities are handed out again
  // and only that row is built (unchangedPage's `moved`, issuablePage's movedIssuablePage): its
  // counts read for it alone, and what it reads besides (its milestone, the closing merge requests
  // its viewer may see) checked on the next read as the kept rows' are.
  it('show the records after each insert, and a change to what only the row that moved in reads', async () => {
    const project = await s.createProject({ visibility: 'public' });
    const hidden = await s.createProject({ visibility: 'private' });
    const viewer = await s.createUser();
    const shared = ok(await s.post(`/projects/${project.id}/milestones`, { title: 'shared' }));
    const own = ok(await s.post(`/projects/${project.id}/milestones`, { title: 'own' }));
    let ownTitle: string = own.title;
    for (const kind of ['issues', 'merge_requests'] as const) {
      const made: any[] = [];
      // Pages of 3, newest first: page 2 is made[3..1]. Each insert moves made[4], then made[5], then made[6] into it.
      for (let i = 0; i < 7; i++) {
        // made[4], the row the first insert moves into page 2, alone has the milestone "own".
        const milestone_id = i === 4 ? own.id : shared.id;
        made.push(ok(await s.post(`/projects/${project.id}/${kind}`, { title: `moved ${kind} ${i}`, milestone_id, source_branch: `moved-${i}`, target_branch: 'main' })));
      }
      // A merge request the viewer may not see (yet) closes made[5], the row the second insert moves in.
      if (kind === 'issues') ok(await s.post(`/projects/${hidden.id}/merge_requests`, { title: 'Closer', source_branch: 'closer', target_branch: 'main', description: `Closes ${project.path_with_namespace}#${made[5].iid}` }));
      const db = s.service.context.db;
      const newest = (): { id: number; iid: number }[] => db.prepare(`SELECT id, iid FROM ${kind} WHERE project_id = ? ORDER BY created_at DESC, id DESC`).all(project.id) as { id: number; iid: number }[];
      /** Page 2 as the viewer reads it: its rows and headers against the records, each row against the record's own GET. */
      const page2 = async (): Promise<any[]> => {
        const res = await s.get(`/projects/${project.id}/${kind}?per_page=3&page=2`, { token: viewer.token });
        expect(res.status).toBe(200);
        const all = newest();
        expect(res.body.map((r: any) => r.iid)).toEqual(all.slice(3, 6).map((r) => r.iid));
        expect(['x-total', 'x-total-pages', 'x-next-page', 'x-prev-page'].map((h) => res.headers.get(h))).toEqual([String(all.length), String(Math.ceil(all.length / 3)), '3', '1']);
        for (const row of res.body) {
          const record = ok(await s.get(`/projects/${project.id}/${kind}/${row.iid}`, { token: viewer.token }));
          expect(JSON.stringify(row)).toBe(JSON.stringify(Object.fromEntries(Object.keys(row).map((k) => [k, record[k]]))));
        }
        return res.body;
      };
      const counted = (sql: string): boolean => sql.includes('FROM json_each(?) j CROSS JOIN user_note_counts');
      await page2();
      for (let round = 0; round < 4; round++) {
        ok(await s.post(`/projects/${project.id}/${kind}`, { title: `added ${kind} ${round}`, source_branch: `added-${round}`, target_branch: 'main' }));
        // No counts are read for the page's rows, at most for the row that moved in (its own GET, in page2, read them
        // first): the others' entities are the kept page's.
        const reads = await statementReads(s, counted, page2);
        const movedIn = newest()[3];
        if (round < 3) expect(movedIn.id).toBe(made[4 + round].id);
        expect(reads.map((r) => r.args[0]).filter((ids) => ids !== JSON.stringify([movedIn.id]))).toEqual([]);
        if (round === 0) {
          // The row that moved in shows the milestone "own", which no kept row shows: its new title shows on the next read.
          expect((await page2())[0].milestone.title).toBe(ownTitle);
          ownTitle = `own ${kind}`;
          ok(await s.put(`/projects/${project.id}/milestones/${own.id}`, { title: ownTitle }));
          expect((await page2())[0].milestone.title).toBe(`own ${kind}`);
        }
        if (round === 3) {
          // made[4], the one row that showed the milestone "own", has left the page: its new title leaves the page as kept.
          expect(newest().slice(3, 6).map((r) => r.id)).not.toContain(made[4].id);
          ownTitle = `own ${kind} again`;
          ok(await s.put(`/projects/${project.id}/milestones/${own.id}`, { title: ownTitle }));
          expect(await statementReads(s, counted, page2)).toEqual([]);
        }
        if (round === 1 && kind === 'issues') {
          // The row that moved in is closed by a merge request the viewer may see once its project is public (a
          // project written, no issue, user or count).
          expect((await page2())[0].merge_requests_count).toBe(0);
          ok(await s.put(`/projects/${hidden.id}`, { visibility: 'public' }));
          expect((await page2())[0].merge_requests_count).toBe(1);
        }
      }
    }
  });
});

describe('pages moved back by one row', () => {
  // A record before a page deleted, or moved out of the list by a close, moves every later page back
  // by one: its rows are the kept page's rows but its first, followed by the row that moved in from
  // the page after. The kept entities are handed out again and only that row is built (unchangedPage's
  // `moved` finds the kept page by its second row).
  it('show the records after each delete and close, and a change to what only the row that moved in reads', async () => {
    const project = await s.createProject({ visibility: 'public' });
    const hidden = await s.createProject({ visibility: 'private' });
    const viewer = await s.createUser();
    const shared = ok(await s.post(`/projects/${project.id}/milestones`, { title: 'shared' }));
    const own = ok(await s.post(`/projects/${project.id}/milestones`, { title: 'own' }));
    let ownTitle: string = own.title;
    for (const kind of ['issues', 'merge_requests'] as const) {
      const made: any[] = [];
      // Open ones in pages of 3, newest first: page 2 is made[6..4]. Each write before it moves made[3], then made[2], then made[1] into it.
      for (let i = 0; i < 10; i++) {
        // made[3], the row the first write moves into page 2, alone has the milestone "own".
        const milestone_id = i === 3 ? own.id : shared.id;
        made.push(ok(await s.post(`/projects/${project.id}/${kind}`, { title: `back ${kind} ${i}`, milestone_id, source_branch: `back-${i}`, target_branch: 'main' })));
      }
      // A merge request the viewer may not see (yet) closes made[2], the row the second write moves in.
      if (kind === 'issues') ok(await s.post(`/projects/${hidden.id}/merge_requests`, { title: 'Closer', source_branch: 'back-closer', target_branch: 'main', description: `Closes ${project.path_with_namespace}#${made[2].iid}` }));
      const db = s.service.context.db;
      const opened = (): { id: number; iid: number }[] =>
        db.prepare(`SELECT id, iid FROM ${kind} WHERE project_id = ? AND state = 'opened' ORDER BY created_at DESC, id DESC`).all(project.id) as { id: number; iid: number }[];
      /** Page 2 of the open ones as the viewer reads it: its rows and headers against the records, each row against the record's own GET. */
      const page2 = async (): Promise<any[]> => {
        const res = await s.get(`/projects/${project.id}/${kind}?state=opened&per_page=3&page=2`, { token: viewer.token });
        expect(res.status).toBe(200);
        const all = opened();
        const pages = Math.ceil(all.length / 3);
        expect(res.body.map((r: any) => r.iid)).toEqual(all.slice(3, 6).map((r) => r.iid));
        expect(['x-total', 'x-total-pages', 'x-next-page', 'x-prev-page'].map((h) => res.headers.get(h))).toEqual([String(all.length), String(pages), pages > 2 ? '3' : '', '1']);
        for (const row of res.body) {
          const record = ok(await s.get(`/projects/${project.id}/${kind}/${row.iid}`, { token: viewer.token }));
          expect(JSON.stringify(row)).toBe(JSON.stringify(Object.fromEntries(Object.keys(row).map((k) => [k, record[k]]))));
        }
        return res.body;
      };
      const counted = (sql: string): boolean => sql.includes('FROM json_each(?) j CROSS JOIN user_note_counts');
      await page2();
      for (let round = 0; round < 4; round++) {
        // Deleted or closed in turn: made[9], made[8], made[7], made[6] (then on page 1).
        const gone = made[9 - round];
        if (round % 2 === 0) expect((await s.del(`/projects/${project.id}/${kind}/${gone.iid}`)).status).toBe(204);
        else ok(await s.put(`/projects/${project.id}/${kind}/${gone.iid}`, { state_event: 'close' }));
        // No counts are read for the page's rows, at most for the row that moved in (its own GET, in page2, read them
        // first): the others' entities are the kept page's.
        const reads = await statementReads(s, counted, page2);
        const movedIn = opened()[5];
        if (round < 3) expect(movedIn.id).toBe(made[3 - round].id);
        expect(reads.map((r) => r.args[0]).filter((ids) => ids !== JSON.stringify([movedIn.id]))).toEqual([]);
        if (round === 0) {
          // The row that moved in shows the milestone "own", which no kept row shows: its new title shows on the next read.
          expect((await page2())[2].milestone.title).toBe(ownTitle);
          ownTitle = `own back ${kind}`;
          ok(await s.put(`/projects/${project.id}/milestones/${own.id}`, { title: ownTitle }));
          expect((await page2())[2].milestone.title).toBe(ownTitle);
        }
        if (round === 3) {
          // made[3], the one row that showed the milestone "own", has left the page: its new title leaves the page as kept.
          expect(opened().slice(3, 6).map((r) => r.id)).not.toContain(made[3].id);
          ownTitle = `own back ${kind} again`;
          ok(await s.put(`/projects/${project.id}/milestones/${own.id}`, { title: ownTitle }));
          expect(await statementReads(s, counted, page2)).toEqual([]);
        }
        if (round === 1 && kind === 'issues') {
          // The row that moved in is closed by a merge request the viewer may see once its project is public (a
          // project written, no issue, user or count).
          expect((await page2())[2].merge_requests_count).toBe(0);
          ok(await s.put(`/projects/${hidden.id}`, { visibility: 'public' }));
          expect((await page2())[2].merge_requests_count).toBe(1);
        }
      }
    }
  });
});
