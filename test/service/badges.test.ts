import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

let s: TestService;
let top: any;
let sub: any;
let project: any;
beforeAll(async () => {
  s = await TestService.start();
  top = await s.createGroup({ name: 'Top Group', path: 'top' });
  sub = await s.createGroup({ name: 'Sub', path: 'sub', parent_id: top.id });
  project = await s.createProject({ name: 'My Project', path: 'my-project', namespace_id: sub.id });
});
afterAll(async () => s.stop());

const ALL = [
  'project_path', 'project_title', 'project_name', 'project_id', 'project_namespace', 'group_name', 'platform_server',
  'platform_pages_domain', 'gitlab_server', 'gitlab_pages_domain', 'default_branch', 'commit_sha', 'latest_tag',
];

describe('project badges', () => {
  it('creates a badge and renders every placeholder', async () => {
    const link = `http://example.com/?${ALL.map((k) => `${k}=%{${k}}`).join('&')}&unknown=%{nope}`;
    const res = await s.post(`/projects/${project.id}/badges`, { link_url: link, image_url: 'https://shields.io/%{project_id}.svg', name: 'Coverage' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['name', 'id', 'link_url', 'image_url', 'rendered_link_url', 'rendered_image_url', 'kind']);
    expect(res.body.kind).toBe('project');
    expect(res.body.link_url).toBe(link);
    const rendered = new URL(res.body.rendered_link_url);
    expect(Object.fromEntries(rendered.searchParams)).toEqual({
      project_path: 'top/sub/my-project',
      project_title: 'My Project',
      project_name: 'my-project',
      project_id: String(project.id),
      project_namespace: 'top/sub',
      group_name: 'Top Group',
      platform_server: '127.0.0.1',
      platform_pages_domain: '127.0.0.1',
      gitlab_server: '127.0.0.1',
      gitlab_pages_domain: '127.0.0.1',
      default_branch: 'main',
      commit_sha: '',
      latest_tag: '',
      unknown: '%{nope}',
    });
    expect(res.body.rendered_image_url).toBe(`https://shields.io/${project.id}.svg`);
    expect(res.body.rendered_link_url).toContain('project_title=My%20Project&');
  });

  it('lists, filters by name, reads, updates and deletes', async () => {
    const a = await s.post(`/projects/${project.id}/badges`, { link_url: 'http://a.example', image_url: 'http://a.example/i.svg', name: 'A' });
    const list = await s.get(`/projects/${project.id}/badges`);
    expect(list.status).toBe(200);
    expect(list.headers.get('x-total')).toBe(String(list.body.length));
    expect((await s.get(`/projects/${project.id}/badges`, { query: { name: 'A' } })).body.map((b: any) => b.id)).toEqual([a.body.id]);
    expect((await s.get(`/projects/${project.id}/badges`, { query: { name: 'a' } })).body).toEqual([]);
    expect((await s.get(`/projects/${project.id}/badges/${a.body.id}`)).body.name).toBe('A');
    const upd = await s.put(`/projects/${project.id}/badges/${a.body.id}`, { image_url: '  http://another.example.com  ' });
    expect(upd.status).toBe(200);
    expect(upd.body.image_url).toBe('http://another.example.com');
    expect(upd.body.link_url).toBe('http://a.example');
    const del = await s.del(`/projects/${project.id}/badges/${a.body.id}`);
    expect(del.status).toBe(204);
    const gone = await s.get(`/projects/${project.id}/badges/${a.body.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ message: '404 Not found' });
  });

  it('answers 400 to a non-integer badge id on GET and DELETE, and the record 404 on PUT (no declared id there)', async () => {
    expect((await s.get(`/projects/${project.id}/badges/abc`)).body).toEqual({ error: 'badge_id is invalid' });
    expect((await s.del(`/projects/${project.id}/badges/abc`)).body).toEqual({ error: 'badge_id is invalid' });
    const put = await s.put(`/projects/${project.id}/badges/abc`, { name: 'x' });
    expect(put.status).toBe(404);
    expect(put.body).toEqual({ message: '404 Not found' });
    expect((await s.put(`/projects/${project.id}/badges/999999`, { name: 'x' })).body).toEqual({ message: '404 Not found' });
  });

  it('refuses URLs that are not http(s) and missing parameters', async () => {
    const bad = await s.post(`/projects/${project.id}/badges`, { link_url: 'javascript:alert(1)', image_url: '' });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      message: { link_url: ['is blocked: Only allowed schemes are http, https'], image_url: ['must be a valid URL'] },
    });
    expect((await s.post(`/projects/${project.id}/badges`, { link_url: 'ftp://x.example/a', image_url: 'http://ok.example' })).status).toBe(400);
    expect((await s.post(`/projects/${project.id}/badges`, {})).body).toEqual({ error: 'link_url is missing, image_url is missing' });
    const created = await s.post(`/projects/${project.id}/badges`, { link_url: 'http://x.example', image_url: 'http://x.example' });
    expect((await s.put(`/projects/${project.id}/badges/${created.body.id}`, { link_url: 'file:///etc/passwd' })).status).toBe(400);
  });

  it('renders a preview for Maintainers', async () => {
    const res = await s.get(`/projects/${project.id}/badges/render`, {
      query: { link_url: 'http://e.example/%{project_path}/%{default_branch}', image_url: 'http://e.example/%{commit_sha}' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      name: null,
      link_url: 'http://e.example/%{project_path}/%{default_branch}',
      image_url: 'http://e.example/%{commit_sha}',
      rendered_link_url: 'http://e.example/top/sub/my-project/main',
      rendered_image_url: 'http://e.example/',
    });
    expect((await s.get(`/projects/${project.id}/badges/render`, { query: { link_url: 'x' } })).body).toEqual({ error: 'image_url is missing' });
  });

  it('needs Maintainer to write and lets readers list', async () => {
    const { user, token } = await s.createUser();
    await s.addMember('projects', project.id, user.id, 30);
    expect((await s.get(`/projects/${project.id}/badges`, { token })).status).toBe(200);
    expect((await s.post(`/projects/${project.id}/badges`, { link_url: 'http://a.example', image_url: 'http://a.example' }, { token })).status).toBe(403);
    expect((await s.get(`/projects/${project.id}/badges/render`, { token, query: { link_url: 'http://a', image_url: 'http://b' } })).status).toBe(403);
    expect((await s.post(`/projects/${project.id}/badges`, { link_url: 'http://a.example', image_url: 'http://a.example' }, { token: null })).status).toBe(401);
    const stranger = await s.createUser();
    expect((await s.get(`/projects/${project.id}/badges`, { token: stranger.token })).body).toEqual({ message: '404 Project Not Found' });
  });
});

describe('group badges', () => {
  it('appear in the projects below with kind "group", rendered for each project', async () => {
    const g = await s.post(`/groups/${top.id}/badges`, { link_url: 'http://ci.example/%{project_path}', image_url: 'http://ci.example/b.svg', name: 'CI' });
    expect(g.status).toBe(201);
    expect(g.body.kind).toBe('group');
    const onProject = (await s.get(`/projects/${project.id}/badges`, { query: { name: 'CI' } })).body;
    expect(onProject).toEqual([
      {
        name: 'CI',
        id: g.body.id,
        link_url: 'http://ci.example/%{project_path}',
        image_url: 'http://ci.example/b.svg',
        rendered_link_url: 'http://ci.example/top/sub/my-project',
        rendered_image_url: 'http://ci.example/b.svg',
        kind: 'group',
      },
    ]);
    expect((await s.get(`/projects/${project.id}/badges/${g.body.id}`)).body.kind).toBe('group');
    // The group lists only its own badges; without a project in it nothing is rendered.
    const groupList = (await s.get(`/groups/${top.id}/badges`)).body;
    expect(groupList.map((b: any) => b.id)).toEqual([g.body.id]);
    expect(groupList[0].rendered_link_url).toBe('http://ci.example/%{project_path}');
    // A project changes its own badges only.
    const del = await s.del(`/projects/${project.id}/badges/${g.body.id}`);
    expect(del.status).toBe(403);
    expect(del.body).toEqual({ error: 'To delete a Group badge please use the Group endpoint' });
    // GitLab's PUT finds the badge among the project's (group ones included) and updates it.
    const throughProject = await s.put(`/projects/${project.id}/badges/${g.body.id}`, { name: 'x' });
    expect(throughProject.status).toBe(200);
    expect(throughProject.body).toMatchObject({ id: g.body.id, name: 'x', kind: 'group', rendered_link_url: 'http://ci.example/top/sub/my-project' });
    const upd = await s.put(`/groups/${top.id}/badges/${g.body.id}`, { name: 'CI2' });
    expect(upd.body.name).toBe('CI2');
    expect((await s.del(`/groups/${top.id}/badges/${g.body.id}`)).status).toBe(204);
    expect((await s.get(`/projects/${project.id}/badges`, { query: { name: 'CI2' } })).body).toEqual([]);
  });

  it('show on a project those of every group above it and no others, and follow the project to another group', async () => {
    const a = await s.createGroup({ path: 'scope-a' });
    const aSub = await s.createGroup({ path: 'scope-a-sub', parent_id: a.id });
    const b = await s.createGroup({ path: 'scope-b' });
    const p = await s.createProject({ name: 'scoped', namespace_id: aSub.id });
    const q = await s.createProject({ name: 'elsewhere', namespace_id: b.id });
    const add = async (path: string, name: string): Promise<number> =>
      (await s.post(`${path}/badges`, { link_url: 'http://x.example/%{project_path}', image_url: 'http://x.example/i.svg', name })).body.id;
    const onA = await add(`/groups/${a.id}`, 'a');
    const onSub = await add(`/groups/${aSub.id}`, 'sub');
    const onB = await add(`/groups/${b.id}`, 'b');
    const onP = await add(`/projects/${p.id}`, 'p');
    const onQ = await add(`/projects/${q.id}`, 'q');
    // Each read twice: the second one from what the first left remembered.
    const seen = async (): Promise<Record<string, unknown>> => {
      const out: Record<string, unknown> = {};
      for (const [name, id] of Object.entries({ onA, onSub, onB, onP, onQ })) {
        const first = await s.get(`/projects/${p.id}/badges/${id}`);
        const again = await s.get(`/projects/${p.id}/badges/${id}`);
        expect(again.text).toBe(first.text);
        out[name] = first.status === 200 ? [first.body.kind, first.body.rendered_link_url] : [first.status, first.body];
      }
      const list = await s.get(`/projects/${p.id}/badges`);
      out.list = list.body.map((x: any) => x.id);
      out.total = list.headers.get('x-total');
      return out;
    };
    const notFound = [404, { message: '404 Not found' }];
    expect(await seen()).toEqual({
      onA: ['group', 'http://x.example/scope-a/scope-a-sub/scoped'],
      onSub: ['group', 'http://x.example/scope-a/scope-a-sub/scoped'],
      onB: notFound,
      onP: ['project', 'http://x.example/scope-a/scope-a-sub/scoped'],
      onQ: notFound,
      list: [onA, onSub, onP],
      total: '3',
    });
    expect((await s.put(`/projects/${p.id}/transfer`, { namespace: b.id })).status).toBe(200);
    expect(await seen()).toEqual({
      onA: notFound,
      onSub: notFound,
      onB: ['group', 'http://x.example/scope-b/scoped'],
      onP: ['project', 'http://x.example/scope-b/scoped'],
      onQ: notFound,
      list: [onB, onP],
      total: '2',
    });
    // A group's badge is its own: the project's badge is not found through the group.
    expect((await s.get(`/groups/${b.id}/badges/${onP}`)).status).toBe(404);
    expect((await s.get(`/groups/${b.id}/badges/${onB}`)).body.kind).toBe('group');
  });

  it('render for the group’s newest project', async () => {
    const g = await s.createGroup({ path: 'rg' });
    await s.createProject({ name: 'first', namespace_id: g.id });
    await s.createProject({ name: 'second', namespace_id: g.id });
    const res = await s.get(`/groups/${g.id}/badges/render`, { query: { link_url: 'http://x.example/%{project_name}', image_url: 'http://x.example' } });
    expect(res.body.rendered_link_url).toBe('http://x.example/second');
  });
});
