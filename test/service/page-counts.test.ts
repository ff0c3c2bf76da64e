import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { preparedBy, queryPlan } from '../helpers/lists';

// What a page of issues or merge requests counts for each row (user_notes_count, upvotes,
// downvotes, merge_requests_count) is kept across writes to other tables, by core/109's versions
// of the tables counted from (areas/core/entities.ts issuableCounts). These tests pin that every
// write that changes a count — through the API or straight in SQL, to the counted tables or to the
// merge requests an issue is closed by — shows on the next page, each row as its own GET shows it,
// after writes elsewhere; and that a data dir without the versions counts every page afresh.

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s?.stop());

const db = () => s.service.context.db;
const sql = (text: string, ...args: unknown[]) => db().prepare(text).run(...args);

/** Fields a single GET adds to the list entity. */
const DETAIL_ONLY = new Set([
  'subscribed',
  'changes_count',
  'latest_build_started_at',
  'latest_build_finished_at',
  'first_deployed_to_production_at',
  'pipeline',
  'head_pipeline',
  'diff_refs',
  'merge_error',
  'first_contribution',
  'user',
]);
const listed = (own: Record<string, unknown>): string => JSON.stringify(Object.fromEntries(Object.entries(own).filter(([k]) => !DETAIL_ONLY.has(k))));

describe('counts on pages of issues and merge requests', () => {
  let project: any;
  let hidden: any;
  let other: any;
  let guest: { user: any; token: string };
  const issues: any[] = [];
  let mr: any;
  let closer: any;
  let touches = 0;

  const elsewhere = async (): Promise<void> => void ok(await s.put(`/projects/${other.id}`, { description: `elsewhere ${++touches}` }));
  /** The page after a write elsewhere (twice: the second reads what the first kept), each row against its own GET; the rows by iid. */
  const page = async (kind: 'issues' | 'merge_requests', token?: string): Promise<Map<number, any>> => {
    let rows: any[] = [];
    for (let i = 0; i < 2; i++) {
      await elsewhere();
      const res = await s.get(`/projects/${project.id}/${kind}?per_page=100`, { token });
      expect(res.status).toBe(200);
      expect(res.text).toBe(JSON.stringify(res.body));
      rows = res.body;
    }
    for (const row of rows) expect(JSON.stringify(row)).toBe(listed(ok(await s.get(`/projects/${project.id}/${kind}/${row.iid}`, { token }))));
    return new Map(rows.map((r) => [r.iid, r]));
  };
  const counts = (row: any) => [row.user_notes_count, row.upvotes, row.downvotes, row.merge_requests_count];

  beforeAll(async () => {
    project = await s.createProject({ visibility: 'private', initialize_with_readme: true });
    hidden = await s.createProject({ visibility: 'private', initialize_with_readme: true });
    other = await s.createProject();
    guest = await s.createUser();
    await s.addMember('projects', project.id, guest.user.id, 10);
    for (let i = 0; i < 3; i++) issues.push(ok(await s.post(`/projects/${project.id}/issues`, { title: `Issue ${i}` })));
    mr = ok(await s.post(`/projects/${project.id}/merge_requests`, { title: 'Change', source_branch: 'change', target_branch: 'main' }));
    closer = ok(
      await s.post(`/projects/${project.id}/merge_requests`, { title: 'Closer', source_branch: 'closer', target_branch: 'main', description: `Closes #${issues[1].iid}` }),
    );
  });

  it('show notes written through the API and in SQL at the next page, system notes not counted', async () => {
    await page('issues');
    expect(counts((await page('issues')).get(issues[0].iid))).toEqual([0, 0, 0, 0]);
    const note = ok(await s.post(`/projects/${project.id}/issues/${issues[0].iid}/notes`, { body: 'one' }));
    expect((await page('issues')).get(issues[0].iid).user_notes_count).toBe(1);
    ok(await s.post(`/projects/${project.id}/merge_requests/${mr.iid}/notes`, { body: 'on the MR' }));
    expect((await page('merge_requests')).get(mr.iid).user_notes_count).toBe(1);
    sql(
      "INSERT INTO notes (project_id, noteable_type, noteable_id, discussion_id, author_id, body, system, created_at, updated_at) VALUES (?, 'Issue', ?, 'd-sql', 1, 'by SQL', 0, '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z')",
      project.id,
      issues[0].id,
    );
    expect((await page('issues')).get(issues[0].iid).user_notes_count).toBe(2);
    sql('UPDATE notes SET system = 1 WHERE id = ?', note.id);
    expect((await page('issues')).get(issues[0].iid).user_notes_count).toBe(1);
    sql("DELETE FROM notes WHERE discussion_id = 'd-sql'");
    expect((await page('issues')).get(issues[0].iid).user_notes_count).toBe(0);
  });

  it('show thumbs given, changed in SQL and taken back at the next page', async () => {
    await page('issues');
    const award = ok(await s.post(`/projects/${project.id}/issues/${issues[2].iid}/award_emoji`, { name: 'thumbsup' }));
    expect(counts((await page('issues')).get(issues[2].iid)).slice(1, 3)).toEqual([1, 0]);
    sql("UPDATE award_emoji SET name = 'thumbsdown' WHERE id = ?", award.id);
    expect(counts((await page('issues')).get(issues[2].iid)).slice(1, 3)).toEqual([0, 1]);
    ok(await s.post(`/projects/${project.id}/merge_requests/${mr.iid}/award_emoji`, { name: 'thumbsup' }, { token: guest.token }));
    expect((await page('merge_requests')).get(mr.iid).upvotes).toBe(1);
    expect((await s.del(`/projects/${project.id}/issues/${issues[2].iid}/award_emoji/${award.id}`)).status).toBe(204);
    expect(counts((await page('issues')).get(issues[2].iid)).slice(1, 3)).toEqual([0, 0]);
    sql("DELETE FROM award_emoji WHERE awardable_type = 'MergeRequest' AND awardable_id = ?", mr.id);
    expect((await page('merge_requests')).get(mr.iid).upvotes).toBe(0);
  });

  it("show an issue's closing merge requests as each viewer sees them: moved, unlinked and deleted in SQL", async () => {
    expect((await page('issues')).get(issues[1].iid).merge_requests_count).toBe(1);
    expect((await page('issues', guest.token)).get(issues[1].iid).merge_requests_count).toBe(1);
    // The closing merge request moved (in SQL) to a project the Guest cannot see: theirs no longer counts it.
    sql('UPDATE merge_requests SET project_id = ?, target_project_id = ?, source_project_id = ? WHERE id = ?', hidden.id, hidden.id, hidden.id, closer.id);
    expect((await page('issues')).get(issues[1].iid).merge_requests_count).toBe(1);
    expect((await page('issues', guest.token)).get(issues[1].iid).merge_requests_count).toBe(0);
    sql('UPDATE merge_requests SET project_id = ?, target_project_id = ?, source_project_id = ? WHERE id = ?', project.id, project.id, project.id, closer.id);
    expect((await page('issues', guest.token)).get(issues[1].iid).merge_requests_count).toBe(1);
    sql('DELETE FROM merge_requests_closing_issues WHERE merge_request_id = ?', closer.id);
    expect((await page('issues')).get(issues[1].iid).merge_requests_count).toBe(0);
    sql('INSERT INTO merge_requests_closing_issues (merge_request_id, issue_id, created_at) VALUES (?, ?, ?)', closer.id, issues[1].id, '2024-01-01T00:00:00.000Z');
    expect((await page('issues')).get(issues[1].iid).merge_requests_count).toBe(1);
    sql('DELETE FROM merge_requests WHERE id = ?', closer.id);
    expect((await page('issues')).get(issues[1].iid).merge_requests_count).toBe(0);
  });

  it('are read for a page in one statement (notes, thumbs and, for issues, closing merge requests)', async () => {
    for (const kind of ['issues', 'merge_requests'] as const) {
      // A thumb given moves award_emoji's version: the page's counts are read again.
      const target = kind === 'issues' ? issues[0].iid : mr.iid;
      const award = ok(await s.post(`/projects/${project.id}/${kind}/${target}/award_emoji`, { name: 'thumbsup' }));
      const reads = (await preparedBy(s, () => s.get(`/projects/${project.id}/${kind}?per_page=100`))).filter((sql) => /\b(user_note_counts|award_emoji|merge_requests_closing_issues)\b/.test(sql));
      expect(reads).toHaveLength(1);
      expect(reads[0]).toContain('user_note_counts');
      expect(reads[0]).toContain('award_emoji');
      expect(reads[0].includes('merge_requests_closing_issues')).toBe(kind === 'issues');
      expect((await page(kind)).get(target).upvotes).toBe(1);
      expect((await s.del(`/projects/${project.id}/${kind}/${target}/award_emoji/${award.id}`)).status).toBe(204);
      expect((await page(kind)).get(target).upvotes).toBe(0);
    }
  });

  it("walk the page's ids and seek each one's rows in every part (plans from the query's shape)", async () => {
    for (const kind of ['issues', 'merge_requests'] as const) {
      const target = kind === 'issues' ? issues[0].iid : mr.iid;
      const award = ok(await s.post(`/projects/${project.id}/${kind}/${target}/award_emoji`, { name: 'thumbsup' }));
      const [counted] = (await preparedBy(s, () => s.get(`/projects/${project.id}/${kind}?per_page=100`))).filter((text) => /\buser_note_counts\b/.test(text));
      const ids = JSON.stringify([issues[0].id, issues[1].id, mr.id]);
      const type = kind === 'issues' ? 'Issue' : 'MergeRequest';
      const plan = queryPlan(db(), counted, ...(kind === 'issues' ? [ids, type, ids, type, ids] : [ids, type, ids, type]));
      // Every part starts from the ids (json_each) and seeks by an index: none scans a counted table.
      expect(plan).not.toMatch(/SCAN (u|e|c|m|user_note_counts|award_emoji|merge_requests_closing_issues|merge_requests)\b/);
      expect(plan.match(/SCAN j VIRTUAL TABLE/g)).toHaveLength(kind === 'issues' ? 3 : 2);
      expect(plan).toContain('SEARCH u USING PRIMARY KEY (noteable_type=? AND noteable_id=?)');
      expect(plan).toContain('SEARCH e USING COVERING INDEX award_emoji_unique (awardable_type=? AND awardable_id=?)');
      if (kind === 'issues') {
        expect(plan).toContain('SEARCH c USING INDEX merge_requests_closing_issues_issue (issue_id=?)');
        expect(plan).toContain('SEARCH m USING INTEGER PRIMARY KEY (rowid=?)');
      }
      expect((await page(kind)).get(target).upvotes).toBe(1);
      expect((await s.del(`/projects/${project.id}/${kind}/${target}/award_emoji/${award.id}`)).status).toBe(204);
    }
  });

  it('are read afresh on every page of a data dir without the versions (before core/109)', async () => {
    sql("DELETE FROM table_versions WHERE name IN ('user_note_counts', 'award_emoji', 'merge_requests_closing_issues')");
    try {
      await page('issues');
      ok(await s.post(`/projects/${project.id}/issues/${issues[0].iid}/award_emoji`, { name: 'thumbsdown' }));
      sql(
        "INSERT INTO notes (project_id, noteable_type, noteable_id, discussion_id, author_id, body, system, created_at, updated_at) VALUES (?, 'Issue', ?, 'd-old', 1, 'by SQL', 0, '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z')",
        project.id,
        issues[0].id,
      );
      const row = (await page('issues')).get(issues[0].iid);
      expect([row.user_notes_count, row.downvotes]).toEqual([1, 1]);
    } finally {
      for (const name of ['user_note_counts', 'award_emoji', 'merge_requests_closing_issues']) sql('INSERT OR IGNORE INTO table_versions (name, version) VALUES (?, 0)', name);
    }
  });
});
