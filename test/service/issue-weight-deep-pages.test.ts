import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, TestService } from '../helpers/service';
import { expectEveryPage, preparedBy } from '../helpers/lists';
import { ORDER_WALK_LIMITS } from '../../src/main/service/areas/core/order-walk';

/**
 * weight=None and not[weight]= deep pages: dense filters, read as the project's list less their few
 * others (complement-walk.ts, the others by core/106's index) for a caller who sees every record;
 * walked as written for a Guest. Every page in each order, against the records as SQL says.
 */
let s: TestService;
let project: number;
let guest: string;
const db = () => s.service.context.db;
const PER_PAGE = 25;

const ids = (where: string, order: string, sort: string, token?: string): number[] =>
  (
    db()
      .prepare(`SELECT x.id FROM issues x WHERE x.project_id = ? AND ${where}${token ? ' AND x.confidential = 0' : ''} ORDER BY x.${order} ${sort}, x.id ${sort}`)
      .all(project) as { id: number }[]
  ).map((r) => r.id);

beforeAll(async () => {
  s = await TestService.start();
  project = ok(await s.post('/projects', { name: 'weights', visibility: 'private' })).id;
  const g = await s.createUser();
  guest = g.token;
  await s.addMember('projects', project, g.user.id, 10);
  // 600 issues: ties on created_at, weights in runs and alone (first and last too), -1 among them.
  const insert = db().prepare(
    `INSERT INTO issues (project_id, iid, title, state, author_id, confidential, labels, weight, created_at, updated_at) VALUES (?, ?, ?, ?, 1, ?, '[]', ?, ?, ?)`,
  );
  db().transaction(() => {
    for (let i = 1; i <= 600; i++) {
      const weighted = i <= 2 || i >= 598 || (i >= 300 && i < 320) || i % 29 === 0;
      const weight = weighted ? (i % 7 === 0 ? -1 : i % 4) : null;
      const created = new Date(Date.UTC(2024, 0, 1) + Math.floor(i / 3) * 1000).toISOString();
      const updated = new Date(Date.UTC(2024, 6, 1) + ((i * 7919) % 600) * 1000).toISOString();
      insert.run(project, i, `issue ${i % 13}`, i % 9 === 0 ? 'closed' : 'opened', i % 11 === 0 ? 1 : 0, weight, created, updated);
    }
  })();
}, 60_000);
afterAll(async () => s?.stop());

describe('weight=None and not[weight] deep pages', () => {
  it('every page in each order, alone and in a state, for an administrator and a Guest', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ weight: 'None' }, '(x.weight IS NULL OR x.weight = -1)'],
      [{ 'not[weight]': '1' }, '(x.weight IS NULL OR x.weight != 1)'],
      [{ weight: 'None', state: 'opened' }, "(x.weight IS NULL OR x.weight = -1) AND x.state = 'opened'"],
    ];
    for (const [query, where] of cases) {
      for (const order of ['created_at', 'updated_at', 'title']) {
        for (const sort of ['asc', 'desc']) {
          const q = { ...query, order_by: order, sort };
          await expectEveryPage(s, `/projects/${project}/issues`, q, ids(where, order, sort), PER_PAGE);
          await expectEveryPage(s, `/projects/${project}/issues`, q, ids(where, order, sort, guest), PER_PAGE, guest);
        }
      }
    }
  });

  it("places a deep page by the weighted issues read from core/106's index", async () => {
    const sql = await preparedBy(s, () => s.get(`/projects/${project}/issues`, { query: { weight: 'None', page: '20', per_page: String(PER_PAGE) } }));
    expect(sql.some((q) => q.includes('FROM issues c INDEXED BY issues_project_weight WHERE c.project_id = ?'))).toBe(true);
  });

  it('order_by=weight: the unweighted issues\' deep pages start after the id an earlier page read, until a write to the project\'s issues (a weight set or cleared)', async () => {
    ORDER_WALK_LIMITS.anchoredFrom = 0;
    try {
      const want = (sort: string) =>
        (db().prepare(`SELECT x.id FROM issues x WHERE x.project_id = ? ORDER BY x.weight IS NULL, x.weight ${sort}, x.id DESC`).all(project) as { id: number }[]).map((r) => r.id);
      const check = async (step: string) => {
        for (const sort of ['asc', 'desc']) {
          const all = want(sort);
          const pages = Math.ceil(all.length / PER_PAGE);
          // Last page first (each from what an earlier walk anchored), then every page in turn.
          for (let page = pages; page >= 1; page--) {
            const got = ((await s.get(`/projects/${project}/issues`, { query: { order_by: 'weight', sort, page: String(page), per_page: String(PER_PAGE) } })).body as { id: number }[]).map((r) => r.id);
            expect(got, `${step} ${sort} page ${page}`).toEqual(all.slice((page - 1) * PER_PAGE, page * PER_PAGE));
          }
          await expectEveryPage(s, `/projects/${project}/issues`, { order_by: 'weight', sort }, all, PER_PAGE);
        }
      };
      await check('first');
      const newestUnweighted = () => (db().prepare('SELECT iid FROM issues WHERE project_id = ? AND weight IS NULL ORDER BY id DESC LIMIT 1').get(project) as { iid: number }).iid;
      ok(await s.put(`/projects/${project}/issues/${newestUnweighted()}`, { weight: 2 }));
      await check('weighted');
      const weighted = (db().prepare('SELECT iid FROM issues WHERE project_id = ? AND weight = 2 ORDER BY id DESC LIMIT 1').get(project) as { iid: number }).iid;
      ok(await s.put(`/projects/${project}/issues/${weighted}`, { weight: null }));
      await check('cleared');
      ok(await s.put(`/projects/${project}/issues/${newestUnweighted()}`, { description: 'edited' }));
      await check('edited');
    } finally {
      ORDER_WALK_LIMITS.anchoredFrom = 1_000;
    }
  }, 120_000);
});
