import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, runPython, startServe } from './harness';

let served: Served;
beforeAll(async () => {
  served = await startServe();
});
afterAll(async () => served?.stop());

describe('python-gitlab 3.12: snippets, uploads and badges', () => {
  it('runs the personal snippet flow of test_snippets.py', () => {
    const out = runPython(
      served,
      `
empty = gl.snippets.list()
snippet = gl.snippets.create({"title": "snippet1", "file_name": "snippet1.py", "content": "import gitlab"})
got = gl.snippets.get(snippet.id)
got.title = "updated_title"
got.save()
again = gl.snippets.get(snippet.id)
content = again.content()
ua = again.user_agent_detail()
again.delete()
try:
    gl.snippets.get(snippet.id)
    gone = False
except gitlab.exceptions.GitlabGetError as e:
    gone = e.response_code == 404
print(json.dumps({"empty": len(empty), "title": again.title, "content": content.decode(), "ua": bool(ua["user_agent"]), "gone": gone}))
`,
    );
    expect(out).toEqual({ empty: 0, title: 'updated_title', content: 'import gitlab', ua: true, gone: true });
  });

  it('runs the project snippet flows of test_snippets.py (file rename, discussions)', () => {
    const out = runPython(
      served,
      `
project = gl.projects.create({"name": "snippet-project"})
project.snippets_enabled = True
project.save()
snippet = project.snippets.create({"title": "snip1", "file_name": "foo.py", "content": "initial content", "visibility": "private"})
ua = snippet.user_agent_detail()

discussion = snippet.discussions.create({"body": "Discussion body"})
in_list = discussion.id in [d.id for d in snippet.discussions.list()]
note = discussion.notes.create({"body": "first note"})
note_from_get = discussion.notes.get(note.id)
note_from_get.body = "updated body"
note_from_get.save()
discussion = snippet.discussions.get(discussion.id)
last_body = discussion.attributes["notes"][-1]["body"]
note_from_get.delete()
discussion = snippet.discussions.get(discussion.id)
notes_left = len(discussion.attributes["notes"])

snippet.file_name = "bar.py"
snippet.save()
snippet = project.snippets.get(snippet.id)
content = snippet.content().decode()
listed = snippet in project.snippets.list()
snippet.delete()
after = [s.id for s in project.snippets.list()]
print(json.dumps({"ua": bool(ua["user_agent"]), "in_list": in_list, "last_body": last_body, "notes_left": notes_left,
                  "file_name": snippet.file_name, "content": content, "listed": listed, "after": after}))
`,
    );
    expect(out).toEqual({
      ua: true,
      in_list: true,
      last_body: 'updated body',
      notes_left: 1,
      file_name: 'bar.py',
      content: 'initial content',
      listed: true,
      after: [],
    });
  });

  it('uploads a file as test_project_file_uploads does', () => {
    const out = runPython(
      served,
      `
project = gl.projects.create({"name": "upload-project"})
uploaded = project.upload("test.txt", filedata="testing contents")
raw = gl.http_get(f"/projects/{project.id}{uploaded['url']}", raw=True).content.decode()
print(json.dumps({"alt": uploaded["alt"], "url": uploaded["url"], "markdown": uploaded["markdown"], "raw": raw}))
`,
    );
    expect(out.alt).toBe('test.txt');
    expect(out.url.startsWith('/uploads/')).toBe(true);
    expect(out.url.endsWith('/test.txt')).toBe(true);
    expect(out.markdown).toBe(`[${out.alt}](${out.url})`);
    expect(out.raw).toBe('testing contents');
  });

  it('runs the project and group badge flows, render included', () => {
    const out = runPython(
      served,
      `
group = gl.groups.create({"name": "badge-group", "path": "badge-group"})
project = gl.projects.create({"name": "badge-project", "namespace_id": group.id})
results = {}
for name, owner in (("project", project), ("group", group)):
    badge = owner.badges.create({"link_url": "http://example/img.svg", "image_url": "http://example.com"})
    listed = badge in owner.badges.list()
    badge.image_url = "http://another.example.com"
    badge.save()
    fetched = owner.badges.get(badge.id).image_url
    badge.delete()
    results[name] = {"listed": listed, "fetched": fetched, "after": badge in owner.badges.list()}
rendered = project.badges.render(link_url="http://example.com/%{project_path}", image_url="http://example.com/%{default_branch}.svg")
results["rendered"] = [rendered["rendered_link_url"], rendered["rendered_image_url"]]
print(json.dumps(results))
`,
    );
    for (const kind of ['project', 'group']) {
      expect(out[kind]).toEqual({ listed: true, fetched: 'http://another.example.com', after: false });
    }
    expect(out.rendered).toEqual(['http://example.com/badge-group/badge-project', 'http://example.com/main.svg']);
  });
  it('raises the client errors GitLab causes: 404 get, 400 validation hash, 403 group badge delete, 400 missing upload', () => {
    const out = runPython(
      served,
      `
group = gl.groups.create({"name": "err-group", "path": "err-group"})
project = gl.projects.create({"name": "err-project", "namespace_id": group.id})
res = {}
try:
    project.snippets.get(999999)
except gitlab.exceptions.GitlabGetError as e:
    res["snippet_get"] = [e.response_code, e.error_message]
try:
    project.snippets.create({"title": "", "file_name": "a.py", "content": "x", "visibility": "private"})
except gitlab.exceptions.GitlabCreateError as e:
    res["snippet_create"] = [e.response_code, e.error_message]
try:
    project.badges.create({"link_url": "ftp://x.example", "image_url": "http://ok.example"})
except gitlab.exceptions.GitlabCreateError as e:
    res["badge_create"] = [e.response_code, e.error_message]
badge = group.badges.create({"link_url": "http://g.example/%{project_path}", "image_url": "http://g.example/i.svg"})
seen = project.badges.get(badge.id)
res["group_badge_on_project"] = [seen.kind, seen.rendered_link_url]
try:
    project.badges.delete(badge.id)
except gitlab.exceptions.GitlabDeleteError as e:
    res["badge_delete"] = [e.response_code, e.error_message]
uploaded = project.upload("gone.txt", filedata="x")
gl.http_delete(f"/projects/{project.id}{uploaded['url']}")
try:
    gl.http_delete(f"/projects/{project.id}{uploaded['url']}")
except gitlab.exceptions.GitlabHttpError as e:
    res["upload_delete"] = e.response_code
print(json.dumps(res))
`,
    );
    expect(out).toEqual({
      snippet_get: [404, '404 Not found'],
      snippet_create: [400, 'title is empty'],
      badge_create: [400, { link_url: ['is blocked: Only allowed schemes are http, https'] }],
      group_badge_on_project: ['group', 'http://g.example/err-group/err-project'],
      badge_delete: [403, 'To delete a Group badge please use the Group endpoint'],
      upload_delete: 400,
    });
  });
});
