import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, runPython, startServe } from './harness';

let served: Served;
beforeAll(async () => {
  served = await startServe();
});
afterAll(async () => served?.stop());

describe('python-gitlab 3.12 against a live Sandlab', () => {
  it('auth() and version()', () => {
    const out = runPython(
      served,
      `print(json.dumps({"user": gl.user.username, "version": gl.version()}))`,
    );
    expect(out.user).toBe('root');
    expect(out.version[0]).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('groups and projects CRUD with encoded paths', () => {
    const out = runPython(
      served,
      `
g = gl.groups.create({"name": "Compat Group", "path": "compat-group"})
sub = gl.groups.create({"name": "Sub", "path": "sub", "parent_id": g.id})
p = gl.projects.create({"name": "Compat Project", "namespace_id": sub.id})
got = gl.projects.get("compat-group/sub/compat-project")
got.description = "changed"
got.save()
again = gl.projects.get(p.id)
g.description = "group desc"
g.save()
subgroups = [x.path for x in g.subgroups.list()]
projects = [x.path for x in sub.projects.list()]
gl.projects.delete(p.id)
try:
    gl.projects.get(p.id)
    gone = False
except gitlab.exceptions.GitlabGetError as e:
    gone = e.response_code == 404
print(json.dumps({"path": got.path_with_namespace, "desc": again.description, "group_desc": gl.groups.get(g.id).description,
                  "subgroups": subgroups, "projects": projects, "gone": gone}))
`,
    );
    expect(out).toEqual({
      path: 'compat-group/sub/compat-project',
      desc: 'changed',
      group_desc: 'group desc',
      subgroups: ['sub'],
      projects: ['compat-project'],
      gone: true,
    });
  });

  it('list(get_all=True) and iterator=True walk every page without warnings', () => {
    const out = runPython(
      served,
      `
for i in range(25):
    gl.projects.create({"name": f"paged-{i:02d}"})
all_items = gl.projects.list(get_all=True, per_page=7)
it = gl.projects.list(iterator=True, per_page=10)
iter_ids = [p.id for p in it]
page2 = gl.projects.list(per_page=1, page=2)
print(json.dumps({"all": len(all_items), "iter": len(iter_ids), "unique": len(set(iter_ids)), "total": it.total, "page2": len(page2)}))
`,
    );
    expect(out.all).toBeGreaterThanOrEqual(25);
    expect(out.iter).toBe(out.all);
    expect(out.unique).toBe(out.iter);
    expect(out.total).toBe(out.all);
    expect(out.page2).toBe(1);
  });

  it('members, issues, merge requests and notes', () => {
    const out = runPython(
      served,
      `
u = gl.users.create({"username": "compat-dev", "name": "Dev", "email": "dev@example.com", "password": "password1234"})
p = gl.projects.create({"name": "work"})
m = p.members.create({"user_id": u.id, "access_level": 30})
m.access_level = 40
m.save()
level = p.members.get(u.id).access_level
all_members = sorted(x.username for x in p.members_all.list(get_all=True))
issue = p.issues.create({"title": "Bug", "labels": ["bug", "ui"]})
issue.state_event = "close"
issue.save()
closed = p.issues.get(issue.iid).state
note = issue.notes.create({"body": "first!"})
note.body = "edited"
note.save()
notes = [n.body for n in issue.notes.list()]
mr = p.mergerequests.create({"source_branch": "feature", "target_branch": "main", "title": "Feature"})
mr_got = p.mergerequests.get(mr.iid)
mr_note = mr.notes.create({"body": "LGTM"})
mr.state_event = "close"
mr.save()
p.members.delete(u.id)
print(json.dumps({"level": level, "all": all_members, "closed": closed, "labels": issue.labels, "notes": notes,
                  "diff_refs": sorted(mr_got.diff_refs.keys()), "mr_state": p.mergerequests.get(mr.iid).state,
                  "members_after": [x.username for x in p.members.list()]}))
`,
    );
    expect(out.level).toBe(40);
    expect(out.all).toEqual(['compat-dev', 'root']);
    expect(out.closed).toBe('closed');
    expect(out.labels).toEqual(['bug', 'ui']);
    expect(out.notes).toEqual(['edited']);
    expect(out.diff_refs).toEqual(['base_sha', 'head_sha', 'start_sha']);
    expect(out.mr_state).toBe('closed');
    expect(out.members_after).toEqual(['root']);
  });
});
