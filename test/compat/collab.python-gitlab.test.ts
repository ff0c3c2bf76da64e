import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, runPython, startServe } from './harness';

let served: Served;
beforeAll(async () => {
  served = await startServe();
});
afterAll(async () => served?.stop());

/** A second python-gitlab connection as a fresh user (`as_user`), created by root. */
const userPrelude = (name: string) => `
u = gl.users.create({"email": "${name}@example.com", "username": "${name}", "name": "${name}", "password": "password123"})
t = u.personal_access_tokens.create({"name": "compat", "scopes": ["api"]})
as_user = gitlab.Gitlab(os.environ["GL_URL"], private_token=t.token)
as_user.auth()
`;

describe('python-gitlab 3.12: review and collaboration flows', () => {
  it('access requests: create, list, approve, and delete', () => {
    const out = runPython(
      served,
      `${userPrelude('requester')}
p = gl.projects.create({"name": "ar-project", "visibility": "internal"})
g = gl.groups.create({"name": "ar-group", "path": "ar-group", "visibility": "internal"})
mine = as_user.projects.get(p.id).accessrequests.create({})
as_user.groups.get(g.id).accessrequests.create({})
listed = [r.username for r in p.accessrequests.list()]
ar = p.accessrequests.list()[0]
ar.approve(access_level=20)
member = p.members.get(u.id)
g.accessrequests.delete(u.id)
print(json.dumps({"created": mine.username, "listed": listed, "approved": ar.access_level, "member": member.access_level,
                  "group_left": [r.username for r in g.accessrequests.list()]}))
`,
    );
    expect(out).toEqual({ created: 'requester', listed: ['requester'], approved: 20, member: 20, group_left: [] });
  });

  it('invitations: create, list, update, delete and the error status', () => {
    const out = runPython(
      served,
      `
p = gl.projects.create({"name": "inv-project"})
p.invitations.create({"email": "a@example.org,b@example.org", "access_level": 30})
invs = p.invitations.list()
# The Invitation entity has no "email" (python-gitlab's id attribute), so updates go by e-mail.
updated = p.invitations.update("a@example.org", {"access_level": 40})
after = {i.invite_email: i.access_level for i in p.invitations.list()}
try:
    p.invitations.create({"email": "a@example.org", "access_level": 30})
    raised = None
except gitlab.exceptions.GitlabInvitationError as e:
    raised = str(e)
p.invitations.delete("b@example.org")
left = [i.invite_email for i in p.invitations.list()]
g = gl.groups.create({"name": "inv-group", "path": "inv-group"})
g.invitations.create({"email": "c@example.org", "access_level": 10})
print(json.dumps({"emails": sorted(i.invite_email for i in invs), "updated": updated["access_level"], "after": after, "raised": raised, "left": left,
                  "group": [i.invite_email for i in g.invitations.list()]}))
`,
    );
    expect(out.emails).toEqual(['a@example.org', 'b@example.org']);
    expect(out.updated).toBe(40);
    expect(out.after).toEqual({ 'a@example.org': 40, 'b@example.org': 30 });
    expect(out.raised).toContain('Invite email has already been taken');
    expect(out.left).toEqual(['a@example.org']);
    expect(out.group).toEqual(['c@example.org']);
  });

  it('notification settings: global, group and project levels', () => {
    const out = runPython(
      served,
      `
ns = gl.notificationsettings.get()
before = ns.level
ns.level = "watch"
ns.save()
g = gl.groups.create({"name": "ns-group", "path": "ns-group"})
gs = g.notificationsettings.get()
gs.level = "disabled"
gs.save()
p = gl.projects.create({"name": "ns-project"})
ps = p.notificationsettings.get()
ps.level = "custom"
ps.save()
ps.new_note = True
ps.save()
print(json.dumps({"before": before, "global": gl.notificationsettings.get().level, "group": g.notificationsettings.get().level,
                  "project": p.notificationsettings.get().events}))
`,
    );
    expect(out.before).toBe('participating');
    expect(out.global).toBe('watch');
    expect(out.group).toBe('disabled');
    expect(out.project.new_note).toBe(true);
    expect(Object.keys(out.project)).toHaveLength(20);
  });

  it('events: gl.events, project.events and user.events', () => {
    const out = runPython(
      served,
      `${userPrelude('eventful')}
fresh = u.events.list()
p = as_user.projects.create({"name": "ev-project"})
issue = p.issues.create({"title": "Evented"})
issue.notes.create({"body": "a comment"})
mine = [(e.action_name, e.target_type) for e in as_user.events.list(get_all=True)]
proj = [e.action_name for e in gl.projects.get(p.id).events.list(action="commented")]
usr = [e.action_name for e in gl.users.get(u.id).events.list(target_type="issue")]
print(json.dumps({"fresh": [e.id for e in fresh], "mine": mine, "project": proj, "user": usr, "root": isinstance(gl.events.list(), list)}))
`,
    );
    expect(out.fresh).toEqual([]);
    expect(out.mine).toEqual([
      ['commented on', 'Note'],
      ['opened', 'Issue'],
      ['created', null],
    ]);
    expect(out.project).toEqual(['commented on']);
    expect(out.user).toEqual(['opened']);
    expect(out.root).toBe(true);
  });

  it('issue and merge request discussions as python-gitlab\'s functional tests drive them', () => {
    const out = runPython(
      served,
      `
p = gl.projects.create({"name": "disc-project"})
issue = p.issues.create({"title": "Discuss"})
mr = p.mergerequests.create({"source_branch": "feature", "target_branch": "main", "title": "Discuss MR"})
result = {}
for name, parent in (("issue", issue), ("mr", mr)):
    size = len(parent.discussions.list())
    discussion = parent.discussions.create({"body": "Discussion body"})
    grew = len(parent.discussions.list()) == size + 1
    d_note = discussion.notes.create({"body": "first note"})
    d_note_from_get = discussion.notes.get(d_note.id)
    d_note_from_get.body = "updated body"
    d_note_from_get.save()
    discussion = parent.discussions.get(discussion.id)
    last = discussion.attributes["notes"][-1]["body"]
    d_note_from_get.delete()
    discussion = parent.discussions.get(discussion.id)
    result[name] = {"grew": grew, "last": last, "left": len(discussion.attributes["notes"])}
discussion = mr.discussions.list()[0]
discussion.resolved = True
discussion.save()
result["resolved"] = mr.discussions.get(discussion.id).attributes["notes"][0]["resolved"]
print(json.dumps(result))
`,
    );
    expect(out.issue).toEqual({ grew: true, last: 'updated body', left: 1 });
    expect(out.mr).toEqual({ grew: true, last: 'updated body', left: 1 });
    expect(out.resolved).toBe(true);
  });
});
