import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s?.stop());

describe('epics: create and read', () => {
  it('creates an epic with every field of the reference', async () => {
    const g = await s.createGroup();
    const res = await s.post(`/groups/${g.id}/epics`, { title: 'Epic', description: 'Desc', labels: 'b,a' });
    expect(res.status).toBe(201);
    const e = res.body;
    expect(e).toMatchObject({
      iid: 1,
      group_id: g.id,
      parent_id: null,
      parent_iid: null,
      title: 'Epic',
      description: 'Desc',
      state: 'opened',
      confidential: false,
      color: '#1068bf',
      text_color: '#FFFFFF',
      labels: ['a', 'b'],
      upvotes: 0,
      downvotes: 0,
      start_date: null,
      end_date: null,
      due_date: null,
      closed_at: null,
      reference: '&1',
      references: { short: '&1', relative: '&1', full: `${g.full_path}&1` },
      start_date_is_fixed: false,
      start_date_fixed: null,
      start_date_from_milestones: null,
      start_date_from_inherited_source: null,
      due_date_is_fixed: false,
      due_date_fixed: null,
      due_date_from_milestones: null,
      due_date_from_inherited_source: null,
      imported: false,
      imported_from: 'none',
    });
    expect(e.web_url).toBe(`${s.url}/groups/${g.full_path}/-/epics/1`);
    expect(e.author.username).toBe('root');
    expect(e._links).toEqual({
      self: `${s.url}/api/v4/groups/${g.id}/epics/1`,
      epic_issues: `${s.url}/api/v4/groups/${g.id}/epics/1/issues`,
      group: `${s.url}/api/v4/groups/${g.id}`,
      parent: null,
    });
    // Missing labels are created in the group.
    expect((await s.get(`/groups/${g.id}/labels`)).body.map((l: any) => l.name)).toEqual(['a', 'b']);
    const got = await s.get(`/groups/${g.id}/epics/1`);
    expect(got.body.subscribed).toBe(true);
    expect((await s.get(`/groups/${g.id}/-/epics/1`)).body.id).toBe(e.id);
  });

  it('hides the fixed and inherited date fields from users who cannot edit', async () => {
    const g = await s.createGroup();
    await s.post(`/groups/${g.id}/epics`, { title: 'x' });
    const { user, token } = await s.createUser();
    await s.addMember('groups', g.id, user.id, 10);
    const got = await s.get(`/groups/${g.id}/epics/1`, { token });
    expect(got.status).toBe(200);
    expect(got.body.start_date_is_fixed).toBeUndefined();
    expect(got.body.due_date_fixed).toBeUndefined();
    expect(got.body.start_date).toBeNull();
    expect(got.body.subscribed).toBe(false);
  });

  it('validates title and description', async () => {
    const g = await s.createGroup();
    expect((await s.post(`/groups/${g.id}/epics`, {})).body).toEqual({ error: 'title is missing' });
    const long = await s.post(`/groups/${g.id}/epics`, { title: 'x', description: 'a'.repeat(1_048_577) });
    expect(long.status).toBe(400);
    expect(long.body).toEqual({ message: { description: ['is too long (maximum is 1048576 characters)'] } });
    expect((await s.post(`/groups/${g.id}/epics`, { title: 'x', description: 'a'.repeat(1_048_576) })).status).toBe(201);
    expect((await s.put(`/groups/${g.id}/epics/1`, { description: 'a'.repeat(1_048_577) })).status).toBe(400);
  });

  it('answers 403 for an unknown iid, 404 for an invisible group, 403 for guests creating', async () => {
    const g = await s.createGroup();
    expect((await s.get(`/groups/${g.id}/epics/99`)).body).toEqual({ message: '403 Forbidden' });
    expect((await s.get(`/groups/${g.id}/epics/abc`)).body).toEqual({ error: 'epic_iid is invalid' });
    const { user, token } = await s.createUser();
    expect((await s.get(`/groups/${g.id}/epics`, { token })).body).toEqual({ message: '404 Group Not Found' });
    await s.addMember('groups', g.id, user.id, 10);
    expect((await s.post(`/groups/${g.id}/epics`, { title: 'x' }, { token })).status).toBe(403);
  });

  it('lets only admins and owners set created_at', async () => {
    const g = await s.createGroup();
    const res = await s.post(`/groups/${g.id}/epics`, { title: 'old', created_at: '2020-01-02T03:04:05Z' });
    expect(res.body.created_at).toBe('2020-01-02T03:04:05.000Z');
    const { user, token } = await s.createUser();
    await s.addMember('groups', g.id, user.id, 30);
    const dev = await s.post(`/groups/${g.id}/epics`, { title: 'new', created_at: '2020-01-02T03:04:05Z' }, { token });
    expect(dev.status).toBe(201);
    expect(dev.body.created_at).not.toBe('2020-01-02T03:04:05.000Z');
  });

  it('keeps confidential epics from guests', async () => {
    const g = await s.createGroup();
    await s.post(`/groups/${g.id}/epics`, { title: 'secret', confidential: true });
    await s.post(`/groups/${g.id}/epics`, { title: 'open' });
    const { user, token } = await s.createUser();
    await s.addMember('groups', g.id, user.id, 10);
    expect((await s.get(`/groups/${g.id}/epics`, { token })).body.map((e: any) => e.title)).toEqual(['open']);
    expect((await s.get(`/groups/${g.id}/epics/1`, { token })).status).toBe(403);
    expect((await s.get(`/groups/${g.id}/epics`)).body.length).toBe(2);
  });
});

describe('epics: list filters', () => {
  let g: any;
  let sub: any;
  let other: { user: any; token: string };
  beforeAll(async () => {
    g = await s.createGroup();
    sub = await s.createGroup({ parent_id: g.id });
    other = await s.createUser();
    await s.addMember('groups', g.id, other.user.id, 30);
    await s.post(`/groups/${g.id}/epics`, { title: 'Alpha', description: 'first words', labels: 'red' });
    await new Promise((r) => setTimeout(r, 10));
    await s.post(`/groups/${g.id}/epics`, { title: 'Beta', labels: 'red,blue' }, { token: other.token });
    await new Promise((r) => setTimeout(r, 10));
    await s.post(`/groups/${sub.id}/epics`, { title: 'Gamma' });
    await s.put(`/groups/${g.id}/epics/2`, { state_event: 'close' });
  });
  const titles = async (query: Record<string, any>, id = g.id, token?: string) =>
    (await s.get(`/groups/${id}/epics`, { query, token })).body.map((e: any) => e.title);

  it('lists the group and its subgroups, newest first', async () => {
    expect(await titles({})).toEqual(['Gamma', 'Beta', 'Alpha']);
    expect(await titles({ include_descendant_groups: false })).toEqual(['Beta', 'Alpha']);
    expect(await titles({}, sub.id)).toEqual(['Gamma']);
    expect(await titles({ include_ancestor_groups: true }, sub.id)).toEqual(['Gamma', 'Beta', 'Alpha']);
  });

  it('filters by author, labels, state and search', async () => {
    expect(await titles({ author_id: other.user.id })).toEqual(['Beta']);
    expect(await titles({ author_username: other.user.username })).toEqual(['Beta']);
    expect((await s.get(`/groups/${g.id}/epics`, { query: { author_id: 1, author_username: 'root' } })).body).toEqual({
      error: 'author_id, author_username are mutually exclusive',
    });
    expect(await titles({ labels: 'red' })).toEqual(['Beta', 'Alpha']);
    expect(await titles({ labels: 'red,blue' })).toEqual(['Beta']);
    expect(await titles({ labels: 'None' })).toEqual(['Gamma']);
    expect(await titles({ labels: 'Any' })).toEqual(['Beta', 'Alpha']);
    expect(await titles({ state: 'opened' })).toEqual(['Gamma', 'Alpha']);
    expect(await titles({ state: 'closed' })).toEqual(['Beta']);
    expect(await titles({ search: 'words' })).toEqual(['Alpha']);
    expect(await titles({ search: 'gam' })).toEqual(['Gamma']);
  });

  it('filters with not[...]', async () => {
    expect(await titles({ 'not[author_id]': other.user.id })).toEqual(['Gamma', 'Alpha']);
    expect(await titles({ 'not[author_username]': 'root' })).toEqual(['Beta']);
    expect(await titles({ 'not[labels]': 'blue' })).toEqual(['Gamma', 'Alpha']);
  });

  it('orders and sorts', async () => {
    expect(await titles({ order_by: 'title', sort: 'asc' })).toEqual(['Alpha', 'Beta', 'Gamma']);
    expect(await titles({ order_by: 'updated_at' })).toEqual(['Beta', 'Gamma', 'Alpha']);
    expect(await titles({ sort: 'asc' })).toEqual(['Alpha', 'Beta', 'Gamma']);
    expect((await s.get(`/groups/${g.id}/epics`, { query: { order_by: 'id' } })).body).toEqual({ error: 'order_by does not have a valid value' });
  });

  it('filters by date bounds', async () => {
    const all = (await s.get(`/groups/${g.id}/epics`, { query: { sort: 'asc' } })).body;
    const [alpha, beta, gamma] = all;
    expect(await titles({ created_after: beta.created_at, sort: 'asc' })).toEqual(['Beta', 'Gamma']);
    expect(await titles({ created_before: alpha.created_at })).toEqual(['Alpha']);
    expect(await titles({ updated_after: beta.updated_at })).toEqual(['Beta']);
    expect(await titles({ updated_before: gamma.updated_at, sort: 'asc' })).toEqual(['Alpha', 'Gamma']);
  });

  it('filters by my_reaction_emoji', async () => {
    const up = await s.post(`/groups/${g.id}/epics/1/award_emoji`, { name: 'thumbsup' });
    expect(up.status).toBe(201);
    expect(await titles({ my_reaction_emoji: 'Any' })).toEqual(['Alpha']);
    expect(await titles({ my_reaction_emoji: 'thumbsup' })).toEqual(['Alpha']);
    expect(await titles({ my_reaction_emoji: 'None' })).toEqual(['Gamma', 'Beta']);
    expect(await titles({ my_reaction_emoji: 'Any' }, g.id, other.token)).toEqual([]);
    expect((await s.get(`/groups/${g.id}/epics/1`)).body.upvotes).toBe(1);
  });

  it('shows label details on request', async () => {
    const res = await s.get(`/groups/${g.id}/epics`, { query: { with_labels_details: true, labels: 'blue' } });
    expect(res.body[0].labels.map((l: any) => l.name)).toEqual(['blue', 'red']);
    expect(res.body[0].labels[0]).toMatchObject({ color: '#6699cc', text_color: '#FFFFFF', description: null });
  });

  it('pages by 20 by default', async () => {
    const g2 = await s.createGroup();
    for (let i = 0; i < 21; i++) await s.post(`/groups/${g2.id}/epics`, { title: `e${i}` });
    const res = await s.get(`/groups/${g2.id}/epics`);
    expect(res.body.length).toBe(20);
    expect(res.headers.get('x-per-page')).toBe('20');
    expect(res.headers.get('x-total')).toBe('21');
  });

  it('writes references relative to the requesting group', async () => {
    const res = await s.get(`/groups/${g.id}/epics`, { query: { search: 'Gamma' } });
    expect(res.body[0].references).toEqual({ short: '&1', relative: `${sub.full_path}&1`, full: `${sub.full_path}&1` });
  });
});

describe('epics: update, delete, to-do, notes', () => {
  it('adds, removes and clears labels', async () => {
    const g = await s.createGroup();
    await s.post(`/groups/${g.id}/epics`, { title: 'l', labels: 'a,b' });
    expect((await s.put(`/groups/${g.id}/epics/1`, { add_labels: 'c', remove_labels: 'a' })).body.labels).toEqual(['b', 'c']);
    expect((await s.put(`/groups/${g.id}/epics/1`, { labels: ['x', 'y'] })).body.labels).toEqual(['x', 'y']);
    expect((await s.put(`/groups/${g.id}/epics/1`, { labels: '' })).body.labels).toEqual([]);
    expect((await s.put(`/groups/${g.id}/epics/1`, {})).body.error).toMatch(/at least one parameter must be provided$/);
  });

  it('closes and reopens, setting and clearing closed_at', async () => {
    const g = await s.createGroup();
    await s.post(`/groups/${g.id}/epics`, { title: 's' });
    const closed = await s.put(`/groups/${g.id}/epics/1`, { state_event: 'close' });
    expect(closed.body.state).toBe('closed');
    expect(closed.body.closed_at).not.toBeNull();
    const reopened = await s.put(`/groups/${g.id}/epics/1`, { state_event: 'reopen' });
    expect(reopened.body.state).toBe('opened');
    expect(reopened.body.closed_at).toBeNull();
    expect((await s.put(`/groups/${g.id}/epics/1`, { state_event: 'bogus' })).body).toEqual({ error: 'state_event does not have a valid value' });
  });

  it('uses fixed dates only when flagged, and inherits from children otherwise (deprecated *_from_milestones included)', async () => {
    const g = await s.createGroup();
    const parent = (await s.post(`/groups/${g.id}/epics`, { title: 'p', start_date_fixed: '2030-01-01', due_date_fixed: '2030-12-31' })).body;
    expect(parent.start_date).toBeNull();
    expect(parent.start_date_fixed).toBe('2030-01-01');
    const fixed = await s.put(`/groups/${g.id}/epics/1`, { start_date_is_fixed: true, due_date_is_fixed: true });
    expect(fixed.body).toMatchObject({ start_date: '2030-01-01', due_date: '2030-12-31', end_date: '2030-12-31', start_date_is_fixed: true });
    expect(fixed.body).toMatchObject({ start_date_from_milestones: null, due_date_from_milestones: null });
    await s.put(`/groups/${g.id}/epics/1`, { start_date_is_fixed: false, due_date_is_fixed: false });
    await s.post(`/groups/${g.id}/epics`, { title: 'c', parent_id: parent.id, start_date: '2031-02-03', end_date: '2031-04-05' });
    const inherited = (await s.get(`/groups/${g.id}/epics/1`)).body;
    expect(inherited).toMatchObject({
      start_date: '2031-02-03',
      due_date: '2031-04-05',
      start_date_from_inherited_source: '2031-02-03',
      due_date_from_inherited_source: '2031-04-05',
      start_date_from_milestones: '2031-02-03',
      due_date_from_milestones: '2031-04-05',
    });
  });

  it('sets a parent across subgroups and refuses one below', async () => {
    const g = await s.createGroup();
    const sub = await s.createGroup({ parent_id: g.id });
    const top = (await s.post(`/groups/${g.id}/epics`, { title: 'top' })).body;
    const child = (await s.post(`/groups/${sub.id}/epics`, { title: 'child' })).body;
    const res = await s.put(`/groups/${sub.id}/epics/${child.iid}`, { parent_id: top.id });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ parent_id: top.id, parent_iid: top.iid });
    expect(res.body._links.parent).toBe(`${s.url}/api/v4/groups/${g.id}/epics/${top.iid}`);
    const wrong = await s.put(`/groups/${g.id}/epics/${top.iid}`, { parent_id: child.id });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message.parent).toBeDefined();
  });

  it('keeps children when the parent is deleted; only owners delete', async () => {
    const g = await s.createGroup();
    const parent = (await s.post(`/groups/${g.id}/epics`, { title: 'p' })).body;
    const child = (await s.post(`/groups/${g.id}/epics`, { title: 'c', parent_id: parent.id })).body;
    const { user, token } = await s.createUser();
    await s.addMember('groups', g.id, user.id, 40);
    expect((await s.del(`/groups/${g.id}/epics/${parent.iid}`, { token })).status).toBe(403);
    expect((await s.del(`/groups/${g.id}/epics/${parent.iid}`)).status).toBe(204);
    expect((await s.get(`/groups/${g.id}/epics/${parent.iid}`)).status).toBe(403);
    const kept = await s.get(`/groups/${g.id}/epics/${child.iid}`);
    expect(kept.status).toBe(200);
    expect(kept.body.parent_id).toBeNull();
  });

  it('creates a to-do once, then answers 304', async () => {
    const g = await s.createGroup();
    const e = (await s.post(`/groups/${g.id}/epics`, { title: 'todo me' })).body;
    const res = await s.post(`/groups/${g.id}/epics/${e.iid}/todo`);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ action_name: 'marked', target_type: 'Epic', state: 'pending', project: null, body: 'todo me' });
    expect(res.body.group.id).toBe(g.id);
    expect(res.body.target.id).toBe(e.id);
    expect((await s.post(`/groups/${g.id}/epics/${e.iid}/todo`)).status).toBe(304);
    expect((await s.post(`/groups/${g.id}/epics/99/todo`)).status).toBe(404);
  });

  it('lists and creates notes by the epic id', async () => {
    const g = await s.createGroup();
    const e = (await s.post(`/groups/${g.id}/epics`, { title: 'noted' })).body;
    expect((await s.get(`/groups/${g.id}/epics/${e.id}/notes`)).body).toEqual([]);
    const n = await s.post(`/groups/${g.id}/epics/${e.id}/notes`, { body: 'Test note' });
    expect(n.status).toBe(201);
    expect(n.body).toMatchObject({ body: 'Test note', noteable_type: 'Epic', noteable_id: e.id, noteable_iid: e.iid });
    expect((await s.get(`/groups/${g.id}/epics/${e.id}/notes`)).body.length).toBe(1);
    expect((await s.put(`/groups/${g.id}/epics/${e.id}/notes/${n.body.id}`, { body: 'edited' })).body.body).toBe('edited');
    expect((await s.del(`/groups/${g.id}/epics/${e.id}/notes/${n.body.id}`)).status).toBe(204);
  });

  it('renames and removes epic labels with the group label', async () => {
    const g = await s.createGroup();
    await s.post(`/groups/${g.id}/epics`, { title: 'x', labels: 'one,two' });
    await s.put(`/groups/${g.id}/labels/one`, { new_name: 'uno' });
    await s.del(`/groups/${g.id}/labels/two`);
    expect((await s.get(`/groups/${g.id}/epics/1`)).body.labels).toEqual(['uno']);
  });

  it('never reuses the iid or id of a deleted epic', async () => {
    const g = await s.createGroup();
    await s.post(`/groups/${g.id}/epics`, { title: 'one' });
    const second = (await s.post(`/groups/${g.id}/epics`, { title: 'two' })).body;
    expect((await s.del(`/groups/${g.id}/epics/${second.iid}`)).status).toBe(204);
    const third = (await s.post(`/groups/${g.id}/epics`, { title: 'three' })).body;
    expect(third.iid).toBe(second.iid + 1);
    expect(third.id).toBeGreaterThan(second.id);
    expect((await s.get(`/groups/${g.id}/epics/${second.iid}`)).status).toBe(403);
    // Each group counts its own iids, and a deleted group's count goes with it.
    const other = await s.createGroup();
    expect((await s.post(`/groups/${other.id}/epics`, { title: 'first' })).body.iid).toBe(1);
    const gone = await s.createGroup();
    await s.post(`/groups/${gone.id}/epics`, { title: 'a' });
    await s.post(`/groups/${gone.id}/epics`, { title: 'b' });
    expect((await s.del(`/groups/${gone.id}`)).status).toBeLessThan(300);
    const fresh = await s.createGroup();
    expect((await s.post(`/groups/${fresh.id}/epics`, { title: 'new' })).body.iid).toBe(1);
  });

  it('records resource label events for labels added and removed, by the epic id', async () => {
    const g = await s.createGroup();
    const e = (await s.post(`/groups/${g.id}/epics`, { title: 'x', labels: 'one' })).body;
    await s.put(`/groups/${g.id}/epics/${e.iid}`, { add_labels: 'two', remove_labels: 'one' });
    await s.put(`/groups/${g.id}/epics/${e.iid}`, { title: 'no label change' });
    const list = await s.get(`/groups/${g.id}/epics/${e.id}/resource_label_events`);
    expect(list.status).toBe(200);
    expect(list.headers.get('x-total')).toBe('3');
    expect(list.body.map((ev: any) => [ev.action, ev.label.name])).toEqual([
      ['add', 'one'],
      ['add', 'two'],
      ['remove', 'one'],
    ]);
    expect(list.body[0]).toMatchObject({ resource_type: 'Epic', resource_id: e.id, user: { username: 'root' } });
    expect(Object.keys(list.body[0].label).sort()).toEqual(['color', 'description', 'description_html', 'id', 'name', 'text_color']);
    const one = await s.get(`/groups/${g.id}/epics/${e.id}/resource_label_events/${list.body[1].id}`);
    expect(one.body).toEqual(list.body[1]);
    expect((await s.get(`/groups/${g.id}/epics/${e.id}/resource_label_events/999999`)).body).toEqual({ message: '404 Not found' });
    expect((await s.get(`/groups/${g.id}/epics/999999/resource_label_events`)).body).toEqual({ message: '404 Epic Not Found' });
    // A deleted label leaves its events with a null label.
    await s.del(`/groups/${g.id}/labels/one`);
    const after = await s.get(`/groups/${g.id}/epics/${e.id}/resource_label_events`);
    expect(after.body.map((ev: any) => ev.label?.name ?? null)).toEqual([null, 'two', null]);
  });

  it('lists a label event only to those who may read its label, counted all the same (visible_to_user? after paginate)', async () => {
    // An epic of a subgroup carries its private parent's label; the subgroup then leaves for the top level and opens up.
    const parent = await s.createGroup({ visibility: 'private' });
    const sub = await s.createGroup({ parent_id: parent.id, visibility: 'private' });
    const inherited = (await s.post(`/groups/${parent.id}/labels`, { name: 'inherited', color: '#123456' })).body;
    const own = (await s.post(`/groups/${sub.id}/labels`, { name: 'own', color: '#654321' })).body;
    const e = (await s.post(`/groups/${sub.id}/epics`, { title: 'moved along', labels: 'inherited' })).body;
    await s.put(`/groups/${sub.id}/epics/${e.iid}`, { add_labels: 'own' });
    expect((await s.post(`/groups/${sub.id}/transfer`, {})).status).toBe(201);
    expect((await s.put(`/groups/${sub.id}`, { visibility: 'public' })).status).toBe(200);
    const path = `/groups/${sub.id}/epics/${e.id}/resource_label_events`;
    const mine = (await s.get(path)).body as { id: number; label: { id: number } }[];
    expect(mine.map((ev) => ev.label.id)).toEqual([inherited.id, own.id]);
    const outsider = await s.createUser();
    const theirs = await s.get(path, { token: outsider.token });
    expect([theirs.status, theirs.headers.get('x-total')]).toEqual([200, '2']);
    expect(theirs.body.map((ev: { label: { id: number } }) => ev.label.id)).toEqual([own.id]);
    const hidden = await s.get(`${path}/${mine[0].id}`, { token: outsider.token });
    expect([hidden.status, hidden.body]).toEqual([404, { message: '404 ResourceLabelEvent Not Found' }]);
    expect((await s.get(`${path}/${mine[1].id}`, { token: outsider.token })).body.label.id).toBe(own.id);
  });
});

describe('epic issues', () => {
  it('assigns, lists, reorders and removes issues of the group tree', async () => {
    const g = await s.createGroup();
    const sub = await s.createGroup({ parent_id: g.id });
    const p = await s.createProject({ namespace_id: sub.id });
    const e = (await s.post(`/groups/${g.id}/epics`, { title: 'with issues' })).body;
    const i1 = (await s.post(`/projects/${p.id}/issues`, { title: 'one' })).body;
    const i2 = (await s.post(`/projects/${p.id}/issues`, { title: 'two' })).body;
    const a = await s.post(`/groups/${g.id}/epics/${e.iid}/issues/${i1.id}`);
    expect(a.status).toBe(201);
    expect(a.body.epic.id).toBe(e.id);
    expect(a.body.issue.id).toBe(i1.id);
    const b = (await s.post(`/groups/${g.id}/epics/${e.iid}/issues/${i2.id}`)).body;
    expect((await s.post(`/groups/${g.id}/epics/${e.iid}/issues/${i2.id}`)).status).toBe(409);
    const list = await s.get(`/groups/${g.id}/epics/${e.iid}/issues`);
    expect(list.body.map((x: any) => [x.id, x.epic_issue_id])).toEqual([
      [i1.id, a.body.id],
      [i2.id, b.id],
    ]);
    const moved = await s.put(`/groups/${g.id}/epics/${e.iid}/issues/${b.id}`, { move_after_id: a.body.id });
    expect(moved.body.map((x: any) => x.id)).toEqual([i2.id, i1.id]);
    const removed = await s.del(`/groups/${g.id}/epics/${e.iid}/issues/${a.body.id}`);
    expect(removed.status).toBe(200);
    expect(removed.body.issue.id).toBe(i1.id);
    expect((await s.get(`/groups/${g.id}/epics/${e.iid}/issues`)).body.map((x: any) => x.id)).toEqual([i2.id]);
    const outside = await s.createProject();
    const stray = (await s.post(`/projects/${outside.id}/issues`, { title: 'elsewhere' })).body;
    expect((await s.post(`/groups/${g.id}/epics/${e.iid}/issues/${stray.id}`)).status).toBe(404);
  });
});
