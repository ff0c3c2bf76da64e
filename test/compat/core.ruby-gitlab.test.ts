import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, runRuby, startServe } from './harness';

let served: Served;
beforeAll(async () => {
  served = await startServe();
});
afterAll(async () => served?.stop());

// Debian's ruby-gitlab 4.17 (the `gitlab` gem), unchanged.
describe('the Ruby gitlab gem against a live Sandlab', () => {
  it('resolves namespaces to create subgroups and projects inside groups', () => {
    const out = runRuby(
      served,
      `
g = gl.create_group("Ruby Group", "ruby-group", description: "from ruby")
sub = gl.create_group("Ruby Sub", "ruby-sub", parent_id: g.id)
ns = gl.get("/namespaces/#{CGI.escape("ruby-group/ruby-sub")}")
p = gl.create_project("ruby-project", namespace_id: ns.id, description: "gem made")
puts JSON.generate(
  ns_kind: ns.kind, ns_full_path: ns.full_path, ns_parent: ns.parent_id == g.id,
  project: p.path_with_namespace,
  namespaces: gl.namespaces(search: "ruby").map(&:full_path).sort,
  subgroups: gl.group_subgroups(g.id).map(&:path),
  group_projects: gl.group_projects(sub.id).map(&:name)
)`,
    );
    expect(out).toEqual({
      ns_kind: 'group',
      ns_full_path: 'ruby-group/ruby-sub',
      ns_parent: true,
      project: 'ruby-group/ruby-sub/ruby-project',
      namespaces: ['ruby-group', 'ruby-group/ruby-sub'],
      subgroups: ['ruby-sub'],
      group_projects: ['ruby-project'],
    });
  });

  it('manages users, members, issues with labels, notes and snippets', () => {
    const out = runRuby(
      served,
      `
u = gl.create_user("rubyist@example.com", "password12345", "rubyist", name: "Rubyist")
p = gl.create_project("ruby-issues")
gl.add_team_member(p.id, u.id, 30)
gl.create_label(p.id, "bug", "#FF0000")
i = gl.create_issue(p.id, "Broken", description: "it broke", labels: "bug")
gl.create_issue_note(p.id, i.iid, "seen")
gl.edit_issue(p.id, i.iid, state_event: "close")
s = gl.create_snippet(p.id, title: "snip", file_name: "a.rb", content: "puts 1", visibility: "private")
puts JSON.generate(
  member: gl.team_member(p.id, u.id).access_level,
  issue: gl.issue(p.id, i.iid).to_h.slice("state", "labels", "title"),
  notes: gl.issue_notes(p.id, i.iid).map(&:body),
  closed: gl.issues(p.id, state: "closed").map(&:iid),
  snippet: gl.snippet_content(p.id, s.id),
  users: gl.users(username: "rubyist").map(&:username)
)`,
    );
    expect(out).toEqual({
      member: 30,
      issue: { state: 'closed', labels: ['bug'], title: 'Broken' },
      notes: ['seen'],
      closed: [1],
      snippet: 'puts 1',
      users: ['rubyist'],
    });
  });

  it("raises the gem's error classes for GitLab's statuses", () => {
    const out = runRuby(
      served,
      `
errors = {}
begin; gl.project("no/such-project"); rescue Gitlab::Error::NotFound => e; errors[:not_found] = e.response_status; end
begin; gl.create_group("", ""); rescue Gitlab::Error::BadRequest => e; errors[:bad_request] = e.response_status; end
anon = Gitlab.client(endpoint: ENV["GL_URL"] + "/api/v4", private_token: "glpat-wrong-token-0000000000")
begin; anon.user; rescue Gitlab::Error::Unauthorized => e; errors[:unauthorized] = e.response_status; end
puts JSON.generate(errors)`,
    );
    expect(out).toEqual({ not_found: 404, bad_request: 400, unauthorized: 401 });
  });
});
