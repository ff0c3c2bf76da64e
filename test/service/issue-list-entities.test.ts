import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, TestService } from '../helpers/service';

// A page of issues hands out again, after a write elsewhere, the entities (and their JSON texts)
// of the issues whose rows and embedded records read the same as when they were built
// (db/connection.ts unchangedEntity). These tests pin that every change to what an issue shows
// (its row, written through the API or straight in SQL; its author, assignee, closer and
// milestone; its project's path; its notes, thumbs and closing merge requests, and who may see
// those) shows on the next page, each row as its own GET shows it.

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s?.stop());

const without = (record: Record<string, unknown>, ...keys: string[]): Record<string, unknown> =>
  Object.fromEntries(Object.entries(record).filter(([k]) => !keys.includes(k)));
const sql = (text: string, ...args: unknown[]) => s.service.context.db.prepare(text).run(...args);

describe('issue pages after writes', () => {
  let project: any;
  let author: { user: any; token: string };
  let assignee: { user: any; token: string };
  let viewer: { user: any; token: string };
  let milestone: any;
  const issues: any[] = [];

  /** The page, and each row against the issue's own GET (without `subscribed`, which lists leave out), as text. */
  const page = async (token?: string, query = 'per_page=100'): Promise<any[]> => {
    const res = await s.get(`/projects/${project.id}/issues?${query}`, { token });
    expect(res.status).toBe(200);
    expect(res.text).toBe(JSON.stringify(res.body));
    for (const row of res.body) {
      const own = ok(await s.get(`/projects/${project.id}/issues/${row.iid}`, { token }));
      expect(JSON.stringify(row)).toBe(JSON.stringify(without(own, 'subscribed')));
    }
    return res.body;
  };
  /** The page read twice with a write elsewhere before each (the entities are built, then handed out again), then `change`, then the page. */
  const after = async (change: () => Promise<unknown> | unknown, token?: string): Promise<any[]> => {
    const other = await s.createProject();
    for (let i = 0; i < 2; i++) {
      ok(await s.put(`/projects/${other.id}`, { description: `elsewhere ${i}` }));
      await page(token);
    }
    await change();
    return page(token);
  };
  const byIid = (rows: any[], iid: number): any => rows.find((r) => r.iid === iid);

  beforeAll(async () => {
    author = await s.createUser();
    assignee = await s.createUser();
    viewer = await s.createUser();
    project = await s.createProject({ visibility: 'private' });
    await s.addMember('projects', project.id, author.user.id, 30);
    await s.addMember('projects', project.id, assignee.user.id, 30);
    await s.addMember('projects', project.id, viewer.user.id, 20);
    milestone = ok(await s.post(`/projects/${project.id}/milestones`, { title: 'v1', due_date: '2099-01-01' }));
    for (const [title, body] of [
      ['Plain', {}],
      ['Assigned', { assignee_ids: [assignee.user.id], milestone_id: milestone.id, labels: 'bug,ui' }],
      ['Closed', { description: 'Done' }],
    ] as const) {
      issues.push(ok(await s.post(`/projects/${project.id}/issues`, { title, ...body }, { token: author.token })));
    }
    ok(await s.put(`/projects/${project.id}/issues/${issues[2].iid}`, { state_event: 'close' }));
  });

  it("shows a user's new name and username (through the API and in SQL) on every issue they are on", async () => {
    let rows = await after(() => s.put(`/users/${author.user.id}`, { name: 'Renamed Author' }));
    expect(rows.map((r) => r.author.name)).toEqual(['Renamed Author', 'Renamed Author', 'Renamed Author']);
    rows = await after(() => sql('UPDATE users SET username = ? WHERE id = ?', 'assignee-sql', assignee.user.id));
    expect(byIid(rows, issues[1].iid).assignees[0]).toMatchObject({ username: 'assignee-sql', web_url: expect.stringMatching(/\/assignee-sql$/) });
    expect(byIid(rows, issues[1].iid).assignee.username).toBe('assignee-sql');
    rows = await after(() => sql("UPDATE users SET state = 'blocked' WHERE id = ?", assignee.user.id));
    expect(byIid(rows, issues[1].iid).assignee).toMatchObject({ state: 'blocked', locked: true });
    sql("UPDATE users SET state = 'active' WHERE id = ?", assignee.user.id);
  });

  it("shows a milestone's new title and state", async () => {
    let rows = await after(() => s.put(`/projects/${project.id}/milestones/${milestone.id}`, { title: 'v2' }));
    expect(byIid(rows, issues[1].iid).milestone.title).toBe('v2');
    rows = await after(() => sql("UPDATE milestones SET state = 'closed' WHERE id = ?", milestone.id));
    expect(byIid(rows, issues[1].iid).milestone.state).toBe('closed');
  });

  it("shows the project's new path in each issue's links and reference", async () => {
    const rows = await after(() => s.put(`/projects/${project.id}`, { path: `moved-${project.id}` }));
    for (const row of rows) {
      expect(row.web_url).toContain(`/moved-${project.id}/-/issues/${row.iid}`);
      expect(row.references.full).toBe(`${project.namespace.full_path}/moved-${project.id}#${row.iid}`);
    }
    expect(byIid(rows, issues[1].iid).milestone.web_url).toContain(`/moved-${project.id}/-/milestones/`);
  });

  it("shows each of an issue's own columns changed in SQL, one at a time, with updated_at left as it was", async () => {
    const iid = issues[0].iid;
    const before = byIid(await page(), iid).updated_at;
    for (const [column, value, shown] of [
      ['title', 'Retitled', { title: 'Retitled' }],
      ['description', 'Described', { description: 'Described' }],
      ['weight', 3, { weight: 3 }],
      ['labels', '["ui"]', { labels: ['ui'] }],
      ['due_date', '2030-01-02', { due_date: '2030-01-02' }],
      ['confidential', 1, { confidential: true }],
      ['discussion_locked', 1, { discussion_locked: true }],
      ['imported_from', 'github', { imported: true, imported_from: 'github' }],
    ] as const) {
      const rows = await after(() => sql(`UPDATE issues SET ${column} = ? WHERE id = ?`, value, issues[0].id));
      expect(byIid(rows, iid)).toMatchObject(shown);
      expect(byIid(rows, iid).updated_at).toBe(before);
    }
  });

  it('shows new notes, thumbs and a closing merge request', async () => {
    const iid = issues[0].iid;
    let rows = await after(() => s.post(`/projects/${project.id}/issues/${iid}/notes`, { body: 'A note' }));
    expect(byIid(rows, iid).user_notes_count).toBe(1);
    rows = await after(() => s.post(`/projects/${project.id}/issues/${iid}/award_emoji`, { name: 'thumbsdown' }));
    expect(byIid(rows, iid)).toMatchObject({ upvotes: 0, downvotes: 1 });
    rows = await after(() =>
      s.post(`/projects/${project.id}/merge_requests`, { title: 'Fix', source_branch: 'fix', target_branch: 'main', description: `Closes #${iid}` }),
    );
    expect(byIid(rows, iid).merge_requests_count).toBe(1);
  });

  it('shows a closing merge request once the viewer may see its project, with no issue written', async () => {
    const elsewhere = await s.createProject({ visibility: 'private' });
    const mr = ok(await s.post(`/projects/${elsewhere.id}/merge_requests`, { title: 'Elsewhere', source_branch: 'b', target_branch: 'main' }));
    const iid = issues[2].iid;
    sql("INSERT INTO merge_requests_closing_issues (merge_request_id, issue_id, created_at) VALUES (?, ?, '2026-01-01T00:00:00Z')", mr.id, issues[2].id);
    let rows = await after(() => undefined, viewer.token);
    expect(byIid(rows, iid).merge_requests_count).toBe(0);
    rows = await after(() => s.addMember('projects', elsewhere.id, viewer.user.id, 20), viewer.token);
    expect(byIid(rows, iid).merge_requests_count).toBe(1);
    // The administrator's entity of the same issue is its own.
    expect(byIid(await page(), iid).merge_requests_count).toBe(1);
  });

  it('keeps every row as its own GET shows it on pages of every size and order', async () => {
    for (const query of ['per_page=1&page=2', 'order_by=title&sort=asc', 'order_by=updated_at&per_page=2', 'state=closed']) {
      const other = await s.createProject();
      ok(await s.put(`/projects/${other.id}`, { description: query }));
      await page(undefined, query);
      await page(viewer.token, query);
    }
  });
});

describe('merge request pages after writes', () => {
  let project: any;
  let author: { user: any; token: string };
  let reviewer: { user: any; token: string };
  let milestone: any;
  const mrs: any[] = [];

  /** The page, and each row against the merge request's own GET (the fields a list shows), as text. */
  const page = async (query = 'per_page=100'): Promise<any[]> => {
    const res = await s.get(`/projects/${project.id}/merge_requests?${query}`);
    expect(res.status).toBe(200);
    expect(res.text).toBe(JSON.stringify(res.body));
    for (const row of res.body) {
      const own = ok(await s.get(`/projects/${project.id}/merge_requests/${row.iid}`));
      expect(JSON.stringify(row)).toBe(JSON.stringify(Object.fromEntries(Object.keys(row).map((k) => [k, own[k]]))));
    }
    return res.body;
  };
  const after = async (change: () => Promise<unknown> | unknown): Promise<any[]> => {
    const other = await s.createProject();
    for (let i = 0; i < 2; i++) {
      ok(await s.put(`/projects/${other.id}`, { description: `elsewhere ${i}` }));
      await page();
    }
    await change();
    return page();
  };
  const byIid = (rows: any[], iid: number): any => rows.find((r) => r.iid === iid);

  beforeAll(async () => {
    author = await s.createUser();
    reviewer = await s.createUser();
    project = await s.createProject({ visibility: 'private' });
    await s.addMember('projects', project.id, author.user.id, 30);
    await s.addMember('projects', project.id, reviewer.user.id, 30);
    milestone = ok(await s.post(`/projects/${project.id}/milestones`, { title: 'm1' }));
    for (const [branch, body] of [
      ['plain', {}],
      ['reviewed', { reviewer_ids: [reviewer.user.id], assignee_ids: [author.user.id], milestone_id: milestone.id, labels: 'bug' }],
      ['merged', {}],
    ] as const) {
      mrs.push(ok(await s.post(`/projects/${project.id}/merge_requests`, { title: branch, source_branch: branch, target_branch: 'main', ...body }, { token: author.token })));
    }
    sql("UPDATE merge_requests SET state = 'merged', merged_by_id = ?, merged_at = '2026-01-01T00:00:00Z' WHERE id = ?", reviewer.user.id, mrs[2].id);
  });

  it("shows users' and milestones' changes, the project's new path, notes and thumbs", async () => {
    let rows = await after(() => s.put(`/users/${reviewer.user.id}`, { name: 'Renamed Reviewer' }));
    expect(byIid(rows, mrs[1].iid).reviewers[0].name).toBe('Renamed Reviewer');
    expect(byIid(rows, mrs[2].iid).merged_by.name).toBe('Renamed Reviewer');
    expect(byIid(rows, mrs[2].iid).merge_user.name).toBe('Renamed Reviewer');
    rows = await after(() => sql('UPDATE users SET username = ? WHERE id = ?', 'mr-author-sql', author.user.id));
    expect(rows.map((r) => r.author.username)).toEqual(['mr-author-sql', 'mr-author-sql', 'mr-author-sql']);
    expect(byIid(rows, mrs[1].iid).assignee.username).toBe('mr-author-sql');
    rows = await after(() => s.put(`/projects/${project.id}/milestones/${milestone.id}`, { title: 'm2' }));
    expect(byIid(rows, mrs[1].iid).milestone.title).toBe('m2');
    rows = await after(() => s.put(`/projects/${project.id}`, { path: `mr-moved-${project.id}` }));
    for (const row of rows) expect(row.web_url).toContain(`/mr-moved-${project.id}/-/merge_requests/${row.iid}`);
    rows = await after(() => s.post(`/projects/${project.id}/merge_requests/${mrs[0].iid}/notes`, { body: 'A note' }));
    expect(byIid(rows, mrs[0].iid).user_notes_count).toBe(1);
    rows = await after(() => s.post(`/projects/${project.id}/merge_requests/${mrs[0].iid}/award_emoji`, { name: 'thumbsup' }));
    expect(byIid(rows, mrs[0].iid).upvotes).toBe(1);
  });

  it("shows a merge request's own columns changed in SQL, and its project's merge method", async () => {
    const iid = mrs[0].iid;
    for (const [column, value, shown] of [
      ['title', 'Draft: plain', { title: 'Draft: plain', draft: true, work_in_progress: true, detailed_merge_status: 'draft_status' }],
      ['title', 'plain', { title: 'plain', draft: false }],
      ['target_branch', 'develop', { target_branch: 'develop' }],
      ['squash', 1, { squash: true }],
      ['merge_status', 'cannot_be_merged', { merge_status: 'cannot_be_merged', has_conflicts: true, detailed_merge_status: 'conflict' }],
      ['merge_status', 'can_be_merged', { merge_status: 'can_be_merged', has_conflicts: false }],
      ['behind_target', 1, { detailed_merge_status: 'mergeable' }],
    ] as const) {
      const rows = await after(() => sql(`UPDATE merge_requests SET ${column} = ? WHERE id = ?`, value, mrs[0].id));
      expect(byIid(rows, iid)).toMatchObject(shown);
    }
    const rows = await after(() => s.put(`/projects/${project.id}`, { merge_method: 'ff' }));
    expect(byIid(rows, iid).detailed_merge_status).toBe('need_rebase');
  });

  it('keeps every row as its own GET shows it on pages of every size and order', async () => {
    for (const query of ['per_page=1&page=2', 'order_by=title&sort=asc', 'state=merged', 'view=simple']) {
      const other = await s.createProject();
      ok(await s.put(`/projects/${other.id}`, { description: query }));
      if (query === 'view=simple') {
        const res = await s.get(`/projects/${project.id}/merge_requests?${query}`);
        expect(res.text).toBe(JSON.stringify(res.body));
        expect(res.body.map((r: any) => r.iid).sort()).toEqual(mrs.map((m) => m.iid).sort());
      } else await page(query);
    }
  });
});
