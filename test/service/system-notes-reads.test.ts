import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

// What the notes, discussions and search reads answer once system notes are written (rev31's review of round 31):
// pages and headers before and after, a Guest's view, the activity filter, search leaving system notes out.
let s: TestService;
let project: any;
let p: string;
let dev: { user: any; token: string };
let guest: { user: any; token: string };

beforeAll(async () => {
  s = await TestService.start();
  dev = await s.createUser({ username: 'devsys' });
  guest = await s.createUser({ username: 'guestsys' });
  project = await s.createProject({ name: 'sysreads', visibility: 'private' });
  p = `/projects/${project.id}`;
  await s.addMember('projects', project.id, dev.user.id, 30);
  await s.addMember('projects', project.id, guest.user.id, 10);
});
afterAll(async () => s?.stop());

const heads = (r: { headers: Headers }) => ['x-total', 'x-total-pages', 'x-page', 'x-next-page'].map((h) => r.headers.get(h));

describe('notes reads with system notes', () => {
  it('pages, headers, discussions, filters and a Guest read the notes written before and after a change', async () => {
    const issue = (await s.post(`${p}/issues`, { title: 'searchable sysword', description: 'd' }, { token: dev.token })).body;
    const path = `${p}/issues/${issue.iid}`;
    await s.post(`${path}/notes`, { body: 'first comment' }, { token: dev.token });
    // Warm every read before the change, so nothing kept between requests can hide what it writes.
    const warm = await s.get(`${path}/notes`, { query: { per_page: 2 } });
    expect(heads(warm)).toEqual(['1', '1', '1', '']);
    expect(heads(await s.get(`${path}/discussions`, { token: guest.token }))).toEqual(['1', '1', '1', '']);
    await s.put(path, { title: 'searchable sysword renamed', description: 'e', discussion_locked: true }, { token: dev.token });
    await s.post(`${path}/notes`, { body: 'second comment' }, { token: dev.token });
    for (const token of [undefined, guest.token]) {
      const page1 = await s.get(`${path}/notes`, { token, query: { per_page: 2, sort: 'asc' } });
      expect(heads(page1)).toEqual(['5', '3', '1', '2']);
      const all = (await s.get(`${path}/notes`, { token, query: { per_page: 100, sort: 'asc' } })).body as any[];
      expect(all.map((n) => [n.system, n.body])).toEqual([
        [false, 'first comment'],
        [true, 'changed title from **searchable sysword** to **searchable sysword{+ renamed+}**'],
        [true, 'changed the description'],
        [true, 'locked the discussion in this issue'],
        [false, 'second comment'],
      ]);
      expect((page1.body as any[]).map((n) => n.id)).toEqual(all.slice(0, 2).map((n) => n.id));
      const page3 = await s.get(`${path}/notes`, { token, query: { per_page: 2, sort: 'asc', page: 3 } });
      expect((page3.body as any[]).map((n) => n.id)).toEqual([all[4].id]);
      const comments = (await s.get(`${path}/notes`, { token, query: { activity_filter: 'only_comments', sort: 'asc' } })).body as any[];
      expect(comments.map((n) => n.body)).toEqual(['first comment', 'second comment']);
      const activity = await s.get(`${path}/notes`, { token, query: { activity_filter: 'only_activity', sort: 'asc' } });
      expect(heads(activity)).toEqual(['3', '1', '1', '']);
      const discussions = await s.get(`${path}/discussions`, { token });
      expect(heads(discussions)).toEqual(['5', '1', '1', '']);
      expect((discussions.body as any[]).map((d) => [d.individual_note, d.notes[0].system])).toEqual([
        [true, false],
        [true, true],
        [true, true],
        [true, true],
        [true, false],
      ]);
    }
    const read = (await s.get(path, { token: guest.token })).body;
    expect(read.user_notes_count).toBe(2);
    // Project search of notes leaves system notes out (NotesFinder#execute.user): "renamed" is only in one.
    expect((await s.get(`${p}/search`, { query: { scope: 'notes', search: 'renamed' } })).body).toEqual([]);
    expect(((await s.get(`${p}/search`, { query: { scope: 'notes', search: 'comment' } })).body as any[]).length).toBe(2);
  });

  it('a refused change writes no note, and a Guest cannot make one', async () => {
    const issue = (await s.post(`${p}/issues`, { title: 'kept' }, { token: dev.token })).body;
    const path = `${p}/issues/${issue.iid}`;
    const before = await s.get(`${path}/notes`);
    expect(heads(before)).toEqual(['0', '1', '1', '']);
    // A Guest may not edit another's issue: 403, nothing written.
    expect((await s.put(path, { title: 'guest title', discussion_locked: true }, { token: guest.token })).status).toBe(403);
    // An invalid change (a blank title) is refused whole: 400, not the lock note either.
    expect((await s.put(path, { title: '', discussion_locked: true }, { token: dev.token })).status).toBe(400);
    expect((await s.put(path, { due_date: 'not-a-date', description: 'x' }, { token: dev.token })).status).toBe(400);
    const after = await s.get(`${path}/notes`);
    expect(heads(after)).toEqual(['0', '1', '1', '']);
    expect(after.body).toEqual([]);
    expect((await s.get(path)).body).toMatchObject({ title: 'kept', discussion_locked: null, description: null });
  });
});
