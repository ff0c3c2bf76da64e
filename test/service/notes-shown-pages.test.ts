import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { expectEveryPage, pagedReads, queryPlan } from '../helpers/lists';

/**
 * A record's notes as a caller below Planner reads them (no internal notes) walk core/393's partial
 * indexes of the notes shown, in either order, instead of the order's index of every note, each
 * row read to skip the internal ones. The index only changes the read: every page and header for a
 * Guest and an administrator, both orders and sorts, an activity filter, before and after writes.
 */
let s: TestService;
let project: number;
let iid: number;
let issueId: number;
let guest: string;
const db = () => s.service.context.db;

const ids = (order: 'created_at' | 'updated_at', sort: 'asc' | 'desc', where: string): number[] =>
  (
    db()
      .prepare(`SELECT id FROM notes WHERE noteable_type = 'Issue' AND noteable_id = ? AND ${where} ORDER BY ${order} ${sort}, id ${sort}`)
      .all(issueId) as { id: number }[]
  ).map((r) => r.id);

async function expectLists(): Promise<void> {
  const path = `/projects/${project}/issues/${iid}/notes`;
  for (const order of ['created_at', 'updated_at'] as const) {
    for (const sort of ['asc', 'desc'] as const) {
      await expectEveryPage(s, path, { order_by: order, sort }, ids(order, sort, 'internal = 0'), 4, guest);
      await expectEveryPage(s, path, { order_by: order, sort }, ids(order, sort, '1 = 1'), 4);
    }
  }
  await expectEveryPage(s, path, { activity_filter: 'only_comments' }, ids('created_at', 'desc', 'internal = 0 AND system = 0'), 4, guest);
}

beforeAll(async () => {
  s = await TestService.start();
  project = (await s.createProject({ name: 'noted', visibility: 'private' })).id;
  const g = await s.createUser();
  guest = g.token;
  await s.addMember('projects', project, g.user.id, 10);
  const issue = ok(await s.post(`/projects/${project}/issues`, { title: 'Noted' }));
  iid = issue.iid;
  issueId = issue.id;
  // Every third note internal; a few system notes (relabels) among them.
  for (let i = 1; i <= 24; i++) {
    ok(await s.post(`/projects/${project}/issues/${iid}/notes`, { body: `note ${i}`, internal: i % 3 === 0 }));
    if (i % 8 === 0) ok(await s.put(`/projects/${project}/issues/${iid}`, { labels: `l${i}` }));
  }
}, 60_000);
afterAll(async () => s?.stop());

describe("a record's notes without internal ones", () => {
  it("walk the partial index of the notes shown for a Guest, the order's own for an administrator (core/393)", async () => {
    const path = `/projects/${project}/issues/${iid}/notes`;
    const reads = await pagedReads(s, async () => {
      await s.get(path, { token: guest, query: { per_page: '4', page: '3' } });
      await s.get(path, { token: guest, query: { order_by: 'updated_at', sort: 'asc', per_page: '4', page: '2' } });
      await s.get(path, { query: { per_page: '4', page: '3' } });
    });
    const plans = reads.map((r) => queryPlan(db(), r.sql, ...r.args));
    expect(plans).toHaveLength(3);
    expect(plans[0]).toContain('USING INDEX notes_noteable_created_shown');
    expect(plans[1]).toContain('USING INDEX notes_noteable_updated_shown');
    expect(plans[2]).toContain('USING INDEX notes_noteable_created ');
  });

  it('every page and header as the notes say, before and after writes', async () => {
    await expectLists();
    const notes = ids('created_at', 'asc', 'system = 0');
    ok(await s.post(`/projects/${project}/issues/${iid}/notes`, { body: 'a late one' }));
    ok(await s.post(`/projects/${project}/issues/${iid}/notes`, { body: 'a late secret', internal: true }));
    ok(await s.put(`/projects/${project}/issues/${iid}/notes/${notes[1]}`, { body: 'edited' }));
    expect((await s.api('DELETE', `/projects/${project}/issues/${iid}/notes/${notes[4]}`)).status).toBe(204);
    await expectLists();
  }, 60_000);
});
