import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, TestService } from '../helpers/service';

let s: TestService;
let project: any;
let base: string;
beforeAll(async () => {
  s = await TestService.start();
  project = await s.createProject({ name: 'Repo API', initialize_with_readme: true });
  base = `/projects/${project.id}/repository`;
});
afterAll(async () => s.stop());

const enc = encodeURIComponent;

async function commit(branch: string, actions: any[], extra: Record<string, unknown> = {}): Promise<any> {
  const res = await s.post(`${base}/commits`, { branch, commit_message: `commit on ${branch}`, actions, ...extra });
  if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
  return res.body;
}

describe('commits', () => {
  let first: any;
  it('POST /repository/commits makes one commit of several actions and answers the commit detail (201)', async () => {
    first = await commit('main', [
      { action: 'create', file_path: 'src/app.js', content: 'console.log(1)\n' },
      { action: 'create', file_path: 'docs/a.md', content: Buffer.from('# A\n').toString('base64'), encoding: 'base64' },
      { action: 'create', file_path: 'run.sh', content: '#!/bin/sh\n', execute_filemode: true },
    ], { author_name: 'Jane Author', author_email: 'jane@example.com' });
    expect(Object.keys(first)).toEqual([
      'id', 'short_id', 'created_at', 'parent_ids', 'title', 'message', 'author_name', 'author_email', 'authored_date',
      'committer_name', 'committer_email', 'committed_date', 'trailers', 'extended_trailers', 'web_url', 'stats', 'status', 'project_id', 'last_pipeline',
    ]);
    expect(first).toMatchObject({
      title: 'commit on main',
      message: 'commit on main',
      author_name: 'Jane Author',
      author_email: 'jane@example.com',
      committer_name: 'Administrator',
      committer_email: 'admin@example.com',
      stats: { additions: 3, deletions: 0, total: 3 },
      status: null,
      project_id: project.id,
      last_pipeline: null,
      web_url: `${project.web_url}/-/commit/${first.id}`,
    });
    expect(first.short_id).toBe(first.id.slice(0, 8));
    expect(first.authored_date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000\+00:00$/);
  });

  it('update, move, chmod and delete actions; start_branch makes a new branch', async () => {
    const c = await commit('feature', [
      { action: 'update', file_path: 'src/app.js', content: 'console.log(2)\n' },
      { action: 'move', previous_path: 'docs/a.md', file_path: 'docs/b.md' },
      { action: 'chmod', file_path: 'run.sh', execute_filemode: false },
    ], { start_branch: 'main' });
    expect(c.parent_ids).toEqual([first.id]);
    const del = await commit('feature', [{ action: 'delete', file_path: 'run.sh' }]);
    expect(del.stats).toEqual({ additions: 0, deletions: 1, total: 1 });
    const tree = await s.get(`${base}/tree`, { query: { ref: 'feature', recursive: true } });
    expect(tree.body.map((e: any) => `${e.type} ${e.mode} ${e.path}`)).toEqual([
      'blob 100644 README.md', 'tree 040000 docs', 'blob 100644 docs/b.md', 'tree 040000 src', 'blob 100644 src/app.js',
    ]);
  });

  it('answers GitLab\'s 400s for refused actions and missing parameters', async () => {
    const exists = await s.post(`${base}/commits`, { branch: 'main', commit_message: 'x', actions: [{ action: 'create', file_path: 'README.md', content: 'x' }] });
    expect(exists.status).toBe(400);
    expect(exists.body).toEqual({ message: 'A file with this name already exists' });
    const missing = await s.post(`${base}/commits`, { branch: 'main', commit_message: 'x', actions: [{ action: 'delete', file_path: 'nope.txt' }] });
    expect(missing.body).toEqual({ message: "A file with this name doesn't exist" });
    const noBranch = await s.post(`${base}/commits`, { branch: 'ghost', commit_message: 'x', actions: [{ action: 'create', file_path: 'g.txt', content: 'g' }] });
    expect(noBranch.body).toEqual({ message: 'You can only create or edit files when you are on a branch' });
    const taken = await s.post(`${base}/commits`, { branch: 'feature', start_branch: 'main', commit_message: 'x', actions: [{ action: 'create', file_path: 'g.txt', content: 'g' }] });
    expect(taken.body).toEqual({ message: "A branch called 'feature' already exists. Switch to that branch in order to make changes" });
    const grape = await s.post(`${base}/commits`, { branch: 'main', actions: [{ action: 'explode' }] });
    expect(grape.status).toBe(400);
    expect(grape.body).toEqual({ error: 'commit_message is missing' });
    const badAction = await s.post(`${base}/commits`, { branch: 'main', commit_message: 'x', actions: [{ action: 'explode' }] });
    expect(badAction.body).toEqual({ error: 'actions[0][action] does not have a valid value, actions[0][file_path] is missing' });
    const both = await s.post(`${base}/commits`, { branch: 'x', start_branch: 'main', start_sha: first.id, commit_message: 'x', actions: [] });
    expect(both.body).toEqual({ error: 'start_branch, start_sha are mutually exclusive' });
  });

  it('lists with ref_name, path, since/until and pagination headers; gets one, its diff and its refs', async () => {
    const list = await s.get(`${base}/commits`, { query: { ref_name: 'feature', per_page: 2 } });
    expect(list.status).toBe(200);
    expect(list.headers.get('x-total')).toBe('4');
    expect(list.headers.get('x-next-page')).toBe('2');
    expect(list.body.map((c: any) => c.title)).toEqual(['commit on feature', 'commit on feature']);
    const byPath = await s.get(`${base}/commits`, { query: { ref_name: 'feature', path: 'run.sh' } });
    expect(byPath.body.map((c: any) => c.stats)).toEqual([undefined, undefined, undefined]);
    expect(byPath.body).toHaveLength(3);
    const future = await s.get(`${base}/commits`, { query: { since: '2999-01-01T00:00:00Z' } });
    expect(future.body).toEqual([]);
    const withStats = await s.get(`${base}/commits`, { query: { with_stats: true, per_page: 1 } });
    expect(withStats.body[0].stats).toEqual({ additions: 3, deletions: 0, total: 3 });
    const one = await s.get(`${base}/commits/main`);
    expect(one.body.id).toBe(first.id);
    expect((await s.get(`${base}/commits/${first.id}`, { query: { stats: false } })).body.stats).toBeUndefined();
    expect((await s.get(`${base}/commits/nope`)).body).toEqual({ message: '404 Commit Not Found' });
    const diff = await s.get(`${base}/commits/${first.id}/diff`);
    expect(diff.body[0]).toEqual({
      diff: '@@ -0,0 +1 @@\n+# A\n', new_path: 'docs/a.md', old_path: 'docs/a.md', a_mode: '0', b_mode: '100644', new_file: true, renamed_file: false, deleted_file: false,
    });
    const uni = await s.get(`${base}/commits/${first.id}/diff`, { query: { unidiff: true } });
    expect(uni.body[0].diff).toBe('--- /dev/null\n+++ b/docs/a.md\n@@ -0,0 +1 @@\n+# A\n');
    const refs = await s.get(`${base}/commits/${first.id}/refs`);
    expect(refs.body).toEqual([{ type: 'branch', name: 'feature' }, { type: 'branch', name: 'main' }]);
  });
});

describe('branches', () => {
  it('lists (search, pagination), gets, creates from a ref and deletes', async () => {
    const created = await s.post(`${base}/branches`, { branch: 'topic/one', ref: 'main' });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body)).toEqual(['name', 'commit', 'merged', 'protected', 'developers_can_push', 'developers_can_merge', 'can_push', 'default', 'web_url']);
    expect(created.body).toMatchObject({ name: 'topic/one', merged: true, protected: false, can_push: true, default: false, web_url: `${project.web_url}/-/tree/topic/one` });
    const list = await s.get(`${base}/branches`);
    expect(list.body.map((b: any) => [b.name, b.default, b.merged])).toEqual([['feature', false, false], ['main', true, false], ['topic/one', false, true]]);
    expect(list.headers.get('x-total')).toBe('3');
    expect((await s.get(`${base}/branches`, { query: { search: '^top' } })).body.map((b: any) => b.name)).toEqual(['topic/one']);
    expect((await s.get(`${base}/branches/${enc('topic/one')}`)).body.commit.id).toBe(created.body.commit.id);
    expect((await s.get(`${base}/branches/nope`)).body).toEqual({ message: '404 Branch Not Found' });
    expect((await s.del(`${base}/branches/${enc('topic/one')}`)).status).toBe(204);
    expect((await s.get(`${base}/branches/${enc('topic/one')}`)).status).toBe(404);
  });

  it('answers the creation and deletion errors GitLab gives', async () => {
    expect((await s.post(`${base}/branches`, { branch: 'main', ref: 'main' })).body).toEqual({ message: 'Branch already exists' });
    expect((await s.post(`${base}/branches`, { branch: 'bad..name', ref: 'main' })).body).toEqual({ message: 'Branch name is invalid' });
    expect((await s.post(`${base}/branches`, { branch: 'x', ref: 'nowhere' })).body).toEqual({ message: 'Invalid reference name: nowhere' });
    expect((await s.post(`${base}/branches`, { branch: 'x' })).body).toEqual({ error: 'ref is missing' });
    const def = await s.del(`${base}/branches/main`);
    expect(def.status).toBe(405);
    expect(def.body).toEqual({ message: 'The default branch of a project cannot be deleted.' });
    expect((await s.del(`${base}/branches/nope`)).body).toEqual({ message: '404 Branch Not Found' });
    await s.post(`${base}/branches`, { branch: 'stale', ref: 'main' });
    const conditional = await s.del(`${base}/branches/stale`, { headers: { 'if-unmodified-since': 'Mon, 01 Jan 2001 00:00:00 GMT' } });
    expect(conditional.status).toBe(412);
  });

  it('DELETE /repository/merged_branches removes branches merged into the default branch (202)', async () => {
    await s.post(`${base}/branches`, { branch: 'merged-one', ref: 'main' });
    const res = await s.del(`${base}/merged_branches`);
    expect(res.status).toBe(202);
    const names = (await s.get(`${base}/branches`)).body.map((b: any) => b.name);
    expect(names).toEqual(['feature', 'main']);
  });
});

describe('tags', () => {
  it('creates lightweight and annotated tags, lists them by name/version/updated, gets and deletes', async () => {
    const light = await s.post(`${base}/tags`, { tag_name: 'v1.9', ref: 'main' });
    expect(light.status).toBe(201);
    expect(Object.keys(light.body)).toEqual(['name', 'message', 'target', 'commit', 'release', 'protected', 'created_at']);
    expect(light.body).toMatchObject({ name: 'v1.9', message: '', release: null, protected: false, created_at: null });
    expect(light.body.target).toBe(light.body.commit.id);
    const annotated = await s.post(`${base}/tags`, { tag_name: 'v1.10', ref: 'feature', message: ' Release 1.10 ' });
    expect(annotated.body.message).toBe('Release 1.10');
    expect(annotated.body.target).not.toBe(annotated.body.commit.id);
    expect(annotated.body.created_at).toMatch(/^\d{4}-/);
    expect((await s.get(`${base}/tags`, { query: { order_by: 'version', sort: 'asc' } })).body.map((t: any) => t.name)).toEqual(['v1.9', 'v1.10']);
    expect((await s.get(`${base}/tags`, { query: { order_by: 'name', sort: 'asc' } })).body.map((t: any) => t.name)).toEqual(['v1.10', 'v1.9']);
    expect((await s.get(`${base}/tags`, { query: { search: '1.1' } })).body.map((t: any) => t.name)).toEqual(['v1.10']);
    expect((await s.get(`${base}/tags/v1.10`)).body.commit.title).toBe('commit on feature');
    expect((await s.get(`${base}/tags/v9`)).body).toEqual({ message: '404 Tag Not Found' });
    expect((await s.post(`${base}/tags`, { tag_name: 'v1.9', ref: 'main' })).body).toEqual({ message: 'Tag v1.9 already exists' });
    expect((await s.post(`${base}/tags`, { tag_name: 'v2', ref: 'nowhere' })).body).toEqual({ message: 'Target nowhere is invalid' });
    expect((await s.post(`${base}/tags`, { tag_name: 'bad tag', ref: 'main' })).body).toEqual({ message: 'Tag name invalid' });
    expect((await s.del(`${base}/tags/v1.10`)).status).toBe(204);
    expect((await s.get(`${base}/tags`)).body.map((t: any) => t.name)).toEqual(['v1.9']);
  });
});

describe('files', () => {
  it('GET returns the base64 content with blob, commit and last commit ids, also as X-Gitlab headers', async () => {
    const res = await s.get(`${base}/files/${enc('src/app.js')}`, { query: { ref: 'feature' } });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['file_name', 'file_path', 'size', 'encoding', 'content_sha256', 'ref', 'blob_id', 'commit_id', 'last_commit_id', 'execute_filemode', 'content']);
    expect(res.body).toMatchObject({ file_name: 'app.js', file_path: 'src/app.js', size: 15, encoding: 'base64', ref: 'feature', execute_filemode: false });
    expect(Buffer.from(res.body.content, 'base64').toString()).toBe('console.log(2)\n');
    expect(res.headers.get('x-gitlab-blob-id')).toBe(res.body.blob_id);
    expect(res.headers.get('x-gitlab-last-commit-id')).toBe(res.body.last_commit_id);
    const head = (await s.get(`${base}/commits/feature`)).body.id;
    expect(res.body.commit_id).toBe(head);
    expect(res.body.last_commit_id).not.toBe(head);
    expect((await s.get(`${base}/files/${enc('src/app.js')}`)).body).toEqual({ error: 'ref is missing' });
    expect((await s.get(`${base}/files/nope.txt`, { query: { ref: 'main' } })).body).toEqual({ message: '404 File Not Found' });
    expect((await s.get(`${base}/files/README.md`, { query: { ref: 'nope' } })).body).toEqual({ message: '404 Commit Not Found' });
    expect((await s.get(`${base}/files/${enc('../etc/passwd')}`, { query: { ref: 'main' } })).body).toEqual({ error: 'file_path should be a valid file path' });
  });

  it('raw answers the bytes (ref defaults to the default branch); blame groups lines by commit', async () => {
    const raw = await s.get(`${base}/files/${enc('src/app.js')}/raw`);
    expect(raw.text).toBe('console.log(1)\n');
    expect(raw.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(raw.headers.get('x-gitlab-file-path')).toBe('src/app.js');
    const blame = await s.get(`${base}/files/README.md/blame`, { query: { ref: 'main' } });
    expect(blame.body).toHaveLength(1);
    expect(blame.body[0].lines).toEqual(['# Repo API']);
    expect(blame.body[0].commit.title).toBe('Initial commit');
  });

  it('POST/PUT/DELETE commit one file each, with last_commit_id checks', async () => {
    const created = await s.post(`${base}/files/${enc('notes/todo.txt')}`, { branch: 'main', content: 'one\n', commit_message: 'Add todo' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ file_path: 'notes/todo.txt', branch: 'main' });
    const file = (await s.get(`${base}/files/${enc('notes/todo.txt')}`, { query: { ref: 'main' } })).body;
    const stale = await s.put(`${base}/files/${enc('notes/todo.txt')}`, { branch: 'main', content: 'two\n', commit_message: 'Edit', last_commit_id: first40() });
    expect(stale.body).toEqual({ message: 'You are attempting to update a file that has changed since you started editing it.' });
    const updated = await s.put(`${base}/files/${enc('notes/todo.txt')}`, { branch: 'main', content: 'two\n', commit_message: 'Edit todo', last_commit_id: file.last_commit_id });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({ file_path: 'notes/todo.txt', branch: 'main' });
    expect((await s.get(`${base}/files/${enc('notes/todo.txt')}/raw`)).text).toBe('two\n');
    expect((await s.post(`${base}/files/${enc('notes/todo.txt')}`, { branch: 'main', content: 'x', commit_message: 'again' })).body).toEqual({ message: 'A file with this name already exists' });
    expect((await s.post(`${base}/files/x.txt`, { branch: 'main', content: 'x' })).body).toEqual({ error: 'commit_message is missing' });
    const deleted = await s.del(`${base}/files/${enc('notes/todo.txt')}`, { query: { branch: 'main', commit_message: 'Remove todo' } });
    expect(deleted.status).toBe(204);
    expect((await s.get(`${base}/commits/main`)).body.title).toBe('Remove todo');
  });
});

function first40(): string {
  return 'f'.repeat(40);
}

describe('tree, blobs, archive, compare, contributors, merge base', () => {
  it('tree lists one level with pagination, a sub path, and 404 Tree Not Found', async () => {
    const root = await s.get(`${base}/tree`, { query: { ref: 'feature' } });
    expect(root.body.map((e: any) => e.name)).toEqual(['README.md', 'docs', 'src']);
    expect(Object.keys(root.body[0])).toEqual(['id', 'name', 'type', 'path', 'mode']);
    const sub = await s.get(`${base}/tree`, { query: { ref: 'feature', path: 'src' } });
    expect(sub.body).toEqual([expect.objectContaining({ name: 'app.js', path: 'src/app.js', type: 'blob' })]);
    const paged = await s.get(`${base}/tree`, { query: { ref: 'feature', per_page: 1, page: 2 } });
    expect(paged.body.map((e: any) => e.name)).toEqual(['docs']);
    expect(paged.headers.get('x-total')).toBe('3');
    expect((await s.get(`${base}/tree`, { query: { path: 'nope' } })).body).toEqual({ message: '404 Tree Not Found' });
    const empty = await s.createProject();
    expect((await s.get(`/projects/${empty.id}/repository/tree`)).body).toEqual({ message: '404 Tree Not Found' });
    expect((await s.get(`/projects/${empty.id}/repository/branches`)).body).toEqual([]);
    expect((await s.get(`/projects/${empty.id}/repository/commits`)).body).toEqual([]);
  });

  it('blobs by sha, as JSON and raw', async () => {
    const entry = (await s.get(`${base}/tree`)).body.find((e: any) => e.name === 'README.md');
    const blob = await s.get(`${base}/blobs/${entry.id}`);
    expect(blob.body).toEqual({ size: 11, encoding: 'base64', content: Buffer.from('# Repo API\n').toString('base64'), sha: entry.id });
    expect((await s.get(`${base}/blobs/${entry.id}/raw`)).text).toBe('# Repo API\n');
    expect((await s.get(`${base}/blobs/${'0'.repeat(40)}`)).body).toEqual({ message: '404 Blob Not Found' });
  });

  it('archive streams tar.gz and zip that unpack to the tree', async () => {
    const res = await fetch(`${s.url}/api/v4${base}/archive.tar.gz?sha=feature`, { headers: { 'private-token': ROOT_TOKEN } });
    expect(res.status).toBe(200);
    const sha = (await s.get(`${base}/commits/feature`)).body.id;
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="repo-api-feature-${sha}.tar.gz"`);
    const dir = mkdtempSync(join(tmpdir(), 'sandlab-archive-'));
    writeFileSync(join(dir, 'a.tar.gz'), Buffer.from(await res.arrayBuffer()));
    const listing = execFileSync('tar', ['-tzf', join(dir, 'a.tar.gz')]).toString().split('\n').filter(Boolean).sort();
    expect(listing).toContain(`repo-api-feature-${sha}/src/app.js`);
    const zip = await s.get(`${base}/archive.zip`);
    expect(zip.status).toBe(200);
    expect(zip.headers.get('content-disposition')).toMatch(/\.zip"$/);
    expect((await s.get(`${base}/archive`, { query: { sha: 'nope' } })).body).toEqual({ message: '404 File Not Found' });
  });

  it('compare lists the commits and diffs from one ref to another', async () => {
    const res = await s.get(`${base}/compare`, { query: { from: 'main~2', to: 'feature' } });
    expect(Object.keys(res.body)).toEqual(['commit', 'commits', 'diffs', 'compare_timeout', 'compare_same_ref', 'web_url']);
    expect(res.body.commits.map((c: any) => c.title)).toEqual(['commit on feature', 'commit on feature']);
    expect(res.body.commit.id).toBe((await s.get(`${base}/commits/feature`)).body.id);
    expect(res.body.diffs.map((d: any) => [d.old_path, d.new_path, d.renamed_file, d.deleted_file])).toEqual([
      ['docs/a.md', 'docs/b.md', true, false],
      ['run.sh', 'run.sh', false, true],
      ['src/app.js', 'src/app.js', false, false],
    ]);
    expect(res.body.compare_same_ref).toBe(false);
    expect((await s.get(`${base}/compare`, { query: { from: 'main', to: 'main' } })).body).toMatchObject({ commit: null, commits: [], diffs: [], compare_same_ref: true });
    expect((await s.get(`${base}/compare`, { query: { from: 'nope', to: 'main' } })).body).toEqual({ message: '404 Ref Not Found' });
  });

  it('contributors count commits per author; merge_base finds the common ancestor', async () => {
    const contributors = await s.get(`${base}/contributors`, { query: { order_by: 'name' } });
    expect(contributors.body).toEqual([
      { name: 'Administrator', email: 'admin@example.com', commits: 4, additions: 0, deletions: 0 },
      { name: 'Jane Author', email: 'jane@example.com', commits: 1, additions: 0, deletions: 0 },
    ]);
    const mb = await s.get(`${base}/merge_base`, { query: { 'refs[]': ['main', 'feature'] } });
    expect(mb.body.title).toBe('commit on main');
    expect((await s.get(`${base}/merge_base`, { query: { 'refs[]': ['main'] } })).body).toEqual({ message: 'Provide at least 2 refs' });
    expect((await s.get(`${base}/merge_base`, { query: { 'refs[]': ['main', 'nope'] } })).body).toEqual({ message: 'Could not find ref: nope' });
  });
});

describe('who may read and write', () => {
  it('Guests of a private project get 403 on code, anonymous callers 404; public code is open to all', async () => {
    const guest = await s.createUser();
    const reporter = await s.createUser();
    await s.addMember('projects', project.id, guest.user.id, 10);
    await s.addMember('projects', project.id, reporter.user.id, 20);
    expect((await s.get(`${base}/branches`, { token: guest.token })).body).toEqual({ message: '403 Forbidden' });
    expect((await s.get(`${base}/branches`, { token: null })).body).toEqual({ message: '404 Project Not Found' });
    expect((await s.get(`${base}/branches`, { token: reporter.token })).status).toBe(200);
    expect((await s.post(`${base}/branches`, { branch: 'r', ref: 'main' }, { token: reporter.token })).status).toBe(403);
    const write = await s.post(`${base}/commits`, { branch: 'main', commit_message: 'x', actions: [] }, { token: reporter.token });
    expect(write.body).toEqual({ message: '403 Forbidden - You are not allowed to push into this branch' });
    const pub = await s.createProject({ visibility: 'public', initialize_with_readme: true });
    expect((await s.get(`/projects/${pub.id}/repository/files/README.md/raw`, { token: null })).status).toBe(200);
    expect((await s.get(`/projects/${pub.id}/repository/tree`, { token: null })).body).toHaveLength(1);
  });
});
