import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { expectEveryPage, pagedReads, queryPlan, statementReads } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';
import { LABEL_ROWS } from '../../src/main/service/areas/core/label-rows-list';

/**
 * A list by creation bounded by updated_before alone, with titles (labels=fix,other), past
 * LABEL_ROWS.walk rows of its rarest title, where dateLagList walks its lag buckets (the update
 * range holds more than SORTED_RANGE records): its page is walked in the title's rows in creation
 * order from created_at <= updated_before (label-rows-list.ts createdBefore), and counted from the
 * title's rows in the update range, while no record updated before it was created was created
 * after that date. With one such record, the buckets serve the page as before. A project's list
 * and the instance's (an administrator's scope=all), merge requests and issues; every page and
 * header against the records.
 */
let s: TestService;
let group: number;
let project: number;
const N = 1_300;
const MINUTE = 60_000;
const T0 = Date.UTC(2024, 0, 1);
/** Lags from creation to the last update, in turn: none, under a second, seconds, an hour (several buckets, none negative). */
const LAGS = [0, 400, 5_000, 0, 3_600_000];
/** 1,200 records updated at or before it: past SORTED_RANGE, so the buckets are walked. */
const BEFORE = new Date(T0 + 1_200 * MINUTE + 1_000).toISOString();
/** The 1,296th record (both titles), created after BEFORE, updated before it was created when `early` (as an import may). */
const EARLY = 1_296;

type Kind = 'merge_requests' | 'issues';
interface Seed {
  id: number;
  labels: string[];
  createdAt: string;
  updatedAt: string;
}
let seeds: Record<Kind, Seed[]>;

async function start(early: boolean): Promise<void> {
  s = await TestService.start();
  group = (await s.createGroup({ visibility: 'public' })).id;
  project = (await s.createProject({ name: 'big', namespace_id: group, visibility: 'public' })).id;
  seeds = { merge_requests: [], issues: [] };
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      // `fix` on every 3rd record, `other` on every 2nd: 216 records carry both.
      const labels = [...(i % 3 === 0 ? ['fix'] : []), ...(i % 2 === 0 ? ['other'] : [])];
      const createdAt = new Date(T0 + i * MINUTE).toISOString();
      const updatedAt = early && i === EARLY ? new Date(T0 + 1_000 * MINUTE).toISOString() : new Date(T0 + i * MINUTE + LAGS[i % LAGS.length]).toISOString();
      const common = { iid: i, description: null, authorId: 1, labels, createdAt, updatedAt, importedFrom: 'none' };
      const mr = insertImportedMergeRequest(ctx, project, {
        ...common,
        title: `MR ${i}`,
        milestoneId: null,
        state: 'opened',
        sourceBranch: `f-${i}`,
        targetBranch: 'main',
        baseSha: '0'.repeat(40),
        headSha: '1'.repeat(40),
        mergedAt: null,
      });
      seeds.merge_requests.push({ id: mr.id, labels, createdAt, updatedAt });
      const issue = insertImportedIssue(ctx, project, { ...common, title: `Issue ${i}`, state: 'opened' });
      seeds.issues.push({ id: issue.id, labels, createdAt, updatedAt });
    }
  })();
  LABEL_ROWS.walk = 1;
}

async function stop(): Promise<void> {
  LABEL_ROWS.walk = 20_000;
  await s.stop();
}

/** The records with both titles updated at or before `before`, by creation in `sort`, ties by id the same way. */
function want(kind: Kind, before: string, sort: 'asc' | 'desc'): number[] {
  const dir = sort === 'asc' ? 1 : -1;
  return seeds[kind]
    .filter((r) => r.labels.includes('fix') && r.labels.includes('other') && r.updatedAt <= before)
    .sort((a, b) => dir * (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id - b.id))
    .map((r) => r.id);
}

/** A page read from the title's rows in creation order, from a creation bound. */
const WALK = /^SELECT il\.issuable_id AS id FROM issuable_labels il INDEXED BY issuable_labels_(title_)?created .* AND il\.created_at <= \?/;

/** Both kinds at both scopes. */
const lists = (): [Kind, string, Record<string, string>][] => [
  ['merge_requests', `/projects/${project}/merge_requests`, {}],
  ['merge_requests', '/merge_requests', { scope: 'all' }],
  ['issues', `/projects/${project}/issues`, {}],
  ['issues', '/issues', { scope: 'all' }],
];

describe("labels with updated_before by creation, beside dateLagList's buckets", () => {
  const before = BEFORE;
  beforeAll(() => start(false), 120_000);
  afterAll(stop);

  it("walked in the rarest title's rows from created_at <= updated_before, counted by update; every page as the records say", async () => {
    for (const [kind, path, scope] of lists()) {
      for (const sort of ['desc', 'asc'] as const) {
        const query = { labels: 'fix,other', updated_before: before, sort, ...scope };
        const what = `${path} ${sort}`;
        const counts: { sql: string; args: unknown[] }[] = [];
        const reads = await pagedReads(s, async () => {
          counts.push(...(await statementReads(s, (sql) => sql.startsWith('SELECT count(*)') && sql.includes('issuable_labels il'), async () => void (await s.get(path, { query: { ...query, per_page: '20', page: '3' } })), 'get')));
        });
        expect(reads.map((r) => WALK.test(r.sql)), what).toEqual([true]);
        const plan = queryPlan(s.service.context.db, reads[0].sql, ...reads[0].args);
        expect(plan, what).toMatch(/USING INDEX issuable_labels_(title_)?created \(issuable_type=\? AND (project_id=\? AND )?title=\? AND (created_at>\? AND )?created_at<\?\)/);
        expect(plan, what).not.toContain('TEMP B-TREE');
        // Counted from the title's rows in the update range (not all its rows by creation); the
        // count of the other sort may be the one kept from the first.
        expect(counts.length, what).toBe(sort === 'desc' ? 1 : counts.length);
        if (counts.length) expect(queryPlan(s.service.context.db, `SELECT count(*) AS n ${counts[0].sql.slice(counts[0].sql.indexOf('FROM'))}`, ...counts[0].args), what).toMatch(
          /INDEX issuable_labels_(title_)?updated \(issuable_type=\? AND (project_id=\? AND )?title=\? AND (updated_at>\? AND )?updated_at<\?\)/,
        );
        await expectEveryPage(s, path, query, want(kind, before, sort), 20);
      }
    }
  });

});

describe('with a record updated before it was created, created after updated_before', () => {
  const before = BEFORE;
  beforeAll(() => start(true), 120_000);
  afterAll(stop);

  it('not walked in the title rows: the buckets, the same answers', async () => {
    for (const [kind, path, scope] of lists()) {
      const query = { labels: 'fix,other', updated_before: before, ...scope };
      const reads = await pagedReads(s, async () => void (await s.get(path, { query: { ...query, per_page: '20', page: '3' } })));
      expect(reads.map((r) => WALK.test(r.sql)), path).toEqual([false]);
      const ids = want(kind, before, 'desc');
      // The early record carries both titles and leads the list.
      expect(ids[0], path).toBe(seeds[kind][EARLY - 1].id);
      await expectEveryPage(s, path, query, ids, 20);
    }
  });
});

describe("a title's set the page walks the instance's order for, past LABEL_ROWS.walk", () => {
  beforeAll(() => start(false), 120_000);
  afterAll(stop);

  /** The records with `fix` and no milestone (all of them here), newest first. */
  const fixes = (kind: Kind): number[] =>
    seeds[kind].filter((r) => r.labels.includes('fix')).sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.id - a.id)).map((r) => r.id);
  /** The title's rows in creation order, the milestone asked of each. */
  const TITLE_WALK = /^SELECT il\.issuable_id AS id FROM issuable_labels il INDEXED BY issuable_labels_title_created .* AND il\.milestone IS NULL/;

  it("the instance's list (scope=all) is walked in the title's rows; a group's of few records (its projects' indexes) is not; the same answers", async () => {
    for (const kind of ['merge_requests', 'issues'] as const) {
      for (const [path, scope, walked] of [[`/${kind}`, { scope: 'all' }, true], [`/groups/${group}/${kind}`, {}, false]] as const) {
        const query = { labels: 'fix', milestone: 'None', ...scope };
        const reads = await pagedReads(s, async () => void (await s.get(path, { query: { ...query, per_page: '20', page: '2' } })));
        expect(reads.map((r) => TITLE_WALK.test(r.sql)), path).toEqual([walked]);
        if (walked) expect(queryPlan(s.service.context.db, reads[0].sql, ...reads[0].args), path).not.toContain('TEMP B-TREE');
        await expectEveryPage(s, path, query, fixes(kind), 50);
      }
    }
  });
});
