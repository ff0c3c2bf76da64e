import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, TestService } from '../helpers/service';

let s: TestService;
let project: any;
beforeAll(async () => {
  s = await TestService.start();
  project = await s.createProject({ name: 'snips', visibility: 'private' });
});
afterAll(async () => s.stop());

const base = () => `/projects/${project.id}/snippets`;

async function create(body: Record<string, unknown>, token?: string) {
  return s.post(base(), { title: 'T', visibility: 'private', ...body }, { token });
}

describe('project snippets: create', () => {
  it('creates a multi-file snippet with the full entity', async () => {
    const res = await create({
      title: 'Multi',
      description: 'two files',
      files: [
        { file_path: 'b.rb', content: 'puts 2' },
        { file_path: 'a.py', content: 'print(1)' },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toBe('application/json');
    const b = res.body;
    expect(Object.keys(b)).toEqual([
      'id', 'title', 'description', 'visibility', 'author', 'updated_at', 'created_at', 'project_id', 'web_url', 'raw_url',
      'ssh_url_to_repo', 'http_url_to_repo', 'file_name', 'files', 'imported', 'imported_from',
    ]);
    expect(b.title).toBe('Multi');
    expect(b.visibility).toBe('private');
    expect(b.project_id).toBe(project.id);
    expect(b.author.username).toBe('root');
    expect(b.author.created_at).toBeTruthy();
    expect(b.file_name).toBe('a.py');
    expect(b.web_url).toBe(`${project.web_url}/-/snippets/${b.id}`);
    expect(b.raw_url).toBe(`${project.web_url}/-/snippets/${b.id}/raw`);
    expect(b.files).toEqual([
      { path: 'a.py', raw_url: `${project.web_url}/-/snippets/${b.id}/raw/main/a.py` },
      { path: 'b.rb', raw_url: `${project.web_url}/-/snippets/${b.id}/raw/main/b.rb` },
    ]);
    expect(b.imported).toBe(false);
    expect(b.imported_from).toBe('none');
    expect(b.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('accepts the legacy file_name + content form', async () => {
    const res = await create({ file_name: 'foo.py', content: 'initial content' });
    expect(res.status).toBe(201);
    expect(res.body.file_name).toBe('foo.py');
    const raw = await s.get(`${base()}/${res.body.id}/raw`);
    expect(raw.status).toBe(200);
    expect(raw.text).toBe('initial content');
    expect(raw.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(raw.headers.get('content-disposition')).toBe(`inline; filename="foo.py"; filename*=UTF-8''foo.py`);
  });

  it('accepts a form-encoded files[][...] body', async () => {
    const res = await s.post(base(), undefined, {
      form: { title: 'form', visibility: 'internal', 'files[][file_path]': 'x.txt', 'files[][content]': 'hello' },
    });
    expect(res.status).toBe(201);
    expect(res.body.files.map((f: any) => f.path)).toEqual(['x.txt']);
  });

  it('answers Grape errors for missing and blank parameters', async () => {
    expect((await s.post(base(), { visibility: 'private', files: [{ file_path: 'a', content: 'b' }] })).body).toEqual({ error: 'title is missing' });
    expect((await create({ title: ' ', files: [{ file_path: 'a', content: 'b' }] })).body).toEqual({ error: 'title is empty' });
    const noVis = await s.post(base(), { title: 'x', files: [{ file_path: 'a', content: 'b' }] });
    expect(noVis.status).toBe(400);
    expect(noVis.body).toEqual({ error: 'visibility is missing' });
    expect((await create({ visibility: 'secret', files: [{ file_path: 'a', content: 'b' }] })).body).toEqual({
      error: 'visibility does not have a valid value',
    });
    expect((await create({})).body).toEqual({ error: 'files, content are missing, exactly one parameter must be provided' });
    expect((await create({ content: 'x' })).body).toEqual({ error: 'file_name is missing' });
    expect((await create({ content: 'x', file_name: 'a', files: [{ file_path: 'a', content: 'b' }] })).body).toEqual({
      error: 'files, content are mutually exclusive',
    });
    expect((await create({ files: [{ file_path: '', content: 'b' }] })).body).toEqual({ error: 'files[0][file_path] is empty' });
    expect((await create({ files: [{ content: 'b' }] })).body).toEqual({ error: 'files[0][file_path] is missing' });
    expect((await create({ files: [{ file_path: 'a', content: '' }] })).body).toEqual({ error: 'files[0][content] is empty' });
    expect((await create({ files: [{ file_path: 'a', content: null }] })).body).toEqual({ error: 'files[0][content] is empty' });
    expect((await create({ files: [{ file_path: null, content: 'x' }] })).body).toEqual({
      error: 'files[0][file_path] should be a valid file path, files[0][file_path] is empty',
    });
    expect((await create({ content: '', file_name: 'a' })).body).toEqual({ error: 'content is empty' });
    expect((await create({ files: { file_path: 'a', content: 'b' } })).body).toEqual({ error: 'files is invalid' });
    expect((await create({ files: [] })).status).toBe(400);
  });

  it('refuses traversal and absolute file paths', async () => {
    for (const path of ['../etc/passwd', 'a/../../b', '/etc/passwd', 'a/..']) {
      const res = await create({ files: [{ file_path: path, content: 'x' }] });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'files[0][file_path] should be a valid file path' });
    }
  });

  it('refuses two files with the same path', async () => {
    const res = await create({ files: [{ file_path: 'a', content: '1' }, { file_path: 'a', content: '2' }] });
    expect(res.status).toBe(400);
    expect(res.body.message.error).toMatch(/^Repository Error creating the snippet/);
  });

  it('refuses content above the 50 MB snippet limit', async () => {
    const big = 'x'.repeat(26 * 1024 * 1024);
    const local = await TestService.start({ limits: { maxBodyBytes: 200 * 1024 * 1024 } });
    try {
      const p = await local.createProject({ name: 'big' });
      const res = await local.post(`/projects/${p.id}/snippets`, {
        title: 'big',
        visibility: 'private',
        files: [
          { file_path: 'a', content: big },
          { file_path: 'b', content: big },
        ],
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: { error: 'Content is too long (52 MB). The maximum size is 50 MB.' } });
      const list = await local.get(`/projects/${p.id}/snippets`);
      expect(list.body).toEqual([]);
    } finally {
      await local.stop();
    }
  });

  it('needs Reporter to create', async () => {
    const { user, token } = await s.createUser();
    await s.addMember('projects', project.id, user.id, 10);
    expect((await create({ files: [{ file_path: 'a', content: 'b' }] }, token)).status).toBe(403);
    const anon = await s.post(base(), { title: 'x', visibility: 'public', content: 'a', file_name: 'a' }, { token: null });
    expect(anon.status).toBe(401);
  });
});

describe('project snippets: revisions and raw files', () => {
  it('keeps every revision readable by ref', async () => {
    const created = await create({ files: [{ file_path: 'main.txt', content: 'v1' }] });
    const id = created.body.id;
    const firstRef = await revisionRef(id);
    const upd = await s.put(`${base()}/${id}`, { files: [{ action: 'update', file_path: 'main.txt', content: 'v2' }] });
    expect(upd.status).toBe(200);
    const add = await s.put(`${base()}/${id}`, { files: [{ action: 'create', file_path: 'dir/new.md', content: '# new' }] });
    expect(add.body.files.map((f: any) => f.path)).toEqual(['dir/new.md', 'main.txt']);

    expect((await s.get(`${base()}/${id}/files/main/main.txt/raw`)).text).toBe('v2');
    expect((await s.get(`${base()}/${id}/files/${firstRef}/main.txt/raw`)).text).toBe('v1');
    expect((await s.get(`${base()}/${id}/files/${firstRef.slice(0, 8)}/main.txt/raw`)).text).toBe('v1');
    expect((await s.get(`${base()}/${id}/files/main/${encodeURIComponent('dir/new.md')}/raw`)).text).toBe('# new');
    // The entity's web raw URLs answer too.
    const webFile = add.body.files.find((f: any) => f.path === 'dir/new.md').raw_url;
    expect(await (await fetch(webFile, { headers: { 'private-token': ROOT_TOKEN } })).text()).toBe('# new');
    expect(await (await fetch(add.body.raw_url, { headers: { 'private-token': ROOT_TOKEN } })).text()).toBe('# new');
    const webOld = await fetch(add.body.raw_url.replace(/raw$/, `raw/${firstRef}/main.txt`), { headers: { 'private-token': ROOT_TOKEN } });
    expect(await webOld.text()).toBe('v1');
    expect((await fetch(add.body.raw_url, { headers: {} })).status).toBe(404);
    const revs = await s.get(`${base()}/${id}/revisions`);
    expect(revs.body.map((r: any) => r.message)).toEqual(['Update snippet', 'Update snippet', 'Initial commit']);
    expect(revs.body[2].id).toBe(firstRef);
    expect(revs.body[0].parent_ids).toEqual([revs.body[1].id]);
    expect(revs.body[2].files).toEqual([{ path: 'main.txt', raw_url: `${s.url}/api/v4${base()}/${id}/files/${firstRef}/main.txt/raw` }]);
    expect((await s.get(revs.body[1].files.find((f: any) => f.path === 'main.txt').raw_url)).text).toBe('v2');
    const missingFile = await s.get(`${base()}/${id}/files/${firstRef}/${encodeURIComponent('dir/new.md')}/raw`);
    expect(missingFile.status).toBe(404);
    expect(missingFile.body).toEqual({ message: '404 File Not Found' });
    const badRef = await s.get(`${base()}/${id}/files/nope/main.txt/raw`);
    expect(badRef.body).toEqual({ message: '404 Reference Not Found' });
    const traversal = await s.get(`${base()}/${id}/files/main/${encodeURIComponent('../x')}/raw`);
    expect(traversal.status).toBe(400);
    expect(traversal.body).toEqual({ error: 'file_path should be a valid file path' });
  });

  it('moves and deletes files', async () => {
    const id = (await create({ files: [{ file_path: 'a.txt', content: 'A' }, { file_path: 'b.txt', content: 'B' }] })).body.id;
    const moved = await s.put(`${base()}/${id}`, { files: [{ action: 'move', previous_path: 'a.txt', file_path: 'c.txt' }] });
    expect(moved.status).toBe(200);
    expect(moved.body.files.map((f: any) => f.path)).toEqual(['b.txt', 'c.txt']);
    expect((await s.get(`${base()}/${id}/files/main/c.txt/raw`)).text).toBe('A');
    const del = await s.put(`${base()}/${id}`, { files: [{ action: 'delete', file_path: 'b.txt' }] });
    expect(del.body.files.map((f: any) => f.path)).toEqual(['c.txt']);
    expect((await s.get(`${base()}/${id}/raw`)).text).toBe('A');
  });

  it('answers 400 for the legacy form on a multi-file snippet', async () => {
    const id = (await create({ files: [{ file_path: 'a', content: '1' }, { file_path: 'b', content: '2' }] })).body.id;
    const res = await s.put(`${base()}/${id}`, { content: 'x' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { error: 'To update Snippets with multiple files, you must use the `files` parameter' } });
  });

  it('renames a single-file snippet with the legacy file_name and keeps its content', async () => {
    const id = (await create({ file_name: 'foo.py', content: 'initial content' })).body.id;
    const res = await s.put(`${base()}/${id}`, { file_name: 'bar.py' });
    expect(res.body.file_name).toBe('bar.py');
    expect((await s.get(`${base()}/${id}/raw`)).text).toBe('initial content');
  });

  it('validates update parameters and file actions', async () => {
    const id = (await create({ files: [{ file_path: 'a', content: '1' }] })).body.id;
    expect((await s.put(`${base()}/${id}`, {})).body).toEqual({
      error: 'content, description, files, file_name, title, visibility are missing, at least one parameter must be provided',
    });
    expect((await s.put(`${base()}/${id}`, { files: [{ action: 'rename', file_path: 'a' }] })).body).toEqual({
      error: 'files[0][action] does not have a valid value',
    });
    const invalid = await s.put(`${base()}/${id}`, { files: [{ action: 'update', file_path: 'a' }] });
    expect(invalid.status).toBe(422);
    expect(invalid.body).toEqual({ message: { error: 'Snippet files have invalid data' } });
    const missing = await s.put(`${base()}/${id}`, { files: [{ action: 'update', file_path: 'zzz', content: 'x' }] });
    expect(missing.status).toBe(400);
    expect(missing.body.message.error).toMatch(/^Repository Error updating the snippet/);
    expect((await s.put(`${base()}/${id}`, { files: [{ action: 'create', file_path: '/abs', content: 'x' }] })).body).toEqual({
      error: 'files[0][file_path] should be a valid file path',
    });
    // Nothing was committed by the failures.
    expect((await s.get(`${base()}/${id}/raw`)).text).toBe('1');
  });
});

describe('project snippets: read, list, delete and access', () => {
  it('lists newest first with pagination headers', async () => {
    const res = await s.get(base(), { query: { per_page: 2 } });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(2);
    expect(res.body[0].id).toBeGreaterThan(res.body[1].id);
    expect(res.headers.get('x-total')).toBeTruthy();
    expect(res.headers.get('link')).toContain('rel="next"');
  });

  it('answers 404 Not found for an unknown snippet and 404 Snippet Not Found on its raw', async () => {
    expect((await s.get(`${base()}/999999`)).body).toEqual({ message: '404 Not found' });
    expect((await s.get(`${base()}/999999/raw`)).body).toEqual({ message: '404 Snippet Not Found' });
    expect((await s.put(`${base()}/999999`, { title: 'x' })).body).toEqual({ message: '404 Snippet Not Found' });
    expect((await s.del(`${base()}/999999`)).status).toBe(404);
  });

  it('hides private snippets from non-members and shows public ones in public projects', async () => {
    const pub = await s.createProject({ name: 'pubsnips', visibility: 'public' });
    const priv = await s.post(`/projects/${pub.id}/snippets`, { title: 'p', visibility: 'private', content: 'secret', file_name: 's' });
    const open = await s.post(`/projects/${pub.id}/snippets`, { title: 'o', visibility: 'public', content: 'hello', file_name: 'h' });
    const internal = await s.post(`/projects/${pub.id}/snippets`, { title: 'i', visibility: 'internal', content: 'in', file_name: 'i' });
    const { token } = await s.createUser();
    expect((await s.get(`/projects/${pub.id}/snippets/${priv.body.id}`, { token })).status).toBe(404);
    expect((await s.get(`/projects/${pub.id}/snippets/${open.body.id}`, { token: null })).status).toBe(200);
    expect((await s.get(`/projects/${pub.id}/snippets/${open.body.id}/raw`, { token: null })).text).toBe('hello');
    expect((await s.get(`/projects/${pub.id}/snippets/${internal.body.id}`, { token: null })).status).toBe(404);
    expect((await s.get(`/projects/${pub.id}/snippets/${internal.body.id}`, { token })).status).toBe(200);
    const listed = (await s.get(`/projects/${pub.id}/snippets`, { token })).body.map((x: any) => x.id);
    expect(listed).toEqual([internal.body.id, open.body.id]);
    // An external user lists the public ones only; a Guest of the project lists all of them, its own or not.
    const external = await s.createUser({ external: true });
    expect((await s.get(`/projects/${pub.id}/snippets`, { token: external.token })).body.map((x: any) => x.id)).toEqual([open.body.id]);
    const guest = await s.createUser();
    await s.addMember('projects', pub.id, guest.user.id, 10);
    const all = await s.get(`/projects/${pub.id}/snippets`, { token: guest.token });
    expect(all.body.map((x: any) => x.id)).toEqual([internal.body.id, open.body.id, priv.body.id]);
    expect(all.headers.get('x-total')).toBe('3');
    expect((await s.get(`/projects/${pub.id}/snippets`, { token: null })).status).toBe(401);
    // A non-member can read but not change or delete.
    expect((await s.put(`/projects/${pub.id}/snippets/${open.body.id}`, { title: 'x' }, { token })).status).toBe(403);
    expect((await s.del(`/projects/${pub.id}/snippets/${open.body.id}`, { token })).status).toBe(403);
    // Private project: a non-member gets 404 for the project.
    expect((await s.get(base(), { token })).body).toEqual({ message: '404 Project Not Found' });
  });

  it('answers 403 on every route when the snippets feature is disabled', async () => {
    const p = await s.createProject({ name: 'nosnips', snippets_access_level: 'disabled' });
    expect((await s.get(`/projects/${p.id}/snippets`)).status).toBe(403);
    expect((await s.post(`/projects/${p.id}/snippets`, { title: 'x', visibility: 'private', content: 'a', file_name: 'a' })).status).toBe(403);
  });

  it('deletes with 204 and then answers 404', async () => {
    const id = (await create({ files: [{ file_path: 'a', content: '1' }] })).body.id;
    const del = await s.del(`${base()}/${id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await s.get(`${base()}/${id}`)).status).toBe(404);
  });

  it('records the user agent and IP for admins', async () => {
    const id = (await s.post(base(), { title: 'ua', visibility: 'private', content: 'a', file_name: 'a' }, { headers: { 'user-agent': 'sandlab-test/1.0' } }))
      .body.id;
    const res = await s.get(`${base()}/${id}/user_agent_detail`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ user_agent: 'sandlab-test/1.0', ip_address: '127.0.0.1', akismet_submitted: false, spam_check_submitted: false });
    const { token } = await s.createUser();
    expect((await s.get(`${base()}/${id}/user_agent_detail`, { token })).status).toBe(403);
    expect((await s.get(`${base()}/999999/user_agent_detail`)).body).toEqual({ message: '404 Not found' });
  });
});

describe('snippet notes and discussions', () => {
  it('creates, replies to, edits and deletes discussion notes', async () => {
    const id = (await create({ files: [{ file_path: 'a', content: '1' }] })).body.id;
    const d = await s.post(`${base()}/${id}/discussions`, { body: 'first' });
    expect(d.status).toBe(201);
    expect(d.body.individual_note).toBe(false);
    expect(d.body.notes[0]).toMatchObject({ body: 'first', noteable_type: 'Snippet', noteable_id: id });
    const reply = await s.post(`${base()}/${id}/discussions/${d.body.id}/notes`, { body: 'second' });
    expect(reply.status).toBe(201);
    const got = await s.get(`${base()}/${id}/discussions/${d.body.id}/notes/${reply.body.id}`);
    expect(got.body.body).toBe('second');
    const edited = await s.put(`${base()}/${id}/discussions/${d.body.id}/notes/${reply.body.id}`, { body: 'updated body' });
    expect(edited.body.body).toBe('updated body');
    const thread = await s.get(`${base()}/${id}/discussions/${d.body.id}`);
    expect(thread.body.notes.map((n: any) => n.body)).toEqual(['first', 'updated body']);
    expect((await s.del(`${base()}/${id}/discussions/${d.body.id}/notes/${reply.body.id}`)).status).toBe(204);
    expect((await s.get(`${base()}/${id}/discussions`)).body[0].notes).toHaveLength(1);
    const note = await s.post(`${base()}/${id}/notes`, { body: 'plain' });
    expect(note.status).toBe(201);
    expect((await s.get(`${base()}/${id}/notes`)).body.map((n: any) => n.body)).toEqual(['plain', 'first']);
    expect((await s.get(`${base()}/${id}/discussions/nope`)).body).toEqual({ message: '404 Discussion Not Found' });
  });
});

describe('personal snippets', () => {
  it('creates with internal visibility by default and lists the caller’s own', async () => {
    const { token } = await s.createUser();
    const res = await s.post('/snippets', { title: 'mine', file_name: 'a.rb', content: 'import gitlab' }, { token });
    expect(res.status).toBe(201);
    expect(res.body.visibility).toBe('internal');
    expect(res.body.project_id).toBeNull();
    expect(res.body.web_url).toBe(`${s.url}/-/snippets/${res.body.id}`);
    expect((await s.get(`/snippets/${res.body.id}/raw`, { token })).text).toBe('import gitlab');
    const webRaw = await fetch(res.body.raw_url, { headers: { 'private-token': token } });
    expect(await webRaw.text()).toBe('import gitlab');
    expect((await s.get('/snippets', { token })).body.map((x: any) => x.id)).toEqual([res.body.id]);
    expect((await s.get(`/snippets/${res.body.id}`, { token: null })).body).toEqual({ message: '404 Snippet Not Found' });
    const upd = await s.put(`/snippets/${res.body.id}`, { title: 'renamed' }, { token });
    expect(upd.body.title).toBe('renamed');
    expect((await s.get(`/snippets/${res.body.id}/user_agent_detail`)).body.user_agent).toBeTruthy();
    expect((await s.del(`/snippets/${res.body.id}`, { token })).status).toBe(204);
    expect((await s.get(`/snippets/${res.body.id}`, { token })).status).toBe(404);
  });
});

async function revisionRef(snippetId: number): Promise<string> {
  const row = s.service.context.db
    .prepare('SELECT sha FROM snippet_revisions WHERE snippet_id = ? ORDER BY id DESC LIMIT 1')
    .get(snippetId) as { sha: string };
  return row.sha;
}
