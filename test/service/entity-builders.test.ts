import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';

// Entity builders shared by lists and single GETs (areas/core/entities.ts and the areas' entities):
// a page of IssueBasic rows is built from the page's Entities::Issue in one batch (counts read for
// the whole page, not one row at a time), and entities extended with more fields are copied with
// withFields rather than an object spread. These tests pin that each row reads, byte for byte and
// in the same key order, as its own GET shows the record, with every part (notes, thumbs, closing
// merge requests, milestone, people) different from row to row, after writes elsewhere and to a row.

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s?.stop());

const sql = (text: string, ...args: unknown[]) => s.service.context.db.prepare(text).run(...args);
const text = (record: unknown): string => JSON.stringify(record);
/** Fields Entities::Issue has and Entities::IssueBasic leaves out. */
const ISSUE_ONLY = ['has_tasks', 'task_status', '_links', 'references', 'severity', 'subscribed', 'moved_to_id', 'service_desk_reply_to'];

describe('IssueBasic pages', () => {
  let group: any;
  let project: any;
  let other: any;
  let dev: { user: any; token: string };
  let guest: { user: any; token: string };
  let projectMilestone: any;
  let groupMilestone: any;
  let mr: any;
  const issues: any[] = [];
  let touches = 0;

  /** IssueBasic as the issue's own GET shows the issue. */
  const basicOf = async (row: any, token?: string): Promise<any> => {
    const own = ok(await s.get(`/projects/${row.project_id}/issues/${row.iid}`, { token }));
    for (const key of ISSUE_ONLY) delete own[key];
    return own;
  };
  /** Every row of `path` against its own GET; the ids in order. */
  const page = async (path: string, token?: string): Promise<number[]> => {
    const res = await s.get(path, { token });
    expect(res.status).toBe(200);
    expect(res.text).toBe(JSON.stringify(res.body));
    for (const row of res.body) expect(text(row)).toBe(text(await basicOf(row, token)));
    return res.body.map((r: any) => r.id);
  };
  const elsewhere = async () => ok(await s.put(`/projects/${other.id}`, { description: `elsewhere ${++touches}` }));

  beforeAll(async () => {
    dev = await s.createUser();
    guest = await s.createUser();
    group = await s.createGroup();
    project = await s.createProject({ namespace_id: group.id, initialize_with_readme: true });
    other = await s.createProject();
    await s.addMember('projects', project.id, dev.user.id, 30);
    await s.addMember('projects', project.id, guest.user.id, 10);
    projectMilestone = ok(await s.post(`/projects/${project.id}/milestones`, { title: 'v1', due_date: '2020-01-01' }));
    groupMilestone = ok(await s.post(`/groups/${group.id}/milestones`, { title: 'g1' }));
    for (let i = 0; i < 7; i++) {
      const milestone_id = i % 3 === 2 ? groupMilestone.id : projectMilestone.id;
      const body: Record<string, unknown> = { title: `Issue ${i}`, description: `Body ${i} ünïcödé`, milestone_id, labels: i % 2 ? 'bug' : '' };
      if (i === 1) body.assignee_ids = [dev.user.id];
      if (i === 4) body.confidential = true;
      issues.push(ok(await s.post(`/projects/${project.id}/issues`, body, { token: i === 3 ? dev.token : undefined })));
    }
    // Parts that differ from row to row: notes, thumbs, a merge request closing two of them, a closed one.
    ok(await s.post(`/projects/${project.id}/issues/${issues[0].iid}/notes`, { body: 'one' }));
    ok(await s.post(`/projects/${project.id}/issues/${issues[0].iid}/notes`, { body: 'two' }));
    ok(await s.post(`/projects/${project.id}/issues/${issues[2].iid}/notes`, { body: 'three' }));
    ok(await s.post(`/projects/${project.id}/issues/${issues[1].iid}/award_emoji`, { name: 'thumbsup' }));
    ok(await s.post(`/projects/${project.id}/issues/${issues[5].iid}/award_emoji`, { name: 'thumbsdown' }));
    ok(await s.put(`/projects/${project.id}/issues/${issues[6].iid}`, { state_event: 'close' }));
    mr = ok(
      await s.post(`/projects/${project.id}/merge_requests`, {
        title: 'Fixes',
        source_branch: 'fixes',
        target_branch: 'main',
        description: `Closes #${issues[2].iid} and #${issues[5].iid}. See #${issues[0].iid}`,
      }),
    );
  });

  it("a project milestone's issues read as each issue's own GET, paged with the same headers", async () => {
    const all = await page(`/projects/${project.id}/milestones/${projectMilestone.id}/issues`);
    expect(all).toEqual(issues.filter((_, i) => i % 3 !== 2).map((i) => i.id).reverse());
    // Pages of 2: ids, headers and links as the whole list cut in pages.
    for (let n = 1; n <= 3; n++) {
      const res = await s.get(`/projects/${project.id}/milestones/${projectMilestone.id}/issues?per_page=2&page=${n}`);
      expect(res.body.map((r: any) => r.id)).toEqual(all.slice((n - 1) * 2, n * 2));
      expect(res.headers.get('x-total')).toBe('5');
      expect(res.headers.get('x-total-pages')).toBe('3');
      expect(res.headers.get('x-page')).toBe(String(n));
      expect(res.headers.get('x-next-page')).toBe(n < 3 ? String(n + 1) : '');
      expect(res.headers.get('link')).toContain('rel="first"');
      for (const row of res.body) expect(text(row)).toBe(text(await basicOf(row)));
    }
    // A Guest sees neither the confidential issue nor its count.
    const guestIds = await page(`/projects/${project.id}/milestones/${projectMilestone.id}/issues`, guest.token);
    expect(guestIds).toEqual(all.filter((id) => id !== issues[4].id));
    const guestRes = await s.get(`/projects/${project.id}/milestones/${projectMilestone.id}/issues`, { token: guest.token });
    expect(guestRes.headers.get('x-total')).toBe('4');
  });

  it("a group milestone's issues read as each issue's own GET", async () => {
    expect(await page(`/groups/${group.id}/milestones/${groupMilestone.id}/issues`)).toEqual([issues[5].id, issues[2].id]);
  });

  it("a merge request's closes_issues and related_issues read as each issue's own GET", async () => {
    expect(await page(`/projects/${project.id}/merge_requests/${mr.iid}/closes_issues`)).toEqual([issues[2].id, issues[5].id]);
    expect(await page(`/projects/${project.id}/merge_requests/${mr.iid}/related_issues`)).toEqual([issues[2].id, issues[5].id, issues[0].id]);
  });

  it('shows what changed on the next page: a write elsewhere, an API write, SQL writes to a row and its parts', async () => {
    const path = `/projects/${project.id}/milestones/${projectMilestone.id}/issues`;
    for (let i = 0; i < 2; i++) {
      await elsewhere();
      await page(path);
    }
    ok(await s.put(`/projects/${project.id}/issues/${issues[0].iid}`, { title: 'Retitled' }));
    await elsewhere();
    await page(path);
    // In SQL, without updated_at: the row, its notes count, its thumbs, its milestone's title.
    sql('UPDATE issues SET title = ? WHERE id = ?', 'Retitled in SQL', issues[1].id);
    await page(path);
    ok(await s.post(`/projects/${project.id}/issues/${issues[3].iid}/notes`, { body: 'four' }));
    ok(await s.post(`/projects/${project.id}/issues/${issues[3].iid}/award_emoji`, { name: 'thumbsup' }));
    sql('UPDATE milestones SET title = ? WHERE id = ?', 'v1 renamed', projectMilestone.id);
    await elsewhere();
    const res = await s.get(path);
    const byId = (id: number) => res.body.find((r: any) => r.id === id);
    expect(byId(issues[1].id).title).toBe('Retitled in SQL');
    expect(byId(issues[3].id).user_notes_count).toBe(1);
    expect(byId(issues[3].id).upvotes).toBe(1);
    expect(byId(issues[0].id).milestone.title).toBe('v1 renamed');
    await page(path);
  });
});
