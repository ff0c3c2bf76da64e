import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService } from '../helpers/service';
import { pagedReads } from '../helpers/lists';
import { insertImportedIssue } from '../../src/main/service/areas/core/imported';

/**
 * Deep pages of a project's issues by created_at or title keep their anchors (PageAnchors) across
 * writes that cannot add, drop or move one of their rows (core/024: editing a description), move
 * them along by the new rows of their list after inserts (core/025), and drop them on every other
 * write that can: whatever was remembered, every page is what a fresh walk of
 * the table gives, for every list and viewer, after every kind of write, through the API or not.
 */
let s: TestService;
let project: number;
let other: number;
let author2: number;
let guest: { id: number; token: string };
const N = 2_400;

const createdAt = (i: number): string => new Date(Date.UTC(2024, 0, 1) + Math.floor(i / 3) * 60_000).toISOString();
const updatedAt = (i: number): string => new Date(Date.UTC(2025, 0, 1) - Math.floor(i / 2) * 60_000).toISOString();

beforeAll(async () => {
  s = await TestService.start();
  project = (await s.createProject({ name: 'ordered', visibility: 'public' })).id;
  other = (await s.createProject({ name: 'elsewhere', visibility: 'public' })).id;
  author2 = (await s.createUser()).user.id;
  const g = await s.createUser();
  guest = { id: g.user.id, token: g.token };
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      insertImportedIssue(ctx, project, {
        iid: i,
        // Three issues share each title and each created_at: ties go by id.
        title: `Item ${String(i % 800).padStart(4, '0')}`,
        description: null,
        authorId: i % 2 ? 1 : author2,
        state: i % 7 === 0 ? 'closed' : 'opened',
        labels: [],
        confidential: i % 10 === 0,
        createdAt: createdAt(i),
        updatedAt: updatedAt(i),
        importedFrom: 'none',
      });
    }
  })();
}, 120_000);
afterAll(async () => s.stop());

const ids = (res: ApiResult): number[] => res.body.map((x: any) => x.id);

interface List {
  name: string;
  query: Record<string, string>;
  token?: string;
  /** The same list as a fresh walk of the table: WHERE and ORDER BY on `issues`. */
  where: string;
  args: unknown[];
  order: string;
}

const lists = (): List[] => [
  { name: 'newest first', query: {}, where: '1', args: [], order: 'created_at DESC, id DESC' },
  { name: 'oldest first', query: { sort: 'asc' }, where: '1', args: [], order: 'created_at ASC, id ASC' },
  { name: 'open', query: { state: 'opened' }, where: "state = 'opened'", args: [], order: 'created_at DESC, id DESC' },
  { name: 'by title', query: { order_by: 'title', sort: 'asc' }, where: '1', args: [], order: 'title ASC, id ASC' },
  { name: "the second author's", query: { author_id: String(author2) }, where: 'author_id = ?', args: [author2], order: 'created_at DESC, id DESC' },
  { name: 'least recently updated', query: { order_by: 'updated_at', sort: 'asc' }, where: '1', args: [], order: 'updated_at ASC, id ASC' },
  {
    name: "a non-member's (confidential issues only where author or assignee)",
    query: {},
    token: guest.token,
    where: '(confidential = 0 OR author_id = ? OR EXISTS (SELECT 1 FROM json_each(assignee_ids) WHERE value = ?))',
    args: [guest.id, guest.id],
    order: 'created_at DESC, id DESC',
  },
];

/** Pages 11-13 of 100 (offsets from 1,000: anchored) of every list, each against a fresh walk. */
async function checkEveryList(): Promise<void> {
  const db = s.service.context.db;
  for (const list of lists()) {
    // Page 12 first: it starts from an anchor an earlier check left, whatever moved since.
    for (const n of [12, 11, 13, 12]) {
      const res = await s.get(`/projects/${project}/issues`, { query: { per_page: '100', page: String(n), ...list.query }, token: list.token });
      const fresh = db
        .prepare(`SELECT id FROM issues WHERE project_id = ? AND ${list.where} ORDER BY ${list.order} LIMIT 100 OFFSET ?`)
        .all(project, ...list.args, (n - 1) * 100)
        .map((r: any) => r.id);
      expect(ids(res), `${list.name}, page ${n}`).toEqual(fresh);
      const total = (db.prepare(`SELECT count(*) AS n FROM issues WHERE project_id = ? AND ${list.where}`).get(project, ...list.args) as { n: number }).n;
      expect(res.headers.get('x-next-page'), `${list.name}, page ${n}`).toBe(total > n * 100 ? String(n + 1) : '');
    }
  }
}

/** The issue at `offset` of the project's issues newest first (offsets under 1,000 move every anchored page). */
const newest = (offset: number, where = '1'): { id: number; iid: number } =>
  s.service.context.db.prepare(`SELECT id, iid FROM issues WHERE project_id = ? AND ${where} ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET ?`).get(project, offset) as any;

describe("deep pages of a project's issues across writes (core/024)", () => {
  it('an edit that moves no row (a description) keeps the anchors: the next page starts where the last one ended', async () => {
    const page = (n: number) => s.get(`/projects/${project}/issues`, { query: { per_page: '100', page: String(n) } });
    await page(12);
    const edited = newest(3);
    expect((await s.put(`/projects/${project}/issues/${edited.iid}`, { description: 'Edited' })).status).toBe(200);
    const reads = await pagedReads(s, async () => {
      expect(ids(await page(13))).toEqual(
        s.service.context.db.prepare('SELECT id FROM issues WHERE project_id = ? ORDER BY created_at DESC, id DESC LIMIT 100 OFFSET 1200').all(project).map((r: any) => r.id),
      );
    });
    expect(reads).toHaveLength(1);
    expect(reads[0].sql).toContain('(x.created_at, x.id) < (?, ?)');
    expect(reads[0].args.at(-1)).toBe(0);
  });

  it('a new issue moves the anchors along by one instead of dropping them', async () => {
    const page = (n: number) => s.get(`/projects/${project}/issues`, { query: { per_page: '100', page: String(n) } });
    await page(12);
    expect((await s.post(`/projects/${project}/issues`, { title: 'Newest' })).status).toBe(201);
    const reads = await pagedReads(s, async () => {
      expect(ids(await page(13))).toEqual(
        s.service.context.db.prepare('SELECT id FROM issues WHERE project_id = ? ORDER BY created_at DESC, id DESC LIMIT 100 OFFSET 1200').all(project).map((r: any) => r.id),
      );
    });
    // The anchor page 12 left at offset 1,200 is at 1,201 now: the page reads its first row
    // backwards from it, and the rest forwards, skipping nothing.
    expect(reads.map((r) => r.sql.match(/\(x\.created_at, x\.id\) (\S+) \(\?, \?\)/)?.[1])).toEqual(['>=', '<']);
    expect(reads.map((r) => r.args.at(-1))).toEqual([0, 0]);
  });

  it('every page of every list is a fresh walk after every kind of write', async () => {
    const db = s.service.context.db;
    await checkEveryList();

    // Edits that move no row of a created_at or title list; updated_at moves.
    expect((await s.put(`/projects/${project}/issues/${newest(5).iid}`, { description: 'Edited again', labels: 'x' })).status).toBe(200);
    await checkEveryList();

    // A new issue through the API: the newest, every newest-first page moves by one.
    expect((await s.post(`/projects/${project}/issues`, { title: 'Brand new' })).status).toBe(201);
    await checkEveryList();

    // Several at once, each in some lists and not others: confidential, closed, by the second author.
    for (const body of [{ title: 'Secret', confidential: true }, { title: 'Shut' }, { title: 'By another' }]) {
      const created = await s.post(`/projects/${project}/issues`, body);
      expect(created.status).toBe(201);
      if (body.title === 'Shut') expect((await s.put(`/projects/${project}/issues/${created.body.iid}`, { state_event: 'close' })).status).toBe(200);
      if (body.title === 'By another') db.prepare('UPDATE issues SET author_id = ? WHERE id = ?').run(author2, created.body.id);
    }
    await checkEveryList();
    const imported = (title: string, i: number, extra: Partial<Parameters<typeof insertImportedIssue>[2]> = {}) =>
      insertImportedIssue(s.service.context, project, {
        iid: N + 200 + i,
        title,
        description: null,
        authorId: i % 2 ? 1 : author2,
        state: 'opened',
        labels: [],
        confidential: false,
        createdAt: createdAt(N + 10 + i),
        updatedAt: updatedAt(i),
        importedFrom: 'none',
        ...extra,
      });
    imported('Fresh one', 1);
    imported('Fresh two', 2, { confidential: true });
    imported('Fresh three', 3, { state: 'closed' });
    await checkEveryList();

    // A new issue and an older one closed, between two reads: more than inserts happened.
    expect((await s.post(`/projects/${project}/issues`, { title: 'And another' })).status).toBe(201);
    expect((await s.put(`/projects/${project}/issues/${newest(15, "state = 'opened'").iid}`, { state_event: 'close' })).status).toBe(200);
    await checkEveryList();

    // An issue written without the API, dated among the oldest and titled first.
    insertImportedIssue(s.service.context, project, {
      iid: N + 100,
      title: 'Aardvark',
      description: null,
      authorId: author2,
      state: 'opened',
      labels: [],
      confidential: false,
      createdAt: createdAt(N - 5),
      updatedAt: updatedAt(5),
      importedFrom: 'none',
    });
    await checkEveryList();

    // Retitled through the API: from the head of the title order to its end.
    const first = db.prepare('SELECT iid FROM issues WHERE project_id = ? ORDER BY title, id LIMIT 1 OFFSET 10').get(project) as { iid: number };
    expect((await s.put(`/projects/${project}/issues/${first.iid}`, { title: 'Zebra' })).status).toBe(200);
    await checkEveryList();

    // Closed: it leaves the open list.
    expect((await s.put(`/projects/${project}/issues/${newest(20, "state = 'opened'").iid}`, { state_event: 'close' })).body.state).toBe('closed');
    await checkEveryList();

    // Made confidential: the non-member no longer sees it.
    const hidden = newest(30, 'confidential = 0 AND author_id = 1');
    expect((await s.put(`/projects/${project}/issues/${hidden.iid}`, { confidential: true })).body.confidential).toBe(true);
    await checkEveryList();

    // A confidential issue assigned to the non-member: now they see it.
    const assigned = newest(40, 'confidential = 1');
    expect((await s.put(`/projects/${project}/issues/${assigned.iid}`, { assignee_ids: [guest.id] })).status).toBe(200);
    await checkEveryList();

    // Another author, and another created_at, without the API.
    db.prepare('UPDATE issues SET author_id = ? WHERE id = ?').run(author2, newest(50, 'author_id = 1').id);
    await checkEveryList();
    db.prepare('UPDATE issues SET created_at = ? WHERE id = ?').run(createdAt(0), newest(60).id);
    await checkEveryList();

    // Deleted through the API.
    expect((await s.del(`/projects/${project}/issues/${newest(70).iid}`)).status).toBe(204);
    await checkEveryList();

    // Moved to another project (no move endpoint: the table itself).
    db.prepare('UPDATE issues SET project_id = ? WHERE id = ?').run(other, newest(80).id);
    await checkEveryList();

    // The second author deleted: their issues' author changes as the table's rules say.
    expect((await s.del(`/users/${author2}`)).status).toBe(204);
    await waitForUserGone(author2);
    await checkEveryList();
  });
});

/** User deletion may finish in the background: wait until the user is gone. */
async function waitForUserGone(id: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await s.get(`/users/${id}`)).status === 404) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`user ${id} still there`);
}
