import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService } from '../helpers/service';
import { queryPlan, statementReads } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';
import { ID_DATE_ZONES, ZONE_SHIFT, idRangeOfDates } from '../../src/main/service/areas/core/id-date-zones';
import { FILTERED_WALK } from '../../src/main/service/areas/core/order-walk';
import { PRIORITY_LIMITS } from '../../src/main/service/areas/core/order-label-priority';

/**
 * Lists walked in id order (popularity, relative_position, milestone_due, due_date, label_priority,
 * priority) with a date bound start at the ids its dates leave (id-date-zones.ts, core/160's zones
 * of 1,024 ids): every page and header is the one the list answers without the zones, at project,
 * group and instance scope, both sorts, after writes that move a record's dates, block or project.
 * Records come in batches a few blocks apart (ids not in date order: the third batch is imported,
 * old dates on new ids), in two projects of one group.
 */
let s: TestService;
let group: number;
let alpha: number;
let beta: number;
const BLOCK = 2 ** ZONE_SHIFT;
const batches: { year: number; n: number }[] = [
  { year: 2020, n: 14 },
  { year: 2024, n: 14 },
  { year: 2019, n: 6 },
  { year: 2025, n: 14 },
];
const firstIds: number[] = [];

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ visibility: 'public' })).id;
  alpha = (await s.createProject({ name: 'alpha', namespace_id: group, visibility: 'public' })).id;
  beta = (await s.createProject({ name: 'beta', namespace_id: group, visibility: 'public' })).id;
  for (const p of [alpha, beta]) {
    expect((await s.post(`/projects/${p}/labels`, { name: 'bug', color: '#ff0000', priority: 1 })).status).toBe(201);
    expect((await s.post(`/projects/${p}/labels`, { name: 'feature', color: '#00ff00', priority: 2 })).status).toBe(201);
  }
  const milestone = (await s.post(`/projects/${alpha}/milestones`, { title: 'v1', due_date: '2030-01-01' })).body as { id: number };
  const ctx = s.service.context;
  let iid = 0;
  ctx.db.transaction(() => {
    for (const { year, n } of batches) {
      // A few blocks on: the batch's ids begin a block of their own.
      for (const table of ['issues', 'merge_requests']) {
        const { seq } = ctx.db.prepare('SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = ?), 0) AS seq').get(table) as { seq: number };
        const next = (Math.floor(seq / BLOCK) + 3) * BLOCK;
        // (sqlite_sequence has no key on its name: one row per table, updated, or inserted when none.)
        if (!ctx.db.prepare('UPDATE sqlite_sequence SET seq = ? WHERE name = ?').run(next - 1, table).changes) ctx.db.prepare('INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)').run(table, next - 1);
      }
      for (let i = 0; i < n; i++) {
        iid++;
        const created = new Date(Date.UTC(year, 0, 1) + i * 20 * 86_400_000).toISOString();
        const updated = new Date(Date.parse(created) + (i % 5) * 3 * 86_400_000).toISOString();
        const common = {
          iid,
          title: `Record ${iid}`,
          description: null,
          authorId: 1,
          labels: i % 3 === 0 ? ['bug'] : i % 3 === 1 ? ['feature'] : [],
          createdAt: created,
          updatedAt: updated,
          importedFrom: 'none' as const,
        };
        const project = i % 4 === 3 ? beta : alpha;
        const issue = insertImportedIssue(ctx, project, {
          ...common,
          state: i % 5 === 0 ? 'closed' : 'opened',
          dueDate: i % 4 === 1 ? `2031-0${1 + (i % 7)}-1${i % 10}` : null,
          milestoneId: project === alpha && i % 3 === 2 ? milestone.id : null,
        });
        if (i === 0) firstIds.push(issue.id);
        insertImportedMergeRequest(ctx, project, { ...common, state: i % 5 === 0 ? 'merged' : 'opened', sourceBranch: `f-${iid}`, targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40), mergedAt: null });
      }
    }
  })();
  // Upvotes on a few records of each batch.
  for (const kind of ['issues', 'merge_requests']) {
    for (const iidOf of [2, 3, 17, 30, 36, 45]) {
      const project = (ctx.db.prepare(`SELECT project_id FROM ${kind} WHERE iid = ?`).get(iidOf) as { project_id: number }).project_id;
      expect((await s.post(`/projects/${project}/${kind}/${iidOf}/award_emoji`, { name: 'thumbsup' })).status).toBe(201);
    }
  }
}, 60_000);
afterAll(async () => {
  ID_DATE_ZONES.used = true;
  await s.stop();
});

const PER_PAGE = 5;

/** Every page of the list, with its headers (those a client reads). */
async function pages(path: string, query: Record<string, string>): Promise<unknown[]> {
  const out: unknown[] = [];
  for (let n = 1; ; n++) {
    const res: ApiResult = await s.get(path, { query: { ...query, per_page: String(PER_PAGE), page: String(n) } });
    expect(res.status, `${path} ${JSON.stringify(query)}`).toBe(200);
    const ids = (res.body as { id: number }[]).map((x) => x.id);
    out.push({ n, ids, ...Object.fromEntries(['x-total', 'x-total-pages', 'x-next-page', 'x-prev-page', 'link'].map((h) => [h, res.headers.get(h)])) });
    if (!ids.length || !res.headers.get('x-next-page')) break;
  }
  return out;
}

/** The list with the zones and without them: the same pages; at least one non-empty. */
async function expectSameWithoutZones(path: string, query: Record<string, string>): Promise<void> {
  ID_DATE_ZONES.used = true;
  const zoned = await pages(path, query);
  ID_DATE_ZONES.used = false;
  try {
    expect(zoned, `${path} ${JSON.stringify(query)}`).toEqual(await pages(path, query));
  } finally {
    ID_DATE_ZONES.used = true;
  }
}

const BOUNDS: Record<string, string>[] = [
  { updated_before: '2024-06-01T00:00:00Z' },
  { created_after: '2024-03-01T00:00:00Z' },
  { created_before: '2021-01-01T00:00:00Z', updated_after: '2019-03-01T00:00:00Z' },
];
const ORDERS: Record<'issues' | 'merge_requests', string[]> = {
  issues: ['popularity', 'relative_position', 'milestone_due', 'due_date', 'label_priority', 'priority'],
  merge_requests: ['popularity', 'milestone_due', 'label_priority', 'priority'],
};

/** `fn` with the lists' walks of the ids taken at any size (a few records here: else their matches are sorted). */
async function walking<T>(fn: () => Promise<T>): Promise<T> {
  const { span, spanPerRow } = FILTERED_WALK;
  Object.assign(FILTERED_WALK, { span: 1, spanPerRow: 1 });
  PRIORITY_LIMITS.walkBound = 1;
  try {
    return await fn();
  } finally {
    Object.assign(FILTERED_WALK, { span, spanPerRow });
    delete PRIORITY_LIMITS.walkBound;
  }
}

async function expectEveryList(): Promise<void> {
  await everyList();
  await walking(everyList);
}

async function everyList(): Promise<void> {
  for (const kind of ['issues', 'merge_requests'] as const) {
    for (const path of [`/projects/${alpha}/${kind}`, `/groups/${group}/${kind}`, `/${kind}`]) {
      for (const order_by of ORDERS[kind]) {
        for (const sort of ['asc', 'desc']) {
          for (const bounds of BOUNDS) {
            const query = { order_by, sort, ...bounds, ...(path === `/${kind}` ? { scope: 'all' } : {}) };
            await expectSameWithoutZones(path, query);
            await expectSameWithoutZones(path, { ...query, 'not[labels]': 'feature', state: 'opened' });
          }
        }
      }
    }
  }
}

describe('lists walked in id order with a date bound', () => {
  it('answer every page and header as without the zones, at each scope, order and sort', async () => {
    await expectEveryList();
  }, 600_000);

  it("start their walk at the bound's blocks: the newest batch left out of updated_before's ids, by the rowid", async () => {
    const db = s.service.context.db;
    const range = idRangeOfDates(db, 'Issue', { where: 'x.project_id = ?', args: [alpha], projectId: alpha }, { updated_before: '2024-06-01T00:00:00Z' })!;
    expect(range.args[0]).toBe(Math.floor(firstIds[0] / BLOCK) * BLOCK);
    // The 2025 batch (the newest ids) holds no match; the 2019 batch, imported after 2024's, does.
    expect(range.args[1]).toBeLessThan(firstIds[3]);
    expect(range.args[1]).toBeGreaterThanOrEqual(firstIds[2]);
    const reads = await walking(() =>
      statementReads(s, (sql) => sql.includes('x.id BETWEEN ? AND ?') && sql.includes('NOT INDEXED'), async () => {
        for (const order_by of ['popularity', 'label_priority']) {
          expect((await s.get(`/projects/${alpha}/issues`, { query: { order_by, updated_before: '2024-06-01T00:00:00Z', 'not[labels]': 'feature' } })).status).toBe(200);
        }
      }),
    );
    expect(reads.length).toBeGreaterThanOrEqual(2);
    for (const r of reads) expect(queryPlan(db, r.sql, ...r.args)).toMatch(/SEARCH x USING INTEGER PRIMARY KEY \(rowid>\? AND rowid<\?\)/);
  });

  it('answer the same after writes that move dates, blocks and projects (the zones only widen)', async () => {
    const db = s.service.context.db;
    // A record of the newest batch updated back into 2019 (SQL), one of 2020's updated now (API),
    // one created earlier, one moved to the other project.
    const newest = db.prepare('SELECT id FROM issues WHERE id >= ? ORDER BY id LIMIT 1').get(firstIds[3]) as { id: number };
    db.prepare("UPDATE issues SET updated_at = '2019-05-01T00:00:00.000Z' WHERE id = ?").run(newest.id);
    db.prepare("UPDATE merge_requests SET updated_at = '2019-05-01T00:00:00.000Z' WHERE id = (SELECT max(id) FROM merge_requests)").run();
    db.prepare("UPDATE issues SET created_at = '2018-01-01T00:00:00.000Z' WHERE id = (SELECT max(id) FROM issues)").run();
    db.prepare('UPDATE issues SET project_id = ? WHERE id = (SELECT min(id) FROM issues WHERE project_id = ? AND id >= ?)').run(alpha, beta, firstIds[1]);
    const old = db.prepare('SELECT project_id, iid FROM issues WHERE id = ?').get(firstIds[0]) as { project_id: number; iid: number };
    expect((await s.put(`/projects/${old.project_id}/issues/${old.iid}`, { title: 'touched' })).status).toBe(200);
    await expectEveryList();
  }, 600_000);
});
