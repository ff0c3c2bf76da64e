import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

/**
 * The hot path remembers what it read (tokens, users, projects, memberships, records, counts)
 * until the next write. Every change below must show on the very next request, after the same
 * request was answered (and so remembered) twice before it.
 */
let s: TestService;
let now = new Date('2030-06-15T12:00:00Z');
beforeAll(async () => {
  s = await TestService.start({ clock: () => now });
});
afterAll(async () => s.stop());

const twice = async (path: string, token?: string | null): Promise<number> => {
  const first = await s.get(path, { token });
  const second = await s.get(path, { token });
  expect(second.text).toBe(first.text);
  return second.status;
};


/** A private project with a badge and an issue, and a Developer member with a token. */
async function privateProject(): Promise<{ id: number; badge: string; issue: string; user: any; token: string; memberPath: string }> {
  const p = await s.createProject({ visibility: 'private' });
  const badge = (await s.post(`/projects/${p.id}/badges`, { link_url: 'https://example.com/%{project_path}', image_url: 'https://example.com/b.svg' })).body;
  const issue = (await s.post(`/projects/${p.id}/issues`, { title: 'Cached' })).body;
  const { user, token } = await s.createUser();
  await s.addMember('projects', p.id, user.id, 30);
  return {
    id: p.id,
    badge: `/projects/${p.id}/badges/${badge.id}`,
    issue: `/projects/${p.id}/issues/${issue.iid}`,
    user,
    token,
    memberPath: `/projects/${p.id}/members/${user.id}`,
  };
}

describe('what the hot path remembers gives way on the next request', () => {
  it('a revoked token', async () => {
    const p = await privateProject();
    expect(await twice(p.badge, p.token)).toBe(200);
    const [row] = (await s.get('/personal_access_tokens', { query: { user_id: p.user.id } })).body;
    expect((await s.del(`/personal_access_tokens/${row.id}`)).status).toBe(204);
    expect((await s.get(p.badge, { token: p.token })).status).toBe(401);
  });

  it("a token's owner blocked, then deleted", async () => {
    const { user, token } = await s.createUser();
    expect(await twice('/version', token)).toBe(200);
    expect((await s.post(`/users/${user.id}/block`)).status).toBe(201);
    const blocked = await s.get('/version', { token });
    expect([blocked.status, blocked.body.message]).toEqual([403, '403 Forbidden - Your account has been blocked.']);
    expect((await s.post(`/users/${user.id}/unblock`)).status).toBe(201);
    expect(await twice('/version', token)).toBe(200);
    expect((await s.del(`/users/${user.id}`, { query: { hard_delete: true } })).status).toBe(204);
    expect((await s.get('/version', { token })).status).toBe(401);
  });

  it('a token that expired, with nothing written in between', async () => {
    const { user } = await s.createUser();
    const token = (await s.post(`/users/${user.id}/personal_access_tokens`, { name: 'short', scopes: ['api'], expires_at: '2030-06-16' })).body.token;
    expect(await twice('/version', token)).toBe(200);
    now = new Date('2030-06-16T00:00:01Z');
    const res = await s.get('/version', { token });
    now = new Date('2030-06-15T12:00:00Z');
    expect(res.status).toBe(401);
    expect(res.body.error_description).toBe('Token is expired. You can either do re-authorization or token refresh.');
  });

  it('a member removed', async () => {
    const p = await privateProject();
    expect(await twice(p.badge, p.token)).toBe(200);
    expect(await twice(p.issue, p.token)).toBe(200);
    expect((await s.del(p.memberPath)).status).toBe(204);
    expect((await s.get(p.badge, { token: p.token })).status).toBe(404);
    expect((await s.get(p.issue, { token: p.token })).status).toBe(404);
  });

  it('a membership that expired, with nothing written in between', async () => {
    const p = await privateProject();
    expect((await s.put(p.memberPath, { access_level: 30, expires_at: '2030-06-16' })).status).toBe(200);
    expect(await twice(p.issue, p.token)).toBe(200);
    now = new Date('2030-06-17T00:00:01Z');
    const res = await s.get(p.issue, { token: p.token });
    now = new Date('2030-06-15T12:00:00Z');
    expect(res.status).toBe(404);
  });

  it('a project made private', async () => {
    const p = await s.createProject({ visibility: 'public' });
    const badge = (await s.post(`/projects/${p.id}/badges`, { link_url: 'https://example.com/a', image_url: 'https://example.com/b' })).body;
    expect(await twice(`/projects/${p.id}/badges/${badge.id}`, null)).toBe(200);
    expect(await twice(`/projects/${p.id}`, null)).toBe(200);
    expect((await s.put(`/projects/${p.id}`, { visibility: 'private' })).status).toBe(200);
    expect((await s.get(`/projects/${p.id}/badges/${badge.id}`, { token: null })).status).toBe(404);
    expect((await s.get(`/projects/${p.id}`, { token: null })).status).toBe(404);
  });

  it('a badge changed', async () => {
    const p = await privateProject();
    await twice(p.badge);
    expect((await s.put(p.badge, { link_url: 'https://example.com/changed/%{project_id}' })).status).toBe(200);
    expect((await s.get(p.badge)).body.rendered_link_url).toBe(`https://example.com/changed/${p.id}`);
  });

  it("a badge's project renamed, and the host a client reached us at", async () => {
    const p = await s.createProject({ path: 'before-rename' });
    const path = `/projects/${p.id}/badges/${(await s.post(`/projects/${p.id}/badges`, { link_url: 'https://%{gitlab_server}/%{project_path}', image_url: 'https://example.com/b.svg' })).body.id}`;
    await twice(path);
    expect((await s.get(path)).body.rendered_link_url).toBe('https://127.0.0.1/root/before-rename');
    expect((await s.getWithHost(path, 'sandlab.example:8443')).body.rendered_link_url).toBe('https://sandlab.example/root/before-rename');
    expect((await s.put(`/projects/${p.id}`, { path: 'after-rename' })).status).toBe(200);
    expect((await s.get(path)).body.rendered_link_url).toBe('https://127.0.0.1/root/after-rename');
    expect((await s.getWithHost(path, 'other.example')).body.rendered_link_url).toBe('https://other.example/root/after-rename');
  });

  it("an issue's notes, votes and subscription", async () => {
    const p = await privateProject();
    await twice(p.issue, p.token);
    await s.post(`${p.issue}/notes`, { body: 'A comment' });
    await s.post(`${p.issue}/award_emoji`, { name: 'thumbsup' });
    await s.post(`${p.issue}/subscribe`, undefined, { token: p.token });
    expect((await s.get(p.issue, { token: p.token })).body).toMatchObject({ user_notes_count: 1, upvotes: 1, subscribed: true });
  });

  it("an issue's milestone that passed its due date, with nothing written in between", async () => {
    const p = await privateProject();
    const m = (await s.post(`/projects/${p.id}/milestones`, { title: 'Soon', due_date: '2030-06-16' })).body;
    expect((await s.put(p.issue, { milestone_id: m.id })).status).toBe(200);
    await twice(p.issue);
    expect((await s.get(p.issue)).body.milestone.expired).toBe(false);
    now = new Date('2030-06-17T00:00:01Z');
    const res = await s.get(p.issue);
    const list = await s.get(`/projects/${p.id}/issues`);
    now = new Date('2030-06-15T12:00:00Z');
    expect(res.body.milestone.expired).toBe(true);
    expect(list.body[0].milestone.expired).toBe(true);
  });

  it("a project's first commit", async () => {
    const p = await s.createProject();
    await twice(`/projects/${p.id}`);
    expect((await s.get(`/projects/${p.id}`)).body.empty_repo).toBe(true);
    const commit = await s.post(`/projects/${p.id}/repository/commits`, {
      branch: 'main',
      commit_message: 'First',
      actions: [{ action: 'create', file_path: 'README.md', content: 'Hello' }],
    });
    expect(commit.status).toBe(201);
    expect((await s.get(`/projects/${p.id}`)).body).toMatchObject({ empty_repo: false, readme_url: expect.stringContaining('/-/blob/main/README.md') });
  });

  it('the answer bytes kept with a project, an issue and a list of issues', async () => {
    const p = await privateProject();
    await s.post(`/projects/${p.id}/issues`, { title: 'Second' });
    const list = `/projects/${p.id}/issues`;
    for (const path of [`/projects/${p.id}`, p.issue, list]) await twice(path);
    // A list of remembered entities is joined from their bytes: the same text JSON makes of it.
    const listed = await s.get(list);
    expect(listed.body.map((i: any) => i.title)).toEqual(['Second', 'Cached']);
    expect(listed.text).toBe(JSON.stringify(listed.body));
    expect((await s.put(`/projects/${p.id}`, { description: 'Changed' })).status).toBe(200);
    expect((await s.get(`/projects/${p.id}`)).body.description).toBe('Changed');
    expect((await s.put(p.issue, { title: 'Renamed' })).status).toBe(200);
    expect((await s.get(p.issue)).body.title).toBe('Renamed');
    expect((await s.get(list)).body.map((i: any) => i.title)).toEqual(['Second', 'Renamed']);
  });

  it('an application setting', async () => {
    const p = await s.createProject();
    expect((await s.get(`/projects/${p.id}`)).body.auto_devops_enabled).toBe(true);
    await twice(`/projects/${p.id}`);
    expect((await s.put('/application/settings', { auto_devops_enabled: false })).status).toBe(200);
    expect((await s.get(`/projects/${p.id}`)).body.auto_devops_enabled).toBe(false);
    await s.put('/application/settings', { auto_devops_enabled: true });
  });
});
