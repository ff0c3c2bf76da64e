import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, runPython, startServe } from './harness';

let served: Served;
beforeAll(async () => {
  served = await startServe();
});
afterAll(async () => served?.stop());

describe('python-gitlab 3.12: labels, epics and SAML group links', () => {
  it("runs python-gitlab's group label flow unchanged", () => {
    const out = runPython(
      served,
      `
group = gl.groups.create({"name": "label-group", "path": "label-group"})
label = group.labels.create({"name": "foo", "description": "bar", "color": "#112233"})
got = group.labels.get("foo")
desc1 = got.description
label.description = "baz"
label.save()
desc2 = group.labels.get("foo").description
listed = label in group.labels.list()
label.new_name = "Label:that requires:encoding"
label.save()
renamed = label.name
again = group.labels.get("Label:that requires:encoding")
label.subscribe()
subscribed = label.subscribed
label.unsubscribe()
unsubscribed = label.subscribed
try:
    label.unsubscribe()
    not_modified = False
except gitlab.exceptions.GitlabUnsubscribeError as e:
    not_modified = e.response_code == 304
label.delete()
remaining = [l.name for l in group.labels.list()]
print(json.dumps({"desc1": desc1, "desc2": desc2, "listed": listed, "renamed": renamed, "again": again.name,
                  "subscribed": subscribed, "unsubscribed": unsubscribed, "not_modified": not_modified, "remaining": remaining}))
`,
    );
    expect(out).toEqual({
      desc1: 'bar',
      desc2: 'baz',
      listed: true,
      renamed: 'Label:that requires:encoding',
      again: 'Label:that requires:encoding',
      subscribed: true,
      unsubscribed: false,
      not_modified: true,
      remaining: [],
    });
  });

  it("runs python-gitlab's project label flow unchanged", () => {
    const out = runPython(
      served,
      `
project = gl.projects.create({"name": "label-project"})
label = project.labels.create({"name": "label", "color": "#778899"})
labels = project.labels.list()
same = project.labels.get("label") == labels[0]
label.new_name = "Label:that requires:encoding"
label.save()
got = project.labels.get("Label:that requires:encoding")
got.subscribe()
sub = got.subscribed
got.unsubscribe()
unsub = got.subscribed
got.delete()
print(json.dumps({"count": len(labels), "same": same, "name": got.name, "sub": sub, "unsub": unsub, "left": len(project.labels.list())}))
`,
    );
    expect(out).toEqual({ count: 1, same: true, name: 'Label:that requires:encoding', sub: true, unsub: false, left: 0 });
  });

  it("runs python-gitlab's epic and epic notes flows unchanged", () => {
    const out = runPython(
      served,
      `
group = gl.groups.create({"name": "epic-group", "path": "epic-group"})
epic = group.epics.create({"title": "Test epic"})
epic.title = "Fixed title"
epic.labels = ["label1", "label2"]
epic.save()
got = group.epics.get(epic.iid)
listed = len(group.epics.list())
notes_before = len(epic.notes.list())
epic.notes.create({"body": "Test note"})
notes_after = len(epic.notes.list())
epic.delete()
try:
    group.epics.get(epic.iid)
    gone = False
except gitlab.exceptions.GitlabGetError:
    gone = True
print(json.dumps({"title": got.title, "labels": got.labels, "listed": listed, "before": notes_before, "after": notes_after, "gone": gone}))
`,
    );
    expect(out).toEqual({ title: 'Fixed title', labels: ['label1', 'label2'], listed: 1, before: 0, after: 1, gone: true });
  });

  it("reads an epic's resource label events through python-gitlab", () => {
    const out = runPython(
      served,
      `
group = gl.groups.create({"name": "epic-events-group", "path": "epic-events-group"})
epic = group.epics.create({"title": "Labelled", "labels": ["one"]})
epic.labels = ["two"]
epic.save()
events = epic.resourcelabelevents.list()
first = epic.resourcelabelevents.get(events[0].id)
print(json.dumps({"events": [[e.action, e.label["name"]] for e in events], "first": first.action, "type": first.resource_type}))
`,
    );
    expect(out).toEqual({
      events: [
        ['add', 'one'],
        ['add', 'two'],
        ['remove', 'one'],
      ],
      first: 'add',
      type: 'Epic',
    });
  });

  it("runs python-gitlab's epic issues flow", () => {
    const out = runPython(
      served,
      `
group = gl.groups.create({"name": "epic-issue-group", "path": "epic-issue-group"})
project = gl.projects.create({"name": "epic-issue-project", "namespace_id": group.id})
issue = project.issues.create({"title": "in an epic"})
epic = group.epics.create({"title": "Epic with issues"})
empty = len(epic.issues.list())
epic_issue = epic.issues.create({"issue_id": issue.id})
listed = [i.id for i in epic.issues.list()]
epic_issue.delete()
print(json.dumps({"empty": empty, "listed": listed, "after": len(epic.issues.list()), "issue": issue.id}))
`,
    );
    expect(out).toEqual({ empty: 0, listed: [out.issue], after: 0, issue: out.issue });
  });

  it("runs python-gitlab's SAML group link flow unchanged", () => {
    const out = runPython(
      served,
      `
group = gl.groups.create({"name": "saml-group", "path": "saml-group"})
link = group.saml_group_links.create({"saml_group_name": "saml-group-1", "access_level": 10})
listed = [l.name for l in group.saml_group_links.list()]
got = group.saml_group_links.get("saml-group-1")
got.delete()
print(json.dumps({"name": link.name, "level": link.access_level, "listed": listed, "got": got.access_level,
                  "left": len(group.saml_group_links.list())}))
`,
    );
    expect(out).toEqual({ name: 'saml-group-1', level: 10, listed: ['saml-group-1'], got: 10, left: 0 });
  });
});
