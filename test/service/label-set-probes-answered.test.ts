import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, TestService } from '../helpers/service';
import { expectEveryPage, statementReads } from '../helpers/lists';

/**
 * A list read through a label title's set (idSetLists: the title's rows, its other titles probed on
 * those rows by id) asks its records no title again: the rows answer them. Every other condition
 * (wip, not[labels], a state) is still asked of each record; every page and header as the records
 * say, before and after writes that move records in and out of the list.
 */
let s: TestService;
let project: number;

beforeAll(async () => {
  s = await TestService.start();
  project = ok(await s.post('/projects', { name: 'set-probes', visibility: 'public' })).id;
  // 150 records, `ui` on 40 of them (few enough for idSetLists to read its set on page 2 of 3).
  for (let n = 0; n < 150; n++) {
    const labels = { 0: 'bug,ui', 4: 'ui', 9: 'bug,ui,db', 2: 'bug', 12: 'ui,db' }[n % 15] ?? '';
    // Every seventh a draft: wip=no leaves it out, wip=yes keeps only those.
    ok(await s.post(`/projects/${project}/merge_requests`, { title: `${n % 7 === 3 ? 'Draft: ' : ''}change ${n}`, labels, source_branch: `b${n}`, target_branch: 'main' }));
  }
  for (const iid of [1, 10, 31]) ok(await s.put(`/projects/${project}/merge_requests/${iid}`, { state_event: 'close' }));
}, 300_000);
afterAll(async () => s?.stop());

/** The label set's reads (its rows, the other titles probed by id on them). */
const setReads = (sql: string): boolean => /FROM \(SELECT DISTINCT \+/.test(sql) && !sql.includes('json_group_array');
/** A title asked of the record itself (labelProbe), not of the set's rows; `NOT` before it: not[labels], still asked. */
const RECORD_PROBE = /(?<!NOT )EXISTS \(SELECT 1 FROM issuable_labels il WHERE il\.issuable_type = 'MergeRequest' AND il\.issuable_id = \+x\.id/;
const WITHOUT_PROBE = /NOT EXISTS \(SELECT 1 FROM issuable_labels il WHERE il\.issuable_type = 'MergeRequest' AND il\.issuable_id = \+x\.id/;

type Row = { id: number; title: string; labels: string; state: string; created_at: string };

describe('a list read through a label set', () => {
  it('asks no title of its records again; every page as the records say, after writes too', async () => {
    const path = `/projects/${project}/merge_requests`;
    const want = (all: string[], without: string[], draft: boolean | null, state: string | null, dir: 1 | -1): number[] => {
      const records = s.service.context.db.prepare('SELECT id, title, labels, state, created_at FROM merge_requests WHERE project_id = ?').all(project) as Row[];
      const has = (r: Row, t: string): boolean => (JSON.parse(r.labels) as string[]).some((l) => l.toLowerCase() === t.toLowerCase());
      return records
        .filter((r) => all.every((t) => has(r, t)) && !without.some((t) => has(r, t)) && (draft === null || r.title.startsWith('Draft:') === draft) && (state === null || r.state === state))
        .sort((a, b) => dir * (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id - b.id))
        .map((r) => r.id);
    };
    const lists: [Record<string, string>, () => number[]][] = [
      [{ labels: 'bug,ui', wip: 'no' }, () => want(['bug', 'ui'], [], false, null, -1)],
      [{ labels: 'ui,bug', wip: 'no', sort: 'asc' }, () => want(['bug', 'ui'], [], false, null, 1)],
      [{ labels: 'BUG,Ui', wip: 'no' }, () => want(['bug', 'ui'], [], false, null, -1)],
      [{ labels: 'bug,bug', wip: 'no' }, () => want(['bug'], [], false, null, -1)],
      [{ labels: 'bug,ui', 'not[labels]': 'db', wip: 'no' }, () => want(['bug', 'ui'], ['db'], false, null, -1)],
      [{ labels: 'ui,db', wip: 'yes' }, () => want(['ui', 'db'], [], true, null, -1)],
      [{ labels: 'ui,bug', wip: 'no', state: 'opened' }, () => want(['bug', 'ui'], [], false, 'opened', -1)],
    ];
    const check = async (): Promise<void> => {
      for (const [query, ids] of lists) {
        const wanted = ids();
        expect(wanted.length, JSON.stringify(query)).toBeGreaterThan(1);
        const reads = await statementReads(s, setReads, () => s.get(path, { query: { ...query, per_page: '3', page: '2' } }), ['all', 'get']);
        expect(reads.length, JSON.stringify(query)).toBeGreaterThan(0);
        for (const read of reads) {
          expect(RECORD_PROBE.test(read.sql), `${JSON.stringify(query)}: ${read.sql}`).toBe(false);
          expect(WITHOUT_PROBE.test(read.sql), JSON.stringify(query)).toBe('not[labels]' in query);
        }
        await expectEveryPage(s, path, query, wanted, 3);
      }
    };
    await check();
    // Records in and out of the lists: a title removed and added, a draft marked ready, one closed.
    ok(await s.put(`${path}/1`, { remove_labels: 'bug' }));
    ok(await s.put(`${path}/5`, { add_labels: 'bug,db' }));
    ok(await s.put(`${path}/25`, { title: 'change 24, ready' }));
    ok(await s.put(`${path}/46`, { state_event: 'close' }));
    await check();
  });
});
