import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { expectAsReadAfresh, expectPagesOf, pagedReads, queryPlan } from '../helpers/lists';

/**
 * A project's labels list (its own and its groups', merged in title order) and a group's read a
 * page's ids from the owners' title indexes alone and its rows by id, kept until a label is next
 * written (SqlList.byId with labels' table version), where a deep page read every label row before
 * it (le25: page 20000 of a million labels, 85-110 ms). Pinned: every page (first, anchored deep
 * ones past 1,000 rows, the last, past the end) and its headers against the records, titles shared
 * by a project and its groups (ties by id), and each page as read afresh after labels are created,
 * renamed, described in SQL and deleted.
 */
let s: TestService;
let parent: number;
let sub: number;
let project: number;
const sql = (text: string, ...args: unknown[]) => s.service.context.db.prepare(text).run(...args);
const pad = (n: number): string => String(n).padStart(5, '0');

beforeAll(async () => {
  s = await TestService.start();
  parent = (await s.createGroup({ visibility: 'public' })).id;
  sub = (await s.createGroup({ visibility: 'public', parent_id: parent })).id;
  project = (await s.createProject({ namespace_id: sub, visibility: 'public' })).id;
  const db = s.service.context.db;
  const insert = db.prepare("INSERT INTO labels (group_id, project_id, title, color, description, created_at, updated_at) VALUES (?, ?, ?, '#428bca', ?, '2024-01-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z')");
  db.transaction(() => {
    // Inserted out of title order, so ids and titles disagree; every 10th of the groups' titles is a project's too.
    for (let i = 1100; i >= 1; i--) insert.run(null, project, `t-${pad(i * 3)}`, `project ${i}`);
    for (let i = 1; i <= 60; i++) insert.run(parent, null, `t-${pad(i % 10 === 0 ? i * 30 : i * 50 + 1)}`, `parent ${i}`);
    for (let i = 40; i >= 1; i--) insert.run(sub, null, `t-${pad(i % 10 === 0 ? i * 60 : i * 70 + 2)}`, null);
  })();
}, 60_000);
afterAll(async () => s.stop());

/** The labels of the owners in the list's order (title, then id). */
function truth(owners: string): number[] {
  return (s.service.context.db.prepare(`SELECT id FROM labels WHERE ${owners} ORDER BY title, id`).all() as { id: number }[]).map((l) => l.id);
}
const LISTS = (): { path: string; query: Record<string, string>; owners: string }[] => [
  { path: `/projects/${project}/labels`, query: {}, owners: `project_id = ${project} OR group_id IN (${parent}, ${sub})` },
  { path: `/projects/${project}/labels`, query: { include_ancestor_groups: 'false' }, owners: `project_id = ${project} OR group_id = ${sub}` },
  { path: `/groups/${sub}/labels`, query: { only_group_labels: 'false' }, owners: `project_id = ${project} OR group_id IN (${parent}, ${sub})` },
  { path: `/groups/${parent}/labels`, query: {}, owners: `group_id = ${parent}` },
];

async function expectEveryList(): Promise<void> {
  for (const l of LISTS()) {
    const want = truth(l.owners);
    const last = Math.ceil(want.length / 20);
    // In turn past 1,000 rows (anchored), jumped back and forth, the last page and past it.
    await expectPagesOf(s, l.path, l.query, want, [1, 2, 49, 50, 51, 52, 53, 58, 57, 3, last, last + 1, 51], `${l.path} ${JSON.stringify(l.query)}`);
    const deep = [51, 55, last].map((page) => `${l.path}?${new URLSearchParams({ ...l.query, page: String(page) })}`);
    await expectAsReadAfresh(s, l.path, [undefined, null], [`${l.path}?${new URLSearchParams(l.query)}`, ...deep]);
  }
}

describe('labels lists read by id', () => {
  it('answer every page as the records say, through label writes', async () => {
    await expectEveryList();
    const early = ok(await s.post(`/projects/${project}/labels`, { name: 't-00000 first', color: '#ff0000' }));
    await expectEveryList();
    ok(await s.post(`/groups/${parent}/labels`, { name: 't-01652', color: '#00ff00', description: 'between two' }));
    ok(await s.put(`/projects/${project}/labels/${early.id}`, { new_name: 'zz last' }));
    await expectEveryList();
    // Described in SQL (no API): the rows kept by id are read again.
    sql("UPDATE labels SET description = 'rewritten in SQL' WHERE title BETWEEN 't-03000' AND 't-03300'");
    await expectEveryList();
    sql("UPDATE labels SET color = '#123456' WHERE group_id = ?", sub);
    await expectEveryList();
    expect((await s.del(`/projects/${project}/labels/${early.id}`)).status).toBe(204);
    sql('DELETE FROM labels WHERE project_id = ? AND title < ?', project, 't-00300');
    await expectEveryList();
  }, 180_000);

  it("read a page's ids from the owners' title indexes alone, merged in order", async () => {
    for (const l of LISTS()) {
      for (const page of truth(l.owners).length > 1_040 ? ['1', '52'] : ['1']) {
        const reads = await pagedReads(s, async () => {
          expect((await s.get(l.path, { query: { ...l.query, page } })).status).toBe(200);
        });
        expect(reads.length, `${l.path} page ${page}`).toBeGreaterThan(0);
        for (const r of reads) {
          const plan = queryPlan(s.service.context.db, r.sql, ...r.args);
          expect(plan, r.sql).toMatch(/COVERING INDEX labels_(project|group)_title/);
          expect(plan, r.sql).not.toMatch(/USING INDEX labels_(project|group)_title|CO-ROUTINE/);
        }
      }
    }
  });
});
