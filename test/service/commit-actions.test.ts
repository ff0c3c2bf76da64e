import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, TestService } from '../helpers/service';

let s: TestService;
let project: any;
let base: string;
beforeAll(async () => {
  s = await TestService.start();
  project = await s.createProject({ name: 'Commit actions', initialize_with_readme: true });
  base = `/projects/${project.id}/repository`;
});
afterAll(async () => s.stop());

async function commit(branch: string, actions: any[], extra: Record<string, unknown> = {}): Promise<any> {
  const res = await s.post(`${base}/commits`, { branch, commit_message: `change ${actions[0].file_path}`, actions, ...extra });
  if (res.status !== 201) throw new Error(`${res.status} ${res.text}`);
  return res.body;
}

const CHANGE_FAILED =
  "Can't perform this action automatically. It may have already been done, or a more recent commit may have updated some of this content. Please perform this action locally.";

describe('cherry-pick and revert', () => {
  let picked: any;
  let mainHead: any;
  beforeAll(async () => {
    await commit('topic', [{ action: 'create', file_path: 'topic.txt', content: 'one\n' }], { start_branch: 'main', author_name: 'Ann', author_email: 'ann@example.com' });
    picked = (await s.get(`${base}/commits/topic`)).body;
    mainHead = (await s.get(`${base}/commits/main`)).body;
  });

  it('dry_run answers 200 {"dry_run":"success"} and moves nothing', async () => {
    const res = await s.post(`${base}/commits/${picked.id}/cherry_pick`, { branch: 'main', dry_run: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ dry_run: 'success' });
    expect((await s.get(`${base}/commits/main`)).body.id).toBe(mainHead.id);
  });

  it('cherry-picks onto the branch: 201 with the new commit, the message naming its origin, the author kept', async () => {
    const res = await s.post(`${base}/commits/${picked.id}/cherry_pick`, { branch: 'main' });
    expect(res.status).toBe(201);
    expect(res.body.message).toBe(`${picked.message}\n\n(cherry picked from commit ${picked.id})`);
    expect(res.body).toMatchObject({ parent_ids: [mainHead.id], author_name: 'Ann', author_email: 'ann@example.com', committer_name: 'Administrator' });
    expect((await s.get(`${base}/commits/main`)).body.id).toBe(res.body.id);
    const file = await s.get(`${base}/files/topic.txt/raw`, { query: { ref: 'main' } });
    expect(file.text).toBe('one\n');
  });

  it('a second pick changes nothing: 400 with error_code "empty" (and dry_run "error" on a dry run)', async () => {
    const again = await s.post(`${base}/commits/${picked.id}/cherry_pick`, { branch: 'main' });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ message: `Commit cherry-pick failed: ${CHANGE_FAILED}`, error_code: 'empty' });
    const dry = await s.post(`${base}/commits/${picked.id}/cherry_pick`, { branch: 'main', dry_run: true });
    expect(dry.body).toEqual({ message: `Commit cherry-pick failed: ${CHANGE_FAILED}`, error_code: 'empty', dry_run: 'error' });
  });

  it('a conflicting pick answers error_code "conflict"; a custom message is used as given', async () => {
    await commit('other', [{ action: 'update', file_path: 'topic.txt', content: 'two\n' }], { start_branch: 'main' });
    await commit('main', [{ action: 'update', file_path: 'topic.txt', content: 'three\n' }]);
    const other = (await s.get(`${base}/commits/other`)).body;
    const res = await s.post(`${base}/commits/${other.id}/cherry_pick`, { branch: 'main' });
    expect(res.status).toBe(400);
    expect(res.body.error_code).toBe('conflict');
    await commit('fresh', [{ action: 'create', file_path: 'fresh.txt', content: 'f\n' }], { start_branch: 'main' });
    const fresh = (await s.get(`${base}/commits/fresh`)).body;
    const custom = await s.post(`${base}/commits/${fresh.id}/cherry_pick`, { branch: 'topic', message: 'Bring fresh.txt over' });
    expect(custom.status).toBe(201);
    expect(custom.body.message).toBe('Bring fresh.txt over');
  });

  it('reverts a commit on a branch: Revert "<title>", then a second revert is empty', async () => {
    const head = (await s.get(`${base}/commits/main`)).body;
    const res = await s.post(`${base}/commits/${head.id}/revert`, { branch: 'main' });
    expect(res.status).toBe(201);
    expect(res.body.message).toBe(`Revert "${head.title}"\n\nThis reverts commit ${head.id}`);
    expect(res.body.author_name).toBe('Administrator');
    expect((await s.get(`${base}/files/topic.txt/raw`, { query: { ref: 'main' } })).text).toBe('one\n');
    const again = await s.post(`${base}/commits/${head.id}/revert`, { branch: 'main' });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ message: `Commit revert failed: ${CHANGE_FAILED}`, error_code: 'empty' });
  });

  it('answers 404 for an unknown commit or branch, 400 for a missing branch, 403 below Developer', async () => {
    expect((await s.post(`${base}/commits/${'e'.repeat(40)}/cherry_pick`, { branch: 'main' })).body).toEqual({ message: '404 Commit Not Found' });
    expect((await s.post(`${base}/commits/${picked.id}/revert`, { branch: 'ghost' })).body).toEqual({ message: '404 Branch Not Found' });
    expect((await s.post(`${base}/commits/${picked.id}/revert`, {})).body).toEqual({ error: 'branch is missing' });
    const { user, token } = await s.createUser();
    await s.addMember('projects', project.id, user.id, 20);
    const res = await s.post(`${base}/commits/${picked.id}/cherry_pick`, { branch: 'main' }, { token });
    expect(res.status).toBe(403);
  });
});

describe('commit comments and discussions', () => {
  let c: any;
  beforeAll(async () => {
    c = await commit('main', [{ action: 'create', file_path: 'notes.md', content: 'a\nb\n' }]);
  });

  it('POST comments: a plain comment, and one on an added line of the diff (path, line, line_type)', async () => {
    const plain = await s.post(`${base}/commits/${c.id}/comments`, { note: 'Looks good' });
    expect(plain.status).toBe(201);
    expect(plain.body).toMatchObject({ note: 'Looks good', path: null, line: null, line_type: null, author: { username: 'root' } });
    expect(Object.keys(plain.body)).toEqual(['note', 'path', 'line', 'line_type', 'author', 'created_at']);
    const onLine = await s.post(`${base}/commits/${c.id}/comments`, { note: 'Why b?', path: 'notes.md', line: 2, line_type: 'new' });
    expect(onLine.body).toMatchObject({ note: 'Why b?', path: 'notes.md', line: 2, line_type: 'new' });
    // A line that is not in the diff makes a plain comment, as GitLab does.
    const offDiff = await s.post(`${base}/commits/${c.id}/comments`, { note: 'Elsewhere', path: 'notes.md', line: 9 });
    expect(offDiff.body).toMatchObject({ path: null, line: null });
    const list = await s.get(`${base}/commits/${c.id}/comments`);
    expect(list.body.map((n: any) => n.note)).toEqual(['Looks good', 'Why b?', 'Elsewhere']);
    expect(list.headers.get('x-total')).toBe('3');
  });

  it('comments need a note (and a line with a path); unknown commits are 404', async () => {
    expect((await s.post(`${base}/commits/${c.id}/comments`, {})).body).toEqual({ error: 'note is missing' });
    expect((await s.post(`${base}/commits/${c.id}/comments`, { note: 'x', path: 'notes.md' })).body).toEqual({ error: 'line is missing' });
    expect((await s.post(`${base}/commits/${c.id}/comments`, { note: '  ' })).status).toBe(400);
    expect((await s.get(`${base}/commits/${'f'.repeat(40)}/comments`)).body).toEqual({ message: '404 Commit Not Found' });
  });

  it('discussions on a commit: start, list, reply, edit and delete notes; commit notes carry no noteable_id', async () => {
    const started = await s.post(`${base}/commits/${c.id}/discussions`, { body: 'Discussion body' });
    expect(started.status).toBe(201);
    const d = started.body;
    expect(d.notes[0]).toMatchObject({ body: 'Discussion body', noteable_type: 'Commit', noteable_id: null, noteable_iid: null, resolvable: false });
    const list = await s.get(`${base}/commits/${c.id}/discussions`);
    expect(list.body.map((x: any) => x.id)).toContain(d.id);
    const reply = await s.post(`${base}/commits/${c.id}/discussions/${d.id}/notes`, { body: 'first note' });
    expect(reply.status).toBe(201);
    const got = await s.get(`${base}/commits/${c.id}/discussions/${d.id}/notes/${reply.body.id}`);
    expect(got.body.body).toBe('first note');
    const edited = await s.put(`${base}/commits/${c.id}/discussions/${d.id}/notes/${reply.body.id}`, { body: 'updated body' });
    expect(edited.body.body).toBe('updated body');
    expect((await s.put(`${base}/commits/${c.id}/discussions/${d.id}`, { resolved: true })).status).toBe(403);
    expect((await s.del(`${base}/commits/${c.id}/discussions/${d.id}/notes/${reply.body.id}`)).status).toBe(204);
    const after = await s.get(`${base}/commits/${c.id}/discussions/${d.id}`);
    expect(after.body.notes.map((n: any) => n.body)).toEqual(['Discussion body']);
  });

  it('a diff position on a commit discussion is checked against the commit\'s diff', async () => {
    const position = { position_type: 'text', base_sha: c.parent_ids[0], start_sha: c.parent_ids[0], head_sha: c.id, new_path: 'notes.md', old_path: 'notes.md' };
    const ok = await s.post(`${base}/commits/${c.id}/discussions`, { body: 'On line 1', position: { ...position, new_line: 1 } });
    expect(ok.status).toBe(201);
    expect(ok.body.notes[0]).toMatchObject({ type: 'DiffNote', position: { new_line: 1, new_path: 'notes.md' } });
    const off = await s.post(`${base}/commits/${c.id}/discussions`, { body: 'Nowhere', position: { ...position, new_line: 40 } });
    expect(off.status).toBe(400);
  });
});

describe('commit statuses', () => {
  let sha: string;
  beforeAll(async () => {
    sha = (await commit('main', [{ action: 'create', file_path: 'ci.txt', content: 'ci\n' }])).id;
  });

  it('POST /statuses/:sha creates an external status on the branch that holds the commit (201), shown on the commit', async () => {
    const res = await s.post(`/projects/${project.id}/statuses/${sha}`, { state: 'success', name: 'lint', target_url: 'https://ci.example.com/1', description: 'All good', coverage: '87.5' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual([
      'id', 'sha', 'ref', 'status', 'name', 'target_url', 'description', 'created_at', 'started_at', 'finished_at', 'allow_failure', 'coverage', 'pipeline_id', 'author',
    ]);
    expect(res.body).toMatchObject({ sha, ref: 'main', status: 'success', name: 'lint', target_url: 'https://ci.example.com/1', coverage: 87.5, allow_failure: false, started_at: null });
    expect(res.body.finished_at).not.toBeNull();
    const detail = (await s.get(`${base}/commits/${sha}`)).body;
    expect(detail.status).toBe('success');
    expect(detail.last_pipeline).toMatchObject({ id: res.body.pipeline_id, sha, ref: 'main', status: 'success', source: 'external' });
  });

  it('a pending status moves to running then success in place; a new report of a finished name starts a new status', async () => {
    const pending = (await s.post(`/projects/${project.id}/statuses/${sha}`, { state: 'pending', context: 'build' })).body;
    expect(pending).toMatchObject({ name: 'build', status: 'pending' });
    const running = (await s.post(`/projects/${project.id}/statuses/${sha}`, { state: 'running', name: 'build' })).body;
    expect(running).toMatchObject({ id: pending.id, status: 'running' });
    expect(running.started_at).not.toBeNull();
    expect((await s.get(`${base}/commits/${sha}`)).body.status).toBe('running');
    const again = await s.post(`/projects/${project.id}/statuses/${sha}`, { state: 'running', name: 'build' });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ message: 'Cannot transition status via :run from :running (Reason(s): Status cannot transition via "run")' });
    const done = (await s.post(`/projects/${project.id}/statuses/${sha}`, { state: 'failed', name: 'build' })).body;
    expect(done).toMatchObject({ id: pending.id, status: 'failed' });
    const rerun = (await s.post(`/projects/${project.id}/statuses/${sha}`, { state: 'success', name: 'build' })).body;
    expect(rerun.id).not.toBe(pending.id);
    const latest = await s.get(`${base}/commits/${sha}/statuses`);
    expect(latest.body.map((x: any) => `${x.name}:${x.status}`)).toEqual(['lint:success', 'build:success']);
    const all = await s.get(`${base}/commits/${sha}/statuses`, { query: { all: true } });
    expect(all.body.map((x: any) => `${x.name}:${x.status}`)).toEqual(['lint:success', 'build:failed', 'build:success']);
    const byName = await s.get(`${base}/commits/${sha}/statuses`, { query: { name: 'lint', sort: 'desc' } });
    expect(byName.body.map((x: any) => x.name)).toEqual(['lint']);
  });

  it('answers GitLab\'s errors: bad state, bad target_url, unknown commit, no ref, anonymous, below Developer', async () => {
    expect((await s.post(`/projects/${project.id}/statuses/${sha}`, { state: 'great' })).body).toEqual({ error: 'state does not have a valid value' });
    expect((await s.post(`/projects/${project.id}/statuses/${sha}`, {})).body).toEqual({ error: 'state is missing' });
    expect((await s.post(`/projects/${project.id}/statuses/${sha}`, { state: 'success', name: 'u', target_url: 'ftp://x' })).body).toEqual({
      message: { target_url: ['is blocked: Only allowed schemes are http, https'] },
    });
    expect((await s.post(`/projects/${project.id}/statuses/${'a'.repeat(40)}`, { state: 'success' })).body).toEqual({ message: '404 Commit Not Found' });
    expect((await s.post(`/projects/${project.id}/statuses/${sha}`, { state: 'success', pipeline_id: 999999 })).body).toEqual({
      message: '404 Pipeline for pipeline_id, sha and ref Not Found',
    });
    expect((await s.get(`${base}/commits/${sha}/statuses`, { token: null })).status).toBe(401);
    const { user, token } = await s.createUser();
    await s.addMember('projects', project.id, user.id, 20);
    expect((await s.post(`/projects/${project.id}/statuses/${sha}`, { state: 'success' }, { token })).status).toBe(403);
    expect((await s.get(`${base}/commits/${sha}/statuses`, { token })).status).toBe(200);
  });
});

describe('merge requests of a commit, signatures, snapshots', () => {
  it('lists the merge requests whose changes hold the commit', async () => {
    const c = await commit('mr-source', [{ action: 'create', file_path: 'mr.txt', content: 'mr\n' }], { start_branch: 'main' });
    const mr = (await s.post(`/projects/${project.id}/merge_requests`, { source_branch: 'mr-source', target_branch: 'main', title: 'Add mr.txt' })).body;
    const res = await s.get(`${base}/commits/${c.id}/merge_requests`);
    expect(res.status).toBe(200);
    expect(res.body.map((m: any) => m.iid)).toEqual([mr.iid]);
    expect((await s.get(`${base}/commits/${c.id}/merge_requests`, { query: { state: 'merged' } })).body).toEqual([]);
    const mainHead = (await s.get(`${base}/commits/main`)).body;
    expect((await s.get(`${base}/commits/${mainHead.id}/merge_requests`)).body).toEqual([]);
  });

  it('an unsigned commit has no signature (404 Signature Not Found); a signed one reports its key as unknown', async () => {
    const head = (await s.get(`${base}/commits/main`)).body;
    expect((await s.get(`${base}/commits/${head.id}/signature`)).body).toEqual({ message: '404 Signature Not Found' });
    // A commit object carrying an OpenPGP signature (a v4 signature packet whose issuer subpacket names key 0123456789ABCDEF).
    const packet = Buffer.from([0xc2, 15, 4, 0, 1, 8, 0, 0, 0, 10, 9, 16, 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef]);
    const armored = ['-----BEGIN PGP SIGNATURE-----', '', packet.toString('base64'), '-----END PGP SIGNATURE-----'];
    const gitDir = join(s.dataDir, 'repositories', `${project.id}.git`);
    const raw = execFileSync('git', ['--git-dir', gitDir, 'cat-file', 'commit', head.id], { encoding: 'utf8' });
    const [headers, ...message] = raw.split('\n\n');
    const signed = `${headers}\ngpgsig ${armored.join('\n ')}\n\n${message.join('\n\n')}`;
    const sha = execFileSync('git', ['--git-dir', gitDir, 'hash-object', '-t', 'commit', '-w', '--stdin'], { input: signed, encoding: 'utf8' }).trim();
    const res = await s.get(`${base}/commits/${sha}/signature`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      signature_type: 'PGP',
      signature: {
        gpg_key_id: null,
        gpg_key_primary_keyid: '0123456789ABCDEF',
        gpg_key_user_name: null,
        gpg_key_user_email: null,
        verification_status: 'unknown_key',
        gpg_key_subkey_id: null,
      },
      commit_source: 'gitaly',
    });
  });

  it('GET /projects/:id/snapshot: the bare repository as a tar, for administrators only', async () => {
    const res = await fetch(`${s.url}/api/v4/projects/${project.id}/snapshot`, { headers: { 'PRIVATE-TOKEN': ROOT_TOKEN } });
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-tar');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="snapshot.tar"');
    // ustar: each member's name at offset 0 of its header; "ustar" at 257.
    expect(bytes.subarray(257, 262).toString()).toBe('ustar');
    const { token } = await s.createUser();
    expect((await s.get(`/projects/${project.id}/snapshot`, { token })).status).toBe(403);
    expect((await s.get(`/projects/${project.id}/snapshot`, { token: null })).status).toBe(401);
  });
});
