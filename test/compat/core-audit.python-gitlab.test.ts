import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, runPython, startServe } from './harness';

let served: Served;
beforeAll(async () => {
  served = await startServe();
});
afterAll(async () => served?.stop());

describe('python-gitlab 3.12: users, tokens, members, notes (core audit)', () => {
  it('creates users and personal access tokens, and signs in with the new token', () => {
    const out = runPython(
      served,
      `
u = gl.users.create({"email": "audit@example.com", "username": "audit", "name": "Audit", "password": "password1234"})
random = gl.users.create({"email": "audit2@example.com", "username": "audit2", "name": "Audit 2", "force_random_password": True})
tok = u.personal_access_tokens.create({"name": "audit-token", "scopes": ["api"]})
g2 = gitlab.Gitlab(gl.url, private_token=tok.token)
g2.auth()
mine = [t.name for t in g2.personal_access_tokens.list()]
found = gl.users.list(username="audit")
print(json.dumps({"id": u.id, "random": random.username, "me": g2.user.username, "mine": mine, "found": [x.id for x in found], "prefix": tok.token[:6]}))
`,
    );
    expect(out.me).toBe('audit');
    expect(out.random).toBe('audit2');
    expect(out.mine).toContain('audit-token');
    expect(out.found).toEqual([out.id]);
    expect(out.prefix).toBe('glpat-');
  });

  it('adds, updates and removes members; edits and deletes notes; update errors surface', () => {
    const out = runPython(
      served,
      `
u = gl.users.create({"email": "m@example.com", "username": "memberu", "name": "Member", "password": "password1234"})
p = gl.projects.create({"name": "audit-members"})
m = p.members.create({"user_id": u.id, "access_level": 30})
m.access_level = 40
m.save()
level = p.members.get(u.id).access_level
all_ids = sorted(x.id for x in p.members_all.list(get_all=True))
issue = p.issues.create({"title": "Audit issue", "labels": ["a", "b"]})
note = issue.notes.create({"body": "first"})
note.body = "second"
note.save()
body = issue.notes.get(note.id).body
try:
    issue.notes.create({"body": " "})
    err = None
except gitlab.GitlabCreateError as e:
    err = [e.response_code, e.error_message]
note.delete()
left = len(issue.notes.list())
p.members.delete(u.id)
remaining = [x.id for x in p.members.list()]
print(json.dumps({"level": level, "all": all_ids, "body": body, "err": err, "left": left, "remaining": remaining, "labels": issue.labels, "uid": u.id}))
`,
    );
    expect(out.level).toBe(40);
    expect(out.all).toContain(out.uid);
    expect(out.body).toBe('second');
    expect(out.err[0]).toBe(400);
    expect(out.err[1]).toContain("can't be blank");
    expect(out.left).toBe(0);
    expect(out.remaining).not.toContain(out.uid);
    expect(out.labels).toEqual(['a', 'b']);
  });
});
