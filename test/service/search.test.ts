import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

let s: TestService;
let group: any;
let project: any;
let secret: any;
let outsider: { user: any; token: string };
beforeAll(async () => {
  s = await TestService.start();
  group = await s.createGroup({ name: 'Kiwi group', path: 'kiwi-group', visibility: 'public' });
  project = await s.createProject({ name: 'Kiwi orchard', namespace_id: group.id, visibility: 'public', initialize_with_readme: true });
  secret = await s.createProject({ name: 'Kiwi vault', visibility: 'private' });
  outsider = await s.createUser({ username: 'kiwi-fan', name: 'Kiwi Fan' });
  await s.post(`/projects/${project.id}/issues`, { title: 'Kiwi harvest is late', description: 'the vines' });
  await s.post(`/projects/${project.id}/issues`, { title: 'Kiwi secrets', confidential: true });
  await s.post(`/projects/${project.id}/issues`, { title: 'Apples', description: 'nothing about kiwis here? yes: kiwi' });
  await s.post(`/projects/${secret.id}/issues`, { title: 'Kiwi in the vault' });
  await s.post(`/projects/${project.id}/milestones`, { title: 'Kiwi season' });
  await s.post(`/projects/${project.id}/repository/commits`, {
    branch: 'main',
    commit_message: 'Plant kiwi rows',
    actions: [{ action: 'create', file_path: 'rows.txt', content: 'row 1\nrow 2\nkiwi row\nrow 4\n' }],
  });
  await s.post(`/projects/${project.id}/snippets`, { title: 'Kiwi recipe', visibility: 'public', files: [{ file_path: 'r.md', content: 'x' }] });
  const issue = (await s.get(`/projects/${project.id}/issues`, { query: { search: 'harvest' } })).body[0];
  await s.post(`/projects/${project.id}/issues/${issue.iid}/notes`, { body: 'Kiwi crates are ready' });
});
afterAll(async () => s.stop());

const titles = (res: any): string[] => res.body.map((x: any) => x.title ?? x.name ?? x.username ?? x.filename).sort();

describe('GET /search', () => {
  it('users by name or username (python-gitlab: gl.search(scope=users, search="Administrator"))', async () => {
    const res = await s.get('/search', { query: { scope: 'users', search: 'Administrator' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-search-type')).toBe('basic');
    expect(res.body[0]).toMatchObject({ id: 1, username: 'root' });
    expect(Object.keys(res.body[0])).toEqual(['id', 'username', 'name', 'state', 'locked', 'avatar_url', 'web_url']);
    expect((await s.get('/search', { query: { scope: 'users', search: 'kiwi' } })).body.map((u: any) => u.username)).toEqual(['kiwi-fan']);
  });

  it('projects, issues, milestones and snippet titles the caller can see', async () => {
    const asOutsider = { token: outsider.token };
    expect(titles(await s.get('/search', { query: { scope: 'projects', search: 'kiwi' }, ...asOutsider }))).toEqual(['Kiwi orchard']);
    expect(titles(await s.get('/search', { query: { scope: 'projects', search: 'kiwi' } }))).toEqual(['Kiwi orchard', 'Kiwi vault']);
    // Confidential issues and private projects stay hidden; descriptions match too.
    expect(titles(await s.get('/search', { query: { scope: 'issues', search: 'kiwi' }, ...asOutsider }))).toEqual(['Apples', 'Kiwi harvest is late']);
    expect(titles(await s.get('/search', { query: { scope: 'issues', search: 'kiwi', confidential: true } }))).toEqual(['Kiwi secrets']);
    expect(titles(await s.get('/search', { query: { scope: 'issues', search: 'kiwi', state: 'closed' } }))).toEqual([]);
    expect(titles(await s.get('/search', { query: { scope: 'milestones', search: 'season' } }))).toEqual(['Kiwi season']);
    expect(titles(await s.get('/search', { query: { scope: 'snippet_titles', search: 'recipe' } }))).toEqual(['Kiwi recipe']);
    expect(titles(await s.get('/search', { query: { scope: 'merge_requests', search: 'kiwi' } }))).toEqual([]);
  });

  it('answers Grape\'s 400s for a missing or unknown scope and a missing term, 401 to anonymous callers', async () => {
    expect((await s.get('/search', { query: { search: 'x' } })).body).toEqual({ error: 'scope is missing' });
    expect((await s.get('/search', { query: { scope: 'notes', search: 'x' } })).body).toEqual({ error: 'scope does not have a valid value' });
    expect((await s.get('/search', { query: { scope: 'users' } })).body).toEqual({ error: 'search is missing' });
    expect((await s.get('/search', { query: { scope: 'users', search: 'x' }, token: null })).status).toBe(401);
  });
});

describe('GET /groups/:id/search and /projects/:id/search', () => {
  it('a group\'s projects, issues and members', async () => {
    expect(titles(await s.get(`/groups/${group.id}/search`, { query: { scope: 'projects', search: 'kiwi' } }))).toEqual(['Kiwi orchard']);
    expect(titles(await s.get(`/groups/${group.id}/search`, { query: { scope: 'issues', search: 'vault' } }))).toEqual([]);
    expect((await s.get(`/groups/${group.id}/search`, { query: { scope: 'users', search: 'admin' } })).body.map((u: any) => u.id)).toEqual([1]);
    expect((await s.get(`/groups/${group.id}/search`, { query: { scope: 'blobs', search: 'x' } })).status).toBe(400);
  });

  it('a project\'s notes, commits and blobs (at the default branch or ref)', async () => {
    const base = `/projects/${project.id}/search`;
    expect((await s.get(base, { query: { scope: 'notes', search: 'crates' } })).body.map((n: any) => n.body)).toEqual(['Kiwi crates are ready']);
    const commits = await s.get(base, { query: { scope: 'commits', search: 'plant KIWI' } });
    expect(commits.body.map((c: any) => c.title)).toEqual(['Plant kiwi rows']);
    const blobs = await s.get(base, { query: { scope: 'blobs', search: 'kiwi row' } });
    expect(blobs.body).toEqual([
      { basename: 'rows', data: 'row 1\nrow 2\nkiwi row\nrow 4\n', path: 'rows.txt', filename: 'rows.txt', id: null, ref: 'main', startline: 1, project_id: project.id },
    ]);
    expect((await s.get(base, { query: { scope: 'blobs', search: 'kiwi', ref: 'nope' } })).body).toEqual([]);
    expect((await s.get(base, { query: { scope: 'wiki_blobs', search: 'kiwi' } })).body).toEqual([]);
    expect((await s.get(`/projects/${secret.id}/search`, { query: { scope: 'issues', search: 'kiwi' }, token: outsider.token })).status).toBe(404);
  });
});
