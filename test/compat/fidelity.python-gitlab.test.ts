import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, runPython, startServe } from './harness';

let served: Served;
beforeAll(async () => {
  served = await startServe();
});
afterAll(async () => served?.stop());

describe('python-gitlab 3.12: feature access levels, internal notes in participants, group label priorities', () => {
  it("a project's issues private and merge requests disabled: an outsider's empty issue list, 403s", () => {
    const out = runPython(
      served,
      `
g = gl.groups.create({"name": "fid", "path": "fid", "visibility": "public"})
p = gl.projects.create({"name": "fid-features", "namespace_id": g.id, "visibility": "public"})
p.issues.create({"title": "hidden"})
p.issues_access_level = "private"
p.merge_requests_access_level = "disabled"
p.save()
u = gl.users.create({"email": "out@example.com", "username": "outsider", "name": "Out", "password": "password1234"})
tok = u.personal_access_tokens.create({"name": "t", "scopes": ["api"]})
o = gitlab.Gitlab(gl.url, private_token=tok.token)
op = o.projects.get(p.id, lazy=True)
issues = [i.title for i in op.issues.list()]
group_issues = [i.title for i in o.groups.get(g.id, lazy=True).issues.list()]
try:
    op.mergerequests.list()
    mrs = None
except gitlab.GitlabListError as e:
    mrs = e.response_code
try:
    op.issues.create({"title": "x"})
    created = None
except gitlab.GitlabCreateError as e:
    created = e.response_code
try:
    op.issues.get(1)
    one = None
except gitlab.GitlabGetError as e:
    one = e.response_code
root_issues = [i.title for i in p.issues.list()]
print(json.dumps({"issues": issues, "group": group_issues, "mrs": mrs, "created": created, "one": one, "root": root_issues, "flags": [p.issues_enabled, p.merge_requests_enabled]}))
`,
    );
    expect(out).toEqual({ issues: [], group: [], mrs: 403, created: 403, one: 404, root: ['hidden'], flags: [true, false] });
  });

  it("participants leave out users mentioned in internal notes who cannot read them; a promoted label's priority stays in its project", () => {
    const out = runPython(
      served,
      `
g = gl.groups.create({"name": "fid2", "path": "fid2"})
p = gl.projects.create({"name": "fid-labels", "namespace_id": g.id})
other = gl.projects.create({"name": "fid-other", "namespace_id": g.id})
planner = gl.users.create({"email": "pl@example.com", "username": "planner1", "name": "Pl", "password": "password1234"})
stranger = gl.users.create({"email": "st@example.com", "username": "stranger1", "name": "St", "password": "password1234"})
p.members.create({"user_id": planner.id, "access_level": 15})
issue = p.issues.create({"title": "who"})
issue.notes.create({"body": "ask @planner1 and @stranger1", "internal": True})
who = [x["username"] for x in issue.participants()]
label = p.labels.create({"name": "lifted", "color": "#0000FF", "priority": 3})
label.promote()
mine = [(l.name, l.priority, l.is_project_label) for l in p.labels.list() if l.name == "lifted"]
theirs = [(l.name, l.priority) for l in other.labels.list() if l.name == "lifted"]
print(json.dumps({"who": who, "mine": mine, "theirs": theirs}))
`,
    );
    expect(out.who).toEqual(['root', 'planner1']);
    expect(out.mine).toEqual([['lifted', 3, false]]);
    expect(out.theirs).toEqual([['lifted', null]]);
  });
});

describe("python-gitlab 3.12: what its own functional tests (v3.12.0's tests/functional/api) found", () => {
  it('a branch from main on a new empty project; an issue\'s user agent detail; label promote as a group Planner, not a project Maintainer', () => {
    const out = runPython(
      served,
      `
g = gl.groups.create({"name": "fid16", "path": "fid16"})
p = gl.projects.create({"name": "fid16-empty", "namespace_id": g.id})
b = p.branches.create({"branch": "my.branch.name", "ref": "main"})
readme = p.files.raw(file_path="README.md", ref="main")
issue = p.issues.create({"title": "my issue 1"})
detail = issue.user_agent_detail()
def user(name):
    u = gl.users.create({"email": name + "@example.com", "username": name, "name": name, "password": "password1234"})
    return u, gitlab.Gitlab(gl.url, private_token=u.personal_access_tokens.create({"name": "t", "scopes": ["api"]}).token)
maint, maint_gl = user("fid16-maintainer")
planner, planner_gl = user("fid16-planner")
p.members.create({"user_id": maint.id, "access_level": 40})
g.members.create({"user_id": planner.id, "access_level": 15})
p.labels.create({"name": "to-promote", "color": "#112233"})
try:
    maint_gl.projects.get(p.id, lazy=True).labels.get("to-promote").promote()
    refused = None
except gitlab.GitlabPromoteError as e:
    refused = e.response_code
planner_gl.projects.get(p.id, lazy=True).labels.get("to-promote").promote()
print(json.dumps({
    "branch": b.name, "readme": readme.decode(), "default": gl.projects.get(p.id).default_branch,
    "ua": detail["user_agent"].startswith("python-gitlab/"), "ip": detail["ip_address"],
    "refused": refused, "group_labels": [l.name for l in g.labels.list()],
}))
`,
    );
    expect(out).toEqual({ branch: 'my.branch.name', readme: '', default: 'main', ua: true, ip: '127.0.0.1', refused: 403, group_labels: ['to-promote'] });
  });
});

describe('python-gitlab 3.12: issue.move() and a clone', () => {
  it('moves an issue (the object becomes the new issue; the old one closed with moved_to_id), refuses its own project, clones with notes', () => {
    const out = runPython(
      served,
      `
g = gl.groups.create({"name": "fid26", "path": "fid26"})
a = gl.projects.create({"name": "fid-move-a", "namespace_id": g.id})
b = gl.projects.create({"name": "fid-move-b", "namespace_id": g.id})
for p in (a, b):
    p.labels.create({"name": "bug", "color": "#FF0000"})
issue = a.issues.create({"title": "travels", "labels": ["bug"]})
issue.notes.create({"body": "a comment"})
old_iid = issue.iid
try:
    issue.move(a.id)
    same = None
except gitlab.GitlabUpdateError as e:
    same = [e.response_code, e.error_message]
issue.move(b.id)
moved = [issue.project_id, issue.iid, issue.title, issue.labels, issue.state]
notes = [n.body for n in b.issues.get(issue.iid).notes.list(sort="asc") if not n.system]
old = a.issues.get(old_iid)
clone = gl.http_post(f"/projects/{b.id}/issues/{issue.iid}/clone", post_data={"to_project_id": a.id, "with_notes": True})
cloned_notes = [n.body for n in a.issues.get(clone["iid"]).notes.list(sort="asc") if not n.system]
print(json.dumps({"same": same, "moved": moved, "notes": notes, "old": [old.state, old.moved_to_id == issue.id], "clone": [clone["project_id"] == a.id, clone["title"], cloned_notes]}))
`,
    );
    expect(out.same).toEqual([400, 'Cannot move issue to project it originates from!']);
    expect(out.moved.slice(1)).toEqual([1, 'travels', ['bug'], 'opened']);
    expect(out.notes).toEqual(['a comment']);
    expect(out.old).toEqual(['closed', true]);
    expect(out.clone).toEqual([true, 'travels', ['a comment']]);
  });
});
