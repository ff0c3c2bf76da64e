import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService } from '../helpers/service';
import { pagedReads } from '../helpers/lists';
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
