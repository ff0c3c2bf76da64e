import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, runRuby, startServe } from './harness';

// The seed reference's areas through Debian's ruby-gitlab 4.17 (`ruby -rgitlab`): its own methods
// where it has them, and its get/post/put/delete where it has none. The gem sends every body
// form-encoded (nested arrays and hashes as `strategies[][scopes][][environment_scope]`), a token
// of 21 characters or more as `Authorization: Bearer`, and reads lists through the Link header.
// It decodes any JSON, so each script also checks the seed's field types itself (`typed`).
const rubyGitlab = spawnSync('/usr/bin/ruby', ['-rgitlab', '-e', ''], { encoding: 'utf8' }).status === 0;
if (!rubyGitlab) console.warn('seed.ruby-gitlab: skipped, /usr/bin/ruby with the gitlab gem is missing (Debian ruby-gitlab; .ci/run installs it)');

/**
 * Ruby helpers for the scripts: `typed(what, obj, spec)` records every field of `obj` whose JSON
 * type is not the seed's (`:int`, `:str`, `:bool`, `:time`, `:date`, `:strs`, a trailing `?` for
 * null, a nested spec for an object) in `$bad`; `raw` reads a plain-text answer as
 * snippet_content does; `patch` is the gem's own request class for the PATCH it has no method for.
 */
const HELPERS = `
$bad = []
TIME = /\\A\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?(Z|[+-]\\d\\d:\\d\\d)\\z/
DATE = /\\A\\d{4}-\\d\\d-\\d\\d\\z/
def type_ok?(v, want)
  return v.nil? || type_ok?(v, want.to_s.chomp("?").to_sym) if want.is_a?(Symbol) && want.to_s.end_with?("?")
  case want
  when :int then v.is_a?(Integer)
  when :str then v.is_a?(String)
  when :bool then v == true || v == false
  when :time then v.is_a?(String) && TIME.match?(v)
  when :date then v.is_a?(String) && DATE.match?(v)
  when :strs then v.is_a?(Array) && v.all? { |x| x.is_a?(String) }
  when :null then v.nil?
  when Hash then v.is_a?(Hash)
  end
end
def typed(what, obj, spec)
  h = obj.respond_to?(:to_h) ? obj.to_h : obj
  spec.each do |k, want|
    if !h.key?(k.to_s) then $bad << "#{what}.#{k} missing"
    elsif !type_ok?(h[k.to_s], want) then $bad << "#{what}.#{k}: #{want}, got #{h[k.to_s].inspect[0, 60]}"
    elsif want.is_a?(Hash) then typed("#{what}.#{k}", h[k.to_s], want)
    end
  end
  obj
end
def raw(gl, path)
  gl.get(path, format: nil, headers: { Accept: "text/plain" }, parser: ::Gitlab::Request::Parser)
end
def patch(path, body)
  r = Gitlab::Request.patch(ENV["GL_URL"] + "/api/v4" + path, body: body, headers: { "Authorization" => "Bearer #{ENV["GL_TOKEN"]}" })
  raise "PATCH #{path}: #{r.code} #{r.body}" unless r.code < 300
  r.parsed_response
end
AUTHOR = { id: :int, username: :str, name: :str, state: :str, avatar_url: :str?, web_url: :str }
`;

const ruby = (served: Served, script: string): any => runRuby(served, HELPERS + script);

describe.skipIf(!rubyGitlab)('ruby-gitlab 4.17 over the seed areas', () => {
  let served: Served;
  beforeAll(async () => {
    served = await startServe();
  });
  afterAll(async () => served?.stop());

  it('snippets, uploads, badges, group labels and epics through the gem’s own methods', () => {
    const out = ruby(
      served,
      `
g = gl.create_group("Seed", "seed")
p = gl.create_project("app", namespace_id: g.id, initialize_with_readme: true)
r = {}
snippet = { id: :int, title: :str, file_name: :str, description: :str?, author: AUTHOR.merge(email: :str, created_at: :time), updated_at: :time,
  created_at: :time, imported: :bool, imported_from: :str, project_id: :int?, web_url: :str, raw_url: :str }

ps = typed("snippet", gl.create_snippet(p.id, title: "ps", file_name: "a.rb", content: "puts 1", description: "d", visibility: "private"), snippet)
multi = gl.create_snippet(p.id, title: "multi", visibility: "internal", files: [{ file_path: "dir/x.rb", content: "x = 1" }, { file_path: "y.md", content: "# y" }])
multi = gl.edit_snippet(p.id, multi.id, files: [{ action: "update", file_path: "dir/x.rb", content: "x = 2" }, { action: "move", previous_path: "y.md", file_path: "z.md" }])
ps = typed("snippet", gl.edit_snippet(p.id, ps.id, title: "ps2"), snippet)
list = gl.snippets(p.id).each { |s| typed("snippets[]", s, snippet) }
note = gl.create_snippet_note(p.id, ps.id, "hi")
ua = typed("user_agent_detail", gl.snippet_user_agent_details(ps.id), { user_agent: :str, ip_address: :str, spam_check_submitted: :bool })
us = typed("personal snippet", gl.create_user_snippet(title: "us", file_name: "b.rb", content: "puts 2", visibility: "public"), snippet)
us = gl.edit_user_snippet(us.id, title: "us2")
r["snippets"] = [ps.title, ps.description, ps.author.username, list.map(&:title), multi.files.map(&:path), gl.snippet_content(p.id, ps.id),
  raw(gl, "/projects/#{p.id}/snippets/#{multi.id}/files/main/#{CGI.escape("dir/x.rb")}/raw"), gl.snippet_notes(p.id, ps.id).map(&:body), note.noteable_type,
  ua.user_agent, gl.user_snippet(us.id).title, gl.user_snippets.map(&:title), gl.user_snippet_raw(us.id), gl.public_snippets.map(&:title)]
gl.delete_snippet(p.id, ps.id)
gl.delete_user_snippet(us.id)
r["snippets_after_delete"] = [gl.snippets(p.id).map(&:title), gl.user_snippets.size]

File.write("notes.txt", "hello")
up = typed("upload", gl.upload_file(p.id, "notes.txt"), { id: :int, alt: :str, url: :str, full_path: :str, markdown: :str })
ups = gl.get("/projects/#{p.id}/uploads").each { |u| typed("uploads[]", u, { id: :int, size: :int, filename: :str, created_at: :time, uploaded_by: { id: :int, name: :str, username: :str } }) }
secret = up.url.split("/")[2]
r["uploads"] = [up.alt, up.markdown == "[notes.txt](#{up.url})", ups.map(&:filename), ups[0].size, raw(gl, "/projects/#{p.id}/uploads/#{up.id}"),
  raw(gl, "/projects/#{p.id}/uploads/#{secret}/notes.txt"), gl.delete("/projects/#{p.id}/uploads/#{secret}/notes.txt").to_h, gl.get("/projects/#{p.id}/uploads").size]

badge = { id: :int, name: :str?, link_url: :str, image_url: :str, rendered_link_url: :str, rendered_image_url: :str, kind: :str }
b = typed("badge", gl.add_project_badge(p.id, link_url: "https://ci/%{project_path}", image_url: "https://ci/%{default_branch}.svg", name: "ci"), badge)
b = typed("badge", gl.edit_project_badge(p.id, b.id, link_url: "https://ci/%{project_id}"), badge)
gb = typed("group badge", gl.add_group_badge(g.id, link_url: "https://g/%{project_path}", image_url: "https://g.svg"), badge)
pv = gl.preview_project_badge(p.id, "https://x/%{project_path}", "https://i")
r["badges"] = [b.rendered_link_url == "https://ci/#{p.id}", gl.project_badge(p.id, b.id).rendered_image_url, gl.project_badges(p.id).map(&:kind).sort,
  gl.group_badges(g.id).map(&:rendered_link_url), pv.rendered_link_url, gl.preview_group_badge(g.id, "https://x/%{group_name}", "https://i").rendered_link_url]
gl.remove_project_badge(p.id, b.id)
gl.remove_group_badge(g.id, gb.id)
r["badges_after_delete"] = gl.project_badges(p.id).size

label = { id: :int, name: :str, color: :str, text_color: :str, description: :str?, description_html: :str?, open_issues_count: :int,
  closed_issues_count: :int, open_merge_requests_count: :int, subscribed: :bool }
typed("label", gl.create_group_label(g.id, "bug", "#FF0000", description: "broken"), label)
named = gl.create_group_label(g.id, "named", "lightblue")
gl.create_issue(p.id, "crash", labels: "bug")
listed = gl.group_labels(g.id, with_counts: true).each { |l| typed("labels[]", l, label) }
edited = typed("label", gl.edit_group_label(g.id, "bug", new_name: "defect", color: "#00FF00"), label)
sub = gl.subscribe_to_group_label(g.id, "defect")
again = gl.subscribe_to_group_label(g.id, "defect")
unsub = gl.unsubscribe_from_group_label(g.id, "defect")
gl.delete_group_label(g.id, "defect")
r["labels"] = [listed.map { |l| [l.name, l.open_issues_count] }, named.color, edited.name, edited.color, sub.subscribed, again.to_h, unsub.subscribed,
  gl.group_labels(g.id).map(&:name), gl.issue(p.id, 1).labels]

epic = { id: :int, iid: :int, group_id: :int, parent_id: :int?, parent_iid: :int?, title: :str, description: :str?, state: :str, confidential: :bool,
  imported: :bool, imported_from: :str, web_url: :str, reference: :str, references: { short: :str, relative: :str, full: :str }, author: AUTHOR,
  start_date: :date?, start_date_is_fixed: :bool, start_date_fixed: :date?, start_date_from_milestones: :date?, start_date_from_inherited_source: :date?,
  end_date: :date?, due_date: :date?, due_date_is_fixed: :bool, due_date_fixed: :date?, due_date_from_milestones: :date?,
  due_date_from_inherited_source: :date?, created_at: :time, updated_at: :time, closed_at: :time?, labels: :strs, upvotes: :int, downvotes: :int,
  color: :str, _links: { self: :str, epic_issues: :str, group: :str, parent: :str? } }
ep = typed("epic", gl.create_epic(g.id, "Launch", description: "d", labels: "x,y", start_date_is_fixed: true, start_date_fixed: "2026-01-02",
  due_date_is_fixed: true, due_date_fixed: "2026-03-04"), epic)
ep = typed("epic", gl.edit_epic(g.id, ep.iid, title: "Launch 2", state_event: "close", remove_labels: "y"), epic)
got = typed("epic", gl.epic(g.id, ep.iid), epic.merge(subscribed: :bool))
listed = gl.epics(g.id, state: "closed").each { |e| typed("epics[]", e, epic) }
is = gl.create_issue(p.id, "part")
link = gl.post("/groups/#{g.id}/epics/#{ep.iid}/issues/#{is.id}")
en = gl.create_epic_note(g.id, ep.iid, "noted")
r["epics"] = [got.title, got.state, got.labels, got.start_date, got.due_date, got.closed_at.nil?, listed.map(&:iid), gl.epics(g.id, state: "opened").size,
  link.epic.iid, link.issue.title, gl.epic_issues(g.id, ep.iid).map(&:title), en.noteable_type, gl.epic_notes(g.id, ep.iid).map(&:body)]
gl.delete_epic(g.id, ep.iid)
r["epics_after_delete"] = gl.epics(g.id).size
r["bad"] = $bad
puts JSON.generate(r)`,
    );
    expect(out).toEqual({
      snippets: [
        'ps2',
        'd',
        'root',
        ['multi', 'ps2'],
        ['dir/x.rb', 'z.md'],
        'puts 1',
        'x = 2',
        ['hi'],
        'Snippet',
        'Gitlab Ruby Gem 4.17.0',
        'us2',
        ['us2'],
        'puts 2',
        ['us2'],
      ],
      snippets_after_delete: [['multi'], 0],
      uploads: ['notes.txt', true, ['notes.txt'], 5, 'hello', 'hello', {}, 0],
      badges: [true, 'https://ci/main.svg', ['group', 'project'], ['https://g/seed/app'], 'https://x/seed/app', 'https://x/Seed'],
      badges_after_delete: 0,
      labels: [[['bug', 1], ['named', 0]], '#ADD8E6', 'defect', '#00FF00', true, {}, false, ['named'], []],
      epics: ['Launch 2', 'closed', ['x'], '2026-01-02', '2026-03-04', false, [1], 0, 1, 'part', ['part'], 'Epic', ['noted']],
      epics_after_delete: 0,
      bad: [],
    });
  });

  it('access requests, invitations, notification settings and events', () => {
    const out = ruby(
      served,
      `
g = gl.create_group("Open", "open", visibility: "public")
p = gl.create_project("site", namespace_id: g.id, visibility: "public", initialize_with_readme: true)
u = gl.create_user("alice@example.com", "Secret-123456", "alice", name: "Alice", skip_confirmation: true)
tok = gl.post("/users/#{u.id}/personal_access_tokens", body: { name: "t", scopes: ["api"] })
alice = Gitlab.client(endpoint: ENV["GL_URL"] + "/api/v4", private_token: tok.token)
r = {}
request = { id: :int, username: :str, name: :str, state: :str, locked: :bool, avatar_url: :str?, web_url: :str, requested_at: :time }
pr = typed("access request", alice.request_project_access(p.id), request.merge(created_at: :time))
gr = typed("access request", alice.request_group_access("open"), request.merge(created_at: :time))
pl = gl.project_access_requests(p.id).each { |a| typed("access_requests[]", a, request) }
gll = gl.group_access_requests(g.id).each { |a| typed("access_requests[]", a, request) }
ap = typed("approved", gl.approve_project_access_request("open/site", u.id, access_level: 20), { id: :int, username: :str, access_level: :int, expires_at: :date? })
gl.deny_group_access_request(g.id, u.id)
again = alice.request_group_access(g.id)
ag = gl.approve_group_access_request(g.id, u.id)
r["access"] = [pr.username, gr.name, pl.map(&:username), gll.size, ap.access_level, again.username, ag.access_level, gl.group_access_requests(g.id).size,
  gl.project_access_requests(p.id).size]

invitation = { id: :int, invite_email: :str, created_at: :time, access_level: :int, expires_at: :date?, user_name: :str?, created_by_name: :str }
gi = gl.post("/groups/#{g.id}/invitations", body: { email: "bob@example.com", access_level: 20 })
pi = gl.post("/projects/#{p.id}/invitations", body: { email: "carol@example.com,dave@example.com", access_level: 30, expires_at: "2030-01-01" })
dup = gl.post("/projects/#{p.id}/invitations", body: { user_id: u.id, access_level: 10 })
gil = gl.get("/groups/#{g.id}/invitations").each { |i| typed("invitations[]", i, invitation) }
pil = gl.get("/projects/#{p.id}/invitations", query: { query: "dave@example.com" }).each { |i| typed("invitations[]", i, invitation) }
ed = gl.put("/projects/#{p.id}/invitations/#{CGI.escape("dave@example.com")}", body: { access_level: 40, expires_at: "2031-02-03" })
gl.delete("/projects/#{p.id}/invitations/#{CGI.escape("dave@example.com")}")
r["invitations"] = [gi.status, pi.status, dup.status, dup.message.to_h, gil.map { |i| [i.invite_email, i.access_level, i.created_by_name] },
  pil.map { |i| [i.invite_email, i.expires_at] }, [ed.access_level, ed.expires_at], gl.get("/projects/#{p.id}/invitations").map(&:invite_email)]

ns = typed("notification settings", gl.get("/notification_settings"), { level: :str, notification_email: :str })
nsc = gl.put("/notification_settings", body: { level: "custom", new_issue: true, new_note: false })
nsg = gl.put("/groups/#{g.id}/notification_settings", body: { level: "watch" })
nsp = gl.put("/projects/#{p.id}/notification_settings", body: { level: "custom", merge_merge_request: true })
nsp2 = gl.get("/projects/#{p.id}/notification_settings")
r["notifications"] = [ns.level, nsc.level, nsc.notification_email, nsc.events.new_issue, nsc.events.new_note, nsc.events.close_issue, nsg.to_h,
  gl.get("/groups/#{g.id}/notification_settings").to_h, nsp.level, nsp2.events.merge_merge_request, nsp2.events.new_issue, nsp2.events.to_h.key?("approver")]

is = gl.create_issue(p.id, "bug")
gl.create_issue_note(p.id, is.iid, "seen")
# A deleted comment or issue takes its events along (GitLab's has_many :events, dependent:).
gl.delete_issue_note(p.id, is.iid, gl.create_issue_note(p.id, is.iid, "typo").id)
gl.delete_issue(p.id, gl.create_issue(p.id, "gone").iid)
event = { id: :int, title: :str?, project_id: :int, action_name: :str, target_id: :int?, target_iid: :int?, target_type: :str?, author_id: :int,
  target_title: :str?, created_at: :time, author: AUTHOR, author_username: :str, imported: :bool, imported_from: :str }
mine = gl.events(action: "commented").each { |e| typed("events[]", e, event) }
typed("event note", mine[0].note, { id: :int, body: :str, attachment: :null, author: AUTHOR, created_at: :time, system: :bool, noteable_id: :int,
  noteable_type: :str, noteable_iid: :int })
proj = gl.project_events("open/site").each { |e| typed("project events[]", e, event) }
pushed = proj.find { |e| e.action_name == "pushed new" }
typed("push_data", pushed.push_data, { commit_count: :int, action: :str, ref_type: :str, commit_from: :str?, commit_to: :str, ref: :str, commit_title: :str })
theirs = gl.user_events("alice").each { |e| typed("user events[]", e, event) }
r["events"] = [mine.map { |e| [e.action_name, e.target_type, e.note.body, e.note.noteable_type] }, proj.map { |e| "#{e.action_name} #{e.target_type}" },
  theirs.map(&:action_name), gl.user_events(u.id, per_page: 1).size, gl.project_events(p.id, target_type: "issue", sort: "asc").map(&:target_title),
  gl.events(target_type: "note", before: "2000-01-01").size]
r["bad"] = $bad
puts JSON.generate(r)`,
    );
    expect(out).toEqual({
      access: ['alice', 'Alice', ['alice'], 1, 20, 'alice', 30, 0, 0],
      invitations: [
        'success',
        'success',
        'error',
        { alice: 'User already exists in source' },
        [['bob@example.com', 20, 'Administrator']],
        [['dave@example.com', '2030-01-01']],
        [40, '2031-02-03'],
        ['carol@example.com'],
      ],
      notifications: ['participating', 'custom', 'admin@example.com', true, false, null, { level: 'watch' }, { level: 'watch' }, 'custom', true, null, false],
      events: [
        [['commented on', 'Note', 'seen', 'Issue']],
        ['destroyed Issue', 'commented on Note', 'opened Issue', 'joined ', 'pushed new ', 'created '],
        ['joined'],
        1,
        ['bug', 'gone'],
        0,
      ],
      bad: [],
    });
  });

  it('job token scope, feature flags, CI lint, error tracking, SAML, draft notes and service accounts through get/post/put/delete', () => {
    const out = ruby(
      served,
      `
g = gl.create_group("Ops", "ops")
p = gl.create_project("svc", namespace_id: g.id, initialize_with_readme: true)
other = gl.create_project("other")
r = {}
jts = typed("job token scope", gl.get("/projects/#{p.id}/job_token_scope"), { inbound_enabled: :bool, outbound_enabled: :bool })
patch("/projects/#{p.id}/job_token_scope", { enabled: false })
added = gl.post("/projects/#{p.id}/job_token_scope/allowlist", body: { target_project_id: other.id })
allow = gl.get("/projects/#{p.id}/job_token_scope/allowlist").each { |a| typed("allowlist[]", a, { id: :int, description: :str?, name: :str,
  path_with_namespace: :str, created_at: :time, default_branch: :str?, tag_list: :strs, topics: :strs, star_count: :int, last_activity_at: :time,
  namespace: { id: :int, name: :str, path: :str, kind: :str, full_path: :str, parent_id: :int?, avatar_url: :str?, web_url: :str } }) }
gadded = gl.post("/projects/#{p.id}/job_token_scope/groups_allowlist", body: { target_group_id: g.id })
gallow = gl.get("/projects/#{p.id}/job_token_scope/groups_allowlist").each { |a| typed("groups_allowlist[]", a, { id: :int, web_url: :str, name: :str }) }
gl.delete("/projects/#{p.id}/job_token_scope/allowlist/#{other.id}")
gl.delete("/projects/#{p.id}/job_token_scope/groups_allowlist/#{g.id}")
r["job_token_scope"] = [jts.inbound_enabled, gl.get("/projects/#{p.id}/job_token_scope").inbound_enabled, added.to_h == { "source_project_id" => p.id, "target_project_id" => other.id },
  allow.map(&:name).sort, gadded.target_group_id == g.id, gallow.map(&:name), gl.get("/projects/#{p.id}/job_token_scope/allowlist").map(&:name)]

ul = gl.post("/projects/#{p.id}/feature_flags_user_lists", body: { name: "beta", user_xids: "1,2" })
ff = gl.post("/projects/#{p.id}/feature_flags", body: { name: "dark", version: "new_version_flag", description: "d", active: true,
  strategies: [{ name: "userWithId", parameters: { userIds: "1,2" }, scopes: [{ environment_scope: "production" }, { environment_scope: "staging" }] },
    { name: "gitlabUserList", user_list_id: ul.id, scopes: [{ environment_scope: "*" }] }] })
flag = { name: :str, description: :str?, active: :bool, version: :str, created_at: :time, updated_at: :time }
typed("feature flag", ff, flag)
got = typed("feature flag", gl.get("/projects/#{p.id}/feature_flags/dark"), flag)
got.strategies.each { |s| typed("strategy", s, { id: :int, name: :str, parameters: {} }); s.scopes.each { |sc| typed("strategy scope", sc, { id: :int, environment_scope: :str }) } }
# The gem encodes the second strategy's scopes as scopes[][id], scopes[][_destroy], scopes[][environment_scope]: no key
# repeats, so Rack (and Sandlab) read one scope, id with _destroy, and GitLab deletes it without adding review/*.
ed = gl.put("/projects/#{p.id}/feature_flags/dark", body: { active: false, strategies: [{ id: got.strategies[0].id, _destroy: true },
  { id: got.strategies[1].id, scopes: [{ id: got.strategies[1].scopes[0].id, _destroy: true }, { environment_scope: "review/*" }] }] })
enabled = gl.get("/projects/#{p.id}/feature_flags", query: { scope: "enabled" })
disabled = gl.get("/projects/#{p.id}/feature_flags", query: { scope: "disabled" })
gl.delete("/projects/#{p.id}/feature_flags/dark")
r["feature_flags"] = [got.strategies.map { |s| [s.name, s.parameters.to_h, s.scopes.map(&:environment_scope)] }, got.strategies[1].user_list.name,
  ed.active, ed.strategies.map { |s| [s.name, s.scopes.map(&:environment_scope)] }, enabled.size, disabled.map(&:name), gl.get("/projects/#{p.id}/feature_flags").size]

lint = { valid: :bool, errors: :strs, warnings: :strs, merged_yaml: :str }
ok = typed("ci lint", gl.post("/projects/#{p.id}/ci/lint", body: { content: "job:\\n  script: echo", include_jobs: true, dry_run: true }), lint)
bad = gl.post("/projects/#{p.id}/ci/lint", body: { content: "job: [" })
r["ci_lint"] = [ok.valid, ok.jobs.map { |j| [j.name, j.stage, j.script] }, bad.valid, bad.errors.size, gl.get("/projects/#{p.id}/ci/lint").valid]

settings = { active: :bool, project_name: :str?, errortracker_external_url: :str?, api_url: :str?, integrated: :bool }
et = typed("error tracking", gl.put("/projects/#{p.id}/error_tracking/settings", body: { active: true, integrated: true }), settings)
off = patch("/projects/#{p.id}/error_tracking/settings", { active: false })
key = { id: :int, active: :bool, public_key: :str, errortracker_dsn: :str }
ck = typed("client key", gl.post("/projects/#{p.id}/error_tracking/client_keys"), key)
cks = gl.get("/projects/#{p.id}/error_tracking/client_keys").each { |k| typed("client_keys[]", k, key) }
gl.delete("/projects/#{p.id}/error_tracking/client_keys/#{ck.id}")
r["error_tracking"] = [et.active, et.integrated, off["active"], gl.get("/projects/#{p.id}/error_tracking/settings").active, ck.public_key.start_with?("glet_"),
  ck.errortracker_dsn.include?(ck.public_key), cks.size, gl.get("/projects/#{p.id}/error_tracking/client_keys").size]

link = { name: :str, access_level: :int, member_role_id: :int?, provider: :str? }
sl = typed("saml link", gl.post("/groups/#{g.id}/saml_group_links", body: { saml_group_name: "devs", access_level: 30 }), link)
sls = gl.get("/groups/#{g.id}/saml_group_links").each { |l| typed("saml_group_links[]", l, link) }
sg = gl.get("/groups/#{g.id}/saml_group_links/devs")
gl.delete("/groups/#{g.id}/saml_group_links/devs")
r["saml"] = [sl.name, sl.access_level, sls.size, sg.access_level, gl.get("/groups/#{g.id}/saml_group_links").size, gl.get("/groups/#{g.id}/saml/identities").size]

gl.create_branch(p.id, "feature", "main")
gl.create_commit(p.id, "feature", "add a file", [{ action: "create", file_path: "a.txt", content: "one\\ntwo\\n" }])
mr = gl.create_merge_request(p.id, "Feature", source_branch: "feature", target_branch: "main")
v = gl.get("/projects/#{p.id}/merge_requests/#{mr.iid}/versions")[0]
draft = { id: :int, author_id: :int, merge_request_id: :int, resolve_discussion: :bool, discussion_id: :str?, note: :str, commit_id: :str?, line_code: :str?,
  position: { base_sha: :str?, start_sha: :str?, head_sha: :str?, old_path: :str?, new_path: :str?, position_type: :str, old_line: :int?, new_line: :int?, line_range: :null } }
base = "/projects/#{p.id}/merge_requests/#{mr.iid}/draft_notes"
d1 = typed("draft note", gl.post(base, body: { note: "general" }), draft)
d2 = typed("draft note", gl.post(base, body: { note: "on a line", position: { base_sha: v.base_commit_sha, head_sha: v.head_commit_sha,
  start_sha: v.start_commit_sha, position_type: "text", new_path: "a.txt", old_path: "a.txt", new_line: 2 } }), draft)
gl.get(base).each { |d| typed("draft_notes[]", d, draft) }
d1 = typed("draft note", gl.put("#{base}/#{d1.id}", body: { note: "general 2" }), draft)
one = gl.put("#{base}/#{d1.id}/publish")
d3 = gl.post(base, body: { note: "dropped" })
gl.delete("#{base}/#{d3.id}")
all = gl.post("#{base}/bulk_publish")
r["draft_notes"] = [d1.note, d2.position.new_line, d2.line_code.nil?, one.to_h, all.to_h, gl.get(base).size, gl.merge_request_notes(p.id, mr.iid).map { |n| [n.body, n.type] }.sort]

sa = typed("service account", gl.post("/service_accounts", body: { name: "Bot", username: "bot1" }), { id: :int, username: :str, name: :str, email: :str })
sa2 = patch("/service_accounts/#{sa.id}", { name: "Bot 2" })
sas = gl.get("/service_accounts", query: { order_by: "username", sort: "asc" }).each { |a| typed("service_accounts[]", a, { id: :int, username: :str, name: :str }) }
gsa = gl.post("/groups/#{g.id}/service_accounts", body: { name: "Group bot" })
gsas = gl.get("/groups/#{g.id}/service_accounts").each { |a| typed("group service_accounts[]", a, { id: :int, username: :str, name: :str, email: :str }) }
token = { id: :int, name: :str, revoked: :bool, created_at: :time, description: :str?, scopes: :strs, user_id: :int, last_used_at: :time?, active: :bool, expires_at: :date? }
tb = "/groups/#{g.id}/service_accounts/#{gsa.id}/personal_access_tokens"
t1 = typed("token", gl.post(tb, body: { name: "ci", scopes: ["api", "read_repository"], expires_at: "2027-01-01", description: "for ci" }), token.merge(token: :str))
t2 = typed("token", gl.post("#{tb}/#{t1.id}/rotate", body: { expires_at: "2027-02-01" }), token.merge(token: :str))
listed = gl.get(tb, query: { sort: "name_asc", state: "active" }).each { |t| typed("tokens[]", t, token) }
gl.delete("#{tb}/#{t2.id}")
left = gl.get(tb, query: { state: "active" }).size
gl.delete("/groups/#{g.id}/service_accounts/#{gsa.id}", body: { hard_delete: true })
r["service_accounts"] = [sa.username, sa2["name"], sas.map(&:username), gsa.username.start_with?("service_account_group_"), gsas.size, t1.scopes, t1.description,
  t2.expires_at, t2.token != t1.token, listed.map(&:id) == [t2.id], left, gl.get("/groups/#{g.id}/service_accounts").size]
r["bad"] = $bad
puts JSON.generate(r)`,
    );
    expect(out).toEqual({
      job_token_scope: [true, false, true, ['other', 'svc'], true, ['Ops'], ['svc']],
      feature_flags: [
        [
          ['userWithId', { userIds: '1,2' }, ['production', 'staging']],
          ['gitlabUserList', {}, ['*']],
        ],
        'beta',
        false,
        [['gitlabUserList', []]],
        0,
        ['dark'],
        0,
      ],
      ci_lint: [true, [['job', 'test', ['echo']]], false, 1, false],
      error_tracking: [true, true, false, false, true, true, 1, 0],
      saml: ['devs', 30, 1, 30, 0, 0],
      draft_notes: [
        'general 2',
        2,
        false,
        {},
        {},
        0,
        [
          ['general 2', 'DiscussionNote'],
          ['on a line', 'DiffNote'],
        ],
      ],
      service_accounts: ['bot1', 'Bot 2', ['bot1'], true, 1, ['api', 'read_repository'], 'for ci', '2027-02-01', true, true, 0, 0],
      bad: [],
    });
  });
});
