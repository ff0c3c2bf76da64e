import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { expectEveryPage, statementReads } from '../helpers/lists';
import { insertImportedIssue } from '../../src/main/service/areas/core/imported';

/**
 * A project's list of a label's set and a common term (the set read first, each record asked the
 * term's every match: `x.id IN (SELECT ... FROM issues_search ...)`) is counted once per version of
 * the project's issues: the full-text index moves only with their writes (its triggers), so a write
 * elsewhere leaves the count (count-versions.ts countAtLeast, a count within COUNT_LIMIT kept at its
 * version). After a write to the records it is counted again and says what they say.
 */
let s: TestService;
let project = 0;
let other = 0;
const N = 1_500;
const labelled: number[] = [];

beforeAll(async () => {
  s = await TestService.start();
  project = (await s.createProject({ name: 'searched', visibility: 'public' })).id;
  other = (await s.createProject({ name: 'other', visibility: 'public' })).id;
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      const at = new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString();
      const labels = i % 37 === 0 ? ['label-2'] : [];
      const row = insertImportedIssue(ctx, project, { iid: i, title: `issue ${i}`, description: null, authorId: 1, createdAt: at, updatedAt: at, importedFrom: 'none', state: 'opened', labels, confidential: false });
      if (labels.length) labelled.push(row.id);
    }
  })();
}, 60_000);
afterAll(async () => s.stop());

const QUERY = { state: 'opened', labels: 'label-2', search: 'issue' };
// The set's count, or its ids read once for a page counted first (paginateSql's countsItsOwnPage).
const setCounts = (fn: () => Promise<unknown>) =>
  statementReads(
    s,
    (sql) => (sql.startsWith('SELECT count(*) AS n FROM (SELECT 1 FROM (SELECT DISTINCT +il.issuable_id') || (sql.startsWith('SELECT x.id AS id FROM (SELECT DISTINCT +il.issuable_id') && sql.endsWith('LIMIT 10001'))) && sql.includes('issues_search'),
    fn,
    ['get', 'all'],
  );
const want = () => [...labelled].sort((a, b) => b - a);

describe("a label's set with a common term", () => {
  it('is counted once, not again after a write elsewhere, and again after a write to the records', async () => {
    const deep = () => s.get(`/projects/${project}/issues`, { query: { ...QUERY, per_page: '20', page: '60' } });
    expect((await setCounts(async () => expect((await deep()).body).toEqual([]))).length).toBe(1);
    expect((await s.put(`/projects/${other}`, { description: 'elsewhere' })).status).toBe(200);
    expect(await setCounts(async () => {
      const res = await deep();
      expect(res.body).toEqual([]);
      expect(res.headers.get('x-total')).toBe(String(labelled.length));
    })).toEqual([]);
    await expectEveryPage(s, `/projects/${project}/issues`, QUERY, want(), 20);
    // One more labelled (in SQL: the records' triggers keep the label rows and the version).
    const id = (s.service.context.db.prepare('SELECT id FROM issues WHERE project_id = ? AND iid = 1').get(project) as { id: number }).id;
    s.service.context.db.prepare(`UPDATE issues SET labels = '["label-2"]' WHERE id = ?`).run(id);
    labelled.push(id);
    expect((await setCounts(async () => expect((await deep()).headers.get('x-total')).toBe(String(labelled.length)))).length).toBe(1);
    await expectEveryPage(s, `/projects/${project}/issues`, QUERY, want(), 20);
  });
});
