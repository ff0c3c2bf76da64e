import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService } from '../helpers/service';
import { pagedReads, statementReads } from '../helpers/lists';
import { FILTERED_WALK } from '../../src/main/service/areas/core/order-walk';
import { insertImportedIssue } from '../../src/main/service/areas/core/imported';

/**
 * A deep page past the end of a long list (more than COUNT_LIMIT rows: no exact count says where it
 * ends) is read once per version of the list (http/pagination.ts anchoredRows' endsBy): asked again
 * after a write elsewhere it reads nothing, and after writes to the records it holds the rows they say.
 */
let s: TestService;
let project: number;

interface Seed {
  id: number;
  labels: string[];
  createdAt: string;
}
const issues: Seed[] = [];
const N = 10_300;
const createdAt = (i: number): string => new Date(Date.UTC(2024, 0, 1) + Math.floor(i / 2) * 60_000).toISOString();
// Every issue labelled but each 50th: labels=Any holds more than COUNT_LIMIT.
const labelsOf = (i: number): string[] => (i % 50 === 0 ? [] : ['bug']);

function insert(i: number, labels: string[]): void {
  const at = createdAt(i);
  const row = insertImportedIssue(s.service.context, project, { iid: i, title: `Item ${i}`, description: null, authorId: 1, createdAt: at, updatedAt: at, importedFrom: 'none', state: 'opened', labels, confidential: false });
  issues.push({ id: row.id, labels, createdAt: at });
}

beforeAll(async () => {
  s = await TestService.start();
  project = (await s.createProject({ name: 'long', visibility: 'public' })).id;
  s.service.context.db.transaction(() => {
    for (let i = 1; i <= N; i++) insert(i, labelsOf(i));
  })();
}, 120_000);
afterAll(async () => s.stop());

const ids = (res: ApiResult): number[] => res.body.map((x: { id: number }) => x.id);
const labelled = (): number[] =>
  issues
    .filter((x) => x.labels.length)
    .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.id - a.id))
    .map((x) => x.id);

describe("a computed order's deep page where the list is counted only as past COUNT_LIMIT", () => {
  it('walks the ids from the last page\'s end (no sort of every match), and every page is the list\'s ORDER BY', async () => {
    // labels=Any is counted as COUNT_LIMIT + 1 (more than 10,000): page 501 of 20 reaches past that.
    const query = (order: string, sort: string, n: number) => ({ labels: 'Any', order_by: order, sort, per_page: '20', page: String(n) });
    for (const order of ['popularity', 'relative_position', 'milestone_due']) {
      for (const sort of ['desc', 'asc']) {
        for (const n of [500, 501, 502, 506]) {
          const walked = await s.get(`/projects/${project}/issues`, { query: query(order, sort, n) });
          FILTERED_WALK.filtered = false;
          try {
            const sorted = await s.get(`/projects/${project}/issues`, { query: query(order, sort, n) });
            expect(ids(walked), `${order} ${sort} ${n}`).toEqual(ids(sorted));
            for (const h of ['x-total', 'x-total-pages', 'x-next-page', 'x-prev-page', 'link']) expect(walked.headers.get(h)).toBe(sorted.headers.get(h));
          } finally {
            FILTERED_WALK.filtered = true;
          }
        }
      }
    }
    // No awards: popularity is the id order.
    expect(ids(await s.get(`/projects/${project}/issues`, { query: query('popularity', 'desc', 501) }))).toEqual(
      [...labelled()].sort((a, b) => b - a).slice(10_000, 10_020),
    );
    const reads = await statementReads(s, (sql) => sql.includes('LIMIT'), async () => void (await s.get(`/projects/${project}/issues`, { query: query('popularity', 'desc', 501) })));
    expect(reads.map((r) => r.sql).join('\n')).not.toContain('ORDER BY +x.id');
    // After a write elsewhere the walk starts at the row where the page before ended (its anchors
    // hold: labels alone move only with writes to the records)...
    expect((await s.put(`/projects/${project}`, { description: 'walked' })).status).toBe(200);
    await s.get(`/projects/${project}/issues`, { query: query('popularity', 'desc', 502) });
    const next = await statementReads(s, (sql) => /NOT INDEXED.*LIMIT \d+ OFFSET \?$/.test(sql), async () => void (await s.get(`/projects/${project}/issues`, { query: query('popularity', 'desc', 503) })));
    expect(next.map((r) => r.args.at(-1))).toEqual([0]);
    // ...and a write to the records moves them: relabelled in SQL, the pages are the records' again.
    const db = s.service.context.db;
    for (const x of issues.filter((y) => y.labels.length).sort((a, b) => b.id - a.id).slice(9_990, 10_030)) {
      x.labels = [];
      db.prepare('UPDATE issues SET labels = ? WHERE id = ?').run('[]', x.id);
    }
    for (const n of [502, 503, 501, 502]) {
      expect(ids(await s.get(`/projects/${project}/issues`, { query: query('popularity', 'desc', n) })), `page ${n}`).toEqual(
        [...labelled()].sort((a, b) => b - a).slice((n - 1) * 20, n * 20),
      );
    }
  });
});

describe('a page past the end of a long list', () => {
  const page = (n: number) => s.get(`/projects/${project}/issues`, { query: { labels: 'Any', per_page: '100', page: String(n) } });

  it('is read once, then answered empty without a read after writes elsewhere', async () => {
    expect(labelled().length).toBeGreaterThan(10_000);
    const first = await page(110);
    expect(ids(first)).toEqual([]);
    expect(first.headers.get('x-next-page')).toBe('');
    expect((await s.put(`/projects/${project}`, { description: 'elsewhere' })).status).toBe(200);
    const reads = await pagedReads(s, async () => {
      for (const n of [110, 120, 110]) {
        const res = await page(n);
        expect(ids(res)).toEqual([]);
        expect(res.headers.get('x-next-page')).toBe('');
        expect(res.headers.get('x-page')).toBe(String(n));
      }
    });
    expect(reads).toHaveLength(0);
    // The last page still holds its rows.
    expect(ids(await page(101))).toEqual(labelled().slice(10_000, 10_100));
  });

  it('holds the rows the records say once they are written: newer issues inserted, older ones relabelled in SQL', async () => {
    for (let i = N + 1; i <= N + 250; i++) insert(i, ['bug']);
    for (const n of [103, 104, 103]) expect(ids(await page(n))).toEqual(labelled().slice((n - 1) * 100, n * 100));
    expect(ids(await page(105))).toEqual([]);
    const db = s.service.context.db;
    for (const x of issues.filter((y) => !y.labels.length).slice(0, 150)) {
      x.labels = ['bug'];
      db.prepare('UPDATE issues SET labels = ? WHERE id = ?').run(JSON.stringify(x.labels), x.id);
    }
    for (const n of [105, 106, 105]) expect(ids(await page(n))).toEqual(labelled().slice((n - 1) * 100, n * 100));
  });
});
