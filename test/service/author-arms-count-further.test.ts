import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService } from '../helpers/service';
import { statementReads } from '../helpers/lists';
import { insertImportedIssue } from '../../src/main/service/areas/core/imported';
import { SCOPE_ARMS_LIMITS } from '../../src/main/service/areas/core/order-scope-arms';

/**
 * The root's own issues (/issues' default, created_by_me) with milestone=Any by title: the author's
 * arms (order-scope-arms.ts authorArms) are walked when the list holds the matches that keep the walk
 * within walkPerRead entries per authored record. Past COUNT_LIMIT + 1 the list is counted further,
 * up to them, where a count capped at COUNT_LIMIT + 1 said too little and the list's SQL walked the
 * instance's title order. Every page and header is the records'.
 */
let s: TestService;
const COUNT_LIMIT = 10_000;
const N = 11_000;
const mine: { id: number; title: string; milestone: boolean }[] = [];

beforeAll(async () => {
  s = await TestService.start();
  const projects = [(await s.createProject({ name: 'a', visibility: 'public' })).id, (await s.createProject({ name: 'b', visibility: 'public' })).id];
  const v1 = new Map<number, number>();
  for (const p of projects) v1.set(p, (await s.post(`/projects/${p}/milestones`, { title: 'v1' })).body.id as number);
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      const project = projects[i % 11 === 0 ? 1 : 0];
      const at = new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString();
      const milestone = i % 110 !== 0;
      const title = `Item ${(i * 37) % 1000}`;
      const row = insertImportedIssue(ctx, project, {
        iid: i, title, description: null, authorId: 1, createdAt: at, updatedAt: at, importedFrom: 'none', state: 'opened', confidential: false, milestoneId: milestone ? v1.get(project)! : null,
      });
      mine.push({ id: row.id, title, milestone });
    }
  })();
}, 120_000);
afterAll(async () => s.stop());
const walkPerRead = SCOPE_ARMS_LIMITS.walkPerRead;
afterEach(() => void (SCOPE_ARMS_LIMITS.walkPerRead = walkPerRead));

const ids = (res: ApiResult): number[] => res.body.map((x: { id: number }) => x.id);

describe("an author's arms past a capped count", () => {
  it('counts the list up to the matches the walk needs, walks the arms, and answers every page as the records say', async () => {
    // reach * records / (walkPerRead * authored) = 4,000 / 0.375 = 10,667 matches needed: past COUNT_LIMIT + 1, within the list's 10,900.
    SCOPE_ARMS_LIMITS.walkPerRead = 0.375;
    const want = mine.filter((x) => x.milestone).sort((a, b) => (a.title === b.title ? b.id - a.id : a.title < b.title ? 1 : -1)).map((x) => x.id);
    expect(want.length).toBeGreaterThan(COUNT_LIMIT);
    const page = (n: number) => s.get('/issues', { query: { state: 'opened', milestone: 'Any', order_by: 'title', sort: 'desc', per_page: '100', page: String(n) } });
    const arms = await statementReads(s, (sql) => sql.includes('INDEXED BY issues_project_title'), async () => {
      const res = await page(40);
      expect(ids(res)).toEqual(want.slice(3_900, 4_000));
    });
    expect(arms.length).toBeGreaterThan(0);
    for (const n of [1, 2, 39, 40, 41, 100, 101, 109, 110, 120]) {
      const res = await page(n);
      const offset = (n - 1) * 100;
      expect(ids(res), `page ${n}`).toEqual(want.slice(offset, offset + 100));
      const hasNext = want.length > offset + 100;
      expect(res.headers.get('x-next-page'), `page ${n}`).toBe(hasNext ? String(n + 1) : '');
      // An empty page is out of range (Kaminari): no previous page.
      expect(res.headers.get('x-prev-page'), `page ${n}`).toBe(n > 1 && want.length > offset ? String(n - 1) : '');
      // More than COUNT_LIMIT: every page says "more than" (no X-Total, no last page).
      expect(res.headers.has('x-total'), `page ${n}`).toBe(false);
      expect(res.headers.get('link') ?? '', `page ${n}`).not.toContain('rel="last"');
    }
  });
});
