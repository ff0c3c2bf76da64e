import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { TestService } from '../helpers/service';

// Every test drives several git commands; a loaded machine needs more than the default 20 s.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s.stop());

async function newProject(extra: Record<string, unknown> = {}): Promise<any> {
  return s.createProject({ initialize_with_readme: true, ...extra });
}

async function commit(project: any, branch: string, actions: any[], opts: { start_branch?: string; message?: string } = {}): Promise<any> {
  const res = await s.post(`/projects/${project.id}/repository/commits`, {
    branch,
    commit_message: opts.message ?? `change ${branch}`,
    actions,
    ...(opts.start_branch ? { start_branch: opts.start_branch } : {}),
  });
  if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
  return res.body;
}

async function head(project: any, branch: string): Promise<string> {
  return (await s.get(`/projects/${project.id}/repository/branches/${branch}`)).body.commit.id;
}

async function openMr(project: any, source: string, title = `Merge ${source}`, extra: Record<string, unknown> = {}): Promise<any> {
  const res = await s.post(`/projects/${project.id}/merge_requests`, { source_branch: source, target_branch: 'main', title, ...extra });
  if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
  return res.body;
}

describe('a merge request on real branches', () => {
  let project: any;
  let mr: any;
  let first: any;
  let second: any;
  const mrPath = () => `/projects/${project.id}/merge_requests/${mr.iid}`;

  beforeAll(async () => {
    project = await newProject();
    first = await commit(project, 'feature', [{ action: 'create', file_path: 'lib/a.rb', content: 'one\ntwo\nthree\n' }], { start_branch: 'main', message: 'Add a.rb' });
    second = await commit(project, 'feature', [{ action: 'update', file_path: 'README.md', content: '# Changed\n' }], { message: 'Touch the README' });
    mr = await openMr(project, 'feature');
  });

  it('has diff_refs, sha and changes_count from the branches, and can be merged', async () => {
    const main = await head(project, 'main');
    expect(mr.diff_refs).toEqual({ base_sha: main, start_sha: main, head_sha: second.id });
    expect(mr).toMatchObject({ sha: second.id, changes_count: '2', merge_status: 'can_be_merged', detailed_merge_status: 'mergeable', has_conflicts: false, merge_commit_sha: null });
  });

  it('GET /commits lists the branch\'s own commits newest first', async () => {
    const res = await s.get(`${mrPath()}/commits`);
    expect(res.status).toBe(200);
    expect(res.body.map((c: any) => [c.id, c.title])).toEqual([[second.id, 'Touch the README'], [first.id, 'Add a.rb']]);
    expect(res.headers.get('x-total')).toBe('2');
  });

  it('GET /diffs pages through the changed files; unidiff adds the ---/+++ header', async () => {
    const page1 = await s.get(`${mrPath()}/diffs`, { query: { per_page: 1 } });
    expect(page1.headers.get('x-total')).toBe('2');
    expect(page1.body).toEqual([
      { diff: '@@ -1 +1 @@\n-# ' + project.name + '\n+# Changed\n', new_path: 'README.md', old_path: 'README.md', a_mode: '100644', b_mode: '100644', new_file: false, renamed_file: false, deleted_file: false, generated_file: false },
    ]);
    const uni = await s.get(`${mrPath()}/diffs`, { query: { page: 2, per_page: 1, unidiff: true } });
    expect(uni.body[0]).toMatchObject({ new_path: 'lib/a.rb', new_file: true, a_mode: '0', b_mode: '100644', diff: '--- /dev/null\n+++ b/lib/a.rb\n@@ -0,0 +1,3 @@\n+one\n+two\n+three\n' });
  });

  it('GET /changes is the merge request with its changes', async () => {
    const res = await s.get(`${mrPath()}/changes`);
    expect(res.body).toMatchObject({ iid: mr.iid, diff_refs: mr.diff_refs, overflow: false });
    expect(res.body.changes.map((c: any) => c.new_path)).toEqual(['README.md', 'lib/a.rb']);
    expect(res.body.changes[0]).not.toHaveProperty('generated_file');
  });

  it('GET /raw_diffs answers the plain patch', async () => {
    const res = await s.get(`${mrPath()}/raw_diffs`);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(res.text).toContain('diff --git a/lib/a.rb b/lib/a.rb\nnew file mode 100644');
  });

  it('a push to the source branch adds a version; /versions lists them newest first and one version has its commits and diffs', async () => {
    const third = await commit(project, 'feature', [{ action: 'delete', file_path: 'lib/a.rb' }], { message: 'Drop a.rb' });
    const versions = await s.get(`${mrPath()}/versions`);
    expect(versions.status).toBe(200);
    expect(versions.body).toHaveLength(2);
    const [latest, older] = versions.body;
    expect(Object.keys(latest)).toEqual(['id', 'head_commit_sha', 'base_commit_sha', 'start_commit_sha', 'created_at', 'merge_request_id', 'state', 'real_size', 'patch_id_sha']);
    expect(latest).toMatchObject({ head_commit_sha: third.id, merge_request_id: mr.id, state: 'collected', real_size: '1' });
    expect(older).toMatchObject({ head_commit_sha: second.id, real_size: '2' });
    expect(latest.patch_id_sha).toMatch(/^[0-9a-f]{40}$/);
    expect(latest.patch_id_sha).not.toBe(older.patch_id_sha);
    const one = await s.get(`${mrPath()}/versions/${older.id}`);
    expect(one.body).toMatchObject({ id: older.id, head_commit_sha: second.id });
    expect(one.body.commits.map((c: any) => c.id)).toEqual([second.id, first.id]);
    expect(one.body.diffs.map((d: any) => d.new_path)).toEqual(['README.md', 'lib/a.rb']);
    expect((await s.get(`${mrPath()}/versions/999999`)).body).toEqual({ message: '404 Not found' });
    const got = (await s.get(mrPath())).body;
    expect(got).toMatchObject({ sha: third.id, changes_count: '1', diff_refs: { head_sha: third.id } });
  });
});

describe('PUT /merge', () => {
  it('refuses a draft (405) and a stale sha (409), then merges with a merge commit that closes the issues named', async () => {
    const project = await newProject();
    const issue = (await s.post(`/projects/${project.id}/issues`, { title: 'Broken' })).body;
    const change = await commit(project, 'fix', [{ action: 'create', file_path: 'fix.txt', content: 'fixed\n' }], { start_branch: 'main' });
    const mr = await openMr(project, 'fix', 'Draft: Fix it', { description: `Closes #${issue.iid}` });
    const path = `/projects/${project.id}/merge_requests/${mr.iid}`;
    expect(mr.detailed_merge_status).toBe('draft_status');
    expect((await s.put(`${path}/merge`)).status).toBe(405);
    await s.put(path, { title: 'Fix it' });
    const stale = await s.put(`${path}/merge`, { sha: '1'.repeat(40) });
    expect(stale.status).toBe(409);
    expect(stale.body).toEqual({ message: `SHA does not match HEAD of source branch: ${change.id}` });
    const mainBefore = await head(project, 'main');
    const merged = await s.put(`${path}/merge`, { sha: change.id, should_remove_source_branch: true });
    expect(merged.status).toBe(200);
    expect(merged.body).toMatchObject({ state: 'merged', merged_by: { username: 'root' }, squash_commit_sha: null });
    const mergeCommit = (await s.get(`/projects/${project.id}/repository/commits/${merged.body.merge_commit_sha}`)).body;
    expect(mergeCommit.parent_ids).toEqual([mainBefore, change.id]);
    expect(mergeCommit.message).toBe(`Merge branch 'fix' into 'main'\n\nFix it\n\nCloses #${issue.iid}\n\nSee merge request ${project.path_with_namespace}!${mr.iid}`);
    expect(await head(project, 'main')).toBe(mergeCommit.id);
    expect((await s.get(`/projects/${project.id}/repository/branches/fix`)).status).toBe(404);
    const closed = (await s.get(`/projects/${project.id}/issues/${issue.iid}`)).body;
    expect(closed).toMatchObject({ state: 'closed', closed_by: { username: 'root' } });
    const states = (await s.get(`/projects/${project.id}/issues/${issue.iid}/resource_state_events`)).body;
    expect(states.map((e: any) => [e.state, e.source_merge_request_id])).toEqual([['closed', mr.id]]);
    expect((await s.put(`${path}/merge`)).status).toBe(405);
  });

  it('squashes several commits into one on the merge base', async () => {
    const project = await newProject();
    const base = await head(project, 'main');
    await commit(project, 'many', [{ action: 'create', file_path: 'a.txt', content: 'a\n' }], { start_branch: 'main' });
    const last = await commit(project, 'many', [{ action: 'create', file_path: 'b.txt', content: 'b\n' }]);
    const mr = await openMr(project, 'many', 'Two files');
    const merged = (await s.put(`/projects/${project.id}/merge_requests/${mr.iid}/merge`, { squash: true, squash_commit_message: 'Both files at once' })).body;
    expect(merged).toMatchObject({ state: 'merged', squash: true });
    const squash = (await s.get(`/projects/${project.id}/repository/commits/${merged.squash_commit_sha}`)).body;
    expect(squash).toMatchObject({ parent_ids: [base], message: 'Both files at once' });
    const mergeCommit = (await s.get(`/projects/${project.id}/repository/commits/${merged.merge_commit_sha}`)).body;
    expect(mergeCommit.parent_ids).toEqual([base, squash.id]);
    const tree = (await s.get(`/projects/${project.id}/repository/tree`, { query: { ref: 'main' } })).body.map((e: any) => e.path);
    expect(tree).toEqual(['README.md', 'a.txt', 'b.txt']);
    expect(squash.id).not.toBe(last.id);
  });

  it('a fast-forward project needs a rebase when the target moved; PUT /rebase replays the branch, then the merge fast-forwards', async () => {
    const project = await newProject();
    expect((await s.put(`/projects/${project.id}`, { merge_method: 'ff' })).status).toBe(200);
    await commit(project, 'topic', [{ action: 'create', file_path: 'topic.txt', content: 't\n' }], { start_branch: 'main', message: 'Topic work' });
    await commit(project, 'main', [{ action: 'create', file_path: 'other.txt', content: 'o\n' }]);
    const mr = await openMr(project, 'topic');
    const path = `/projects/${project.id}/merge_requests/${mr.iid}`;
    expect(mr).toMatchObject({ merge_status: 'can_be_merged', detailed_merge_status: 'need_rebase' });
    expect((await s.put(`${path}/merge`)).status).toBe(405);
    const rebase = await s.put(`${path}/rebase`);
    expect(rebase.status).toBe(202);
    expect(rebase.body).toEqual({ rebase_in_progress: false });
    const rebased = (await s.get(path)).body;
    expect(rebased).toMatchObject({ detailed_merge_status: 'mergeable', merge_error: null });
    const topic = (await s.get(`/projects/${project.id}/repository/commits/${rebased.sha}`)).body;
    expect(topic).toMatchObject({ title: 'Topic work', parent_ids: [await head(project, 'main')] });
    expect((await s.get(`${path}/versions`)).body).toHaveLength(2);
    const merged = (await s.put(`${path}/merge`)).body;
    expect(merged).toMatchObject({ state: 'merged', merge_commit_sha: null });
    expect(await head(project, 'main')).toBe(rebased.sha);
  });

  it('conflicting branches cannot be merged and answer 405; a Reporter gets 401', async () => {
    const project = await newProject();
    await commit(project, 'left', [{ action: 'update', file_path: 'README.md', content: 'left\n' }], { start_branch: 'main' });
    await commit(project, 'main', [{ action: 'update', file_path: 'README.md', content: 'right\n' }]);
    const mr = await openMr(project, 'left');
    expect(mr).toMatchObject({ merge_status: 'cannot_be_merged', has_conflicts: true, detailed_merge_status: 'conflict' });
    const path = `/projects/${project.id}/merge_requests/${mr.iid}`;
    expect((await s.put(`${path}/merge`)).status).toBe(405);
    const reporter = await s.createUser();
    await s.addMember('projects', project.id, reporter.user.id, 20);
    const refused = await s.put(`${path}/merge`, {}, { token: reporter.token });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ message: '401 Unauthorized' });
    const rebase = await s.put(`${path}/rebase`);
    expect(rebase.status).toBe(202);
    expect((await s.get(path)).body.merge_error).toBe('Rebase failed: Rebase locally, resolve all conflicts, then push the branch.');
  });

  it('deleting the source branch closes the merge request', async () => {
    const project = await newProject();
    await commit(project, 'gone', [{ action: 'create', file_path: 'g.txt', content: 'g\n' }], { start_branch: 'main' });
    const mr = await openMr(project, 'gone');
    expect((await s.del(`/projects/${project.id}/repository/branches/gone`)).status).toBe(204);
    expect((await s.get(`/projects/${project.id}/merge_requests/${mr.iid}`)).body.state).toBe('closed');
  });

  it('a merge request on branches the repository lacks has no versions or diffs and cannot be merged', async () => {
    const project = await newProject();
    const mr = await openMr(project, 'nowhere');
    const path = `/projects/${project.id}/merge_requests/${mr.iid}`;
    expect((await s.get(`${path}/versions`)).body).toEqual([]);
    expect((await s.get(`${path}/diffs`)).body).toEqual([]);
    expect((await s.get(`${path}/commits`)).body).toEqual([]);
    expect((await s.put(`${path}/merge`)).status).toBe(405);
  });

  it('a push to the target branch leaves a merge request on branches the repository never had as it was made, and checks those on real branches again', async () => {
    const project = await newProject();
    const ghost = await openMr(project, 'nowhere');
    await commit(project, 'real', [{ action: 'create', file_path: 'r.txt', content: 'mine\n' }], { start_branch: 'main' });
    const real = await openMr(project, 'real');
    expect(real).toMatchObject({ merge_status: 'can_be_merged', has_conflicts: false });
    const ghostPath = `/projects/${project.id}/merge_requests/${ghost.iid}`;
    const made = (await s.get(ghostPath)).body;
    await commit(project, 'main', [{ action: 'create', file_path: 'r.txt', content: 'theirs\n' }]);
    expect((await s.get(`${ghostPath}/versions`)).body).toEqual([]);
    const after = (await s.get(ghostPath)).body;
    expect(after).toMatchObject({ diff_refs: made.diff_refs, merge_status: made.merge_status, detailed_merge_status: made.detailed_merge_status, has_conflicts: made.has_conflicts });
    expect((await s.get(`/projects/${project.id}/merge_requests/${real.iid}`)).body).toMatchObject({ merge_status: 'cannot_be_merged', has_conflicts: true });
    // Its branch pushed at last, it gets its first version.
    const pushed = await commit(project, 'nowhere', [{ action: 'create', file_path: 'n.txt', content: 'n\n' }], { start_branch: 'main' });
    const versions = (await s.get(`${ghostPath}/versions`)).body;
    expect(versions).toHaveLength(1);
    expect(versions[0].head_commit_sha).toBe(pushed.id);
  });
});

describe('diff positions on a merge request with real branches', () => {
  const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');
  let project: any;
  let mr: any;
  let path: string;
  const at = (extra: Record<string, unknown>) => ({ ...mr.diff_refs, position_type: 'text', ...extra });

  beforeAll(async () => {
    project = await newProject();
    await commit(project, 'review', [
      { action: 'create', file_path: 'lib/a.rb', content: 'one\ntwo\nthree\n' },
      { action: 'update', file_path: 'README.md', content: '# Changed\n' },
    ], { start_branch: 'main' });
    mr = await openMr(project, 'review');
    path = `/projects/${project.id}/merge_requests/${mr.iid}`;
  });

  it('a draft note gets the line_code GitLab computes (sha1 of the path, old and new counters)', async () => {
    const added = await s.post(`${path}/draft_notes`, { note: 'second line', position: at({ old_path: 'lib/a.rb', new_path: 'lib/a.rb', new_line: 2 }) });
    expect(added.status).toBe(201);
    expect(added.body.line_code).toBe(`${sha1('lib/a.rb')}_0_2`);
    // `-# name` / `+# Changed` from old 1/new 1: the removed line is _1_1, the added one _2_1.
    const removed = await s.post(`${path}/draft_notes`, { note: 'old title', position: at({ old_path: 'README.md', new_path: 'README.md', old_line: 1 }) });
    expect(removed.body.line_code).toBe(`${sha1('README.md')}_1_1`);
    const replaced = await s.post(`${path}/draft_notes`, { note: 'new title', position: at({ old_path: 'README.md', new_path: 'README.md', new_line: 1 }) });
    expect(replaced.body.line_code).toBe(`${sha1('README.md')}_2_1`);
    const outside = await s.post(`${path}/draft_notes`, { note: 'nowhere', position: at({ old_path: 'lib/a.rb', new_path: 'lib/a.rb', new_line: 40 }) });
    expect(outside.status).toBe(201);
    expect(outside.body.line_code).toBeNull();
    const moved = await s.put(`${path}/draft_notes/${outside.body.id}`, { note: 'third line', position: at({ old_path: 'lib/a.rb', new_path: 'lib/a.rb', new_line: 3 }) });
    expect(moved.body.line_code).toBe(`${sha1('lib/a.rb')}_0_3`);
  });

  it('a diff discussion on a line outside the diff answers GitLab\'s 400; on a line in it, a DiffNote keeping the position', async () => {
    const bad = await s.post(`${path}/discussions`, { body: 'x', position: at({ old_path: 'lib/a.rb', new_path: 'lib/a.rb', new_line: 40 }) });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ message: '400 Bad request - Note {:line_code=>["can\'t be blank", "must be a valid line code"]}' });
    const position = at({ old_path: 'README.md', new_path: 'README.md', old_line: 1 });
    const good = await s.post(`${path}/discussions`, { body: 'why?', position });
    expect(good.status).toBe(201);
    expect(good.body.notes[0]).toMatchObject({ type: 'DiffNote', position: { ...position, new_line: null, line_range: null } });
  });

  it('publishing a diff draft makes a DiffNote with the same position', async () => {
    const position = at({ old_path: 'lib/a.rb', new_path: 'lib/a.rb', new_line: 1 });
    const draft = (await s.post(`${path}/draft_notes`, { note: 'first line', position })).body;
    expect((await s.put(`${path}/draft_notes/${draft.id}/publish`)).status).toBe(204);
    const threads = (await s.get(`${path}/discussions`)).body;
    const published = threads.flatMap((d: any) => d.notes).find((n: any) => n.body === 'first line');
    expect(published).toMatchObject({ type: 'DiffNote', position: { ...position, old_line: null, line_range: null } });
  });
});

describe('badge placeholders from the repository', () => {
  it('%{commit_sha} is the default branch head and %{latest_tag} the newest tag; both empty without them', async () => {
    const project = await newProject();
    const render = async (p: any) =>
      (await s.get(`/projects/${p.id}/badges/render`, { query: { link_url: 'http://ci.example/%{default_branch}/%{commit_sha}', image_url: 'http://ci.example/%{latest_tag}.svg' } })).body;
    const first = await commit(project, 'main', [{ action: 'create', file_path: 'v.txt', content: '1' }]);
    expect((await s.post(`/projects/${project.id}/repository/tags`, { tag_name: 'v1.0', ref: 'main' })).status).toBe(201);
    const second = await commit(project, 'main', [{ action: 'update', file_path: 'v.txt', content: '2' }]);
    expect((await s.post(`/projects/${project.id}/repository/tags`, { tag_name: 'v0.9', ref: second.id, message: 'annotated, and newer' })).status).toBe(201);
    expect(first.id).not.toBe(second.id);
    expect(await render(project)).toMatchObject({
      rendered_link_url: `http://ci.example/main/${second.id}`,
      rendered_image_url: 'http://ci.example/v0.9.svg',
    });
    const empty = await s.createProject();
    expect(await render(empty)).toMatchObject({ rendered_link_url: 'http://ci.example/main/', rendered_image_url: 'http://ci.example/.svg' });
  });
});

describe('GET /merge_ref', () => {
  it('answers the commit the merge would make, and 400 when the branches conflict', async () => {
    const project = await newProject();
    const change = await commit(project, 'ref', [{ action: 'update', file_path: 'README.md', content: 'mine\n' }], { start_branch: 'main' });
    const mr = await openMr(project, 'ref');
    const path = `/projects/${project.id}/merge_requests/${mr.iid}`;
    const ok = await s.get(`${path}/merge_ref`);
    expect(ok.status).toBe(200);
    const mergeCommit = (await s.get(`/projects/${project.id}/repository/commits/${ok.body.commit_id}`)).body;
    expect(mergeCommit.parent_ids).toEqual([await head(project, 'main'), change.id]);
    await commit(project, 'main', [{ action: 'update', file_path: 'README.md', content: 'theirs\n' }]);
    const refused = await s.get(`${path}/merge_ref`);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ message: 'Merge request is not mergeable' });
  });
});

describe('GET a merge request with include_diverged_commits_count and include_rebase_in_progress', () => {
  it('counts the target commits the source lacks, and says no rebase is running', async () => {
    const project = await newProject();
    await commit(project, 'behind', [{ action: 'create', file_path: 'b.txt', content: 'b\n' }], { start_branch: 'main' });
    await commit(project, 'main', [{ action: 'create', file_path: 'm1.txt', content: '1\n' }]);
    await commit(project, 'main', [{ action: 'create', file_path: 'm2.txt', content: '2\n' }]);
    const mr = await openMr(project, 'behind');
    const path = `/projects/${project.id}/merge_requests/${mr.iid}`;
    const plain = (await s.get(path)).body;
    expect(plain).not.toHaveProperty('diverged_commits_count');
    expect(plain).not.toHaveProperty('rebase_in_progress');
    const asked = (await s.get(path, { query: { include_diverged_commits_count: true, include_rebase_in_progress: true } })).body;
    expect(asked).toMatchObject({ diverged_commits_count: 2, rebase_in_progress: false });
    await s.put(`${path}/rebase`);
    expect((await s.get(path, { query: { include_diverged_commits_count: true } })).body.diverged_commits_count).toBe(0);
  });
});
