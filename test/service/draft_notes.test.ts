import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

let s: TestService;
let project: any;
let mr: any;
let dev: { user: any; token: string };
let other: { user: any; token: string };
let base: string;

beforeAll(async () => {
  s = await TestService.start();
  dev = await s.createUser();
  other = await s.createUser();
  project = await s.createProject({ visibility: 'private' });
  await s.addMember('projects', project.id, dev.user.id, 30);
  await s.addMember('projects', project.id, other.user.id, 30);
  mr = (await s.post(`/projects/${project.id}/merge_requests`, { source_branch: 'feature', target_branch: 'main', title: 'Review me' })).body;
  base = `/projects/${project.id}/merge_requests/${mr.iid}/draft_notes`;
});
afterAll(async () => s.stop());

const position = (extra: Record<string, unknown> = {}) => ({
  base_sha: mr.diff_refs.base_sha,
  start_sha: mr.diff_refs.start_sha,
  head_sha: mr.diff_refs.head_sha,
  position_type: 'text',
  new_path: 'README.md',
  old_path: 'README.md',
  new_line: 3,
  ...extra,
});

describe('merge request draft notes', () => {
  it('creates a draft without a position and shows GitLab\'s empty text position', async () => {
    const res = await s.post(base, { note: 'first thought' }, { token: dev.token });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      author_id: dev.user.id,
      merge_request_id: mr.id,
      resolve_discussion: false,
      discussion_id: null,
      note: 'first thought',
      commit_id: null,
      line_code: null,
      position: {
        base_sha: null, start_sha: null, head_sha: null, old_path: null, new_path: null,
        position_type: 'text', old_line: null, new_line: null, line_range: null,
      },
    });
  });

  it('creates a diff draft from position[...] form fields', async () => {
    const p = position();
    const form: Record<string, string> = { note: 'on a line' };
    for (const [k, v] of Object.entries(p)) form[`position[${k}]`] = String(v);
    const res = await s.api('POST', base, { token: dev.token, form });
    expect(res.status).toBe(201);
    expect(res.body.position).toEqual({ ...p, old_line: null, line_range: null });
  });

  it('takes width, height, x and y for image positions and bare SHAs for file positions', async () => {
    const image = await s.post(base, { note: 'img', position: position({ position_type: 'image', width: 100, height: 50, x: 1.5, y: 2 }) }, { token: dev.token });
    expect(image.status).toBe(201);
    expect(image.body.position).toMatchObject({ position_type: 'image', width: 100, height: 50, x: 1.5, y: 2 });
    expect(image.body.position).not.toHaveProperty('new_line');
    const file = await s.post(base, { note: 'file', position: { ...position({ position_type: 'file' }), new_line: undefined } }, { token: dev.token });
    expect(file.status).toBe(201);
    expect(Object.keys(file.body.position).sort()).toEqual(['base_sha', 'head_sha', 'new_path', 'old_path', 'position_type', 'start_sha']);
  });

  it('answers 400 for a missing note and for incomplete positions', async () => {
    expect((await s.post(base, {}, { token: dev.token })).body).toEqual({ error: 'note is missing' });
    const noSha = await s.post(base, { note: 'x', position: { position_type: 'text', new_path: 'a', old_path: 'a' } }, { token: dev.token });
    expect(noSha.status).toBe(400);
    expect(noSha.body.error).toBe('position[base_sha] is missing, position[start_sha] is missing, position[head_sha] is missing');
    const noPaths = await s.post(base, { note: 'x', position: { ...position(), new_path: undefined, old_path: undefined } }, { token: dev.token });
    expect(noPaths.body.error).toBe('position[new_path] is missing, position[old_path] is missing');
    const badType = await s.post(base, { note: 'x', position: position({ position_type: 'video' }) }, { token: dev.token });
    expect(badType.body.error).toBe('position[position_type] does not have a valid value');
  });

  it('shows drafts only to their author', async () => {
    const mine = await s.post(base, { note: 'secret' }, { token: dev.token });
    const list = await s.get(base, { token: other.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([]);
    const get = await s.get(`${base}/${mine.body.id}`, { token: other.token });
    expect(get.status).toBe(404);
    expect(get.body).toEqual({ message: '404 Not found' });
    expect((await s.put(`${base}/${mine.body.id}`, { note: 'hijack' }, { token: other.token })).status).toBe(404);
    expect((await s.del(`${base}/${mine.body.id}`, { token: other.token })).status).toBe(404);
    expect((await s.put(`${base}/${mine.body.id}/publish`, undefined, { token: other.token })).status).toBe(404);
    const own = await s.get(base, { token: dev.token });
    expect(own.body.map((d: any) => d.note)).toContain('secret');
  });

  it('updates the note, keeps a resent position, and refuses an update without a note', async () => {
    const created = await s.post(base, { note: 'v1', position: position() }, { token: dev.token });
    const id = created.body.id;
    const updated = await s.put(`${base}/${id}`, { note: 'v2', position: position() }, { token: dev.token });
    expect(updated.status).toBe(200);
    expect(updated.body.note).toBe('v2');
    expect(updated.body.position).toEqual(created.body.position);
    const missing = await s.put(`${base}/${id}`, { position: position() }, { token: dev.token });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ message: '400 Bad request - Missing params to modify' });
    expect((await s.put(`${base}/${id}`, { note: '' }, { token: dev.token })).body).toEqual({ error: 'note is empty' });
    expect((await s.put(`${base}/999999`, { note: 'x' }, { token: dev.token })).status).toBe(404);
  });

  it('answers gitbeaker\'s POST to a draft (its edit call) with 405, as GitLab does, leaving the draft alone', async () => {
    const created = await s.post(base, { note: 'draft v1' }, { token: dev.token });
    const posted = await s.post(`${base}/${created.body.id}`, { note: 'draft v2' }, { token: dev.token });
    expect(posted.status).toBe(405);
    expect(posted.body).toEqual({ error: '405 Not Allowed' });
    expect((await s.get(`${base}/${created.body.id}`, { token: dev.token })).body.note).toBe('draft v1');
    // bulk_publish keeps its own route.
    expect((await s.post(`${base}/bulk_publish`, {}, { token: other.token })).status).toBe(204);
  });

  it('answers Grape\'s 400 for a draft id that is not an integer', async () => {
    for (const res of [await s.get(`${base}/abc`, { token: dev.token }), await s.put(`${base}/abc`, { note: 'x' }, { token: dev.token }), await s.del(`${base}/abc`, { token: dev.token })]) {
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'draft_note_id is invalid' });
    }
  });

  it('deletes a draft with 204', async () => {
    const created = await s.post(base, { note: 'bye' }, { token: dev.token });
    const del = await s.del(`${base}/${created.body.id}`, { token: dev.token });
    expect(del.status).toBe(204);
    expect(del.text).toBe('');
    expect((await s.get(`${base}/${created.body.id}`, { token: dev.token })).status).toBe(404);
  });

  it('publishes one draft as a new thread with a "commented on" event', async () => {
    const created = await s.post(base, { note: 'publish me' }, { token: other.token });
    const pub = await s.put(`${base}/${created.body.id}/publish`, undefined, { token: other.token });
    expect(pub.status).toBe(204);
    expect((await s.get(`${base}/${created.body.id}`, { token: other.token })).status).toBe(404);
    const discussions = await s.get(`/projects/${project.id}/merge_requests/${mr.iid}/discussions`, { token: dev.token });
    const thread = discussions.body.find((d: any) => d.notes[0].body === 'publish me');
    expect(thread.individual_note).toBe(false);
    expect(thread.notes[0]).toMatchObject({ type: 'DiscussionNote', author: { id: other.user.id }, resolvable: true, resolved: false });
    const events = await s.get(`/projects/${project.id}/events`, { token: dev.token, query: { action: 'commented' } });
    const ev = events.body.find((e: any) => e.target_id === thread.notes[0].id);
    expect(ev).toMatchObject({ action_name: 'commented on', target_type: 'DiscussionNote', author_id: other.user.id });
    expect(ev.note).toMatchObject({ id: thread.notes[0].id, body: 'publish me', noteable_type: 'MergeRequest', noteable_iid: mr.iid });
  });

  it('publishes a reply into its thread and resolves it when asked', async () => {
    const thread = await s.post(`/projects/${project.id}/merge_requests/${mr.iid}/discussions`, { body: 'question?' }, { token: dev.token });
    expect(thread.status).toBe(201);
    const reply = await s.post(base, { note: 'answer', in_reply_to_discussion_id: thread.body.id, resolve_discussion: true }, { token: other.token });
    expect(reply.body).toMatchObject({ discussion_id: thread.body.id, resolve_discussion: true });
    expect((await s.put(`${base}/${reply.body.id}/publish`, undefined, { token: other.token })).status).toBe(204);
    const got = await s.get(`/projects/${project.id}/merge_requests/${mr.iid}/discussions/${thread.body.id}`, { token: dev.token });
    expect(got.body.notes.map((n: any) => n.body)).toEqual(['question?', 'answer']);
    expect(got.body.notes.every((n: any) => n.resolved === true)).toBe(true);
    expect(got.body.notes[1].resolved_by.id).toBe(other.user.id);
  });

  it('refuses a reply to an unknown thread', async () => {
    const res = await s.post(base, { note: 'lost', in_reply_to_discussion_id: 'deadbeef' }, { token: dev.token });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { base: ['Thread to reply to cannot be found'] } });
  });

  it('bulk publishes all of the caller\'s drafts and none of anyone else\'s', async () => {
    const bulkMr = (await s.post(`/projects/${project.id}/merge_requests`, { source_branch: 'bulk', target_branch: 'main', title: 'Bulk' })).body;
    const b = `/projects/${project.id}/merge_requests/${bulkMr.iid}/draft_notes`;
    await s.post(b, { note: 'one' }, { token: dev.token });
    await s.post(b, { note: 'two', position: position() }, { token: dev.token });
    await s.post(b, { note: 'theirs' }, { token: other.token });
    const res = await s.post(`${b}/bulk_publish`, undefined, { token: dev.token });
    expect(res.status).toBe(204);
    expect((await s.get(b, { token: dev.token })).body).toEqual([]);
    expect((await s.get(b, { token: other.token })).body.map((d: any) => d.note)).toEqual(['theirs']);
    const notes = await s.get(`/projects/${project.id}/merge_requests/${bulkMr.iid}/notes`, { query: { sort: 'asc' } });
    expect(notes.body.map((n: any) => [n.body, n.type])).toEqual([['one', 'DiscussionNote'], ['two', 'DiffNote']]);
    expect(notes.body[1].position).toMatchObject({ new_path: 'README.md', new_line: 3 });
  });

  it('answers 404 for projects the caller cannot see and 401 anonymously', async () => {
    const outsider = await s.createUser();
    expect((await s.get(base, { token: outsider.token })).body).toEqual({ message: '404 Project Not Found' });
    expect((await s.get(base, { token: null })).status).toBe(401);
  });

  it('refuses drafts on a public project\'s merge request to nobody signed in, allows any user', async () => {
    const pub = await s.createProject({ visibility: 'public' });
    const pmr = (await s.post(`/projects/${pub.id}/merge_requests`, { source_branch: 'f', target_branch: 'main', title: 'Pub' })).body;
    const outsider = await s.createUser();
    const res = await s.post(`/projects/${pub.id}/merge_requests/${pmr.iid}/draft_notes`, { note: 'drive-by' }, { token: outsider.token });
    expect(res.status).toBe(201);
  });
});

describe('discussions', () => {
  it('lists single comments as individual notes and threads with replies', async () => {
    const issue = (await s.post(`/projects/${project.id}/issues`, { title: 'Talk' })).body;
    const d = `/projects/${project.id}/issues/${issue.iid}/discussions`;
    await s.post(`/projects/${project.id}/issues/${issue.iid}/notes`, { body: 'plain' });
    const thread = await s.post(d, { body: 'thread start' });
    const reply = await s.post(`${d}/${thread.body.id}/notes`, { body: 'reply' });
    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({ body: 'reply', type: 'DiscussionNote', resolvable: false });
    const list = await s.get(d);
    expect(list.headers.get('x-total')).toBe('2');
    expect(list.body.map((x: any) => [x.individual_note, x.notes.map((n: any) => n.body)])).toEqual([
      [true, ['plain']],
      [false, ['thread start', 'reply']],
    ]);
    expect((await s.get(`${d}/nope`)).status).toBe(404);
  });

  it('reads a thread\'s notes and one note by id, and names the missing discussion', async () => {
    for (const kind of ['issues', 'merge_requests'] as const) {
      const iid = kind === 'issues' ? (await s.post(`/projects/${project.id}/issues`, { title: 'Notes of a thread' })).body.iid : mr.iid;
      const d = `/projects/${project.id}/${kind}/${iid}/discussions`;
      const thread = await s.post(d, { body: 'first' }, { token: dev.token });
      const reply = await s.post(`${d}/${thread.body.id}/notes`, { body: 'second' }, { token: dev.token });
      const notes = await s.get(`${d}/${thread.body.id}/notes`, { token: dev.token });
      expect(notes.status).toBe(200);
      expect(notes.body.map((n: any) => n.body)).toEqual(['first', 'second']);
      const one = await s.get(`${d}/${thread.body.id}/notes/${reply.body.id}`, { token: dev.token });
      expect(one.status).toBe(200);
      expect(one.body).toMatchObject({ id: reply.body.id, body: 'second', type: 'DiscussionNote' });
      expect((await s.get(`${d}/${thread.body.id}/notes/999999`, { token: dev.token })).body).toEqual({ message: '404 Not found' });
      expect((await s.get(`${d}/${thread.body.id}/notes/abc`, { token: dev.token })).body).toEqual({ error: 'note_id is invalid' });
      expect((await s.get(`${d}/nope/notes`, { token: dev.token })).body).toEqual({ message: '404 Notes Not Found' });
      const missing = await s.get(`${d}/nope`, { token: dev.token });
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ message: '404 Discussion Not Found' });
      expect((await s.post(`${d}/nope/notes`, { body: 'x' }, { token: dev.token })).body).toEqual({ message: '404 Discussion Not Found' });
    }
  });

  it('resolves a merge request thread with PUT resolved=true', async () => {
    const d = `/projects/${project.id}/merge_requests/${mr.iid}/discussions`;
    const thread = await s.post(d, { body: 'resolve me', position: position() }, { token: dev.token });
    expect(thread.body.notes[0]).toMatchObject({ type: 'DiffNote', resolvable: true, resolved: false });
    const res = await s.put(`${d}/${thread.body.id}`, { resolved: true }, { token: dev.token });
    expect(res.status).toBe(200);
    expect(res.body.notes[0].resolved).toBe(true);
  });
});
