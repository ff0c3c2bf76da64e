import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

let s: TestService;
let group: any;
let sub: any;
let project: any;
let guest: { user: any; token: string };
let planner: { user: any; token: string };
let stranger: { user: any; token: string };
const today = new Date().toISOString().slice(0, 10);
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  s = await TestService.start();
  group = await s.createGroup({ name: 'Plan', path: 'plan' });
  sub = await s.createGroup({ name: 'Sub', path: 'sub', parent_id: group.id });
  project = await s.createProject({ name: 'roadmap', namespace_id: sub.id });
  guest = await s.createUser();
  planner = await s.createUser();
  stranger = await s.createUser();
  await s.addMember('projects', project.id, guest.user.id, 10);
  await s.addMember('projects', project.id, planner.user.id, 15);
});
afterAll(async () => s.stop());

describe('project milestones', () => {
  it('creates a milestone with GitLab fields, iids per project', async () => {
    const res = await s.post(`/projects/${project.id}/milestones`, { title: ' v1.0 ', description: 'first', start_date: '2020-01-01', due_date: day(-1) });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['id', 'iid', 'project_id', 'title', 'description', 'state', 'created_at', 'updated_at', 'due_date', 'start_date', 'expired', 'web_url']);
    expect(res.body).toMatchObject({
      iid: 1,
      project_id: project.id,
      title: 'v1.0',
      description: 'first',
      state: 'active',
      start_date: '2020-01-01',
      due_date: day(-1),
      expired: true,
      web_url: `${s.url}/plan/sub/roadmap/-/milestones/1`,
    });
    const second = await s.post(`/projects/${project.id}/milestones`, { title: 'v2.0' });
    expect(second.body).toMatchObject({ iid: 2, due_date: null, start_date: null, expired: false, description: null });
  });

  it('refuses a title used by the project or its group, blank titles and inverted dates', async () => {
    const dup = await s.post(`/projects/${project.id}/milestones`, { title: 'v1.0' });
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({ message: 'Failed to create milestone {:title=>["already being used for another group or project milestone."]}' });
    await s.post(`/groups/${sub.id}/milestones`, { title: 'group-owned' });
    expect((await s.post(`/projects/${project.id}/milestones`, { title: 'group-owned' })).status).toBe(400);
    expect((await s.post(`/projects/${project.id}/milestones`, { title: '' })).body).toEqual({ message: 'Failed to create milestone {:title=>["can\'t be blank"]}' });
    expect((await s.post(`/projects/${project.id}/milestones`, {})).body).toEqual({ error: 'title is missing' });
    const dates = await s.post(`/projects/${project.id}/milestones`, { title: 'dates', start_date: '2020-02-01', due_date: '2020-01-01' });
    expect(dates.body).toEqual({ message: 'Failed to create milestone {:due_date=>["must be greater than start date"]}' });
  });

  it('updates, closes and activates; a blank title keeps the old one', async () => {
    const m = (await s.post(`/projects/${project.id}/milestones`, { title: 'editable' })).body;
    const upd = await s.put(`/projects/${project.id}/milestones/${m.id}`, { title: '', description: 'changed', due_date: '2020-01-01T00:00:00Z' });
    expect(upd.status).toBe(200);
    expect(upd.body).toMatchObject({ title: 'editable', description: 'changed', due_date: '2020-01-01' });
    expect((await s.put(`/projects/${project.id}/milestones/${m.id}`, { state_event: 'close' })).body.state).toBe('closed');
    expect((await s.put(`/projects/${project.id}/milestones/${m.id}`, { state_event: 'activate' })).body.state).toBe('active');
    expect((await s.put(`/projects/${project.id}/milestones/${m.id}`, { state_event: 'reopen' })).body).toEqual({ error: 'state_event does not have a valid value' });
    expect((await s.put(`/projects/${project.id}/milestones/${m.id}`, {})).body).toEqual({
      error: 'title, description, start_date, due_date, state_event are missing, at least one parameter must be provided',
    });
    expect((await s.put(`/projects/${project.id}/milestones/999999`, { title: 'x' })).body).toEqual({ message: '404 Not found' });
    expect((await s.get(`/projects/${project.id}/milestones/abc`)).body).toEqual({ error: 'milestone_id is invalid' });
  });

  it('lists by due date, filters by state, iids, title and search', async () => {
    const all = await s.get(`/projects/${project.id}/milestones`);
    expect(all.status).toBe(200);
    const titles = all.body.map((m: any) => m.title);
    expect(titles[0]).toBe('editable'); // due 2020-01-01 comes first, undated ones last (newest first)
    expect(titles).toContain('v2.0');
    const closed = (await s.post(`/projects/${project.id}/milestones`, { title: 'old' })).body;
    await s.put(`/projects/${project.id}/milestones/${closed.id}`, { state_event: 'close' });
    expect((await s.get(`/projects/${project.id}/milestones`, { query: { state: 'closed' } })).body.map((m: any) => m.title)).toEqual(['old']);
    expect((await s.get(`/projects/${project.id}/milestones`, { query: { state: 'active' } })).body.map((m: any) => m.title)).not.toContain('old');
    expect((await s.get(`/projects/${project.id}/milestones`, { query: { iids: '1,2' } })).body.map((m: any) => m.iid).sort()).toEqual([1, 2]);
    expect((await s.get(`/projects/${project.id}/milestones?iids[]=2`)).body.map((m: any) => m.iid)).toEqual([2]);
    expect((await s.get(`/projects/${project.id}/milestones`, { query: { title: 'v2.0' } })).body.map((m: any) => m.title)).toEqual(['v2.0']);
    expect((await s.get(`/projects/${project.id}/milestones`, { query: { search: 'firs' } })).body.map((m: any) => m.title)).toEqual(['v1.0']);
    const withGroups = await s.get(`/projects/${project.id}/milestones`, { query: { include_ancestors: true } });
    expect(withGroups.body.map((m: any) => m.title)).toContain('group-owned');
    expect(withGroups.body.find((m: any) => m.title === 'group-owned')).toMatchObject({ group_id: sub.id, web_url: `${s.url}/groups/plan/sub/-/milestones/1` });
    expect((await s.get(`/projects/${project.id}/milestones`, { query: { include_parent_milestones: true } })).body.length).toBe(withGroups.body.length);
    expect((await s.get(`/projects/${project.id}/milestones`, { query: { include_ancestors: true, include_parent_milestones: true } })).body).toEqual({
      error: 'include_ancestors, include_parent_milestones are mutually exclusive',
    });
  });

  it('needs a signed-in caller, a visible project, and Planner to write', async () => {
    expect((await s.get(`/projects/${project.id}/milestones`, { token: null })).status).toBe(401);
    expect((await s.get(`/projects/${project.id}/milestones`, { token: stranger.token })).body).toEqual({ message: '404 Project Not Found' });
    expect((await s.get(`/projects/${project.id}/milestones`, { token: guest.token })).status).toBe(200);
    expect((await s.post(`/projects/${project.id}/milestones`, { title: 'guest' }, { token: guest.token })).status).toBe(403);
    expect((await s.post(`/projects/${project.id}/milestones`, { title: 'planner' }, { token: planner.token })).status).toBe(201);
  });
});

describe('group milestones', () => {
  it('CRUD, with ancestors and descendants on request', async () => {
    const top = await s.post(`/groups/${group.id}/milestones`, { title: 'top-level', due_date: '2030-01-01' });
    expect(top.status).toBe(201);
    expect(top.body).toMatchObject({ iid: 1, group_id: group.id, web_url: `${s.url}/groups/plan/-/milestones/1` });
    expect(top.body).not.toHaveProperty('project_id');
    const own = await s.get(`/groups/${sub.id}/milestones`);
    expect(own.body.map((m: any) => m.title)).toEqual(['group-owned']);
    const anc = await s.get(`/groups/${sub.id}/milestones`, { query: { include_ancestors: true } });
    expect(anc.body.map((m: any) => m.title).sort()).toEqual(['group-owned', 'top-level']);
    const desc = await s.get(`/groups/${group.id}/milestones`, { query: { include_descendants: true } });
    expect(desc.body.map((m: any) => m.title)).toEqual(expect.arrayContaining(['top-level', 'group-owned', 'v1.0']));
    const got = await s.get(`/groups/${group.id}/milestones/${top.body.id}`);
    expect(got.body.title).toBe('top-level');
    expect((await s.get(`/groups/${sub.id}/milestones/${top.body.id}`)).status).toBe(404);
    const del = await s.del(`/groups/${group.id}/milestones/${top.body.id}`);
    expect(del.status).toBe(204);
    expect((await s.get(`/groups/${group.id}/milestones/${top.body.id}`)).body).toEqual({ message: '404 Not found' });
  });
});

describe('milestones on issues and merge requests', () => {
  let m1: any;
  let groupMilestone: any;
  beforeAll(async () => {
    m1 = (await s.get(`/projects/${project.id}/milestones`, { query: { title: 'v1.0' } })).body[0];
    groupMilestone = (await s.post(`/groups/${group.id}/milestones`, { title: 'next', start_date: day(-2), due_date: day(5) })).body;
  });

  it('sets milestone_id on create and update, records events, and shows the milestone object', async () => {
    const created = await s.post(`/projects/${project.id}/issues`, { title: 'with milestone', milestone_id: m1.id });
    expect(created.body.milestone).toMatchObject({ id: m1.id, iid: 1, project_id: project.id, title: 'v1.0' });
    const upd = await s.put(`/projects/${project.id}/issues/${created.body.iid}`, { milestone_id: groupMilestone.id });
    expect(upd.body.milestone).toMatchObject({ id: groupMilestone.id, group_id: group.id });
    const cleared = await s.put(`/projects/${project.id}/issues/${created.body.iid}`, { milestone_id: 0 });
    expect(cleared.body.milestone).toBeNull();
    const events = await s.get(`/projects/${project.id}/issues/${created.body.iid}/resource_milestone_events`);
    expect(events.body.map((e: any) => [e.action, e.milestone.title, e.state, e.resource_type])).toEqual([
      ['add', 'v1.0', 'opened', 'Issue'],
      ['add', 'next', 'opened', 'Issue'],
      ['remove', 'next', 'opened', 'Issue'],
    ]);
    const one = await s.get(`/projects/${project.id}/issues/${created.body.iid}/resource_milestone_events/${events.body[0].id}`);
    expect(one.body).toEqual(events.body[0]);
    expect(Object.keys(one.body)).toEqual(['id', 'user', 'created_at', 'resource_type', 'resource_id', 'milestone', 'action', 'state']);
    expect((await s.get(`/projects/${project.id}/issues/${created.body.iid}/resource_milestone_events/999999`)).body).toEqual({ message: '404 Not found' });
  });

  it('drops a milestone outside the project and its groups, and resolves `milestone` by title', async () => {
    const elsewhere = await s.createProject({ name: 'elsewhere' });
    const foreign = (await s.post(`/projects/${elsewhere.id}/milestones`, { title: 'foreign' })).body;
    const issue = await s.post(`/projects/${project.id}/issues`, { title: 'foreign milestone', milestone_id: foreign.id });
    expect(issue.body.milestone).toBeNull();
    const byTitle = await s.put(`/projects/${project.id}/issues/${issue.body.iid}`, { milestone: 'next', title: 'foreign milestone' });
    expect(byTitle.body.milestone.id).toBe(groupMilestone.id);
    expect((await s.put(`/projects/${project.id}/issues/${issue.body.iid}`, { milestone: 'x', milestone_id: 1 })).body).toEqual({
      error: 'milestone_id, milestone are mutually exclusive',
    });
  });

  it('filters lists by milestone title, None, Any, Upcoming, Started and their negations', async () => {
    const p = project.id;
    const none = await s.post(`/projects/${p}/issues`, { title: 'no milestone' });
    const titles = async (query: Record<string, string>) =>
      (await s.get(`/projects/${p}/issues`, { query })).body.map((i: any) => i.title).sort();
    expect(await titles({ milestone: 'next' })).toEqual(['foreign milestone']);
    expect(await titles({ milestone_id: 'None' })).toEqual(['no milestone', 'with milestone']);
    expect(await titles({ milestone: 'None' })).toEqual(['no milestone', 'with milestone']);
    expect(await titles({ milestone_id: 'Any' })).toEqual(['foreign milestone']);
    expect(await titles({ milestone_id: 'Upcoming' })).toEqual(['foreign milestone']);
    expect(await titles({ milestone_id: 'Started' })).toEqual(['foreign milestone']);
    expect(await titles({ 'not[milestone]': 'next' })).toEqual(['no milestone', 'with milestone']);
    expect(await titles({ 'not[milestone_id]': 'None' })).toEqual(['foreign milestone']);
    expect((await s.get(`/projects/${p}/issues`, { query: { milestone_id: 'Later' } })).body).toEqual({ error: 'milestone_id does not have a valid value' });
    void none;
  });

  it("lists a milestone's issues and merge requests", async () => {
    const mr = await s.post(`/projects/${project.id}/merge_requests`, { title: 'mr', source_branch: 'a', target_branch: 'main', milestone_id: groupMilestone.id });
    expect(mr.body.milestone.id).toBe(groupMilestone.id);
    const issues = await s.get(`/groups/${group.id}/milestones/${groupMilestone.id}/issues`);
    expect(issues.body.map((i: any) => i.title)).toEqual(['foreign milestone']);
    expect(issues.body[0]).not.toHaveProperty('_links');
    expect(issues.body[0]).toHaveProperty('milestone');
    const mrs = await s.get(`/groups/${group.id}/milestones/${groupMilestone.id}/merge_requests`);
    expect(mrs.body.map((m: any) => m.title)).toEqual(['mr']);
    expect((await s.get(`/projects/${project.id}/milestones/${m1.id}/issues`)).body).toEqual([]);
    const mrList = await s.get(`/projects/${project.id}/merge_requests`, { query: { milestone: 'next' } });
    expect(mrList.body.map((m: any) => m.title)).toEqual(['mr']);
  });

  it('deleting a milestone takes it off its issues and merge requests', async () => {
    const doomed = (await s.post(`/projects/${project.id}/milestones`, { title: 'doomed' })).body;
    const issue = (await s.post(`/projects/${project.id}/issues`, { title: 'doomed issue', milestone_id: doomed.id })).body;
    expect((await s.del(`/projects/${project.id}/milestones/${doomed.id}`)).status).toBe(204);
    expect((await s.get(`/projects/${project.id}/issues/${issue.iid}`)).body.milestone).toBeNull();
    expect((await s.get(`/projects/${project.id}/issues/${issue.iid}/resource_milestone_events`)).body).toEqual([]);
  });

  it('deleting a milestone takes its events along: its resource events, and its activity events\' target (Milestones::DestroyService)', async () => {
    type Ev = { action_name: string; target_id: number | null; target_iid: number | null; target_title: string | null; target_type: string };
    const milestoneEvents = async (title: string | null, id: number | null) =>
      ((await s.get('/users/1/events', { query: { target_type: 'milestone', per_page: '100' } })).body as Ev[])
        .filter((e) => e.target_title === title && e.target_id === id)
        .map((e) => [e.action_name, e.target_iid, e.target_type]);
    const doomed = (await s.post(`/projects/${project.id}/milestones`, { title: 'doomed with a past' })).body;
    await s.put(`/projects/${project.id}/milestones/${doomed.id}`, { state_event: 'close' });
    await s.put(`/projects/${project.id}/milestones/${doomed.id}`, { state_event: 'activate' });
    const issue = (await s.post(`/projects/${project.id}/issues`, { title: 'loses it', milestone_id: doomed.id })).body;
    const mr = (await s.post(`/projects/${project.id}/merge_requests`, { title: 'loses it too', source_branch: 'doomed', target_branch: 'main', milestone_id: doomed.id })).body;
    expect(await milestoneEvents('doomed with a past', doomed.id)).toEqual([['opened', doomed.iid, 'Milestone'], ['closed', doomed.iid, 'Milestone'], ['opened', doomed.iid, 'Milestone']]);
    expect((await s.get(`/projects/${project.id}/merge_requests/${mr.iid}/resource_milestone_events`)).body.map((e: { action: string }) => e.action)).toEqual(['add']);
    expect((await s.del(`/projects/${project.id}/milestones/${doomed.id}`)).status).toBe(204);
    // Its events lose their target: no id, iid or title to show (Event#target_iid, #target_title without a target).
    expect(await milestoneEvents('doomed with a past', doomed.id)).toEqual([]);
    expect((await milestoneEvents(null, null)).slice(0, 4)).toEqual([['destroyed', null, 'Milestone'], ['opened', null, 'Milestone'], ['closed', null, 'Milestone'], ['opened', null, 'Milestone']]);
    // The issue and merge request lose it, and its resource events (add and remove) go with it (on_delete: :cascade).
    for (const [kind, iid] of [['issues', issue.iid], ['merge_requests', mr.iid]]) {
      expect((await s.get(`/projects/${project.id}/${kind}/${iid}`)).body.milestone).toBeNull();
      expect((await s.get(`/projects/${project.id}/${kind}/${iid}/resource_milestone_events`)).body).toEqual([]);
    }
  });

  it("promotes a project milestone to its group's, taking its issues along", async () => {
    const local = (await s.post(`/projects/${project.id}/milestones`, { title: 'promote me' })).body;
    const issue = (await s.post(`/projects/${project.id}/issues`, { title: 'promoted issue', milestone_id: local.id })).body;
    expect((await s.post(`/projects/${project.id}/milestones/${local.id}/promote`, {}, { token: guest.token })).status).toBe(403);
    const res = await s.post(`/projects/${project.id}/milestones/${local.id}/promote`);
    expect(res.status).toBe(200);
    expect((await s.get(`/projects/${project.id}/milestones/${local.id}`)).status).toBe(404);
    const promoted = (await s.get(`/groups/${sub.id}/milestones`, { query: { title: 'promote me' } })).body[0];
    expect(promoted.group_id).toBe(sub.id);
    expect((await s.get(`/projects/${project.id}/issues/${issue.iid}`)).body.milestone.id).toBe(promoted.id);
  });
});

void today;
