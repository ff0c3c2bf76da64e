import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

/**
 * user_notes_count (an issue's or merge request's notes that are not system notes) comes from
 * counters kept by triggers (core/023): on lists and single records it is the count the notes
 * say, through every way a note comes, goes, moves or changes kind.
 */
let s: TestService;
let project: number;
beforeAll(async () => {
  s = await TestService.start();
  project = (await s.createProject({ name: 'chatty', visibility: 'public' })).id;
});
afterAll(async () => s.stop());

/** user_notes_count of each issue by iid, on the list and on each issue's own GET. */
async function counts(): Promise<Record<number, number>> {
  const list = (await s.get(`/projects/${project}/issues`)).body as any[];
  const out: Record<number, number> = {};
  for (const i of list) {
    out[i.iid] = i.user_notes_count;
    expect((await s.get(`/projects/${project}/issues/${i.iid}`)).body.user_notes_count).toBe(i.user_notes_count);
  }
  return out;
}

describe('user_notes_count', () => {
  it('counts the notes people wrote, not system notes, through notes added, deleted, moved and turned into system notes', async () => {
    const a = (await s.post(`/projects/${project}/issues`, { title: 'A' })).body;
    const b = (await s.post(`/projects/${project}/issues`, { title: 'B' })).body;
    const noteIds: number[] = [];
    for (const body of ['one', 'two', 'three']) noteIds.push((await s.post(`/projects/${project}/issues/${a.iid}/notes`, { body })).body.id);
    // A label change writes a system note.
    expect((await s.put(`/projects/${project}/issues/${a.iid}`, { labels: 'bug' })).status).toBe(200);
    expect(await counts()).toEqual({ [a.iid]: 3, [b.iid]: 0 });
    expect((await s.del(`/projects/${project}/issues/${a.iid}/notes/${noteIds[0]}`)).status).toBe(204);
    expect(await counts()).toEqual({ [a.iid]: 2, [b.iid]: 0 });
    // Moved to the other issue, and made a system note, without the API: the counters follow the table.
    const db = s.service.context.db;
    db.prepare('UPDATE notes SET noteable_id = ? WHERE id = ?').run(b.id, noteIds[1]);
    expect(await counts()).toEqual({ [a.iid]: 1, [b.iid]: 1 });
    db.prepare('UPDATE notes SET system = 1 WHERE id = ?').run(noteIds[2]);
    expect(await counts()).toEqual({ [a.iid]: 0, [b.iid]: 1 });
    db.prepare('UPDATE notes SET system = 0 WHERE id = ?').run(noteIds[2]);
    expect(await counts()).toEqual({ [a.iid]: 1, [b.iid]: 1 });
  });
});
