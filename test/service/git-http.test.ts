import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, TestService } from '../helpers/service';
import { git, gitOk, scratchDir, withCredentials } from '../helpers/git';

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s.stop());

/** Clones `url` into a fresh folder; returns the folder and git's result. */
async function clone(url: string): Promise<{ dir: string; code: number; stderr: string }> {
  const dir = join(scratchDir(), 'work');
  const r = await git(scratchDir(), ['clone', url, dir]);
  return { dir, code: r.code, stderr: r.stderr };
}

async function commitFile(dir: string, name: string, content: string, message: string): Promise<string> {
  writeFileSync(join(dir, name), content);
  await gitOk(dir, ['add', name]);
  await gitOk(dir, ['commit', '-q', '-m', message]);
  return (await gitOk(dir, ['rev-parse', 'HEAD'])).trim();
}

describe('a new project', () => {
  it('initialize_with_readme commits README.md on the default branch, and the entity shows it', async () => {
    const p = await s.createProject({ name: 'With Readme', default_branch: 'trunk', initialize_with_readme: true });
    expect(p.empty_repo).toBe(false);
    expect(p.default_branch).toBe('trunk');
    expect(p.http_url_to_repo).toBe(`${s.url}/root/with-readme.git`);
    expect(p.readme_url).toBe(`${s.url}/root/with-readme/-/blob/trunk/README.md`);
    const { dir, code } = await clone(withCredentials(p.http_url_to_repo, 'oauth2', ROOT_TOKEN));
    expect(code).toBe(0);
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toBe('# With Readme\n');
    expect((await gitOk(dir, ['rev-parse', '--abbrev-ref', 'HEAD'])).trim()).toBe('trunk');
    expect((await gitOk(dir, ['log', '-1', '--format=%an <%ae>|%s'])).trim()).toBe('Administrator <admin@example.com>|Initial commit');
  });

  it('without a README is an empty repository with a bare git folder under the data dir', async () => {
    const p = await s.createProject({ name: 'Empty One' });
    expect(p.empty_repo).toBe(true);
    expect(p.readme_url).toBeNull();
    expect(existsSync(join(s.dataDir, 'repositories', `${p.id}.git`, 'HEAD'))).toBe(true);
    const { dir, code, stderr } = await clone(withCredentials(p.http_url_to_repo, 'oauth2', ROOT_TOKEN));
    expect(code).toBe(0);
    expect(stderr).toContain('empty repository');
    expect(existsSync(join(dir, '.git'))).toBe(true);
  });
});

describe('push and fetch with a token', () => {
  let project: any;
  let url: string;
  let dir: string;
  beforeAll(async () => {
    project = await s.createProject({ name: 'Pushed' });
    url = withCredentials(project.http_url_to_repo, 'oauth2', ROOT_TOKEN);
    ({ dir } = await clone(url));
  });

  it('the first push creates the branch and writes a "pushed new" event (within the hour of the project\'s last activity it does not move last_activity_at, as GitLab)', async () => {
    const before = (await s.get(`/projects/${project.id}`)).body.last_activity_at;
    const sha = await commitFile(dir, 'README.md', '# Pushed\n', 'Add README');
    await gitOk(dir, ['push', '-q', 'origin', 'main']);
    const after = (await s.get(`/projects/${project.id}`)).body;
    expect(after.empty_repo).toBe(false);
    expect(after.readme_url).toBe(`${project.web_url}/-/blob/main/README.md`);
    expect(after.last_activity_at).toBe(before);
    const events = await s.get(`/projects/${project.id}/events`, { query: { action: 'pushed' } });
    expect(events.body[0]).toMatchObject({
      action_name: 'pushed new',
      push_data: { commit_count: 1, action: 'created', ref_type: 'branch', commit_from: null, commit_to: sha, ref: 'main', commit_title: 'Add README', ref_count: null },
    });
  });

  it('an update counts its new commits; a tag push and a branch deletion are events too', async () => {
    const first = (await gitOk(dir, ['rev-parse', 'HEAD'])).trim();
    await commitFile(dir, 'a.txt', 'a\n', 'Add a');
    const last = await commitFile(dir, 'b.txt', 'b\n', 'Add b');
    await gitOk(dir, ['push', '-q', 'origin', 'main']);
    await gitOk(dir, ['tag', '-a', 'v1.0', '-m', 'Release 1.0']);
    await gitOk(dir, ['push', '-q', 'origin', 'v1.0', 'main:feature']);
    await gitOk(dir, ['push', '-q', 'origin', '--delete', 'feature']);
    const events = (await s.get(`/projects/${project.id}/events`, { query: { action: 'pushed' } })).body.map((e: any) => [e.action_name, e.push_data]);
    expect(events.slice(0, 4)).toEqual([
      ['deleted', expect.objectContaining({ action: 'removed', ref: 'feature', ref_type: 'branch', commit_to: null, commit_from: last })],
      // One push: branches first, then tags (Git::ProcessRefChangesService), so the tag is newer.
      ['pushed new', expect.objectContaining({ action: 'created', ref: 'v1.0', ref_type: 'tag', commit_title: 'Add b' })],
      ['pushed new', expect.objectContaining({ action: 'created', ref: 'feature', commit_count: 0, commit_to: last })],
      ['pushed to', expect.objectContaining({ action: 'pushed', ref: 'main', commit_count: 2, commit_from: first, commit_to: last, commit_title: 'Add b' })],
    ]);
  });

  it('a second clone fetches what was pushed, branches and tags', async () => {
    const other = await clone(url);
    expect(other.code).toBe(0);
    expect(readFileSync(join(other.dir, 'b.txt'), 'utf8')).toBe('b\n');
    expect((await gitOk(other.dir, ['tag', '-l'])).trim()).toBe('v1.0');
    await commitFile(dir, 'c.txt', 'c\n', 'Add c');
    await gitOk(dir, ['push', '-q', 'origin', 'main']);
    await gitOk(other.dir, ['pull', '-q', '--ff-only']);
    expect(readFileSync(join(other.dir, 'c.txt'), 'utf8')).toBe('c\n');
  });

  it('protocol v0 (no Git-Protocol header) and gzip-encoded request bodies are served too', async () => {
    const v0 = await clone(url.replace('http://', 'http://'));
    expect(v0.code).toBe(0);
    const head = (await gitOk(dir, ['rev-parse', 'HEAD'])).trim();
    const body = gzipSync(Buffer.from(`0032want ${head}\n00000009done\n`));
    const res = await fetch(`${project.http_url_to_repo}/git-upload-pack`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`oauth2:${ROOT_TOKEN}`).toString('base64')}`,
        'content-type': 'application/x-git-upload-pack-request',
        'content-encoding': 'gzip',
      },
      body,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-git-upload-pack-result');
    const pack = Buffer.from(await res.arrayBuffer());
    expect(pack.includes(Buffer.from('PACK'))).toBe(true);
  });

  it('answers the URL without .git with a redirect git follows', async () => {
    const res = await fetch(`${project.web_url}/info/refs?service=git-upload-pack`, { redirect: 'manual' });
    expect(res.status).toBe(301);
    expect(res.headers.get('location')).toBe(`/root/pushed.git/info/refs?service=git-upload-pack`);
    const viaRedirect = await clone(withCredentials(project.web_url, 'oauth2', ROOT_TOKEN));
    expect(viaRedirect.code).toBe(0);
  });
});

describe('who may clone and push', () => {
  let project: any;
  let reporter: { user: any; token: string };
  let guest: { user: any; token: string };
  let developer: { user: any; token: string };
  beforeAll(async () => {
    project = await s.createProject({ name: 'Private Code', initialize_with_readme: true });
    reporter = await s.createUser();
    guest = await s.createUser();
    developer = await s.createUser({}, ['write_repository']);
    await s.addMember('projects', project.id, reporter.user.id, 20);
    await s.addMember('projects', project.id, guest.user.id, 10);
    await s.addMember('projects', project.id, developer.user.id, 30);
  });

  it('asks anonymous callers for credentials with Basic realm="GitLab"', async () => {
    const res = await fetch(`${project.http_url_to_repo}/info/refs?service=git-upload-pack`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Basic realm="GitLab"');
    expect(await res.text()).toMatch(/^HTTP Basic: Access denied/);
    const r = await clone(project.http_url_to_repo);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/could not read Username|Authentication failed/);
  });

  it('refuses a wrong token with 401, and an unknown project to a signed-in caller with 404', async () => {
    expect((await clone(withCredentials(project.http_url_to_repo, 'oauth2', 'glpat-wrong'))).stderr).toContain('Authentication failed');
    const res = await fetch(`${s.url}/root/nope.git/info/refs?service=git-upload-pack`, {
      headers: { authorization: `Basic ${Buffer.from(`oauth2:${ROOT_TOKEN}`).toString('base64')}` },
    });
    expect(res.status).toBe(404);
    expect(await res.text()).toBe("The project you were looking for could not be found or you don't have permission to view it.\n");
  });

  it('lets a Reporter clone but not push; a Guest of a private project cannot clone', async () => {
    const cloned = await clone(withCredentials(project.http_url_to_repo, reporter.user.username, reporter.token));
    expect(cloned.code).toBe(0);
    await commitFile(cloned.dir, 'x.txt', 'x', 'x');
    const push = await git(cloned.dir, ['push', 'origin', 'main']);
    expect(push.code).not.toBe(0);
    expect(push.stderr).toContain('403');
    const res = await fetch(`${project.http_url_to_repo}/info/refs?service=git-receive-pack`, {
      headers: { authorization: `Basic ${Buffer.from(`any:${reporter.token}`).toString('base64')}` },
    });
    expect(res.status).toBe(403);
    expect(await res.text()).toBe('You are not allowed to push code to this project.\n');
    const guestClone = await clone(withCredentials(project.http_url_to_repo, 'oauth2', guest.token));
    expect(guestClone.code).not.toBe(0);
    expect(guestClone.stderr).toContain('403');
  });

  it('lets a Developer with a write_repository token push', async () => {
    const cloned = await clone(withCredentials(project.http_url_to_repo, 'oauth2', developer.token));
    await commitFile(cloned.dir, 'dev.txt', 'dev\n', 'From a developer');
    expect((await git(cloned.dir, ['push', 'origin', 'main'])).code).toBe(0);
    const events = await s.get(`/projects/${project.id}/events`, { query: { action: 'pushed' } });
    expect(events.body[0]).toMatchObject({ author_id: developer.user.id, push_data: { ref: 'main', commit_title: 'From a developer' } });
  });

  it('a read_repository token clones but cannot push; a token without repository scopes cannot clone', async () => {
    const readOnly = await s.post(`/users/${developer.user.id}/personal_access_tokens`, { name: 'ro', scopes: ['read_repository'] });
    const cloned = await clone(withCredentials(project.http_url_to_repo, 'oauth2', readOnly.body.token));
    expect(cloned.code).toBe(0);
    const res = await fetch(`${project.http_url_to_repo}/info/refs?service=git-receive-pack`, {
      headers: { authorization: `Basic ${Buffer.from(`oauth2:${readOnly.body.token}`).toString('base64')}` },
    });
    expect(res.status).toBe(403);
    expect(await res.text()).toBe('You are not allowed to upload code.\n');
    const apiOnly = await s.post(`/users/${developer.user.id}/personal_access_tokens`, { name: 'read-api', scopes: ['read_api'] });
    const refused = await fetch(`${project.http_url_to_repo}/info/refs?service=git-upload-pack`, {
      headers: { authorization: `Basic ${Buffer.from(`oauth2:${apiOnly.body.token}`).toString('base64')}` },
    });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toBe('You are not allowed to download code.\n');
  });

  it('accepts a user password, and a CI job token as gitlab-ci-token (read only)', async () => {
    expect((await clone(withCredentials(project.http_url_to_repo, developer.user.username, 'password123'))).code).toBe(0);
    const job = await s.post('/sandlab/job_tokens', { project_id: project.id, user_id: developer.user.id });
    expect(job.status).toBe(201);
    const cloned = await clone(withCredentials(project.http_url_to_repo, 'gitlab-ci-token', job.body.token));
    expect(cloned.code).toBe(0);
    await commitFile(cloned.dir, 'ci.txt', 'ci', 'ci');
    expect((await git(cloned.dir, ['push', 'origin', 'main'])).stderr).toContain('403');
  });

  it('refuses pushes to an archived project', async () => {
    const archived = await s.createProject({ name: 'Archived Code', initialize_with_readme: true });
    const cloned = await clone(withCredentials(archived.http_url_to_repo, 'oauth2', ROOT_TOKEN));
    await s.post(`/projects/${archived.id}/archive`);
    await commitFile(cloned.dir, 'late.txt', 'late', 'late');
    expect((await git(cloned.dir, ['push', 'origin', 'main'])).code).not.toBe(0);
    const res = await fetch(`${archived.http_url_to_repo}/info/refs?service=git-receive-pack`, {
      headers: { authorization: `Basic ${Buffer.from(`oauth2:${ROOT_TOKEN}`).toString('base64')}` },
    });
    expect(await res.text()).toBe("You can't push code to an archived project.\n");
  });

  it('serves public projects to anonymous clients for reading only', async () => {
    const pub = await s.createProject({ name: 'Open Code', visibility: 'public', initialize_with_readme: true });
    const cloned = await clone(pub.http_url_to_repo);
    expect(cloned.code).toBe(0);
    await commitFile(cloned.dir, 'anon.txt', 'anon', 'anon');
    const push = await git(cloned.dir, ['push', 'origin', 'main']);
    expect(push.stderr).toMatch(/could not read Username|Authentication failed/);
  });
});

describe('the project lifecycle', () => {
  it('PUT default_branch moves HEAD to an existing branch and refuses a missing one', async () => {
    const p = await s.createProject({ name: 'Heads', initialize_with_readme: true });
    const { dir } = await clone(withCredentials(p.http_url_to_repo, 'oauth2', ROOT_TOKEN));
    await gitOk(dir, ['push', '-q', 'origin', 'main:develop']);
    const missing = await s.put(`/projects/${p.id}`, { default_branch: 'nope' });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ message: { base: ["Could not change HEAD: branch 'nope' does not exist"] } });
    const moved = await s.put(`/projects/${p.id}`, { default_branch: 'develop' });
    expect(moved.body.default_branch).toBe('develop');
    const again = await clone(withCredentials(p.http_url_to_repo, 'oauth2', ROOT_TOKEN));
    expect((await gitOk(again.dir, ['rev-parse', '--abbrev-ref', 'HEAD'])).trim()).toBe('develop');
  });

  it('a first push of another branch into an empty project makes it the default branch', async () => {
    const p = await s.createProject({ name: 'Master First' });
    const { dir } = await clone(withCredentials(p.http_url_to_repo, 'oauth2', ROOT_TOKEN));
    await gitOk(dir, ['checkout', '-q', '-b', 'master']);
    await commitFile(dir, 'm.txt', 'm', 'on master');
    await gitOk(dir, ['push', '-q', 'origin', 'master']);
    expect((await s.get(`/projects/${p.id}`)).body.default_branch).toBe('master');
  });

  it('deleting a project, or the group holding one, removes its repository', async () => {
    const p = await s.createProject({ name: 'Doomed', initialize_with_readme: true });
    const folder = join(s.dataDir, 'repositories', `${p.id}.git`);
    expect(existsSync(folder)).toBe(true);
    expect((await s.del(`/projects/${p.id}`)).status).toBe(202);
    expect(existsSync(folder)).toBe(false);
    const group = await s.createGroup();
    const inGroup = await s.createProject({ name: 'In Group', namespace_id: group.id, initialize_with_readme: true });
    const groupFolder = join(s.dataDir, 'repositories', `${inGroup.id}.git`);
    expect(existsSync(groupFolder)).toBe(true);
    await s.del(`/groups/${group.id}`);
    await expect.poll(() => existsSync(groupFolder), { timeout: 10_000, interval: 200 }).toBe(false);
  });
});

describe('without git on the machine', () => {
  let bare: TestService;
  beforeAll(async () => {
    bare = await TestService.start({ gitCommand: '/nonexistent/git' });
  });
  afterAll(async () => bare.stop());

  it('starts, serves projects as empty repositories, and answers repository requests with a clear 503', async () => {
    const p = await bare.createProject({ name: 'No Git' });
    expect(p.empty_repo).toBe(true);
    const res = await fetch(`${p.http_url_to_repo}/info/refs?service=git-upload-pack`, {
      headers: { authorization: `Basic ${Buffer.from(`oauth2:${ROOT_TOKEN}`).toString('base64')}` },
    });
    expect(res.status).toBe(503);
    expect(await res.text()).toContain('git was not found on PATH');
    const readme = await bare.post('/projects', { name: 'Readme Without Git', initialize_with_readme: true });
    expect(readme.status).toBe(503);
    expect(readme.body.message).toMatch(/^503 Service Unavailable - git was not found on PATH/);
    expect((await bare.get('/projects', { query: { search: 'Readme Without Git' } })).body).toEqual([]);
  });
});
