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

  it("an issue's links and an epic's issues read as each issue's own GET with their link fields", async () => {
    /** Each row as its issue's own GET (Entities::Issue of a list: no `subscribed`) followed by `fields`. */
    const withLink = async (rows: any[], fields: string[]): Promise<void> => {
      for (const row of rows) {
        const own = ok(await s.get(`/projects/${row.project_id}/issues/${row.iid}`));
        delete own.subscribed;
        expect(text(row)).toBe(text({ ...own, ...Object.fromEntries(fields.map((f) => [f, row[f]])) }));
        expect(Object.keys(row).slice(-fields.length)).toEqual(fields);
      }
    };
    const source = issues[3];
    for (const target of [issues[0], issues[1], issues[2], issues[5]]) {
      ok(await s.post(`/projects/${project.id}/issues/${source.iid}/links`, { target_project_id: project.id, target_issue_iid: target.iid }));
    }
    const links = ok(await s.get(`/projects/${project.id}/issues/${source.iid}/links`));
    expect(links.map((r: any) => r.id)).toEqual([issues[0].id, issues[1].id, issues[2].id, issues[5].id]);
    await withLink(links, ['issue_link_id', 'link_type', 'link_created_at', 'link_updated_at']);
    // Seen from a linked issue, the source reads as its own GET too.
    const back = ok(await s.get(`/projects/${project.id}/issues/${issues[2].iid}/links`));
    expect(back.map((r: any) => r.id)).toEqual([source.id]);
    await withLink(back, ['issue_link_id', 'link_type', 'link_created_at', 'link_updated_at']);

    const epic = ok(await s.post(`/groups/${group.id}/epics`, { title: 'An epic' }));
    for (const i of [issues[5], issues[0], issues[2], issues[1]]) ok(await s.post(`/groups/${group.id}/epics/${epic.iid}/issues/${i.id}`));
    const epicIssues = await s.get(`/groups/${group.id}/epics/${epic.iid}/issues?per_page=3`);
    expect(epicIssues.headers.get('x-total')).toBe('4');
    expect(epicIssues.headers.get('x-next-page')).toBe('2');
    expect(epicIssues.body.map((r: any) => r.id)).toEqual([issues[5].id, issues[0].id, issues[2].id]);
    await withLink(epicIssues.body, ['epic_issue_id', 'relative_position']);
    // Reordered (PUT answers every issue of the epic in its new order).
    const moved = ok(await s.put(`/groups/${group.id}/epics/${epic.iid}/issues/${epicIssues.body[2].epic_issue_id}`, { move_before_id: epicIssues.body[0].epic_issue_id }));
    expect(moved.map((r: any) => r.id)).toEqual([issues[5].id, issues[2].id, issues[0].id, issues[1].id]);
    await withLink(moved, ['epic_issue_id', 'relative_position']);
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

describe('entities extended with more fields (withFields)', () => {
  const ED25519 = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFV9H8oSozovRsvh9mlJUUh7r8MnuHpsU/NgZl7474ad me@host';
  /** Each shape's keys, in order, as the object spreads before withFields made them. */
  const shapes: Record<string, string[]> = {};
  const keysOf = (name: string, record: any): void => {
    shapes[name] = Object.keys(record);
  };

  it('keep every key in its order, and a list row reads as its own GET', async () => {
    const alice = await s.createUser();
    const bob = await s.createUser();
    const group = await s.createGroup({ visibility: 'public' });
    const project = await s.createProject({ namespace_id: group.id, initialize_with_readme: true, visibility: 'public' });
    await s.addMember('projects', project.id, bob.user.id, 30);

    // Users: UserPublic to another user (a list shows its UserBasic fields), UserFull to an administrator; each list row as its own GET.
    const asAlice = ok(await s.get(`/users?per_page=100`, { token: alice.token }));
    for (const row of asAlice) {
      const own = ok(await s.get(`/users/${row.id}`, { token: alice.token }));
      expect(text(row)).toBe(text(Object.fromEntries(Object.keys(row).map((k) => [k, own[k]]))));
    }
    keysOf('userPublic', ok(await s.get(`/users/${bob.user.id}`, { token: alice.token })));
    const asAdmin = ok(await s.get(`/users?per_page=100`));
    for (const row of asAdmin) expect(text(row)).toBe(text(ok(await s.get(`/users/${row.id}`))));
    keysOf('userFull', asAdmin.find((u: any) => u.id === bob.user.id));

    // A milestone (project and group), as listed, as embedded in an issue and as its own GET.
    const pm = ok(await s.post(`/projects/${project.id}/milestones`, { title: 'pm' }));
    const gm = ok(await s.post(`/groups/${group.id}/milestones`, { title: 'gm' }));
    const issue = ok(await s.post(`/projects/${project.id}/issues`, { title: 'with a milestone', milestone_id: pm.id }));
    expect(text(ok(await s.get(`/projects/${project.id}/issues?per_page=100`))[0].milestone)).toBe(text(ok(await s.get(`/projects/${project.id}/milestones/${pm.id}`))));
    expect(text(ok(await s.get(`/projects/${project.id}/milestones`))[0])).toBe(text(ok(await s.get(`/projects/${project.id}/milestones/${pm.id}`))));
    expect(text(ok(await s.get(`/groups/${group.id}/milestones`))[0])).toBe(text(ok(await s.get(`/groups/${group.id}/milestones/${gm.id}`))));
    keysOf('projectMilestone', pm);
    keysOf('groupMilestone', gm);

    // A group's detail, signed in (max_access_level) and anonymous (without).
    keysOf('groupDetail', ok(await s.get(`/groups/${group.id}`)));
    keysOf('groupDetailAnonymous', ok(await s.get(`/groups/${group.id}`, { token: '' })));

    // A merge request's detail (GET), a snippet's author, a to-do, an access request, an SSH key with its user.
    const mr = ok(await s.post(`/projects/${project.id}/merge_requests`, { title: 'mr', source_branch: 'mr', target_branch: 'main', assignee_id: bob.user.id }));
    keysOf('mergeRequestDetail', ok(await s.get(`/projects/${project.id}/merge_requests/${mr.iid}`)));
    ok(await s.post(`/projects/${project.id}/snippets`, { title: 'sn', file_name: 'a.txt', content: 'x', visibility: 'public' }));
    const snippets = ok(await s.get(`/projects/${project.id}/snippets`));
    expect(text(snippets[0])).toBe(text(ok(await s.get(`/projects/${project.id}/snippets/${snippets[0].id}`))));
    keysOf('snippetAuthor', snippets[0].author);
    keysOf('todo', ok(await s.get('/todos', { token: bob.token }))[0]);
    const outsider = await s.createUser();
    keysOf('accessRequest', ok(await s.post(`/groups/${group.id}/access_requests`, {}, { token: outsider.token })));
    keysOf('accessRequester', ok(await s.get(`/groups/${group.id}/access_requests`))[0]);
    const key = ok(await s.post('/user/keys', { title: 'laptop', key: ED25519 }, { token: alice.token }));
    keysOf('sshKeyWithUser', ok(await s.get(`/keys/${key.id}`)));
    keysOf('sshKeyUser', ok(await s.get(`/keys/${key.id}`)).user);
    // Commits with their stats (a list and one commit).
    const commits = ok(await s.get(`/projects/${project.id}/repository/commits`, { query: { with_stats: true, per_page: 1 } }));
    keysOf('commitWithStats', commits[0]);
    keysOf('commitDetail', ok(await s.get(`/projects/${project.id}/repository/commits/${commits[0].id}`)));
    keysOf('commitDetailWithoutStats', ok(await s.get(`/projects/${project.id}/repository/commits/${commits[0].id}`, { query: { stats: false } })));
    keysOf('globalNotificationSetting', ok(await s.get('/notification_settings')));
    void issue;
    expect(shapes).toEqual(EXPECTED_SHAPES);
  });
});

/** The shapes as the object spreads made them before withFields (captured from that code, 1cffe99). */
const EXPECTED_SHAPES: Record<string, string[]> = {
  userPublic: ['id', 'username', 'name', 'state', 'locked', 'avatar_url', 'web_url', 'created_at', 'bio', 'location', 'public_email', 'skype', 'linkedin', 'twitter', 'discord', 'website_url', 'organization', 'job_title', 'pronouns', 'bot', 'work_information', 'followers', 'following', 'local_time'],
  userFull: ['id', 'username', 'name', 'state', 'locked', 'avatar_url', 'web_url', 'created_at', 'bio', 'location', 'public_email', 'skype', 'linkedin', 'twitter', 'discord', 'website_url', 'organization', 'job_title', 'pronouns', 'bot', 'work_information', 'followers', 'following', 'local_time', 'last_sign_in_at', 'confirmed_at', 'last_activity_on', 'email', 'theme_id', 'color_scheme_id', 'projects_limit', 'current_sign_in_at', 'identities', 'can_create_group', 'can_create_project', 'two_factor_enabled', 'external', 'private_profile', 'commit_email', 'shared_runners_minutes_limit', 'extra_shared_runners_minutes_limit', 'scim_identities', 'is_admin', 'note', 'namespace_id', 'created_by', 'email_reset_offered_at', 'current_sign_in_ip', 'last_sign_in_ip', 'using_license_seat', 'user_type'],
  projectMilestone: ['id', 'iid', 'project_id', 'title', 'description', 'state', 'created_at', 'updated_at', 'due_date', 'start_date', 'expired', 'web_url'],
  groupMilestone: ['id', 'iid', 'group_id', 'title', 'description', 'state', 'created_at', 'updated_at', 'due_date', 'start_date', 'expired', 'web_url'],
  groupDetail: ['id', 'web_url', 'name', 'path', 'description', 'visibility', 'share_with_group_lock', 'require_two_factor_authentication', 'two_factor_grace_period', 'project_creation_level', 'auto_devops_enabled', 'subgroup_creation_level', 'emails_disabled', 'emails_enabled', 'show_diff_preview_in_email', 'mentions_disabled', 'lfs_enabled', 'archived', 'math_rendering_limits_enabled', 'lock_math_rendering_limits_enabled', 'default_branch', 'default_branch_protection', 'default_branch_protection_defaults', 'avatar_url', 'request_access_enabled', 'full_name', 'full_path', 'created_at', 'parent_id', 'organization_id', 'shared_runners_setting', 'max_artifacts_size', 'ldap_cn', 'ldap_access', 'wiki_access_level', 'marked_for_deletion_on', 'shared_with_groups', 'enabled_git_access_protocol', 'prevent_sharing_groups_outside_hierarchy', 'shared_projects', 'shared_runners_minutes_limit', 'extra_shared_runners_minutes_limit', 'prevent_forking_outside_group', 'membership_lock', 'file_template_project_id', 'max_access_level', 'projects'],
  groupDetailAnonymous: ['id', 'web_url', 'name', 'path', 'description', 'visibility', 'share_with_group_lock', 'require_two_factor_authentication', 'two_factor_grace_period', 'project_creation_level', 'auto_devops_enabled', 'subgroup_creation_level', 'emails_disabled', 'emails_enabled', 'show_diff_preview_in_email', 'mentions_disabled', 'lfs_enabled', 'archived', 'math_rendering_limits_enabled', 'lock_math_rendering_limits_enabled', 'default_branch', 'default_branch_protection', 'default_branch_protection_defaults', 'avatar_url', 'request_access_enabled', 'full_name', 'full_path', 'created_at', 'parent_id', 'organization_id', 'shared_runners_setting', 'max_artifacts_size', 'ldap_cn', 'ldap_access', 'wiki_access_level', 'marked_for_deletion_on', 'shared_with_groups', 'enabled_git_access_protocol', 'prevent_sharing_groups_outside_hierarchy', 'shared_projects', 'shared_runners_minutes_limit', 'extra_shared_runners_minutes_limit', 'prevent_forking_outside_group', 'membership_lock', 'file_template_project_id', 'projects'],
  mergeRequestDetail: ['id', 'iid', 'project_id', 'title', 'description', 'state', 'created_at', 'updated_at', 'merged_by', 'merge_user', 'merged_at', 'closed_by', 'closed_at', 'target_branch', 'source_branch', 'user_notes_count', 'upvotes', 'downvotes', 'author', 'assignees', 'assignee', 'reviewers', 'source_project_id', 'target_project_id', 'labels', 'draft', 'work_in_progress', 'milestone', 'merge_when_pipeline_succeeds', 'merge_status', 'detailed_merge_status', 'sha', 'merge_commit_sha', 'squash_commit_sha', 'discussion_locked', 'should_remove_source_branch', 'force_remove_source_branch', 'prepared_at', 'reference', 'references', 'web_url', 'time_stats', 'squash', 'squash_on_merge', 'task_completion_status', 'has_conflicts', 'blocking_discussions_resolved', 'approvals_before_merge', 'imported', 'imported_from', 'subscribed', 'changes_count', 'latest_build_started_at', 'latest_build_finished_at', 'first_deployed_to_production_at', 'pipeline', 'head_pipeline', 'diff_refs', 'merge_error', 'first_contribution', 'user'],
  snippetAuthor: ['id', 'username', 'name', 'state', 'locked', 'avatar_url', 'web_url', 'email', 'created_at'],
  todo: ['id', 'project', 'author', 'action_name', 'target_type', 'target', 'target_url', 'body', 'state', 'created_at', 'updated_at'],
  accessRequest: ['id', 'username', 'name', 'state', 'locked', 'avatar_url', 'web_url', 'requested_at', 'created_at'],
  accessRequester: ['id', 'username', 'name', 'state', 'locked', 'avatar_url', 'web_url', 'requested_at'],
  sshKeyWithUser: ['id', 'title', 'created_at', 'expires_at', 'last_used_at', 'key', 'usage_type', 'user'],
  sshKeyUser: ['id', 'username', 'name', 'state', 'locked', 'avatar_url', 'web_url', 'created_at', 'bio', 'location', 'public_email', 'skype', 'linkedin', 'twitter', 'discord', 'website_url', 'organization', 'job_title', 'pronouns', 'bot', 'work_information', 'followers', 'following', 'local_time'],
  commitWithStats: ['id', 'short_id', 'created_at', 'parent_ids', 'title', 'message', 'author_name', 'author_email', 'authored_date', 'committer_name', 'committer_email', 'committed_date', 'trailers', 'extended_trailers', 'web_url', 'stats'],
  commitDetail: ['id', 'short_id', 'created_at', 'parent_ids', 'title', 'message', 'author_name', 'author_email', 'authored_date', 'committer_name', 'committer_email', 'committed_date', 'trailers', 'extended_trailers', 'web_url', 'stats', 'status', 'project_id', 'last_pipeline'],
  commitDetailWithoutStats: ['id', 'short_id', 'created_at', 'parent_ids', 'title', 'message', 'author_name', 'author_email', 'authored_date', 'committer_name', 'committer_email', 'committed_date', 'trailers', 'extended_trailers', 'web_url', 'status', 'project_id', 'last_pipeline'],
  globalNotificationSetting: ['level', 'notification_email'],
};

describe('note and discussion pages', () => {
  let project: any;
  let other: any;
  let issue: any;
  let mr: any;
  let author: { user: any; token: string };
  let guest: { user: any; token: string };
  let touches = 0;
  const elsewhere = async () => ok(await s.put(`/projects/${other.id}`, { description: `elsewhere ${++touches}` }));
  const base = (kind: string) => `/projects/${project.id}/${kind}/${kind === 'issues' ? issue.iid : mr.iid}`;

  /** Every note of the list against its own GET, and every thread against its own; the ids in order. */
  const pages = async (token?: string): Promise<unknown[]> => {
    const seen: unknown[] = [];
    for (const kind of ['issues', 'merge_requests']) {
      for (const query of [{}, { per_page: '3', page: '2' }, { order_by: 'updated_at', sort: 'asc' }] as Record<string, string>[]) {
        const res = await s.get(`${base(kind)}/notes`, { query, token });
        expect(res.status).toBe(200);
        expect(res.text).toBe(JSON.stringify(res.body));
        for (const row of res.body) expect(text(row)).toBe(text(ok(await s.get(`${base(kind)}/notes/${row.id}`, { token }))));
        seen.push(res.body.map((n: any) => [n.id, n.body, n.author.name, n.resolved ?? null]));
      }
      for (const query of [{}, { per_page: '2', page: '2' }] as Record<string, string>[]) {
        const res = await s.get(`${base(kind)}/discussions`, { query, token });
        expect(res.status).toBe(200);
        expect(res.text).toBe(JSON.stringify(res.body));
        for (const row of res.body) expect(text(row)).toBe(text(ok(await s.get(`${base(kind)}/discussions/${row.id}`, { token }))));
        seen.push(res.body.map((d: any) => [d.id, d.notes.map((n: any) => [n.id, n.body, n.author.name, n.resolved ?? null])]));
      }
    }
    return seen;
  };

  beforeAll(async () => {
    author = await s.createUser();
    guest = await s.createUser();
    project = await s.createProject({ visibility: 'public', initialize_with_readme: true });
    other = await s.createProject();
    await s.addMember('projects', project.id, author.user.id, 30);
    issue = ok(await s.post(`/projects/${project.id}/issues`, { title: 'Notes' }));
    ok(await s.api('POST', `/projects/${project.id}/repository/branches`, { body: { branch: 'f', ref: 'main' } }));
    mr = ok(await s.post(`/projects/${project.id}/merge_requests`, { title: 'Threads', source_branch: 'f', target_branch: 'main' }));
    for (const kind of ['issues', 'merge_requests']) {
      for (let i = 0; i < 3; i++) ok(await s.post(`${base(kind)}/notes`, { body: `note ${i} by root` }));
      ok(await s.post(`${base(kind)}/notes`, { body: 'note by the author' }, { token: author.token }));
      ok(await s.post(`${base(kind)}/notes`, { body: 'internal', internal: true }));
      const thread = ok(await s.post(`${base(kind)}/discussions`, { body: 'a thread' }, { token: author.token }));
      ok(await s.post(`${base(kind)}/discussions/${thread.id}/notes`, { body: 'a reply' }));
      ok(await s.post(`${base(kind)}/discussions/${thread.id}/notes`, { body: 'an internal reply', internal: true }));
      ok(await s.post(`${base(kind)}/discussions`, { body: 'another thread' }));
    }
  });

  it("read as each note's and each thread's own GET, for a Guest without internal notes, and after each write", async () => {
    const first = await pages();
    const forGuest = await pages(guest.token);
    // The internal note (a reply takes its thread's visibility: the internal reply shows).
    expect(JSON.stringify(forGuest)).not.toContain('"internal"');
    expect(JSON.stringify(first)).toContain('"internal"');
    await elsewhere();
    expect(await pages()).toEqual(first);
    // The author renamed (API), a note edited (API), a thread resolved, then SQL writes to a note and a user.
    ok(await s.put(`/users/${author.user.id}`, { name: 'Renamed Author' }));
    await pages();
    const byAuthor = ok(await s.get(`${base('issues')}/notes`)).find((n: any) => n.body === 'note by the author');
    expect(byAuthor.author.name).toBe('Renamed Author');
    ok(await s.put(`${base('issues')}/notes/${byAuthor.id}`, { body: 'edited' }));
    const threads = ok(await s.get(`${base('merge_requests')}/discussions`));
    const resolvable = threads.find((d: any) => d.notes[0].resolvable);
    ok(await s.put(`${base('merge_requests')}/discussions/${resolvable.id}`, { resolved: true }));
    const after = await pages();
    expect(JSON.stringify(after)).toContain('"edited"');
    expect(JSON.stringify(after)).toContain('true]');
    await elsewhere();
    sql("UPDATE notes SET body = 'set in SQL' WHERE body = 'a reply'");
    sql('UPDATE users SET name = ? WHERE id = ?', 'Named in SQL', author.user.id);
    const last = await pages();
    expect(JSON.stringify(last)).toContain('set in SQL');
    expect(JSON.stringify(last)).toContain('Named in SQL');
    expect(JSON.stringify(last)).not.toContain('Renamed Author');
    await pages(guest.token);
  });
});

describe('snippet pages', () => {
  let project: any;
  let other: any;
  let author: { user: any; token: string };
  let reader: { user: any; token: string };
  let touches = 0;
  const elsewhere = async () => ok(await s.put(`/projects/${other.id}`, { description: `elsewhere ${++touches}` }));

  /** Every snippet of the list against its own GET (for root, the author, another reader); the ids, titles, emails, files and URLs. */
  const pages = async (): Promise<unknown[]> => {
    const seen: unknown[] = [];
    for (const token of [undefined, author.token, reader.token]) {
      for (const query of [{}, { per_page: '2', page: '2' }] as Record<string, string>[]) {
        const res = await s.get(`/projects/${project.id}/snippets`, { query, token });
        expect(res.status).toBe(200);
        expect(res.text).toBe(JSON.stringify(res.body));
        for (const row of res.body) expect(text(row)).toBe(text(ok(await s.get(`/projects/${project.id}/snippets/${row.id}`, { token }))));
        // Only an administrator and the author see the author's email.
        if (token === reader.token) expect(res.body.every((x: any) => x.author.email !== author.user.email)).toBe(true);
        seen.push(res.body.map((x: any) => [x.id, x.title, x.author.name, x.author.email ?? null, x.files.map((f: any) => f.path), x.web_url]));
      }
    }
    return seen;
  };

  beforeAll(async () => {
    author = await s.createUser();
    reader = await s.createUser();
    project = await s.createProject({ visibility: 'public' });
    other = await s.createProject();
    await s.addMember('projects', project.id, author.user.id, 30);
    await s.addMember('projects', project.id, reader.user.id, 30);
    for (let i = 0; i < 5; i++) {
      const files = [{ file_path: `f${i}.txt`, content: `c${i}` }, ...(i % 2 ? [{ file_path: `a${i}.md`, content: 'x' }] : [])];
      ok(await s.post(`/projects/${project.id}/snippets`, { title: `snippet ${i}`, visibility: 'public', files }, { token: i % 2 ? author.token : undefined }));
    }
  });

  it("read as each snippet's own GET for each viewer, and after each write", async () => {
    const first = await pages();
    // The author sees their own email; another reader does not.
    expect(JSON.stringify(first)).toContain(author.user.email);
    await elsewhere();
    expect(await pages()).toEqual(first);
    const mine = ok(await s.get(`/projects/${project.id}/snippets`)).find((x: any) => x.author.id === author.user.id);
    // Each write on its own: the project moved, the author renamed, a file added (API), a file renamed in SQL.
    ok(await s.put(`/projects/${project.id}`, { path: 'moved-snippets' }));
    expect(JSON.stringify(await pages())).toContain('/moved-snippets/-/snippets/');
    ok(await s.put(`/users/${author.user.id}`, { name: 'Renamed Author' }));
    expect(JSON.stringify(await pages())).toContain('Renamed Author');
    ok(await s.put(`/projects/${project.id}/snippets/${mine.id}`, { files: [{ action: 'create', file_path: 'added.txt', content: 'new' }] }));
    expect(JSON.stringify(await pages())).toContain('added.txt');
    sql("UPDATE snippet_revision_files SET path = 'renamed-in-sql.txt' WHERE path = 'f0.txt'");
    expect(JSON.stringify(await pages())).toContain('renamed-in-sql.txt');
    await elsewhere();
    sql("UPDATE snippets SET title = 'titled in SQL' WHERE id = ?", mine.id);
    sql('UPDATE users SET email = ? WHERE id = ?', 'sql-set@example.com', author.user.id);
    const last = await pages();
    expect(JSON.stringify(last)).toContain('titled in SQL');
    expect(JSON.stringify(last)).toContain('sql-set@example.com');
  });
});
