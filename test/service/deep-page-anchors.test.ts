import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService } from '../helpers/service';
import { pagedReads, preparedBy } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest, insertImportedNote } from '../../src/main/service/areas/core/imported';
import { anchorsHeld, anchorsRewritten } from '../../src/main/service/http/pagination';

/**
 * Deep pages of a project's merge requests (core/020) and issues (core/019) start after a row an
 * earlier page read (PageAnchors in http/pagination.ts). Whatever the anchors, every page is the
 * slice the records say, before and after every kind of write; and a page read right after the one
 * before it starts at its anchor without skipping a row.
 */
let s: TestService;
let project: number;

interface Seed {
  id: number;
  iid: number;
  title: string;
  state: string;
  createdAt: string;
  updatedAt: string;
}
const mrs: Seed[] = [];
const issues: Seed[] = [];
const N = 2_600;

// Three records share each created_at (ties broken by id); updated_at runs the other way.
const createdAt = (i: number): string => new Date(Date.UTC(2024, 0, 1) + Math.floor(i / 3) * 60_000).toISOString();
const updatedAt = (i: number): string => new Date(Date.UTC(2025, 0, 1) - Math.floor(i / 2) * 60_000).toISOString();
const stateOf = (i: number): string => (i % 5 === 0 ? 'merged' : i % 7 === 0 ? 'closed' : 'opened');

beforeAll(async () => {
  s = await TestService.start();
  project = (await s.createProject({ name: 'deep', visibility: 'public' })).id;
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      const common = { iid: i, title: `Item ${i}`, description: null, authorId: 1, createdAt: createdAt(i), updatedAt: updatedAt(i), importedFrom: 'none' };
      const mr = insertImportedMergeRequest(ctx, project, {
        ...common,
        state: stateOf(i) as 'opened',
        sourceBranch: `feature-${i}`,
        targetBranch: 'main',
        baseSha: '0'.repeat(40),
        headSha: '1'.repeat(40),
      });
      mrs.push({ id: mr.id, iid: i, title: common.title, state: stateOf(i), createdAt: createdAt(i), updatedAt: updatedAt(i) });
      const issue = insertImportedIssue(ctx, project, { ...common, state: i % 7 === 0 ? 'closed' : 'opened', labels: [], confidential: false });
      issues.push({ id: issue.id, iid: i, title: common.title, state: i % 7 === 0 ? 'closed' : 'opened', createdAt: createdAt(i), updatedAt: updatedAt(i) });
    }
  })();
}, 120_000);
afterAll(async () => s.stop());

const newestFirst = (xs: Seed[]): Seed[] => [...xs].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.id - a.id));
const updatedAsc = (xs: Seed[]): Seed[] => [...xs].sort((a, b) => (a.updatedAt < b.updatedAt ? -1 : a.updatedAt > b.updatedAt ? 1 : a.id - b.id));
const ids = (res: ApiResult): number[] => res.body.map((x: any) => x.id);

/** The list's page of 100 as the records say it. */
const slice = (xs: Seed[], n: number): number[] => xs.slice((n - 1) * 100, n * 100).map((x) => x.id);

describe("deep pages of a project's merge requests (core/020)", () => {
  const page = (query: Record<string, string>) => s.get(`/projects/${project}/merge_requests`, { query: { per_page: '100', ...query } });

  it('read in turn, asked again and jumped between, every page is the slice the records say', async () => {
    for (const n of [11, 12, 13, 12, 25, 26, 27, 11]) {
      const res = await page({ page: String(n) });
      expect(ids(res)).toEqual(slice(newestFirst(mrs), n));
      expect(res.headers.get('x-total')).toBe(String(N));
      expect(res.headers.get('x-next-page')).toBe(n < 26 ? String(n + 1) : '');
    }
    for (const n of [15, 16, 15]) expect(ids(await page({ page: String(n), order_by: 'updated_at', sort: 'asc' }))).toEqual(slice(updatedAsc(mrs), n));
    const merged = newestFirst(mrs.filter((x) => x.state === 'merged'));
    expect(merged.length).toBeGreaterThan(500);
    for (const n of [11, 12, 11]) expect(ids(await page({ page: String(n), state: 'opened' }))).toEqual(slice(newestFirst(mrs.filter((x) => x.state === 'opened')), n));
  });

  it('follow every write to the project: a merge request retitled, closed, dated anew, deleted', async () => {
    const check = async (n: number, query: Record<string, string> = {}, filter: (x: Seed) => boolean = () => true, order = newestFirst): Promise<void> => {
      expect(ids(await page({ page: String(n), ...query }))).toEqual(slice(order(mrs.filter(filter)), n));
    };
    await check(20);
    await check(14, { order_by: 'updated_at', sort: 'asc' }, () => true, updatedAsc);
    // Retitled through the API: updated_at moves it to the end of the updated_at order.
    const retitled = newestFirst(mrs)[300];
    const put = await s.put(`/projects/${project}/merge_requests/${retitled.iid}`, { title: 'Retitled' });
    expect(put.status).toBe(200);
    retitled.updatedAt = put.body.updated_at;
    await check(14, { order_by: 'updated_at', sort: 'asc' }, () => true, updatedAsc);
    // Closed: it leaves the open list.
    const toClose = newestFirst(mrs.filter((x) => x.state === 'opened'))[200];
    const closed = await s.put(`/projects/${project}/merge_requests/${toClose.iid}`, { state_event: 'close' });
    expect(closed.body.state).toBe('closed');
    toClose.state = 'closed';
    toClose.updatedAt = closed.body.updated_at;
    await check(11, { state: 'opened' }, (x) => x.state === 'opened');
    await check(12, { state: 'opened' }, (x) => x.state === 'opened');
    // Dated anew without the API: the anchors follow the table, whatever writes it.
    const moved = newestFirst(mrs)[150];
    moved.createdAt = newestFirst(mrs)[2_200].createdAt;
    s.service.context.db.prepare('UPDATE merge_requests SET created_at = ? WHERE id = ?').run(moved.createdAt, moved.id);
    await check(20);
    await check(23);
    // Deleted.
    const gone = newestFirst(mrs)[100];
    expect((await s.del(`/projects/${project}/merge_requests/${gone.iid}`)).status).toBe(204);
    mrs.splice(mrs.indexOf(gone), 1);
    await check(20);
    await check(11);
  });

  it('a page read after the one before it skips no row: it starts at the row where that page ended', async () => {
    await page({ page: '17', state: 'all' });
    const reads = await pagedReads(s, async () => {
      expect(ids(await page({ page: '18', state: 'all' }))).toEqual(slice(newestFirst(mrs), 18));
    });
    expect(reads).toHaveLength(1);
    expect(reads[0].sql).toContain('(x.created_at, x.id) < (?, ?)');
    expect(reads[0].args.at(-1)).toBe(0);
  });
});

describe("deep pages of a project's issues", () => {
  it('a page read after the one before it skips no row: it starts at the row where that page ended', async () => {
    const page = (n: number) => s.get(`/projects/${project}/issues`, { query: { per_page: '50', page: String(n), state: 'all' } });
    await page(30);
    const reads = await pagedReads(s, async () => {
      expect(ids(await page(31))).toEqual(newestFirst(issues).slice(1_500, 1_550).map((x) => x.id));
    });
    expect(reads).toHaveLength(1);
    expect(reads[0].args.at(-1)).toBe(0);
  });
});

describe("a project's deep page of issues polled while issues are created", () => {
  it('answers as the records say, its anchors moved along and not piling up', async () => {
    const page = () => s.get(`/projects/${project}/issues`, { query: { per_page: '20', page: '60', state: 'all' } });
    const expected = () => newestFirst(issues).slice(1_180, 1_200).map((x) => x.id);
    const check = async () => {
      const res = await page();
      expect(ids(res)).toEqual(expected());
      expect(res.headers.get('x-total')).toBe(String(issues.length));
      expect(res.headers.get('x-next-page')).toBe('61');
    };
    await check();
    await check();
    const held = anchorsHeld(s.service.context.db);
    for (let i = 0; i < 30; i++) {
      const made = await s.post(`/projects/${project}/issues`, { title: `Polled ${i}` });
      expect(made.status).toBe(201);
      issues.push({ id: made.body.id, iid: made.body.iid, title: made.body.title, state: 'opened', createdAt: made.body.created_at, updatedAt: made.body.updated_at });
      await check();
    }
    // Each new issue moves the page's anchors along by one; the page's own replace them.
    expect(anchorsHeld(s.service.context.db)).toBeLessThanOrEqual(held);
  });

  it('moves the anchors along at once for issues created before them, leaves them for issues after, sets each again for an issue among them', async () => {
    const db = s.service.context.db;
    const check = async (n: number, sort: 'asc' | 'desc'): Promise<void> => {
      const res = await s.get(`/projects/${project}/issues`, { query: { per_page: '20', page: String(n), state: 'all', sort } });
      const order = sort === 'desc' ? newestFirst(issues) : newestFirst(issues).reverse();
      expect(ids(res)).toEqual(order.slice((n - 1) * 20, n * 20).map((x) => x.id));
      expect(res.headers.get('x-total')).toBe(String(issues.length));
      expect(res.headers.get('x-next-page')).toBe(String(n + 1));
    };
    const pages = async (): Promise<void> => {
      for (const n of [60, 61, 75]) for (const sort of ['desc', 'asc'] as const) await check(n, sort);
    };
    await pages();
    const rewritten = anchorsRewritten(db);
    const prepared = await preparedBy(s, async () => {
      for (let i = 0; i < 5; i++) {
        const made = await s.post(`/projects/${project}/issues`, { title: `Created ${i}` });
        expect(made.status).toBe(201);
        issues.push({ id: made.body.id, iid: made.body.iid, title: made.body.title, state: 'opened', createdAt: made.body.created_at, updatedAt: made.body.updated_at });
        await pages();
      }
    });
    // Where each new issue stands in the list is read by a statement a list prepares once, not at each move.
    expect(prepared.filter((sql) => /^SELECT x\.created_at AS value, x\.id AS id FROM .* AND x\.id = \?$/s.test(sql)).length).toBeLessThanOrEqual(2);
    // Newest first, each new issue sorts before every anchor; oldest first, after every one: none is set again.
    expect(anchorsRewritten(db)).toBe(rewritten);
    // An issue dated among the anchors (written in SQL, as an import does): those after it in either order move, the others stay.
    const among = newestFirst(issues)[1_300];
    const ctx = s.service.context;
    const imported = insertImportedIssue(ctx, project, { iid: 90_000, title: 'Among', description: null, authorId: 1, state: 'opened', labels: [], confidential: false, createdAt: among.createdAt, updatedAt: among.updatedAt, importedFrom: 'none' });
    issues.push({ id: imported.id, iid: 90_000, title: 'Among', state: 'opened', createdAt: among.createdAt, updatedAt: among.updatedAt });
    await pages();
    expect(anchorsRewritten(db)).toBeGreaterThan(rewritten);
    await pages();
  });

  it('moves the anchors back at once for issues deleted or closed before them, leaves them for ones after, sets each again for one among them or its own row gone', async () => {
    const db = s.service.context.db;
    const lists = { all: (_: Seed) => true, opened: (x: Seed) => x.state === 'opened' };
    const check = async (n: number, sort: 'asc' | 'desc', state: keyof typeof lists, token?: null): Promise<void> => {
      const res = await s.get(`/projects/${project}/issues`, { query: { per_page: '20', page: String(n), state, sort }, token });
      const listed = newestFirst(issues.filter(lists[state]));
      const order = sort === 'desc' ? listed : listed.reverse();
      expect(ids(res)).toEqual(order.slice((n - 1) * 20, n * 20).map((x) => x.id));
      const headers = ['x-total', 'x-total-pages', 'x-next-page', 'x-prev-page'].map((h) => res.headers.get(h));
      expect(headers).toEqual([String(listed.length), String(Math.ceil(listed.length / 20)), String(n + 1), String(n - 1)]);
    };
    const pages = async (): Promise<void> => {
      // Page 61 first: read before page 60 sets its anchor again, it starts from its own anchor as moved.
      // As the administrator and anonymously (the caller sees every confidential issue, or none).
      for (const token of [undefined, null])
        for (const n of [61, 60, 75]) for (const sort of ['desc', 'asc'] as const) for (const state of ['all', 'opened'] as const) await check(n, sort, state, token);
    };
    // Each page read from its own anchor, moved: no read skips more than a few rows (a walk from the start skips 1,180 and more).
    const anchored = async (): Promise<void> => {
      const reads = await pagedReads(s, pages);
      expect(reads.length).toBeGreaterThan(0);
      expect(reads.map((r) => Number(r.args.at(-1))).filter((skip) => skip > 20)).toEqual([]);
    };
    await pages();
    const rewritten = anchorsRewritten(db);
    // The newest issue deleted: newest first it sorts before every anchor, oldest first after every one.
    const newest = newestFirst(issues)[0];
    expect((await s.del(`/projects/${project}/issues/${newest.iid}`)).status).toBe(204);
    issues.splice(issues.indexOf(newest), 1);
    await anchored();
    // The newest open one closed: it leaves the open list (and stays where it was in the other).
    const open = newestFirst(issues.filter(lists.opened))[0];
    expect((await s.put(`/projects/${project}/issues/${open.iid}`, { state_event: 'close' })).body.state).toBe('closed');
    open.state = 'closed';
    await anchored();
    expect(anchorsRewritten(db)).toBe(rewritten);
    // The row just before page 61, newest first (its anchor's own row), deleted; then an open one among the anchors closed.
    const own = newestFirst(issues)[1_199];
    expect((await s.del(`/projects/${project}/issues/${own.iid}`)).status).toBe(204);
    issues.splice(issues.indexOf(own), 1);
    await anchored();
    expect(anchorsRewritten(db)).toBeGreaterThan(rewritten);
    const among = newestFirst(issues.filter(lists.opened))[1_300];
    expect((await s.put(`/projects/${project}/issues/${among.iid}`, { state_event: 'close' })).body.state).toBe('closed');
    among.state = 'closed';
    await anchored();
  });
});

describe("deep pages of a project's events (core/022)", () => {
  const events: number[] = [];
  const page = (n: number, query: Record<string, string> = {}) => s.get(`/projects/${project}/events`, { query: { per_page: '100', page: String(n), ...query } });
  /** The project's events, newest first (the project's own `created` event among them). */
  const newest = (): number[] => [...events].sort((a, b) => b - a);
  const insert = (i: number): number =>
    Number(
      s.service.context.db
        .prepare("INSERT INTO events (project_id, author_id, action, created_at) VALUES (?, 1, ?, ?)")
        .run(project, i % 4 ? 'created' : 'closed', new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString()).lastInsertRowid,
    );

  beforeAll(() => {
    events.push(...(s.service.context.db.prepare('SELECT id FROM events WHERE project_id = ?').all(project) as { id: number }[]).map((e) => e.id));
    s.service.context.db.transaction(() => {
      for (let i = 1; i <= N; i++) events.push(insert(i));
    })();
  });

  it('read in turn, asked again, in either order, and after events come and go, every page is the slice the events say', async () => {
    for (const n of [11, 12, 13, 12, 25, 11]) expect(ids(await page(n))).toEqual(newest().slice((n - 1) * 100, n * 100));
    const oldest = [...events].sort((a, b) => a - b);
    for (const n of [14, 15, 14]) expect(ids(await page(n, { sort: 'asc' }))).toEqual(oldest.slice((n - 1) * 100, n * 100));
    // A new event (an issue created through the API) moves every page by one.
    expect((await s.post(`/projects/${project}/issues`, { title: 'Eventful' })).status).toBe(201);
    events.push(...(s.service.context.db.prepare('SELECT id FROM events WHERE project_id = ? AND id > ?').all(project, Math.max(...events)) as { id: number }[]).map((e) => e.id));
    for (const n of [12, 13]) expect(ids(await page(n))).toEqual(newest().slice((n - 1) * 100, n * 100));
    // Deleted (as a cascade deletes them): the pages after it move back.
    const gone = newest()[500];
    s.service.context.db.prepare('DELETE FROM events WHERE id = ?').run(gone);
    events.splice(events.indexOf(gone), 1);
    for (const n of [12, 13]) expect(ids(await page(n))).toEqual(newest().slice((n - 1) * 100, n * 100));
  });

  it('a page read after the one before it skips no row', async () => {
    await page(15, { action: 'created' });
    const reads = await pagedReads(s, async () => {
      const created = new Set(s.service.context.db.prepare("SELECT id FROM events WHERE project_id = ? AND action = 'created'").all(project).map((e: any) => e.id));
      expect(ids(await page(16, { action: 'created' }))).toEqual(newest().filter((id) => created.has(id)).slice(1_500, 1_600));
    });
    expect(reads).toHaveLength(1);
    expect(reads[0].sql).toContain('(e.id, e.id) < (?, ?)');
    expect(reads[0].args.at(-1)).toBe(0);
  });
});

describe("deep pages of a record's notes (core/022)", () => {
  interface NoteSeed {
    id: number;
    createdAt: string;
    updatedAt: string;
  }
  const notes: NoteSeed[] = [];
  const page = (n: number, query: Record<string, string> = {}) => s.get(`/projects/${project}/issues/1/notes`, { query: { per_page: '100', page: String(n), ...query } });
  const newest = (): number[] => [...notes].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.id - a.id)).map((x) => x.id);
  const updatedAsc = (): number[] => [...notes].sort((a, b) => (a.updatedAt < b.updatedAt ? -1 : a.updatedAt > b.updatedAt ? 1 : a.id - b.id)).map((x) => x.id);

  beforeAll(() => {
    const issue = issues.find((x) => x.iid === 1)!;
    s.service.context.db.transaction(() => {
      for (let i = 1; i <= N; i++) {
        const row = insertImportedNote(s.service.context, project, {
          noteableType: 'Issue',
          noteableId: issue.id,
          authorId: 1,
          body: `Note ${i}`,
          createdAt: createdAt(i),
          updatedAt: updatedAt(i),
          importedFrom: 'none',
        });
        notes.push({ id: row.id, createdAt: createdAt(i), updatedAt: updatedAt(i) });
      }
    })();
  });

  it('read in turn, asked again, by either order, and after notes are added, edited and deleted, every page is the slice the notes say', async () => {
    for (const n of [11, 12, 13, 12, 26, 11]) expect(ids(await page(n))).toEqual(newest().slice((n - 1) * 100, n * 100));
    for (const n of [14, 15, 14]) expect(ids(await page(n, { order_by: 'updated_at', sort: 'asc' }))).toEqual(updatedAsc().slice((n - 1) * 100, n * 100));
    const added = await s.post(`/projects/${project}/issues/1/notes`, { body: 'A new note' });
    expect(added.status).toBe(201);
    notes.push({ id: added.body.id, createdAt: added.body.created_at, updatedAt: added.body.updated_at });
    for (const n of [12, 13]) expect(ids(await page(n))).toEqual(newest().slice((n - 1) * 100, n * 100));
    // Edited: it moves to the end of the updated_at order.
    const edited = notes.find((x) => x.id === updatedAsc()[50])!;
    const put = await s.put(`/projects/${project}/issues/1/notes/${edited.id}`, { body: 'Edited' });
    expect(put.status).toBe(200);
    edited.updatedAt = put.body.updated_at;
    for (const n of [14, 15]) expect(ids(await page(n, { order_by: 'updated_at', sort: 'asc' }))).toEqual(updatedAsc().slice((n - 1) * 100, n * 100));
    const gone = newest()[300];
    expect((await s.del(`/projects/${project}/issues/1/notes/${gone}`)).status).toBe(204);
    notes.splice(notes.findIndex((x) => x.id === gone), 1);
    for (const n of [12, 13]) expect(ids(await page(n))).toEqual(newest().slice((n - 1) * 100, n * 100));
  });

  it('a page read after the one before it skips no row', async () => {
    await page(20);
    const reads = await pagedReads(s, async () => {
      expect(ids(await page(21))).toEqual(newest().slice(2_000, 2_100));
    });
    expect(reads).toHaveLength(1);
    expect(reads[0].sql).toContain('(created_at, id) < (?, ?)');
    expect(reads[0].args.at(-1)).toBe(0);
  });
});
