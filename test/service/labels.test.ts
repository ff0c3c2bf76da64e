import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s?.stop());

describe('group labels', () => {
  it('creates a label with the GitLab shape', async () => {
    const g = await s.createGroup();
    const res = await s.post(`/groups/${g.id}/labels`, { name: 'bug', color: '#FF0000', description: 'Broken' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      name: 'bug',
      color: '#FF0000',
      text_color: '#FFFFFF',
      description: 'Broken',
      description_html: '<p data-sourcepos="1:1-1:6" dir="auto">Broken</p>',
      subscribed: false,
      open_issues_count: 0,
      closed_issues_count: 0,
      open_merge_requests_count: 0,
    });
    expect(typeof res.body.id).toBe('number');
    expect(res.body.is_project_label).toBeUndefined();
  });

  it('accepts #RGB and CSS color names, and derives text_color from the color', async () => {
    const g = await s.createGroup();
    const short = await s.post(`/groups/${g.id}/labels`, { name: 'short', color: '#eee' });
    expect(short.body).toMatchObject({ color: '#eee', text_color: '#333333' });
    const named = await s.post(`/groups/${g.id}/labels`, { name: 'named', color: 'navy' });
    expect(named.body).toMatchObject({ color: '#000080', text_color: '#FFFFFF' });
    const light = await s.post(`/groups/${g.id}/labels`, { name: 'light', color: 'white' });
    expect(light.body.text_color).toBe('#333333');
  });

  it('validates name and color', async () => {
    const g = await s.createGroup();
    const path = `/groups/${g.id}/labels`;
    expect((await s.post(path, {})).body).toEqual({ error: 'name is missing, color is missing' });
    expect((await s.post(path, { name: 'x', color: 'nocolor' })).body).toEqual({ message: { color: ['must be a valid color code'] } });
    expect((await s.post(path, { name: 'x', color: '#12345' })).status).toBe(400);
    expect((await s.post(path, { name: ' ', color: '#123456' })).body).toEqual({ message: { title: ["can't be blank", 'is invalid'] } });
    expect((await s.post(path, { name: 'a,b', color: '#123456' })).body).toEqual({ message: { title: ['is invalid'] } });
  });

  it('answers 409 when the name exists in the group or an ancestor', async () => {
    const g = await s.createGroup();
    const sub = await s.createGroup({ parent_id: g.id });
    await s.post(`/groups/${g.id}/labels`, { name: 'dup', color: '#123456' });
    const again = await s.post(`/groups/${g.id}/labels`, { name: 'dup', color: '#123456' });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ message: 'Label already exists' });
    expect((await s.post(`/groups/${sub.id}/labels`, { name: 'dup', color: '#123456' })).status).toBe(409);
  });

  it('lists with ancestors by default, descendants on request, and search', async () => {
    const g = await s.createGroup();
    const sub = await s.createGroup({ parent_id: g.id });
    const subsub = await s.createGroup({ parent_id: sub.id });
    await s.post(`/groups/${g.id}/labels`, { name: 'top', color: '#123456' });
    await s.post(`/groups/${sub.id}/labels`, { name: 'middle', color: '#123456', description: 'findme' });
    await s.post(`/groups/${subsub.id}/labels`, { name: 'bottom', color: '#123456' });
    const names = async (id: number, query: Record<string, string> = {}) => (await s.get(`/groups/${id}/labels`, { query })).body.map((l: any) => l.name);
    expect(await names(sub.id)).toEqual(['middle', 'top']);
    expect(await names(sub.id, { include_ancestor_groups: 'false' })).toEqual(['middle']);
    expect(await names(sub.id, { include_descendant_groups: 'true' })).toEqual(['bottom', 'middle', 'top']);
    expect(await names(sub.id, { search: 'findme' })).toEqual(['middle']);
    const list = await s.get(`/groups/${sub.id}/labels`);
    expect(list.body[0].open_issues_count).toBeUndefined();
    expect(list.headers.get('x-total')).toBe('2');
    const counted = await s.get(`/groups/${sub.id}/labels`, { query: { with_counts: 'true' } });
    expect(counted.body[0].open_issues_count).toBe(0);
  });

  it('includes project labels when only_group_labels is false', async () => {
    const g = await s.createGroup();
    const p = await s.createProject({ namespace_id: g.id });
    await s.post(`/projects/${p.id}/labels`, { name: 'projlabel', color: '#123456' });
    await s.post(`/groups/${g.id}/labels`, { name: 'grouplabel', color: '#123456' });
    const names = async (query: Record<string, string> = {}) => (await s.get(`/groups/${g.id}/labels`, { query })).body.map((l: any) => l.name);
    expect(await names()).toEqual(['grouplabel']);
    expect(await names({ only_group_labels: 'false' })).toEqual(['grouplabel', 'projlabel']);
  });

  it('counts the issues and merge requests that carry the label', async () => {
    const g = await s.createGroup();
    const p = await s.createProject({ namespace_id: g.id });
    const l = (await s.post(`/groups/${g.id}/labels`, { name: 'counted', color: '#123456' })).body;
    await s.post(`/projects/${p.id}/issues`, { title: 'a', labels: 'counted' });
    await s.post(`/projects/${p.id}/issues`, { title: 'b', labels: 'counted,other' });
    const closed = (await s.post(`/projects/${p.id}/issues`, { title: 'c', labels: 'counted' })).body;
    await s.put(`/projects/${p.id}/issues/${closed.iid}`, { state_event: 'close' });
    await s.post(`/projects/${p.id}/issues`, { title: 'd', labels: 'other' });
    const mr = await s.post(`/projects/${p.id}/merge_requests`, { title: 'mr', source_branch: 'feature', target_branch: 'main', labels: 'counted' });
    expect(mr.status).toBe(201);
    const got = await s.get(`/groups/${g.id}/labels/${l.id}`);
    expect(got.body).toMatchObject({ open_issues_count: 2, closed_issues_count: 1, open_merge_requests_count: 1 });
    const listed = await s.get(`/groups/${g.id}/labels`, { query: { with_counts: 'true' } });
    expect(listed.body.find((x: any) => x.id === l.id)).toMatchObject({ open_issues_count: 2, closed_issues_count: 1, open_merge_requests_count: 1 });
    const { token } = await s.createUser();
    const anon = await s.get(`/groups/${g.id}/labels/${l.id}`, { token });
    expect(anon.status).toBe(404);
  });

  it('gets by id or URL-encoded name, 404 otherwise', async () => {
    const g = await s.createGroup();
    const l = (await s.post(`/groups/${g.id}/labels`, { name: 'Label:that requires:encoding', color: '#123456' })).body;
    expect((await s.get(`/groups/${g.id}/labels/${l.id}`)).body.name).toBe(l.name);
    expect((await s.get(`/groups/${g.id}/labels/${encodeURIComponent(l.name)}`)).body.id).toBe(l.id);
    expect((await s.get(`/groups/${g.id}/labels/nope`)).body).toEqual({ message: '404 Label Not Found' });
    const slashed = (await s.post(`/groups/${g.id}/labels`, { name: 'area/api', color: '#123456' })).body;
    expect((await s.get(`/groups/${g.id}/labels/${encodeURIComponent('area/api')}`)).body.id).toBe(slashed.id);
    const numeric = (await s.post(`/groups/${g.id}/labels`, { name: '2024', color: '#123456' })).body;
    expect((await s.get(`/groups/${g.id}/labels/2024`)).body.id).toBe(numeric.id);
  });

  it('updates by id or name, renaming the label on its issues', async () => {
    const g = await s.createGroup();
    const p = await s.createProject({ namespace_id: g.id });
    const l = (await s.post(`/groups/${g.id}/labels`, { name: 'old', color: '#123456' })).body;
    const issue = (await s.post(`/projects/${p.id}/issues`, { title: 'x', labels: 'old,keep' })).body;
    const none = await s.put(`/groups/${g.id}/labels/${l.id}`, {});
    expect(none.body).toEqual({ error: 'new_name, color, description are missing, at least one parameter must be provided' });
    const res = await s.put(`/groups/${g.id}/labels/${l.id}`, { new_name: 'new', color: 'red', description: 'd' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: l.id, name: 'new', color: '#FF0000', description: 'd' });
    expect((await s.get(`/projects/${p.id}/issues/${issue.iid}`)).body.labels).toEqual(['keep', 'new']);
    const byName = await s.put(`/groups/${g.id}/labels/new`, { description: 'by name' });
    expect(byName.body.description).toBe('by name');
    await s.post(`/groups/${g.id}/labels`, { name: 'taken', color: '#123456' });
    expect((await s.put(`/groups/${g.id}/labels/new`, { new_name: 'taken' })).body).toEqual({ message: { title: ['has already been taken'] } });
    expect((await s.put(`/groups/${g.id}/labels/new`, { color: 'bad' })).body).toEqual({ message: { color: ['must be a valid color code'] } });
  });

  it('supports the deprecated PUT and DELETE with the name in the body', async () => {
    const g = await s.createGroup();
    await s.post(`/groups/${g.id}/labels`, { name: 'dep', color: '#123456' });
    expect((await s.put(`/groups/${g.id}/labels`, { description: 'x' })).body).toEqual({ error: 'name is missing' });
    const res = await s.put(`/groups/${g.id}/labels`, { name: 'dep', new_name: 'dep2' });
    expect(res.status).toBe(200);
    expect(res.body.name).toBe('dep2');
    expect((await s.del(`/groups/${g.id}/labels`, { query: { name: 'dep2' } })).status).toBe(204);
    expect((await s.get(`/groups/${g.id}/labels/dep2`)).status).toBe(404);
  });

  it('deletes a label and removes it from issues', async () => {
    const g = await s.createGroup();
    const p = await s.createProject({ namespace_id: g.id });
    const l = (await s.post(`/groups/${g.id}/labels`, { name: 'gone', color: '#123456' })).body;
    const issue = (await s.post(`/projects/${p.id}/issues`, { title: 'x', labels: 'gone,stay' })).body;
    expect((await s.del(`/groups/${g.id}/labels/${l.id}`)).status).toBe(204);
    expect((await s.get(`/projects/${p.id}/issues/${issue.iid}`)).body.labels).toEqual(['stay']);
    expect((await s.del(`/groups/${g.id}/labels/${l.id}`)).status).toBe(404);
  });

  it('subscribes and unsubscribes per user, 304 when unchanged', async () => {
    const g = await s.createGroup({ visibility: 'public' });
    const l = (await s.post(`/groups/${g.id}/labels`, { name: 'sub', color: '#123456' })).body;
    const { token } = await s.createUser();
    const sub = await s.post(`/groups/${g.id}/labels/${l.id}/subscribe`, {}, { token });
    expect(sub.status).toBe(201);
    expect(sub.body.subscribed).toBe(true);
    const again = await s.post(`/groups/${g.id}/labels/sub/subscribe`, {}, { token });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect((await s.get(`/groups/${g.id}/labels/${l.id}`, { token })).body.subscribed).toBe(true);
    expect((await s.get(`/groups/${g.id}/labels/${l.id}`)).body.subscribed).toBe(false);
    const unsub = await s.post(`/groups/${g.id}/labels/${l.id}/unsubscribe`, {}, { token });
    expect(unsub.status).toBe(201);
    expect(unsub.body.subscribed).toBe(false);
    expect((await s.post(`/groups/${g.id}/labels/${l.id}/unsubscribe`, {}, { token })).status).toBe(304);
  });

  it('needs Planner or more to write', async () => {
    const g = await s.createGroup();
    const { user, token } = await s.createUser();
    await s.addMember('groups', g.id, user.id, 10);
    expect((await s.get(`/groups/${g.id}/labels`, { token })).status).toBe(200);
    expect((await s.post(`/groups/${g.id}/labels`, { name: 'x', color: '#123456' }, { token })).status).toBe(403);
    const reporter = await s.createUser();
    await s.addMember('groups', g.id, reporter.user.id, 20);
    expect((await s.post(`/groups/${g.id}/labels`, { name: 'x', color: '#123456' }, { token: reporter.token })).status).toBe(201);
  });
});

describe('project labels', () => {
  it('lists project labels with the group ones, flagged and prioritized', async () => {
    const g = await s.createGroup();
    const p = await s.createProject({ namespace_id: g.id });
    await s.post(`/groups/${g.id}/labels`, { name: 'from-group', color: '#123456' });
    const own = await s.post(`/projects/${p.id}/labels`, { name: 'own', color: '#778899', priority: 2 });
    expect(own.status).toBe(201);
    expect(own.body).toMatchObject({ name: 'own', priority: 2, is_project_label: true });
    const list = (await s.get(`/projects/${p.id}/labels`)).body;
    expect(list.map((l: any) => [l.name, l.is_project_label])).toEqual([
      ['from-group', false],
      ['own', true],
    ]);
    expect((await s.put(`/projects/${p.id}/labels/own`, {})).body).toEqual({
      error: 'new_name, color, description, priority are missing, at least one parameter must be provided',
    });
    expect((await s.put(`/projects/${p.id}/labels/from-group`, { description: 'x' })).status).toBe(404);
  });

  it('promotes a project label to the group', async () => {
    const g = await s.createGroup();
    const p = await s.createProject({ namespace_id: g.id });
    await s.post(`/projects/${p.id}/labels`, { name: 'promoteme', color: '#123456' });
    const res = await s.put(`/projects/${p.id}/labels/promoteme/promote`);
    expect(res.status).toBe(200);
    expect((await s.get(`/groups/${g.id}/labels`)).body.map((l: any) => l.name)).toEqual(['promoteme']);
    expect((await s.del(`/groups/${g.id}/labels/promoteme`)).status).toBe(204);
  });
});
