import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, runPython, startServe } from './harness';

let served: Served;
beforeAll(async () => {
  served = await startServe();
});
afterAll(async () => served?.stop());

describe('python-gitlab: system notes for changes made through the API', () => {
  it('an issue saved with a new title, description, assignee and confidentiality lists its system notes, not counted as user notes', () => {
    const out = runPython(
      served,
      `
p = gl.projects.create({"name": "sysnotes-py"})
u = gl.users.create({"email": "sn@example.com", "username": "snuser", "name": "Sn", "password": "password1234"})
p.members.create({"user_id": u.id, "access_level": 30})
issue = p.issues.create({"title": "Fix the bug", "due_date": "2026-03-01"})
issue.title = "Fix the crash"
issue.description = "details"
issue.assignee_ids = [u.id]
issue.confidential = True
issue.save()
issue.title = "Fix the crash"
issue.save()
notes = [(n.body, n.system, n.author["username"]) for n in issue.notes.list(sort="asc", order_by="created_at", get_all=True)]
discussions = [(d.individual_note, len(d.attributes["notes"])) for d in issue.discussions.list(get_all=True)]
print(json.dumps({"notes": notes, "discussions": discussions, "count": p.issues.get(issue.iid).user_notes_count}))
`,
    );
    expect(out).toEqual({
      notes: [
        ['changed due date to March 1, 2026', true, 'root'],
        ['changed title from **Fix the {-bug-}** to **Fix the {+crash+}**', true, 'root'],
        ['changed the description', true, 'root'],
        ['assigned to @snuser', true, 'root'],
        ['made the issue confidential', true, 'root'],
      ],
      discussions: [
        [true, 1],
        [true, 1],
        [true, 1],
        [true, 1],
        [true, 1],
      ],
      count: 0,
    });
  });
});
