import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService, ok } from '../helpers/service';
import { expectCounted, expectUncounted } from '../helpers/lists';

/**
 * A list of more than 10,000 rows (a record's notes, its threads) is not walked 10,001 rows deep
 * again while its version holds (pagination.ts countPastLimit): the headers still follow every
 * write that adds or drops a row (API and SQL), for each caller's view (internal notes), and a
 * write elsewhere changes nothing.
 */
let s: TestService;
let project = 0;
let issueId = 0;
let guest = '';
const N = 10_001;

beforeAll(async () => {
  s = await TestService.start();
  guest = (await s.createUser()).token;
  project = (await s.createProject({ name: 'long-lists', visibility: 'public' })).id;
  issueId = ok(await s.post(`/projects/${project}/issues`, { title: 'Busy' })).id;
  const db = s.service.context.db;
  const insert = db.prepare(`INSERT INTO notes (project_id, noteable_type, noteable_id, discussion_id, author_id, body, internal, created_at, updated_at)
    VALUES (?, 'Issue', ?, ?, 1, ?, ?, ?, ?)`);
  db.transaction(() => {
    for (let i = 0; i < N; i++) {
      const at = new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString();
      // One thread per note; the newest note internal: a Guest sees 10,000 of 10,001.
      insert.run(project, issueId, `thread-${i}`, `Note ${i}`, i === N - 1 ? 1 : 0, at, at);
    }
  })();
}, 120_000);
afterAll(async () => s.stop());

const list = (kind: 'notes' | 'discussions', token?: string): Promise<ApiResult> => s.get(`/projects/${project}/issues/1/${kind}`, { query: { per_page: '20' }, token });

async function expectLengths(root: number, guestSees: number): Promise<void> {
  for (const kind of ['notes', 'discussions'] as const) {
    // Root first: a Guest's list must not be taken for root's (internal notes are in its key).
    for (const [token, n] of [[undefined, root], [guest, guestSees]] as const) {
      for (let again = 0; again < 2; again++) {
        const res = await list(kind, token);
        if (n > 10_000) expectUncounted(res, '2');
        else expectCounted(res, n, 20);
        expect(res.body).toHaveLength(20);
      }
    }
  }
}

describe('lists past 10,000 rows counted once per version', () => {
  it('follows every write that adds or drops a row, for each caller, and no other', async () => {
    await expectLengths(N, N - 1);
    // A write elsewhere: the same answers.
    ok(await s.put(`/projects/${project}`, { description: 'touched' }));
    // The issue's labels (not its description: that writes a "changed the description" system note, a row of these lists).
    ok(await s.put(`/projects/${project}/issues/1`, { labels: 'touched' }));
    await expectLengths(N, N - 1);
    // A public note deleted through the API: 10,000 for root, 9,999 for a Guest.
    const oldest = (await list('notes')).body[19].id;
    expect((await s.del(`/projects/${project}/issues/1/notes/${oldest}`)).status).toBe(204);
    await expectLengths(N - 1, N - 2);
    // A note added: root past 10,000 again.
    ok(await s.post(`/projects/${project}/issues/1/notes`, { body: 'One more' }));
    await expectLengths(N, N - 1);
    // Written in SQL: the internal note made public (a Guest's 10,001), then two notes deleted.
    const db = s.service.context.db;
    db.prepare('UPDATE notes SET internal = 0 WHERE internal = 1').run();
    await expectLengths(N, N);
    db.prepare("DELETE FROM notes WHERE noteable_type = 'Issue' AND noteable_id = ? AND id IN (SELECT id FROM notes WHERE noteable_id = ? ORDER BY id LIMIT 2)").run(issueId, issueId);
    await expectLengths(N - 2, N - 2);
  }, 60_000);
});

describe("deep pages of a record's threads (anchors at core/022's version)", () => {
  /** The threads as grouping the notes gives them, for root or a Guest. */
  const threads = (internal: boolean): string[] =>
    (
      s.service.context.db
        .prepare(`SELECT discussion_id, min(id) AS first FROM notes WHERE noteable_type = 'Issue' AND noteable_id = ?${internal ? '' : ' AND internal = 0'} GROUP BY discussion_id ORDER BY first`)
        .all(issueId) as { discussion_id: string }[]
    ).map((d) => d.discussion_id);

  async function expectDeepPages(): Promise<void> {
    for (const [token, all] of [[undefined, threads(true)], [guest, threads(false)]] as const) {
      // In turn, asked again, and jumped back: each the slice the notes say.
      for (const page of [60, 61, 62, 62, 61, 300, 501]) {
        const res = await s.get(`/projects/${project}/issues/1/discussions`, { query: { per_page: '20', page: String(page) }, token });
        expect(res.status).toBe(200);
        expect(res.body.map((d: any) => d.id), `page ${page}`).toEqual(all.slice((page - 1) * 20, page * 20));
        expect(res.headers.get('x-next-page')).toBe(all.length > page * 20 ? String(page + 1) : '');
      }
    }
  }

  it('reads the slice the notes say, after notes come, go and turn internal', async () => {
    await expectDeepPages();
    const db = s.service.context.db;
    const early = db.prepare("SELECT id FROM notes WHERE noteable_type = 'Issue' AND noteable_id = ? ORDER BY id LIMIT 3 OFFSET 100").all(issueId) as { id: number }[];
    // A thread early in the list deleted (API), one turned internal (SQL), a reply to an early thread.
    expect((await s.del(`/projects/${project}/issues/1/notes/${early[0].id}`)).status).toBe(204);
    await expectDeepPages();
    db.prepare('UPDATE notes SET internal = 1 WHERE id = ?').run(early[1].id);
    await expectDeepPages();
    db.prepare('UPDATE notes SET discussion_id = (SELECT discussion_id FROM notes WHERE id = ?) WHERE id = ?').run(early[2].id, early[2].id + 500);
    await expectDeepPages();
  }, 60_000);
});
