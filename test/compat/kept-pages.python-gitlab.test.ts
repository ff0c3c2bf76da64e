import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, runPython, startServe } from './harness';

// Pages of issues, merge requests, milestone issues, snippets, events and notes are kept whole between writes
// (unchangedPage) and handed out again while what they show reads the same. A real client, reading each list before
// and after a write of every kind the list shows (the users, milestones, counts, paths and branches it embeds),
// sees what the records' own GETs say.
let served: Served;
beforeAll(async () => {
  served = await startServe();
});
afterAll(async () => served?.stop());

describe('python-gitlab 3.12: lists follow every write they show', () => {
  it('issues, merge requests, milestone issues, snippets, events and notes after renames, counts, paths and pushes', () => {
    const out = runPython(
      served,
      `
import subprocess, tempfile
checks = {}
u = gl.users.create({"username": "alice", "name": "Alice A", "email": "alice@example.org", "password": "x" * 12, "skip_confirmation": True})
g = gl.groups.create({"name": "grp", "path": "grp"})
p = gl.projects.create({"name": "proj", "namespace_id": g.id, "initialize_with_readme": True})
p.members.create({"user_id": u.id, "access_level": 30})
other = gl.projects.create({"name": "other"})
ms = p.milestones.create({"title": "v1"})
for i in range(5):
    p.issues.create({"title": f"i{i}", "milestone_id": ms.id, "assignee_ids": [u.id], "labels": ["bug"]})
for i in range(3):
    p.branches.create({"branch": f"b{i}", "ref": "main"})
    p.files.create({"file_path": f"f{i}.txt", "branch": f"b{i}", "content": "x", "commit_message": "c"})
    p.mergerequests.create({"source_branch": f"b{i}", "target_branch": "main", "title": f"m{i}", "assignee_ids": [u.id], "milestone_id": ms.id})

def lists():
    return (p.issues.list(per_page=3, page=1, get_all=False), p.mergerequests.list(per_page=2, get_all=False),
            ms.issues(per_page=3, get_all=False))

lists(); lists(); other.issues.create({"title": "elsewhere"}); lists()
gu = gl.users.get(u.id); gu.name = "Alice B"; gu.save()
iss, mrl, msi = lists()
checks["assignee renamed"] = [x.assignees[0]["name"] for x in list(iss) + list(mrl) + list(msi)]
ms.title = "v1.1"; ms.save(); iss, mrl, msi = lists()
checks["milestone renamed"] = [x.milestone["title"] for x in list(iss) + list(mrl)]
top = p.issues.get(iss[0].iid); top.awardemojis.create({"name": "thumbsup"}); top.notes.create({"body": "hi"})
iss, mrl, msi = lists(); t = [x for x in iss if x.iid == top.iid][0]
checks["issue counts"] = [t.upvotes, t.user_notes_count]
pm = p.mergerequests.get(mrl[0].iid); pm.notes.create({"body": "n"}); pm.awardemojis.create({"name": "thumbsdown"})
iss, mrl, msi = lists(); m0 = [x for x in mrl if x.iid == pm.iid][0]
checks["MR counts"] = [m0.user_notes_count, m0.downvotes]
p.path = "proj2"; p.save()
gg = gl.groups.get(g.id); gg.path = "grp2"; gg.save(); iss, mrl, msi = lists()
checks["paths"] = sorted({x.web_url.split("/-/")[0].split("/", 3)[3] for x in list(iss) + list(msi)} | {x.references["full"].split("!")[0] for x in mrl})
ed = p.issues.get(iss[1].iid); ed.title = "renamed"; ed.labels = ["bug", "x"]; ed.state_event = "close"; ed.save()
iss, mrl, msi = lists(); t = [x for x in iss if x.iid == ed.iid][0]
checks["issue edited"] = [t.title, sorted(t.labels), t.state]

p.files.create({"file_path": "new.txt", "branch": "b0", "content": "y", "commit_message": "more"})
d = tempfile.mkdtemp()
remote = os.environ["GL_URL"].replace("http://", "http://root:" + os.environ["GL_TOKEN"] + "@") + "/grp2/proj2.git"
subprocess.run(f"git clone -q {remote} {d}/c && cd {d}/c && git checkout -q b1 && echo z > z.txt && git add z.txt"
               " && git -c user.name=a -c user.email=a@example.org commit -qm push && git push -q origin b1",
               shell=True, check=True, capture_output=True, env=dict(os.environ, GIT_TERMINAL_PROMPT="0"))
p.files.create({"file_path": "f2.txt", "branch": "main", "content": "conflict", "commit_message": "main change"})
checks["MR heads"] = sorted([m.sha == p.branches.get(m.source_branch).commit["id"], m.has_conflicts]
                            for m in p.mergerequests.list(get_all=True))

root = gl.users.get(1); root.name = "Root Renamed"; root.save()
p.snippets.create({"title": "sn", "file_name": "a.txt", "content": "x", "visibility": "private"})
p.snippets.list(get_all=True); other.issues.create({"title": "elsewhere again"})
root = gl.users.get(1); root.name = "Root Again"; root.save()
checks["authors"] = sorted({x.author["name"] for x in p.snippets.list(get_all=True)}
                           | {x.author["name"] for x in p.issues.list(get_all=True)}
                           | {x.author["name"] for x in p.events.list(get_all=True) if x.author_id == 1}
                           | {x.author["name"] for x in ed.notes.list(get_all=True) if x.author["id"] == 1})

differ = []
for x in p.issues.list(get_all=True):
    one = p.issues.get(x.iid).attributes
    differ += [f"issue {x.iid} {k}" for k in one if k in x.attributes and one[k] != x.attributes[k]]
for x in p.mergerequests.list(get_all=True):
    one = p.mergerequests.get(x.iid).attributes
    differ += [f"MR {x.iid} {k}" for k in x.attributes if k in one and one[k] != x.attributes[k]]
checks["list fields unlike GET"] = differ
print(json.dumps(checks))
`,
    );
    // milestone.issues() walks every page (python-gitlab's RESTObjectList): all five of the milestone's issues.
    expect(out['assignee renamed']).toEqual(Array(3 + 2 + 5).fill('Alice B'));
    expect(out['milestone renamed']).toEqual(Array(3 + 2).fill('v1.1'));
    expect(out['issue counts']).toEqual([1, 1]);
    expect(out['MR counts']).toEqual([1, 1]);
    expect(out.paths).toEqual(['grp2/proj2']);
    expect(out['issue edited']).toEqual(['renamed', ['bug', 'x'], 'closed']);
    expect(out['MR heads']).toEqual([
      [true, false],
      [true, false],
      [true, true],
    ]);
    expect(out.authors).toEqual(['Root Again']);
    expect(out['list fields unlike GET']).toEqual([]);
  });
});
