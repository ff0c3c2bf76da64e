import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService } from '../helpers/service';
import { pagedReads } from '../helpers/lists';
import { insertImportedIssue } from '../../src/main/service/areas/core/imported';

/**
 * Deep pages of a project's issues whose anchors move along and back by the writes core/025 and
 * core/295 log (PageAnchors.moves): after writes that move rows in or out of a caller's list
 * (confidential flips, closes and reopens, several writes to one issue, an issue made and deleted
 * between two reads, an author's issues moved to the ghost user, more writes than the log keeps),
 * every page, for every caller (administrator, reporter, guest, anonymous), is the slice the
 * records say (read here in SQL), with the same X-Total.
 */
let s: TestService;
let project: number;
let reporter: { id: number; token: string };
let guest: { id: number; token: string };
let writer: { id: number; token: string };
const N = 2_600;
const createdAt = (i: number): string => new Date(Date.UTC(2024, 0, 1) + Math.floor(i / 3) * 60_000).toISOString();

beforeAll(async () => {
  s = await TestService.start();
  project = (await s.createProject({ name: 'moved-review', visibility: 'public' })).id;
  const made = async (name: string, level: number) => {
    const u = await s.createUser({ username: name });
    await s.addMember('projects', project, u.user.id, level);
    return { id: u.user.id as number, token: u.token };
  };
  reporter = await made('rev-reporter', 20);
  guest = await made('rev-guest', 10);
  writer = await made('rev-writer', 30);
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      insertImportedIssue(ctx, project, {
        iid: i, title: `Item ${i}`, description: null, authorId: i % 3 !== 0 ? writer.id : 1, state: i % 7 === 0 ? 'closed' : 'opened', labels: [],
        confidential: i % 11 === 0, assigneeIds: i % 22 === 0 ? [guest.id] : [], createdAt: createdAt(i), updatedAt: createdAt(i), importedFrom: 'none',
      });
    }
  })();
}, 120_000);
afterAll(async () => s.stop());

type Caller = 'admin' | 'reporter' | 'guest' | 'anonymous';
const tokenOf = (c: Caller): string | null | undefined => (c === 'admin' ? undefined : c === 'reporter' ? reporter.token : c === 'guest' ? guest.token : null);

/** The caller's list as the records say, newest first. */
function records(c: Caller, state: 'all' | 'opened', author: number | null): number[] {
  const seen =
    c === 'anonymous' ? ' AND confidential = 0' : c === 'guest' ? ` AND (confidential = 0 OR author_id = ${guest.id} OR EXISTS (SELECT 1 FROM json_each(assignee_ids) WHERE value = ${guest.id}))` : '';
  const rows = s.service.context.db
    .prepare(`SELECT id FROM issues WHERE project_id = ?${state === 'opened' ? " AND state = 'opened'" : ''}${author ? ` AND author_id = ${author}` : ''}${seen} ORDER BY created_at DESC, id DESC`)
    .all(project) as { id: number }[];
  return rows.map((r) => r.id);
}

const ids = (res: ApiResult): number[] => res.body.map((x: any) => x.id);

/** Pages 61, 60 and 75 (anchored: past 1,000 rows) of every caller's lists, in either order, against the records. */
async function pages(what: string, author: number | null = null): Promise<void> {
  for (const c of ['admin', 'reporter', 'guest', 'anonymous'] as const)
    for (const state of ['all', 'opened'] as const)
      for (const sort of ['desc', 'asc'] as const) {
        const listed = records(c, state, author);
        const order = sort === 'desc' ? listed : [...listed].reverse();
        for (const n of [61, 60, 75]) {
          const query: Record<string, string> = { per_page: '20', page: String(n), state, sort, ...(author ? { author_id: String(author) } : {}) };
          let res: any;
          const reads = await pagedReads(s, async () => { res = await s.get(`/projects/${project}/issues`, { query, token: tokenOf(c) }); });
          console.log('DBG', what, c, state, sort, n, reads.map((r) => r.args.at(-1)).join(','));
          expect(res.status).toBe(200);
          expect({ what, c, state, sort, n, ids: ids(res) }).toEqual({ what, c, state, sort, n, ids: order.slice((n - 1) * 20, n * 20) });
          expect({ what, c, state, sort, n, total: res.headers.get('x-total') }).toEqual({ what, c, state, sort, n, total: String(listed.length) });
        }
      }
}

const newest = (k: number, where = '1 = 1'): { id: number; iid: number } =>
  s.service.context.db.prepare(`SELECT id, iid FROM issues WHERE project_id = ? AND ${where} ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET ?`).get(project, k) as { id: number; iid: number };
const put = async (iid: number, body: Record<string, unknown>): Promise<void> => {
  expect((await s.put(`/projects/${project}/issues/${iid}`, body)).status).toBe(200);
};

describe('deep issue pages after writes that move rows in or out of a caller list', () => {
  it('confidential flips, before and among the anchors, read by every caller', async () => {
    await pages('start');
    await put(newest(0, 'confidential = 0').iid, { confidential: true });
    await pages('newest made confidential');
    await put(newest(1_250, 'confidential = 0').iid, { confidential: true });
    await pages('one among the anchors made confidential');
    await put(newest(3, 'confidential = 1').iid, { confidential: false });
    await pages('a confidential one made public');
  });

  it('several writes to one issue between two reads, and an issue made and deleted between them', async () => {
    await pages('start');
    const one = newest(5, "confidential = 0 AND state = 'opened'");
    await put(one.iid, { state_event: 'close' });
    await put(one.iid, { confidential: true });
    await put(one.iid, { state_event: 'reopen' });
    await put(one.iid, { confidential: false });
    await put(one.iid, { state_event: 'close' });
    await pages('closed, hidden, reopened, shown, closed');
    // Each list's rows as they were at its last read decide: the first of an issue's entries since, not its last.
    const two = newest(4, "confidential = 0 AND state = 'opened'");
    await put(two.iid, { state_event: 'close' });
    await put(two.iid, { confidential: true });
    const three = newest(1_240, "confidential = 0 AND state = 'opened'");
    await put(three.iid, { state_event: 'close' });
    await put(three.iid, { title: 'Retitled' });
    await put(three.iid, { confidential: true });
    await pages('closed then hidden, before and among the anchors');
    const made = await s.post(`/projects/${project}/issues`, { title: 'Brief' });
    expect(made.status).toBe(201);
    await put(made.body.iid, { confidential: true });
    expect((await s.del(`/projects/${project}/issues/${made.body.iid}`)).status).toBe(204);
    const other = await s.post(`/projects/${project}/issues`, { title: 'Hidden at once', confidential: true });
    await put(other.body.iid, { state_event: 'close' });
    await pages('made and deleted; made confidential and closed');
    await put(newest(200, 'confidential = 1').iid, { assignee_ids: [guest.id] });
    await pages('a confidential one assigned to the guest');
  });

  it("an author's issues, read by author, after writes and the author's deletion", async () => {
    await pages('by author', writer.id);
    await put(newest(2, `author_id = ${writer.id} AND confidential = 0`).iid, { confidential: true });
    await put(newest(1_260, `author_id = ${writer.id} AND state = 'opened'`).iid, { state_event: 'close' });
    await pages('by author after a flip and a close', writer.id);
    await pages('all after the flip and the close');
    const deleted = await s.del(`/users/${writer.id}`);
    expect([202, 204]).toContain(deleted.status);
    for (let k = 0; k < 100 && (s.service.context.db.prepare('SELECT count(*) AS n FROM issues WHERE author_id = ?').get(writer.id) as { n: number }).n > 0; k++)
      await new Promise((r) => setTimeout(r, 50));
    await pages('after the author was deleted');
  });

  it('more writes between two reads than the log keeps', async () => {
    await pages('start');
    for (let k = 0; k < 60; k++) {
      const x = newest(k * 3, "state = 'opened'");
      await put(x.iid, { state_event: 'close', confidential: k % 2 === 0 });
    }
    for (let k = 0; k < 50; k++) await put(newest(k * 5, "state = 'closed'").iid, { state_event: 'reopen' });
    await pages('after 110 writes');
  });
});
