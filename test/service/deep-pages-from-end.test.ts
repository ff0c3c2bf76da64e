import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { pagedReads } from '../helpers/lists';
import { nextEpicIds } from '../../src/main/service/areas/epics/epics';

/**
 * A deep page nearer the end of a list than any anchor before it is read back from the list's end
 * when counters hold the list's exact length (anchoredRows' `length`): a first read of page 50,000
 * of a million labels walked 999,980 index entries to it (le25: 105-123 ms; snippets 54-100, epics
 * 117). Pinned: pages near the end (read first, then in turn, then jumped to), the last and past
 * it, with their headers, against the records, for a project's labels, its snippets (as the
 * administrator and as a non-member: the counters' view) and a group's epics in two orders, before and
 * after a record is created, edited to move or leave the list, and deleted; and that such a page's
 * read skips only the rows between it and the end.
 */
let s: TestService;
let group: number;
let project: number;
let outsider = '';
const N = 1_500;
const at = (minutes: number): string => new Date(Date.UTC(2024, 0, 1) + minutes * 60_000).toISOString();
const db = () => s.service.context.db;
const ids = (sql: string): number[] => (db().prepare(sql).all() as { id: number }[]).map((r) => r.id);

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ visibility: 'public' })).id;
  project = (await s.createProject({ namespace_id: group, visibility: 'public' })).id;
  outsider = (await s.createUser()).token;
  const ctx = s.service.context;
  const label = ctx.db.prepare("INSERT INTO labels (group_id, project_id, title, color, created_at, updated_at) VALUES (?, ?, ?, '#428bca', ?, ?)");
  const snippet = ctx.db.prepare('INSERT INTO snippets (project_id, author_id, title, visibility, created_at, updated_at) VALUES (?, 1, ?, ?, ?, ?)');
  const epic = ctx.db.prepare("INSERT INTO epics (id, group_id, iid, title, state, confidential, author_id, labels, created_at, updated_at) VALUES (?, ?, ?, ?, 'opened', 0, 1, '[]', ?, ?)");
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      // Titles out of id order; each group label shares the previous project label's (ties by id).
      label.run(i % 7 === 0 ? group : null, i % 7 === 0 ? null : project, `t-${String(((i - (i % 7 === 0 ? 1 : 0)) * 37) % 2_003).padStart(4, '0')}`, at(i), at(i));
      snippet.run(project, `s ${i}`, i % 5 === 0 ? 'private' : i % 5 === 1 ? 'internal' : 'public', at(i), at(i));
      const { id, iid } = nextEpicIds(ctx, group);
      // created_at ties every fourth epic with the next.
      epic.run(id, group, iid, `e-${String((i * 53) % 900).padStart(4, '0')}`, at(i - (i % 4 === 1 ? 1 : 0)), at(i));
    }
  })();
}, 60_000);
afterAll(async () => s.stop());

const LISTS = (): { path: string; query: Record<string, string>; token?: string; want: () => number[] }[] => [
  { path: `/projects/${project}/labels`, query: {}, want: () => ids(`SELECT id FROM labels WHERE project_id = ${project} OR group_id = ${group} ORDER BY title, id`) },
  { path: `/projects/${project}/snippets`, query: {}, want: () => ids(`SELECT id FROM snippets WHERE project_id = ${project} ORDER BY id DESC`) },
  {
    path: `/projects/${project}/snippets`,
    query: {},
    token: outsider,
    want: () => ids(`SELECT id FROM snippets WHERE project_id = ${project} AND visibility IN ('public', 'internal') ORDER BY id DESC`),
  },
  { path: `/groups/${group}/epics`, query: {}, want: () => ids(`SELECT id FROM epics WHERE group_id = ${group} ORDER BY created_at DESC, id DESC`) },
  { path: `/groups/${group}/epics`, query: { order_by: 'title', sort: 'asc' }, want: () => ids(`SELECT id FROM epics WHERE group_id = ${group} ORDER BY title ASC, id ASC`) },
];

async function expectNearTheEnd(): Promise<void> {
  for (const l of LISTS()) {
    const want = l.want();
    const last = Math.ceil(want.length / 20);
    // Near the end first (no anchor near), then in turn, jumped back, the last and past it.
    for (const page of [last - 1, 52, 53, last - 2, last, last + 1, 54, last - 1]) {
      const what = `${l.token ? 'outsider ' : ''}${l.path} ${JSON.stringify(l.query)} page ${page}`;
      const res = await s.get(l.path, { token: l.token, query: { ...l.query, page: String(page) } });
      expect(res.status, what).toBe(200);
      expect((res.body as { id: number }[]).map((r) => r.id), what).toEqual(want.slice((page - 1) * 20, page * 20));
      expect(res.headers.get('x-total'), what).toBe(String(want.length));
      expect(res.headers.get('x-total-pages'), what).toBe(String(last));
      expect(res.headers.get('x-next-page'), what).toBe(page < last ? String(page + 1) : '');
      expect(res.headers.get('x-prev-page'), what).toBe(page > 1 && page <= last ? String(page - 1) : '');
    }
  }
}

describe('deep pages near the end of an exactly counted list', () => {
  it('answer as the records say, through creates, edits and deletes', async () => {
    await expectNearTheEnd();
    // New records: a label sorting last and one in the middle, a public snippet, an epic.
    const zz = ok(await s.post(`/projects/${project}/labels`, { name: 'zz-last', color: '#ff0000' }));
    ok(await s.post(`/groups/${group}/labels`, { name: 't-0500 again', color: '#00ff00' }));
    const snip = ok(await s.post(`/projects/${project}/snippets`, { title: 'new', visibility: 'public', file_name: 'a.txt', content: 'x' }));
    const ep = ok(await s.post(`/groups/${group}/epics`, { title: 'e-0000 first' }));
    await expectNearTheEnd();
    // Edits: a label renamed to the front, a snippet made private (it leaves the outsider's list), an epic retitled to the end.
    ok(await s.put(`/projects/${project}/labels/${zz.id}`, { new_name: 'a-first' }));
    const early = ids(`SELECT id FROM snippets WHERE project_id = ${project} AND visibility = 'public' ORDER BY id LIMIT 1`)[0];
    ok(await s.put(`/projects/${project}/snippets/${early}`, { visibility: 'private' }));
    ok(await s.put(`/groups/${group}/epics/${ep.iid}`, { title: 'zz retitled' }));
    await expectNearTheEnd();
    // Deletes near the start and the end of each list.
    expect((await s.del(`/projects/${project}/labels/${zz.id}`)).status).toBe(204);
    expect((await s.del(`/projects/${project}/snippets/${snip.id}`)).status).toBe(204);
    expect((await s.del(`/projects/${project}/snippets/${ids(`SELECT id FROM snippets WHERE project_id = ${project} ORDER BY id LIMIT 1`)[0]}`)).status).toBe(204);
    expect((await s.del(`/groups/${group}/epics/${ep.iid}`)).status).toBe(204);
    const firstEpic = db().prepare(`SELECT iid FROM epics WHERE group_id = ${group} ORDER BY created_at, id LIMIT 1`).get() as { iid: number };
    expect((await s.del(`/groups/${group}/epics/${firstEpic.iid}`)).status).toBe(204);
    await expectNearTheEnd();
  }, 180_000);

  it('read such a page back from the end, skipping only the rows after it', async () => {
    // A write first: no anchor of an earlier read is near the page.
    ok(await s.post(`/projects/${project}/labels`, { name: 'another', color: '#0000ff' }));
    ok(await s.post(`/projects/${project}/snippets`, { title: 'another', visibility: 'public', file_name: 'b.txt', content: 'y' }));
    ok(await s.post(`/groups/${group}/epics`, { title: 'another' }));
    for (const l of LISTS()) {
      const want = l.want();
      const page = Math.ceil(want.length / 20) - 1;
      const reads = await pagedReads(s, async () => {
        const res = await s.get(l.path, { token: l.token, query: { ...l.query, page: String(page) } });
        expect((res.body as { id: number }[]).map((r) => r.id)).toEqual(want.slice((page - 1) * 20, page * 20));
      });
      const skipped = reads.map((r) => r.args[r.args.length - 1] as number);
      expect(skipped.length, `${l.path} ${JSON.stringify(l.query)}`).toBeGreaterThan(0);
      expect(Math.max(...skipped), `${l.path} ${JSON.stringify(l.query)} ${l.token}`).toBeLessThan(40);
    }
  });
});
