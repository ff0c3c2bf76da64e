import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, runPython, startServe } from './harness';

/**
 * python-gitlab 3.12 through the flows its own functional tests use around the core (namespaces,
 * milestones, issues' sub-resources, award emoji, variables, users as admins manage them, topics).
 */
let served: Served;
beforeAll(async () => {
  served = await startServe();
});
afterAll(async () => served?.stop());

describe('python-gitlab 3.12: core breadth', () => {
  it('namespaces: list, search, get by path, exists', () => {
    const out = runPython(
      served,
      `
g = gl.groups.create({"name": "ns-group", "path": "ns-group"})
me = gl.user.username
found = gl.namespaces.list(search=me)
ns = gl.namespaces.get(me)
group_ns = gl.namespaces.get("ns-group")
exists = gl.namespaces.exists("ns-group")
missing = gl.namespaces.exists("nothing-like-this")
print(json.dumps({"kind": found[0].kind, "path": ns.path, "group_kind": group_ns.kind, "exists": exists.exists,
                  "suggests": exists.suggests, "missing": missing.exists, "all": len(gl.namespaces.list(get_all=True)) >= 2}))
`,
    );
    expect(out).toEqual({ kind: 'user', path: 'root', group_kind: 'group', exists: true, suggests: ['ns-group1'], missing: false, all: true });
  });

  it('group milestones and project milestones on issues, with milestone events', () => {
    const out = runPython(
      served,
      `
import datetime
group = gl.groups.create({"name": "ms-group", "path": "ms-group"})
milestone = group.milestones.create({"title": "groupmilestone1"})
listed = milestone in group.milestones.list()
milestone.due_date = "2020-01-01T00:00:00Z"
milestone.save()
milestone.state_event = "close"
milestone.save()
milestone = group.milestones.get(milestone.id)
project = gl.projects.create({"name": "ms-project"})
pm = project.milestones.create({"title": "milestone-x"})
issue = project.issues.create({"title": "my issue 1", "milestone_id": pm.id})
first = pm.issues().next().title
events = issue.resourcemilestoneevents.list()
event = issue.resourcemilestoneevents.get(events[0].id)
filtered = issue in project.issues.list(milestone=pm.title)
print(json.dumps({"listed": listed, "state": milestone.state, "due": milestone.due_date, "issues": len(milestone.issues()),
                  "mrs": len(milestone.merge_requests()), "first": first, "event": [event.action, event.milestone["title"]], "filtered": filtered}))
`,
    );
    expect(out).toEqual({
      listed: true,
      state: 'closed',
      due: '2020-01-01',
      issues: 0,
      mrs: 0,
      first: 'my issue 1',
      event: ['add', 'milestone-x'],
      filtered: true,
    });
  });

  it('issues: participants, closed_by, related MRs, award emoji on notes, links, label events, subscribe, to-dos', () => {
    const out = runPython(
      served,
      `
project = gl.projects.create({"name": "issue-breadth"})
issue = project.issues.create({"title": "my issue 1"})
issue2 = project.issues.create({"title": "my issue 2"})
participants = [u["username"] for u in issue.participants()]
closed_by = issue.closed_by()
related = issue.related_merge_requests()
note = issue.notes.create({"body": "This is an issue note"})
emoji = note.awardemojis.create({"name": "tractor"})
emoji_listed = emoji in note.awardemojis.list()
emoji.delete()
upvote = issue.awardemojis.create({"name": "thumbsup"})
try:
    issue.awardemojis.create({"name": "thumbsup"})
    repeat = None
except gitlab.exceptions.GitlabCreateError as e:
    repeat = [e.response_code, e.error_message]
project.labels.create({"name": "label2", "color": "#aabbcc"})
issue.labels = ["label2"]
issue.save()
label_events = issue.resourcelabelevents.list()
label_event = issue.resourcelabelevents.get(label_events[0].id)
source, target = issue.links.create({"target_project_id": project.id, "target_issue_iid": issue2.iid})
links = issue.links.list()
issue.links.delete(links[0].issue_link_id)
issue.unsubscribe()
issue.subscribe()
todo = issue.todo()
todos = gl.todos.list()
todos[0].mark_as_done()
gl.todos.mark_all_as_done()
print(json.dumps({
  "participants": participants, "closed_by": closed_by, "related": related, "emoji_listed": emoji_listed,
  "upvotes": project.issues.get(issue.iid).upvotes, "repeat": repeat,
  "label_event": [label_event.action, label_event.label["name"]], "link": [source.iid, target.iid],
  "links_after": len(issue.links.list()), "subscribed": issue.subscribed,
  "todo": [todos[0].action_name, todos[0].target_type], "left": len(gl.todos.list()),
}))
`,
    );
    expect(out).toEqual({
      participants: ['root'],
      closed_by: [],
      related: [],
      emoji_listed: true,
      upvotes: 1,
      repeat: [404, '404 Award Emoji Name has already been taken Not Found'],
      label_event: ['add', 'label2'],
      link: [1, 2],
      links_after: 0,
      subscribed: true,
      todo: ['marked', 'Issue'],
      left: 0,
    });
  });

  it('variables: project, group and instance CRUD', () => {
    const out = runPython(
      served,
      `
project = gl.projects.create({"name": "vars"})
group = gl.groups.create({"name": "vars-group", "path": "vars-group"})
out = {}
for name, owner in (("project", project), ("group", group), ("instance", gl)):
    variable = owner.variables.create({"key": "key1", "value": "value1"})
    listed = variable in owner.variables.list()
    variable.value = "new_value1"
    variable.save()
    value = owner.variables.get(variable.key).value
    variable.delete()
    out[name] = [listed, value, len(owner.variables.list())]
print(json.dumps(out))
`,
    );
    expect(out).toEqual({ project: [true, 'new_value1', 0], group: [true, 'new_value1', 0], instance: [true, 'new_value1', 0] });
  });

  it('users: block, unblock, deactivate, activate, ban, unban, status, topics', () => {
    const out = runPython(
      served,
      `
new_user = gl.users.create({"email": "blocky@example.com", "username": "blocky", "name": "Blocky", "password": "E4596f8be406Bc3a14a4ccdb1df80587"})
steps = []
new_user.block(); steps.append(gl.users.get(new_user.id).state)
new_user.unblock(); steps.append(gl.users.get(new_user.id).state)
new_user.deactivate(); steps.append(gl.users.get(new_user.id).state)
new_user.activate(); steps.append(gl.users.get(new_user.id).state)
new_user.ban(); steps.append(gl.users.get(new_user.id).state)
new_user.unban(); steps.append(gl.users.get(new_user.id).state)
status = gl.user.status.get()
status.message = "Test"
status.emoji = "thumbsup"
status.save()
new_status = gl.user.status.get()
gl.projects.create({"name": "topical", "topics": ["demo"]})
topic = gl.topics.create({"name": "other-topic", "title": "Other"})
names = sorted(t.name for t in gl.topics.list())
topic.delete()
print(json.dumps({"steps": steps, "status": [new_status.message, new_status.emoji], "topics": names,
                  "blocked_filter": [u.username for u in gl.users.list(blocked=True)]}))
`,
    );
    expect(out).toEqual({
      steps: ['blocked', 'active', 'deactivated', 'active', 'banned', 'active'],
      status: ['Test', 'thumbsup'],
      topics: ['demo', 'other-topic'],
      blocked_filter: [],
    });
  });

  it('custom attributes, SSH keys and emails as test_users, test_current_user and test_keys use them', () => {
    const key = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFV9H8oSozovRsvh9mlJUUh7r8MnuHpsU/NgZl7474ad me@host';
    const out = runPython(
      served,
      `
user = gl.users.create({"email": "attrs@example.com", "username": "attrs", "name": "Attrs", "password": "E4596f8be406Bc3a14a4ccdb1df80587"})
user.customattributes.set("key", "value1")
with_attr = [u.username for u in gl.users.list(custom_attributes={"key": "value1"})]
user.customattributes.set("key", "value2")
attr = user.customattributes.get("key")
value = attr.value
attr.delete()
group = gl.groups.create({"name": "attr-group", "path": "attr-group"})
group.customattributes.set("team", "red")
groups = [g.path for g in gl.groups.list(custom_attributes={"team": "red"})]
project = gl.projects.create({"name": "attr-project"})
project.customattributes.set("team", "blue")
projects = [p.name for p in gl.projects.list(custom_attributes={"team": "blue"})]
k = user.keys.create({"title": "testkey", "key": "${key}"})
listed = k in user.keys.list()
same = user.keys.get(k.id).key == k.key
by_fp = gl.keys.get(fingerprint="SHA256:NjWEGXgpvNz5He4KiJA+MX6wUIXvK/3nTpeh0HnqyMg").title
k.delete()
gl.auth()
mine = gl.user.keys.create({"title": "mine", "key": "${key}"})
mine_listed = mine in gl.user.keys.list()
mine.delete()
email = user.emails.create({"email": "foo2@bar.com"})
email_listed = email in user.emails.list()
email.delete()
current = gl.user.emails.create({"email": "current@user.com"})
current_listed = current in gl.user.emails.list()
current.delete()
print(json.dumps({"with_attr": with_attr, "value": value, "left": len(user.customattributes.list()), "groups": groups, "projects": projects,
                  "key": [listed, same, by_fp, mine_listed], "emails": [email_listed, current_listed, len(gl.user.emails.list())]}))
`,
    );
    expect(out).toEqual({
      with_attr: ['attrs'],
      value: 'value2',
      left: 0,
      groups: ['attr-group'],
      projects: ['attr-project'],
      key: [true, true, 'testkey', true],
      emails: [true, true, 0],
    });
  });

  it('issues: due_date and issue_type filters, and their 400s', () => {
    const out = runPython(
      served,
      `
import datetime
today = datetime.datetime.now(datetime.timezone.utc).date()
project = gl.projects.create({"name": "due-and-type"})
project.issues.create({"title": "past", "due_date": str(today - datetime.timedelta(days=3))})
project.issues.create({"title": "soon", "due_date": str(today + datetime.timedelta(days=1)), "issue_type": "incident"})
project.issues.create({"title": "none", "issue_type": "test_case"})
titles = lambda issues: sorted(i.title for i in issues)
errors = []
for kwargs in ({"due_date": "none"}, {"issue_type": "epic"}):
    try:
        project.issues.list(**kwargs)
    except gitlab.exceptions.GitlabListError as e:
        errors.append([e.response_code, e.error_message])
print(json.dumps({"overdue": titles(project.issues.list(due_date="overdue")), "tomorrow": titles(project.issues.list(due_date="tomorrow")),
                  "nodue": titles(project.issues.list(due_date="0")), "any": titles(project.issues.list(due_date="any")),
                  "incident": titles(gl.issues.list(issue_type="incident", scope="all")), "test_case": titles(project.issues.list(issue_type="test_case")),
                  "errors": errors}))
`,
    );
    expect(out).toEqual({
      overdue: ['past'],
      tomorrow: ['soon'],
      nodue: ['none'],
      any: ['past', 'soon'],
      incident: ['soon'],
      test_case: ['none'],
      errors: [
        [400, 'due_date does not have a valid value'],
        [400, 'issue_type does not have a valid value'],
      ],
    });
  });

  it('projects: statistics=True on get and list, with_issues_enabled, topic_id, the updated_at pairing', () => {
    const out = runPython(
      served,
      `
project = gl.projects.create({"name": "stats-project", "initialize_with_readme": True, "topics": ["stats-topic"]})
off = gl.projects.create({"name": "no-issues-project", "issues_access_level": "disabled", "topics": ["stats-topic"]})
project.commits.create({"branch": "main", "commit_message": "two", "actions": [{"action": "create", "file_path": "a.txt", "content": "a"}]})
stats = gl.projects.get(project.id, statistics=True).statistics
listed = [p.statistics["commit_count"] for p in gl.projects.list(statistics=True, search="stats-project")]
topic = [t for t in gl.topics.list(search="stats-topic") if t.name == "stats-topic"][0]
by_topic = sorted(p.name for p in gl.projects.list(topic_id=topic.id))
with_issues = sorted(p.name for p in gl.projects.list(topic_id=topic.id, with_issues_enabled=True))
try:
    gl.projects.list(updated_after="2020-01-01T00:00:00Z")
    paired = None
except gitlab.exceptions.GitlabListError as e:
    paired = [e.response_code, e.error_message]
print(json.dumps({"commits": stats["commit_count"], "sized": stats["repository_size"] > 0 and stats["storage_size"] >= stats["repository_size"],
                  "listed": listed, "by_topic": by_topic, "with_issues": with_issues, "paired": paired,
                  "updated": len(gl.projects.list(updated_after="2020-01-01T00:00:00Z", order_by="updated_at")) >= 2}))
`,
    );
    expect(out).toEqual({
      commits: 2,
      sized: true,
      listed: [2],
      by_topic: ['no-issues-project', 'stats-project'],
      with_issues: ['stats-project'],
      paired: [400, '400 Bad request - `updated_at` filter and `updated_at` sorting must be paired'],
      updated: true,
    });
  });
  it('sharing as test_groups and test_projects use it: group.share/unshare, project.share/unshare', () => {
    const out = runPython(
      served,
      `
group1 = gl.groups.create({"name": "share-group1", "path": "share-group1"})
group2 = gl.groups.create({"name": "share-group2", "path": "share-group2"})
before = gl.groups.get(group1.id).shared_with_groups
group1.share(group2.id, gitlab.const.DEVELOPER_ACCESS)
answered = group1.shared_with_groups[0]["group_id"]
shared = gl.groups.get(group1.id).shared_with_groups
group1.unshare(group2.id)
after = gl.groups.get(group1.id).shared_with_groups
project = gl.projects.create({"name": "share-project"})
project.share(group2.id, gitlab.const.REPORTER_ACCESS, expires_at="2099-12-31")
project_shared = gl.projects.get(project.id).shared_with_groups
try:
    project.share(group2.id, gitlab.const.REPORTER_ACCESS)
    dup = None
except gitlab.exceptions.GitlabCreateError as e:
    dup = [e.response_code, e.error_message]
project.unshare(group2.id)
project_after = gl.projects.get(project.id).shared_with_groups
print(json.dumps({"before": before, "answered": answered == group2.id, "shared": [[g["group_id"] == group2.id, g["group_name"], g["group_full_path"], g["group_access_level"], g["expires_at"]] for g in shared],
                  "after": after, "project_shared": [[g["group_name"], g["group_access_level"], g["expires_at"]] for g in project_shared], "dup": dup, "project_after": project_after}))
`,
    );
    expect(out).toEqual({
      before: [],
      answered: true,
      shared: [[true, 'share-group2', 'share-group2', 30, null]],
      after: [],
      project_shared: [['share-group2', 20, '2099-12-31']],
      dup: [409, 'Group already shared with this group'],
      project_after: [],
    });
  });

  it('sidekiq metrics, as its functional tests wait for background work (wait_for_sidekiq)', () => {
    const out = runPython(
      served,
      `
queues = gl.sidekiq.queue_metrics()["queues"]
processes = gl.sidekiq.process_metrics()["processes"]
jobs = gl.sidekiq.job_stats()["jobs"]
compound = gl.sidekiq.compound_metrics()
print(json.dumps({"default": "default" in queues, "busy": [p["busy"] for p in processes], "hostname": "hostname" in processes[0],
                  "processed": "processed" in jobs, "compound": sorted(compound.keys())}))
`,
    );
    expect(out).toEqual({ default: true, busy: [0], hostname: true, processed: true, compound: ['jobs', 'processes', 'queues'] });
  });
});
