import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

/**
 * POST /projects/:id/issues/:issue_iid/move and .../clone (lib/api/issues.rb; Issues::MoveService,
 * Issues::CloneService): a new issue in the target with the next iid, the original's fields and
 * created_at, the target's labels and milestone of the same titles, the notes (a move's always, a
 * clone's with with_notes), a system note each way; a move closes the old issue with moved_to_id.
 */
let s: TestService;
let group: { id: number; full_path: string };
let source: { id: number; path: string };
let target: { id: number; path: string };
let elsewhere: { id: number; path_with_namespace: string };

// The service's clock, moved on by a test to tell a copy's own times from the original's.
let nowMs = Date.parse('2030-01-01T00:00:00Z');

beforeAll(async () => {
  s = await TestService.start({ clock: () => new Date(nowMs) });
  group = await s.createGroup({ path: 'move-group' });
  source = await s.createProject({ name: 'source', namespace_id: group.id });
  target = await s.createProject({ name: 'target', namespace_id: group.id });
  elsewhere = await s.createProject({ name: 'elsewhere' });
  for (const p of [source, target]) {
    await s.post(`/projects/${p.id}/labels`, { name: 'bug', color: '#ff0000' });
    await s.post(`/projects/${p.id}/milestones`, { title: 'v1' });
  }
  await s.post(`/projects/${source.id}/labels`, { name: 'source-only', color: '#00ff00' });
  // The target's iids move on past the source's.
  await s.post(`/projects/${target.id}/issues`, { title: 'already there' });
  await s.post(`/projects/${target.id}/issues`, { title: 'already there too' });
});
afterAll(async () => s?.stop());

const userNotes = (notes: { system: boolean; body: string }[]) => notes.filter((n) => !n.system).map((n) => n.body);
const systemNotes = (notes: { system: boolean; body: string }[]) => notes.filter((n) => n.system).map((n) => n.body);

async function sourceIssue(title: string) {
  const milestone = (await s.get(`/projects/${source.id}/milestones`)).body[0];
  const issue = (await s.post(`/projects/${source.id}/issues`, { title, description: 'body text', labels: 'bug,source-only', milestone_id: milestone.id, assignee_ids: [1], confidential: true, weight: 3, due_date: '2030-01-02' })).body;
  await s.post(`/projects/${source.id}/issues/${issue.iid}/notes`, { body: 'first comment' });
  await s.post(`/projects/${source.id}/issues/${issue.iid}/notes`, { body: 'second comment' });
  await s.post(`/projects/${source.id}/issues/${issue.iid}/award_emoji`, { name: 'thumbsup' });
  return issue;
}

describe('moving an issue', () => {
  it('creates it in the target with the next iid, its fields, matching labels and milestone and its notes, and closes the old one with moved_to_id', async () => {
    const old = await sourceIssue('to move');
    const res = await s.post(`/projects/${source.id}/issues/${old.iid}/move`, { to_project_id: target.id });
    expect(res.status).toBe(201);
    const moved = res.body;
    expect(moved.project_id).toBe(target.id);
    expect(moved.iid).toBe(3);
    expect(moved.id).not.toBe(old.id);
    expect([moved.title, moved.description, moved.confidential, moved.weight, moved.due_date, moved.state]).toEqual(['to move', 'body text', true, 3, '2030-01-02', 'opened']);
    expect(moved.created_at).toBe(old.created_at);
    expect(moved.author.id).toBe(old.author.id);
    expect(moved.assignees.map((u: { id: number }) => u.id)).toEqual([1]);
    expect(moved.labels).toEqual(['bug']);
    const targetMilestone = (await s.get(`/projects/${target.id}/milestones`)).body[0];
    expect(moved.milestone.id).toBe(targetMilestone.id);
    expect(moved.moved_to_id).toBeNull();
    expect(moved.upvotes).toBe(1);
    expect(moved.references.full).toBe(`move-group/target#3`);

    const newNotes = (await s.get(`/projects/${target.id}/issues/3/notes?sort=asc`)).body;
    expect(userNotes(newNotes)).toEqual(['first comment', 'second comment']);
    expect(systemNotes(newNotes)).toContain(`moved from source#${old.iid}`);
    expect(moved.user_notes_count).toBe(2);

    const after = (await s.get(`/projects/${source.id}/issues/${old.iid}`)).body;
    expect(after.state).toBe('closed');
    expect(after.moved_to_id).toBe(moved.id);
    expect(systemNotes((await s.get(`/projects/${source.id}/issues/${old.iid}/notes`)).body)).toContain('moved to target#3');
    // Both lists show them as they are now.
    expect((await s.get(`/projects/${target.id}/issues?state=opened`)).body.map((i: { iid: number }) => i.iid)).toEqual([3, 2, 1]);
    expect((await s.get(`/projects/${source.id}/issues?state=closed`)).body.map((i: { iid: number; moved_to_id: number }) => [i.iid, i.moved_to_id])).toEqual([[old.iid, moved.id]]);

    // can_move?: an issue moved already cannot move again.
    const again = await s.post(`/projects/${source.id}/issues/${old.iid}/move`, { to_project_id: elsewhere.id });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ message: 'Cannot move issue due to insufficient permissions!' });
  });

  it('keeps the milestone itself where the target reaches it, else takes the target\'s of its title (the milestone by id, then by title)', async () => {
    // A subgroup's milestone and then its parent's of the same title (each group's titles are its own).
    const sub = await s.createGroup({ path: 'move-sub', parent_id: group.id });
    const near = (await s.post(`/groups/${sub.id}/milestones`, { title: 'shared' })).body;
    const far = (await s.post(`/groups/${group.id}/milestones`, { title: 'shared' })).body;
    expect(far.id).toBeGreaterThan(near.id);
    const from = await s.createProject({ name: 'sub-source', namespace_id: sub.id });
    const to = await s.createProject({ name: 'sub-target', namespace_id: sub.id });
    const onFar = (await s.post(`/projects/${from.id}/issues`, { title: 'on the parent milestone', milestone_id: far.id })).body;
    const onNear = (await s.post(`/projects/${from.id}/issues`, { title: 'on the subgroup milestone', milestone_id: near.id })).body;
    const inPlace = (await s.post(`/projects/${from.id}/issues/${onFar.iid}/clone`, { to_project_id: from.id })).body;
    const cloned = (await s.post(`/projects/${from.id}/issues/${onFar.iid}/clone`, { to_project_id: to.id })).body;
    const moved = (await s.post(`/projects/${from.id}/issues/${onNear.iid}/move`, { to_project_id: to.id })).body;
    expect([inPlace.milestone.id, cloned.milestone.id, moved.milestone.id]).toEqual([far.id, far.id, near.id]);
    expect((await s.get(`/groups/${group.id}/milestones/${far.id}/issues`)).body.map((i: { id: number }) => i.id).sort()).toEqual([onFar.id, inPlace.id, cloned.id].sort());
    // Out of the subgroup, in the parent: the subgroup's is out of reach, the parent's of its title taken.
    expect((await s.post(`/projects/${to.id}/issues/${moved.iid}/move`, { to_project_id: target.id })).body.milestone.id).toBe(far.id);
  });

  it('carries its subscriptions to the moved issue, not to a clone (WorkItems::DataSync::Widgets::Notifications)', async () => {
    const watcher = await s.createUser();
    const assignee = await s.createUser();
    for (const p of [source, target]) for (const u of [watcher, assignee]) await s.addMember('projects', p.id, u.user.id, 20);
    const old = (await s.post(`/projects/${source.id}/issues`, { title: 'watched', assignee_ids: [assignee.user.id] })).body;
    expect((await s.post(`/projects/${source.id}/issues/${old.iid}/subscribe`, {}, { token: watcher.token })).status).toBe(201);
    expect((await s.post(`/projects/${source.id}/issues/${old.iid}/unsubscribe`, {}, { token: assignee.token })).status).toBe(201);
    const subscribed = async (p: number, iid: number) => {
      const out: boolean[] = [];
      for (const u of [watcher, assignee]) out.push((await s.get(`/projects/${p}/issues/${iid}`, { token: u.token })).body.subscribed);
      return out;
    };
    const clone = (await s.post(`/projects/${source.id}/issues/${old.iid}/clone`, { to_project_id: target.id })).body;
    // A clone starts afresh: the watcher is nobody there, the assignee a participant.
    expect(await subscribed(target.id, clone.iid)).toEqual([false, true]);
    const moved = (await s.post(`/projects/${source.id}/issues/${old.iid}/move`, { to_project_id: target.id })).body;
    expect(await subscribed(target.id, moved.iid)).toEqual([true, false]);
    expect(await subscribed(source.id, old.iid)).toEqual([true, false]);
  });

  it('takes the old issue\'s place in its epic, whoever moves it (the hierarchy widget: handle_parent, then post_move_cleanup)', async () => {
    const epic = (await s.post(`/groups/${group.id}/epics`, { title: 'the epic' })).body;
    const linked = async (title: string) => {
      const issue = (await s.post(`/projects/${source.id}/issues`, { title })).body;
      expect((await s.post(`/groups/${group.id}/epics/${epic.iid}/issues/${issue.id}`)).status).toBe(201);
      return issue;
    };
    const epicIssues = async () => (await s.get(`/groups/${group.id}/epics/${epic.iid}/issues`)).body.map((i: { id: number }) => i.id).sort((x: number, y: number) => x - y);
    const first = await linked('in the epic');
    const second = await linked('in the epic too');
    const positions = async () => (await s.get(`/groups/${group.id}/epics/${epic.iid}/issues`)).body.map((i: { id: number; relative_position: number }) => [i.id, i.relative_position]);
    const [[, firstAt], [, secondAt]] = await positions();
    const moved = (await s.post(`/projects/${source.id}/issues/${first.iid}/move`, { to_project_id: target.id })).body;
    expect(await epicIssues()).toEqual([second.id, moved.id].sort((x, y) => x - y));
    // Where the old one stood (the epic_issues row copied but its id).
    expect(await positions()).toEqual([[moved.id, firstAt], [second.id, secondAt]]);
    for (const p of [source, target]) expect((await s.get(`/projects/${p.id}/issues?epic_id=${epic.id}`)).body.map((i: { id: number }) => i.id)).toEqual([p === source ? second.id : moved.id]);
    // A Planner of both projects but not of the epic's group moves it too: DataSync asks no permission of the epic.
    const { user, token } = await s.createUser();
    await s.addMember('projects', source.id, user.id, 15);
    await s.addMember('projects', target.id, user.id, 15);
    const movedByPlanner = await s.post(`/projects/${source.id}/issues/${second.iid}/move`, { to_project_id: target.id }, { token });
    expect(movedByPlanner.status).toBe(201);
    expect(await epicIssues()).toEqual([moved.id, movedByPlanner.body.id].sort((x, y) => x - y));
    expect((await s.get(`/projects/${source.id}/issues?epic_id=${epic.id}`)).body).toEqual([]);
  });

  it('gives the moved issue copies of its links and leaves them on the old one; a clone gets none (Widgets::LinkedItems, move only)', async () => {
    const old = (await s.post(`/projects/${source.id}/issues`, { title: 'linked both ways' })).body;
    const relates = (await s.post(`/projects/${target.id}/issues`, { title: 'related to it' })).body;
    const blocker = (await s.post(`/projects/${source.id}/issues`, { title: 'blocks it' })).body;
    expect((await s.post(`/projects/${source.id}/issues/${old.iid}/links`, { target_project_id: target.id, target_issue_iid: relates.iid })).status).toBe(201);
    expect((await s.post(`/projects/${source.id}/issues/${blocker.iid}/links`, { target_project_id: source.id, target_issue_iid: old.iid, link_type: 'blocks' })).status).toBe(201);
    const links = async (p: number, iid: number) =>
      (await s.get(`/projects/${p}/issues/${iid}/links`)).body.map((l: { id: number; link_type: string }) => [l.id, l.link_type]);
    const before = await links(source.id, old.iid);
    expect(before).toEqual([[relates.id, 'relates_to'], [blocker.id, 'is_blocked_by']]);
    expect(await links(target.id, relates.iid)).toEqual([[old.id, 'relates_to']]);
    const clone = (await s.post(`/projects/${source.id}/issues/${old.iid}/clone`, { to_project_id: target.id })).body;
    expect(await links(target.id, clone.iid)).toEqual([]);
    const moved = (await s.post(`/projects/${source.id}/issues/${old.iid}/move`, { to_project_id: target.id })).body;
    expect(await links(target.id, moved.iid)).toEqual(before);
    expect(await links(source.id, old.iid)).toEqual(before);
    expect(await links(target.id, relates.iid)).toEqual([[old.id, 'relates_to'], [moved.id, 'relates_to']]);
    expect(await links(source.id, blocker.iid)).toEqual([[old.id, 'blocks'], [moved.id, 'blocks']]);
  });

  it('copies each note\'s award emoji with it (Notes::CopyService#copy_notes_emoji), a move\'s and a clone\'s with notes', async () => {
    const old = (await s.post(`/projects/${source.id}/issues`, { title: 'with a liked note' })).body;
    const note = (await s.post(`/projects/${source.id}/issues/${old.iid}/notes`, { body: 'liked' })).body;
    expect((await s.post(`/projects/${source.id}/issues/${old.iid}/notes/${note.id}/award_emoji`, { name: 'heart' })).status).toBe(201);
    const emojiOfLiked = async (p: number, iid: number) => {
      const notes = (await s.get(`/projects/${p}/issues/${iid}/notes`)).body as { id: number; body: string }[];
      const liked = notes.find((n) => n.body === 'liked')!;
      return (await s.get(`/projects/${p}/issues/${iid}/notes/${liked.id}/award_emoji`)).body.map((e: { name: string; user: { id: number } }) => [e.name, e.user.id]);
    };
    const clone = (await s.post(`/projects/${source.id}/issues/${old.iid}/clone`, { to_project_id: target.id, with_notes: true })).body;
    const moved = (await s.post(`/projects/${source.id}/issues/${old.iid}/move`, { to_project_id: target.id })).body;
    for (const [p, iid] of [[target.id, clone.iid], [target.id, moved.iid], [source.id, old.iid]]) expect(await emojiOfLiked(p, iid)).toEqual([['heart', 1]]);
  });

  it('names a project in another namespace by its full path', async () => {
    const old = (await s.post(`/projects/${source.id}/issues`, { title: 'far away' })).body;
    const moved = (await s.post(`/projects/${source.id}/issues/${old.iid}/move`, { to_project_id: elsewhere.id })).body;
    expect(moved.iid).toBe(1);
    expect(moved.labels).toEqual([]);
    expect(systemNotes((await s.get(`/projects/${elsewhere.id}/issues/1/notes`)).body)).toEqual([`moved from move-group/source#${old.iid}`]);
    expect(systemNotes((await s.get(`/projects/${source.id}/issues/${old.iid}/notes`)).body)).toContain(`moved to ${elsewhere.path_with_namespace}#1`);
  });

  it('answers 400 for its own project, a missing parameter, or a caller who may not admin issues in both; 404 for a missing issue or project', async () => {
    const old = (await s.post(`/projects/${source.id}/issues`, { title: 'stays' })).body;
    const same = await s.post(`/projects/${source.id}/issues/${old.iid}/move`, { to_project_id: source.id });
    expect(same.status).toBe(400);
    expect(same.body).toEqual({ message: 'Cannot move issue to project it originates from!' });
    const missing = await s.post(`/projects/${source.id}/issues/${old.iid}/move`, {});
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'to_project_id is missing' });
    expect((await s.post(`/projects/${source.id}/issues/9999/move`, { to_project_id: target.id })).status).toBe(404);
    const noProject = await s.post(`/projects/${source.id}/issues/${old.iid}/move`, { to_project_id: 999999 });
    expect(noProject.status).toBe(404);
    expect(noProject.body).toEqual({ message: '404 Project Not Found' });

    // A Reporter of the source who is a Guest of the target; a stranger to a private source.
    const { user, token } = await s.createUser();
    await s.addMember('projects', source.id, user.id, 20);
    await s.addMember('projects', target.id, user.id, 10);
    const guest = await s.post(`/projects/${source.id}/issues/${old.iid}/move`, { to_project_id: target.id }, { token });
    expect(guest.status).toBe(400);
    expect(guest.body).toEqual({ message: 'Cannot move issue due to insufficient permissions!' });
    const stranger = await s.createUser();
    expect((await s.post(`/projects/${source.id}/issues/${old.iid}/move`, { to_project_id: target.id }, { token: stranger.token })).status).toBe(404);
    // An archived target prevents admin_issue there.
    await s.post(`/projects/${elsewhere.id}/archive`);
    const archived = await s.post(`/projects/${source.id}/issues/${old.iid}/move`, { to_project_id: elsewhere.id });
    expect(archived.status).toBe(400);
    await s.post(`/projects/${elsewhere.id}/unarchive`);

    // Nothing moved by any of them.
    const still = (await s.get(`/projects/${source.id}/issues/${old.iid}`)).body;
    expect([still.state, still.moved_to_id]).toEqual(['opened', null]);
    expect((await s.get(`/projects/${target.id}/issues`)).body.map((i: { title: string }) => i.title)).not.toContain('stays');

    // The Reporter made a Reporter of the target too moves it.
    await s.put(`/projects/${target.id}/members/${user.id}`, { access_level: 20 });
    expect((await s.post(`/projects/${source.id}/issues/${old.iid}/move`, { to_project_id: target.id }, { token })).status).toBe(201);
  });
});

describe('cloning an issue', () => {
  it('copies it to the target as the caller, without notes unless with_notes, and leaves the old one open', async () => {
    const { user, token } = await s.createUser();
    await s.addMember('projects', source.id, user.id, 20);
    await s.addMember('projects', target.id, user.id, 20);
    const old = await sourceIssue('to clone');
    const res = await s.post(`/projects/${source.id}/issues/${old.iid}/clone`, { to_project_id: target.id }, { token });
    expect(res.status).toBe(201);
    const clone = res.body;
    expect(clone.project_id).toBe(target.id);
    expect(clone.author.id).toBe(user.id);
    expect([clone.title, clone.description, clone.labels, clone.confidential, clone.weight, clone.due_date]).toEqual(['to clone', 'body text', ['bug'], true, 3, '2030-01-02']);
    const cloneNotes = (await s.get(`/projects/${target.id}/issues/${clone.iid}/notes`)).body;
    expect(userNotes(cloneNotes)).toEqual([]);
    expect(systemNotes(cloneNotes)).toEqual([`cloned from source#${old.iid}`]);
    const after = (await s.get(`/projects/${source.id}/issues/${old.iid}`)).body;
    expect([after.state, after.moved_to_id]).toEqual(['opened', null]);
    expect(systemNotes((await s.get(`/projects/${source.id}/issues/${old.iid}/notes`)).body)).toContain(`cloned to target#${clone.iid}`);

    const withNotes = (await s.post(`/projects/${source.id}/issues/${old.iid}/clone`, { to_project_id: target.id, with_notes: true })).body;
    expect(userNotes((await s.get(`/projects/${target.id}/issues/${withNotes.iid}/notes?sort=asc`)).body)).toEqual(['first comment', 'second comment']);

    // A clone into its own project is allowed; the permission error names the clone.
    const here = await s.post(`/projects/${source.id}/issues/${old.iid}/clone`, { to_project_id: source.id });
    expect(here.status).toBe(201);
    expect(here.body.project_id).toBe(source.id);
    const guest = await s.createUser();
    await s.addMember('projects', source.id, guest.user.id, 10);
    // (A Guest sees no confidential issue: find_project_issue's 404.)
    expect((await s.post(`/projects/${source.id}/issues/${old.iid}/clone`, { to_project_id: target.id }, { token: guest.token })).status).toBe(404);
    const open = (await s.post(`/projects/${source.id}/issues`, { title: 'public one' })).body;
    const refused = await s.post(`/projects/${source.id}/issues/${open.iid}/clone`, { to_project_id: target.id }, { token: guest.token });
    expect(refused.body).toEqual({ message: 'Cannot clone issue due to insufficient permissions!' });
    expect(refused.status).toBe(400);
  });

  it('makes a new issue: created and updated now, opened, no award emoji, whatever the original (CloneService\'s overwritten_params)', async () => {
    const old = await sourceIssue('closed then cloned');
    await s.put(`/projects/${source.id}/issues/${old.iid}`, { state_event: 'close' });
    const closed = (await s.get(`/projects/${source.id}/issues/${old.iid}`)).body;
    nowMs += 3_600_000;
    const stamp = new Date(nowMs).toISOString();
    for (const with_notes of [false, true]) {
      const res = await s.post(`/projects/${source.id}/issues/${old.iid}/clone`, { to_project_id: target.id, with_notes });
      expect(res.status).toBe(201);
      const clone = res.body;
      const read = (await s.get(`/projects/${target.id}/issues/${clone.iid}`)).body;
      for (const c of [clone, read]) {
        expect([c.created_at, c.updated_at, c.state, c.closed_at, c.closed_by, c.upvotes]).toEqual([stamp, stamp, 'opened', null, null, 0]);
        expect([c.title, c.confidential, c.labels]).toEqual(['closed then cloned', true, ['bug']]);
      }
      expect((await s.get(`/projects/${target.id}/issues/${clone.iid}/award_emoji`)).body).toEqual([]);
      expect((await s.get(`/projects/${target.id}/issues?state=opened&search=cloned`)).body.map((i: { iid: number }) => i.iid)).toContain(clone.iid);
    }
    // The original is as it was: closed, its award emoji kept.
    const after = (await s.get(`/projects/${source.id}/issues/${old.iid}`)).body;
    expect([after.state, after.closed_at, after.upvotes, after.moved_to_id]).toEqual(['closed', closed.closed_at, 1, null]);
    // A move keeps them: the old issue's created_at, state and closing, and its award emoji.
    const moved = (await s.post(`/projects/${source.id}/issues/${old.iid}/move`, { to_project_id: target.id })).body;
    expect([moved.created_at, moved.state, moved.closed_at, moved.closed_by?.id, moved.upvotes]).toEqual([old.created_at, 'closed', closed.closed_at, closed.closed_by.id, 1]);
  });

  it('moves and clones issues and incidents only (supports_move_and_clone?): a task or test case answers 400, nothing written', async () => {
    const incident = (await s.post(`/projects/${source.id}/issues`, { title: 'an incident', issue_type: 'incident' })).body;
    const cloned = await s.post(`/projects/${source.id}/issues/${incident.iid}/clone`, { to_project_id: target.id });
    expect([cloned.status, cloned.body.issue_type]).toEqual([201, 'incident']);
    for (const type of ['task', 'test_case']) {
      const old = (await s.post(`/projects/${source.id}/issues`, { title: `a ${type} stays`, issue_type: type })).body;
      for (const kind of ['move', 'clone']) {
        const res = await s.post(`/projects/${source.id}/issues/${old.iid}/${kind}`, { to_project_id: target.id });
        expect([res.status, res.body]).toEqual([400, { message: `Cannot ${kind} issues of '${type}' type.` }]);
      }
      const still = (await s.get(`/projects/${source.id}/issues/${old.iid}`)).body;
      expect([still.state, still.moved_to_id]).toEqual(['opened', null]);
      expect((await s.get(`/projects/${target.id}/issues`, { query: { search: `${type} stays` } })).body).toEqual([]);
    }
  });

  it('refuses an archived source with can_move?\'s 400, nothing written', async () => {
    const shut = await s.createProject({ name: 'shut', namespace_id: group.id });
    const old = (await s.post(`/projects/${shut.id}/issues`, { title: 'frozen' })).body;
    await s.post(`/projects/${shut.id}/archive`);
    for (const kind of ['move', 'clone']) {
      const res = await s.post(`/projects/${shut.id}/issues/${old.iid}/${kind}`, { to_project_id: target.id });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: `Cannot ${kind} issue due to insufficient permissions!` });
    }
    expect((await s.get(`/projects/${target.id}/issues?search=frozen`)).body).toEqual([]);
  });
});

describe('a moved or cloned issue\'s history, to-dos and epic', () => {
  type LabelEvent = { label: { id: number } | null; action: string; created_at: string; user: { id: number } };
  type MilestoneEvent = { milestone: { id: number }; action: string; state: string; created_at: string; user: { id: number } };
  const labelEvents = async (p: number, iid: number) =>
    (await s.get(`/projects/${p}/issues/${iid}/resource_label_events`)).body.map((e: LabelEvent) => [e.label?.id, e.action, e.created_at, e.user.id]);
  const milestoneEvents = async (p: number, iid: number) =>
    (await s.get(`/projects/${p}/issues/${iid}/resource_milestone_events`)).body.map((e: MilestoneEvent) => [e.milestone.id, e.action, e.state, e.created_at, e.user.id]);
  const stateEvents = async (p: number, iid: number) =>
    (await s.get(`/projects/${p}/issues/${iid}/resource_state_events`)).body.map((e: { state: string; created_at: string; user: { id: number } }) => [e.state, e.created_at, e.user.id]);
  const weightEvents = async (p: number, iid: number) =>
    (await s.get(`/projects/${p}/issues/${iid}/resource_weight_events`)).body.map((e: { weight: number; created_at: string; user: { id: number } }) => [e.weight, e.created_at, e.user.id]);
  const labelId = async (p: number, name: string) => (await s.get(`/projects/${p}/labels/${name}`)).body.id as number;
  const milestoneId = async (p: number, title: string) => (await s.get(`/projects/${p}/milestones`, { query: { title } })).body[0].id as number;
  const tick = () => (nowMs += 60_000);

  it('carries its label, milestone, state and weight events where its notes go (CopyResourceEventsService), and relabels it as the labels widget does', async () => {
    await s.post(`/groups/${group.id}/labels`, { name: 'shared', color: '#0000ff' });
    const writer = await s.createUser();
    await s.addMember('groups', group.id, writer.user.id, 30);
    const old = (await s.post(`/projects/${source.id}/issues`, { title: 'with a past', labels: 'bug,source-only,shared', weight: 1 }, { token: writer.token })).body;
    tick();
    await s.put(`/projects/${source.id}/issues/${old.iid}`, { milestone_id: await milestoneId(source.id, 'v1'), weight: 2 }, { token: writer.token });
    tick();
    await s.put(`/projects/${source.id}/issues/${old.iid}`, { state_event: 'close' });
    tick();
    await s.put(`/projects/${source.id}/issues/${old.iid}`, { state_event: 'reopen', milestone_id: 0 });
    tick();
    await s.put(`/projects/${source.id}/issues/${old.iid}`, { milestone_id: await milestoneId(source.id, 'v1') });
    const was = {
      labels: await labelEvents(source.id, old.iid),
      milestones: await milestoneEvents(source.id, old.iid),
      states: await stateEvents(source.id, old.iid),
      weights: await weightEvents(source.id, old.iid),
    };
    expect(was.labels.map((e: unknown[]) => e[1])).toEqual(['add', 'add', 'add']);
    expect(was.milestones.map((e: unknown[]) => e[1])).toEqual(['add', 'remove', 'add']);
    expect(was.states.map((e: unknown[]) => e[0])).toEqual(['closed', 'reopened']);
    // The create's weight is an event too (EE CommonSystemNotesService#handle_weight_change).
    expect(was.weights.map((e: unknown[]) => e[0])).toEqual([1, 2]);

    const [bug, onlyHere, targetBug, shared] = [await labelId(source.id, 'bug'), await labelId(source.id, 'source-only'), await labelId(target.id, 'bug'), await labelId(source.id, 'shared')];
    const targetV1 = await milestoneId(target.id, 'v1');
    tick();
    const stamp = new Date(nowMs).toISOString();
    // The shared group label is the same label there: nothing to say of it. The others are the caller's change, now.
    const relabelled = [[targetBug, 'add', stamp, 1], [bug, 'remove', stamp, 1], [onlyHere, 'remove', stamp, 1]];
    // Milestone adds follow the title into the target; the remove, copied without a milestone, shows nowhere.
    const milestonesThere = was.milestones.filter((e: unknown[]) => e[1] === 'add').map((e: unknown[]) => [targetV1, ...e.slice(1)]);

    const withNotes = (await s.post(`/projects/${source.id}/issues/${old.iid}/clone`, { to_project_id: target.id, with_notes: true })).body;
    const plain = (await s.post(`/projects/${source.id}/issues/${old.iid}/clone`, { to_project_id: target.id })).body;
    const moved = (await s.post(`/projects/${source.id}/issues/${old.iid}/move`, { to_project_id: target.id })).body;
    expect([withNotes.labels, plain.labels, moved.labels]).toEqual([['bug', 'shared'], ['bug', 'shared'], ['bug', 'shared']]);
    // A clone is created now (CloneService's overwritten created_at and updated_at); a move keeps created_at, and its
    // "moved from" note touches the new issue (its updated_at a minute old or more: ThrottledTouch); the old one is updated with moved_to.
    expect([withNotes.created_at, withNotes.updated_at, plain.created_at, plain.updated_at]).toEqual([stamp, stamp, stamp, stamp]);
    expect([moved.created_at, moved.updated_at]).toEqual([old.created_at, stamp]);
    expect((await s.get(`/projects/${source.id}/issues/${old.iid}`)).body.updated_at).toBe(stamp);
    for (const copy of [withNotes, moved]) {
      // The relabelling first (the Labels widget runs before Notes), then the copied history as it was.
      expect(await labelEvents(target.id, copy.iid)).toEqual([...relabelled, ...was.labels]);
      expect(await milestoneEvents(target.id, copy.iid)).toEqual(milestonesThere);
      expect(await stateEvents(target.id, copy.iid)).toEqual(was.states);
      expect(await weightEvents(target.id, copy.iid)).toEqual(was.weights);
    }
    // Without notes a clone has no past: the relabelling, and its milestone set by the caller as a new issue's.
    expect(await labelEvents(target.id, plain.iid)).toEqual(relabelled);
    expect(await milestoneEvents(target.id, plain.iid)).toEqual([[targetV1, 'add', 'opened', stamp, 1]]);
    expect([await stateEvents(target.id, plain.iid), await weightEvents(target.id, plain.iid)]).toEqual([[], []]);
    // The old issue keeps its own, and the move's close.
    expect(await labelEvents(source.id, old.iid)).toEqual(was.labels);
    expect(await stateEvents(source.id, old.iid)).toEqual([...was.states, ['closed', stamp, 1]]);
    expect(shared).toBe(await labelId(target.id, 'shared'));
  });

  it('gives the new issue a new issue\'s to-dos: its assignees\' and those it mentions, from the caller (NewIssueWorker)', async () => {
    const assignee = await s.createUser();
    const mentioned = await s.createUser();
    for (const u of [assignee, mentioned]) await s.addMember('groups', group.id, u.user.id, 20);
    const todosOf = async (token: string) =>
      (await s.get('/todos', { token })).body.map((t: { target: { id: number }; action_name: string; author: { id: number } }) => [t.target.id, t.action_name, t.author.id]);
    const writer = await s.createUser();
    await s.addMember('groups', group.id, writer.user.id, 30);
    const old = (await s.post(`/projects/${source.id}/issues`, { title: 'owed', assignee_ids: [assignee.user.id], description: `for @${mentioned.user.username} to read` }, { token: writer.token })).body;
    const before = { assignee: await todosOf(assignee.token), mentioned: await todosOf(mentioned.token) };
    expect(before).toEqual({ assignee: [[old.id, 'assigned', writer.user.id]], mentioned: [[old.id, 'mentioned', writer.user.id]] });
    const clone = (await s.post(`/projects/${source.id}/issues/${old.iid}/clone`, { to_project_id: target.id })).body;
    const moved = (await s.post(`/projects/${source.id}/issues/${old.iid}/move`, { to_project_id: target.id })).body;
    // The old issue's to-dos stay with it, done once the move closes it.
    expect(await todosOf(assignee.token)).toEqual([[moved.id, 'assigned', 1], [clone.id, 'assigned', 1]]);
    expect(await todosOf(mentioned.token)).toEqual([[moved.id, 'mentioned', 1], [clone.id, 'mentioned', 1]]);
    // The caller's own assignment makes none.
    const mine = (await s.post(`/projects/${source.id}/issues`, { title: 'mine', assignee_ids: [1] })).body;
    await s.post(`/projects/${source.id}/issues/${mine.iid}/clone`, { to_project_id: target.id });
    expect((await s.get('/todos')).body.filter((t: { target: { title: string } }) => t.target.title === 'mine')).toEqual([]);
  });

  it('lists a copied label event only to those who may read its label, counted in the headers all the same (visible_to_user? after paginate)', async () => {
    const hidden = await s.createProject({ name: 'hidden-labels', visibility: 'private' });
    const open = await s.createProject({ name: 'open-target', visibility: 'public' });
    await s.post(`/projects/${hidden.id}/labels`, { name: 'secret', color: '#123456' });
    await s.post(`/projects/${open.id}/labels`, { name: 'plain', color: '#654321' });
    const old = (await s.post(`/projects/${hidden.id}/issues`, { title: 'out of hiding', labels: 'secret' })).body;
    const moved = (await s.post(`/projects/${hidden.id}/issues/${old.iid}/move`, { to_project_id: open.id })).body;
    await s.put(`/projects/${open.id}/issues/${moved.iid}`, { add_labels: 'plain' });
    const [secret, plain] = [await labelId(hidden.id, 'secret'), await labelId(open.id, 'plain')];
    const path = `/projects/${open.id}/issues/${moved.iid}/resource_label_events`;
    const mine = (await s.get(path)).body as { id: number; label: { id: number }; action: string }[];
    expect(mine.map((e) => [e.label.id, e.action])).toEqual([[secret, 'remove'], [secret, 'add'], [plain, 'add']]);
    // An outsider reads the public issue, not the private project's label: its events are left out of the page, not the count.
    const outsider = await s.createUser();
    const theirs = await s.get(path, { token: outsider.token });
    expect(theirs.status).toBe(200);
    expect(theirs.body.map((e: { label: { id: number } }) => e.label.id)).toEqual([plain]);
    expect(theirs.headers.get('x-total')).toBe('3');
    const one = await s.get(`${path}/${mine[0].id}`, { token: outsider.token });
    expect([one.status, one.body]).toEqual([404, { message: '404 ResourceLabelEvent Not Found' }]);
    expect((await s.get(`${path}/${mine[2].id}`, { token: outsider.token })).body.label.id).toBe(plain);
    expect((await s.get(`${path}/${mine[0].id}`)).body.label.id).toBe(secret);
  });

  it('takes the target\'s milestone of its title as MilestonesFinder orders them: the earliest due date (none last), then the newest', async () => {
    const far = await s.createGroup({ path: 'far-group' });
    const near = await s.createGroup({ path: 'near-group' });
    const sub = await s.createGroup({ path: 'sub', parent_id: near.id });
    const from = await s.createProject({ name: 'far-source', namespace_id: far.id });
    const to = await s.createProject({ name: 'near-target', namespace_id: sub.id });
    // In the target's reach (its own and its groups' above: titles are unique only beside the project's own group):
    // its own v7, then the top group's, neither due; its own v8 due after the top group's.
    const ownV7 = (await s.post(`/projects/${to.id}/milestones`, { title: 'v7' })).body;
    const topV7 = (await s.post(`/groups/${near.id}/milestones`, { title: 'v7' })).body;
    const ownV8 = (await s.post(`/projects/${to.id}/milestones`, { title: 'v8', due_date: '2031-01-01' })).body;
    const topV8 = (await s.post(`/groups/${near.id}/milestones`, { title: 'v8', due_date: '2030-06-01' })).body;
    for (const [title, found, ownId] of [['v7', topV7.id, ownV7.id], ['v8', topV8.id, ownV8.id]]) {
      const was = (await s.post(`/projects/${from.id}/milestones`, { title })).body;
      const old = (await s.post(`/projects/${from.id}/issues`, { title: `on ${title}`, milestone_id: was.id })).body;
      const moved = (await s.post(`/projects/${from.id}/issues/${old.iid}/move`, { to_project_id: to.id })).body;
      expect([title, moved.milestone.id]).toEqual([title, found]);
      // Its event's milestone is looked for in the project and its own group only (CopyResourceEventsService#matching_milestone).
      expect((await milestoneEvents(to.id, moved.iid)).map((e: unknown[]) => [e[0], e[1]])).toEqual([[ownId, 'add']]);
    }
  });

  it('puts a clone in its original\'s epic beside it, where it stands (the hierarchy widget\'s handle_parent)', async () => {
    const epic = (await s.post(`/groups/${group.id}/epics`, { title: 'the clones\' epic' })).body;
    const inEpic = (await s.post(`/projects/${source.id}/issues`, { title: 'in an epic' })).body;
    const alone = (await s.post(`/projects/${source.id}/issues`, { title: 'in no epic' })).body;
    expect((await s.post(`/groups/${group.id}/epics/${epic.iid}/issues/${inEpic.id}`)).status).toBe(201);
    // Read once before, so what a list keeps must learn of the clone.
    expect((await s.get(`/projects/${target.id}/issues?epic_id=${epic.id}`)).body).toEqual([]);
    expect((await s.get(`/groups/${group.id}/issues?epic_id=${epic.id}`)).body.map((i: { id: number }) => i.id)).toEqual([inEpic.id]);
    const clone = (await s.post(`/projects/${source.id}/issues/${inEpic.iid}/clone`, { to_project_id: target.id })).body;
    const loneClone = (await s.post(`/projects/${source.id}/issues/${alone.iid}/clone`, { to_project_id: target.id })).body;
    const links = (await s.get(`/groups/${group.id}/epics/${epic.iid}/issues`)).body as { id: number; relative_position: number }[];
    expect(links.map((i) => i.id)).toEqual([inEpic.id, clone.id]);
    expect(links[1].relative_position).toBe(links[0].relative_position);
    expect((await s.get(`/projects/${target.id}/issues?epic_id=${epic.id}`)).body.map((i: { id: number }) => i.id)).toEqual([clone.id]);
    expect((await s.get(`/groups/${group.id}/issues?epic_id=${epic.id}`)).body.map((i: { id: number }) => i.id)).toEqual([clone.id, inEpic.id]);
    expect((await s.get(`/projects/${target.id}/issues?epic_id=None&search=in no epic`)).body.map((i: { id: number }) => i.id)).toEqual([loneClone.id]);
    // Into a project outside the epic's group too: the epic-issue hierarchy restriction allows a child across
    // hierarchies (cross_hierarchy_enabled), so the parent link is valid and the clone joins the epic.
    const far = (await s.post(`/projects/${source.id}/issues/${inEpic.iid}/clone`, { to_project_id: elsewhere.id })).body;
    expect((await s.get(`/groups/${group.id}/epics/${epic.iid}/issues`)).body.map((i: { id: number }) => i.id)).toEqual([inEpic.id, clone.id, far.id]);
    expect((await s.get(`/projects/${elsewhere.id}/issues?epic_id=${epic.id}`)).body.map((i: { id: number }) => i.id)).toEqual([far.id]);
  });
});
