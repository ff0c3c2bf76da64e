import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, TestService } from '../helpers/service';
import { expectEveryPage, statementReads } from '../helpers/lists';

/**
 * A page past the first that is counted first (paginateSql) and whose count reads the list's own
 * statement (a label set read and sorted: idSetLists' page and count) reads the list's ids in
 * order once (fewRowsByIds): the count is their number and the page a slice of them, where the
 * count read the set and the page read and sorted it again. Every page and header as the records say.
 */
let s: TestService;
let project: number;

beforeAll(async () => {
  s = await TestService.start();
  project = ok(await s.post('/projects', { name: 'set-count', visibility: 'public' })).id;
  // 150 records, `ui` on 30 of them (fewer than idSetLists' bound of page 2 of 3, sqrt(7 x 150)): its set read and sorted.
  for (let n = 0; n < 150; n++) {
    const labels = { 0: 'bug,ui', 4: 'ui', 9: 'bug,ui,db', 2: 'bug' }[n % 15] ?? '';
    // Every seventh a draft: wip=no leaves it out.
    ok(await s.post(`/projects/${project}/merge_requests`, { title: `${n % 7 === 3 ? 'Draft: ' : ''}change ${n}`, labels, source_branch: `b${n}`, target_branch: 'main' }));
  }
}, 300_000);
afterAll(async () => s?.stop());

/** The label set's reads of the list: its ids in order (no OFFSET) and its count or page statements. */
const setReads = (sql: string): boolean => /FROM \(SELECT DISTINCT/.test(sql) && !sql.includes('json_group_array');

describe("a page counted first from the list's own statement", () => {
  it('reads the set once for its count and its page; every page as the records say', async () => {
    const path = `/projects/${project}/merge_requests`;
    const records = s.service.context.db.prepare('SELECT id, title, labels, created_at FROM merge_requests WHERE project_id = ?').all(project) as { id: number; title: string; labels: string; created_at: string }[];
    // The records with bug and ui, drafts left out, by creation date (ties by id) in `dir`.
    const want = (dir: 1 | -1): number[] =>
      records
        .filter((r) => JSON.parse(r.labels).includes('bug') && JSON.parse(r.labels).includes('ui') && !r.title.startsWith('Draft:'))
        .sort((a, b) => dir * (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id - b.id))
        .map((r) => r.id);
    const lists: [Record<string, string>, number[]][] = [
      [{ labels: 'bug,ui', wip: 'no' }, want(-1)],
      [{ labels: 'bug,ui', wip: 'no', sort: 'asc' }, want(1)],
    ];
    for (const [query, ids] of lists) {
      expect(ids.length).toBeGreaterThan(12);
      const reads = await statementReads(s, setReads, () => s.get(path, { query: { ...query, per_page: '3', page: '2' } }), ['all', 'get']);
      expect(reads.map((r) => r.sql.replace(/.* (LIMIT \d+)( OFFSET \?)?\)?$/, '$1$2')), JSON.stringify(query)).toEqual(['LIMIT 10001']);
      await expectEveryPage(s, path, query, ids, 3);
    }
  });
});
