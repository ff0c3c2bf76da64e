import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';

// An event whose row, author, project import state, note and the note's people read as when its
// entity was built keeps that entity and its JSON text across writes elsewhere
// (areas/events/entities.ts event: unchangedEntity). These tests pin that every write that changes
// what an event shows — to the event's row, its author, its note, the note's author and resolver,
// through the API and in SQL — shows at the next page of the project's, the author's and the
// instance's event lists, each row as a build of its own (inside a transaction nothing is kept)
// shows it, and that each request's base URL shows in its answer.

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s?.stop());

const db = () => s.service.context.db;
const sql = (text: string, ...args: unknown[]) => db().prepare(text).run(...args);


describe('event entities kept across writes', () => {
  let author: { user: any; token: string };
  let project: any;
  let other: any;
  let issue: any;
  let mr: any;
  let touches = 0;

  const elsewhere = async (): Promise<void> => void ok(await s.put(`/projects/${other.id}`, { description: `elsewhere ${++touches}` }));
  const paths = (): string[] => [`/projects/${project.id}/events?per_page=100`, `/users/${author.user.id}/events?per_page=100`, '/events?scope=all&per_page=100'];

  /**
   * Every list's events of the project after a write elsewhere, twice (the second reads what the
   * first kept), each list's text the same as its rows built afresh: the answers of the same lists
   * read inside a transaction, where no entity is kept. By event id (the lists agree on each).
   */
  const events = async (): Promise<Map<number, any>> => {
    const byId = new Map<number, any>();
    for (let round = 0; round < 2; round++) {
      await elsewhere();
      for (const path of paths()) {
        const res = await s.get(path, { token: author.token });
        expect(res.status, path).toBe(200);
        expect(res.text, path).toBe(JSON.stringify(res.body));
        for (const e of res.body as any[]) {
          if (e.project_id !== project.id) continue;
          const seen = byId.get(e.id);
          if (seen) expect(e, `${path} event ${e.id}`).toEqual(seen);
          byId.set(e.id, e);
        }
      }
    }
    const fresh = await afresh();
    expect([...byId.keys()].sort()).toEqual([...fresh.keys()].sort());
    for (const [id, e] of byId) expect(e, `event ${id} as built afresh`).toEqual(fresh.get(id));
    return byId;
  };

  /** The project's events built with nothing kept: the project's list read while a transaction is open. */
  const afresh = async (): Promise<Map<number, any>> => {
    sql('SAVEPOINT afresh');
    try {
      const res = await s.get(`/projects/${project.id}/events?per_page=100`, { token: author.token });
      expect(res.status).toBe(200);
      return new Map((res.body as any[]).map((e) => [e.id, e]));
    } finally {
      sql('RELEASE afresh');
    }
  };

  beforeAll(async () => {
    author = await s.createUser({ name: 'Ada Author' });
    project = await s.createProject({ initialize_with_readme: true }, author.token);
    other = await s.createProject();
    issue = ok(await s.post(`/projects/${project.id}/issues`, { title: 'An issue' }, { token: author.token }));
    ok(await s.post(`/projects/${project.id}/issues/${issue.iid}/notes`, { body: 'First words' }, { token: author.token }));
    mr = ok(await s.post(`/projects/${project.id}/merge_requests`, { title: 'A change', source_branch: 'change', target_branch: 'main' }, { token: author.token }));
  });

  it('show a write to the event row in SQL at the next page', async () => {
    const before = await events();
    const opened = [...before.values()].find((e) => e.target_type === 'Issue' && e.action_name === 'opened');
    expect(opened.target_title).toBe('An issue');
    sql('UPDATE events SET target_title = ? WHERE id = ?', 'Renamed in SQL', opened.id);
    expect((await events()).get(opened.id).target_title).toBe('Renamed in SQL');
  });

  it("show the author's name and username as written through the API and in SQL", async () => {
    await events();
    ok(await s.put(`/users/${author.user.id}`, { name: 'Ada Renamed' }));
    for (const e of (await events()).values()) expect(e.author.name).toBe('Ada Renamed');
    sql('UPDATE users SET username = ? WHERE id = ?', 'ada-sql', author.user.id);
    for (const e of (await events()).values()) {
      expect(e.author_username).toBe('ada-sql');
      expect(e.author.web_url).toMatch(/\/ada-sql$/);
    }
    const notes = [...(await events()).values()].filter((e) => e.note);
    expect(notes.length).toBeGreaterThan(0);
    for (const e of notes) expect(e.note.author.username).toBe('ada-sql');
  });

  it("show a note's edit, its resolution and its deletion at the next page", async () => {
    const discussion = ok(await s.post(`/projects/${project.id}/merge_requests/${mr.iid}/discussions`, { body: 'Please look' }, { token: author.token }));
    const noteId = discussion.notes[0].id;
    const commented = () => [...before.values()].find((e) => e.note?.id === noteId);
    let before = await events();
    expect(commented().note.body).toBe('Please look');
    expect(commented().note.resolved).toBe(false);
    ok(await s.put(`/projects/${project.id}/merge_requests/${mr.iid}/notes/${noteId}`, { body: 'Edited words' }, { token: author.token }));
    before = await events();
    expect(commented().note.body).toBe('Edited words');
    ok(await s.put(`/projects/${project.id}/merge_requests/${mr.iid}/discussions/${discussion.id}`, { resolved: true }));
    before = await events();
    expect(commented().note.resolved).toBe(true);
    expect(commented().note.resolved_by.username).toBe('root');
    // The resolver's own row changes: the note in the event shows it.
    sql('UPDATE users SET name = ? WHERE id = 1', 'Root Renamed');
    before = await events();
    expect(commented().note.resolved_by.name).toBe('Root Renamed');
    sql('UPDATE notes SET body = ? WHERE id = ?', 'Edited in SQL', noteId);
    before = await events();
    expect(commented().note.body).toBe('Edited in SQL');
    const eventId = commented().id;
    // Deleted, the note takes its event along (core/375, GitLab's Note has_many :events dependent:).
    sql('DELETE FROM notes WHERE id = ?', noteId);
    before = await events();
    expect(before.has(eventId)).toBe(false);
  });

  it("show each request's base URL", async () => {
    await events();
    for (const host of ['one.example:8080', 'two.example']) {
      for (const path of paths()) {
        const res = await s.getWithHost(path, host);
        expect(res.status).toBe(200);
        const mine = (res.body as any[]).filter((e) => e.project_id === project.id);
        expect(mine.length).toBeGreaterThan(0);
        for (const e of mine) expect(e.author.web_url.startsWith(`http://${host}/`), `${path} ${e.id}`).toBe(true);
      }
    }
  });
});
