import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { expectCounted, expectUncounted, statementReads } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';
import { COUNT_LIMIT } from '../../src/main/service/http/pagination';

/**
 * One author's records by labels=None or not[labels] (a non-administrator's created_by_me over the
 * projects they see; an administrator's author_id&scope=all): "more than COUNT_LIMIT" from the
 * author's counters less the author's label rows (authorLabelBoundCount) when that bound clears it,
 * else counted. X-Total is exact at or under 10,000 and absent past it, and page 1 is the author's
 * newest matching records, before and after the author leaves and rejoins a private project holding
 * some of their records and labels are added to them.
 */
let s: TestService;
let pub: number;
let priv: number;
let author: { id: number; token: string };

const N = COUNT_LIMIT + 20;

beforeAll(async () => {
  s = await TestService.start();
  pub = (await s.createProject({ name: 'open', visibility: 'public' })).id as number;
  priv = (await s.createProject({ name: 'closed', visibility: 'private' })).id as number;
  const a = await s.createUser();
  author = { id: a.user.id as number, token: a.token };
  await s.addMember('projects', priv, author.id, 30);
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    const place = (project: number, n: number, at: number): void => {
      for (let k = 1; k <= n; k++) {
        const common = {
          iid: k,
          title: `Record ${k}`,
          description: null,
          authorId: author.id,
          // Three assigned to the administrator (root, user 1): their assigned_to_me by the author.
          assigneeIds: project === pub && k <= 3 ? [1] : [],
          labels: project === pub && k % 334 === 0 ? ['bug'] : [],
          createdAt: new Date(at + k * 1000).toISOString(),
          updatedAt: new Date(at + k * 1000).toISOString(),
          importedFrom: 'none',
        };
        insertImportedIssue(ctx, project, { ...common, state: k % 3 === 0 ? 'closed' : 'opened', confidential: k % 50 === 0 });
        insertImportedMergeRequest(ctx, project, { ...common, state: k % 3 === 0 ? 'closed' : 'opened', sourceBranch: `b${k}`, targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40) });
      }
    };
    place(pub, N, Date.UTC(2024, 0, 1));
    place(priv, 100, Date.UTC(2025, 0, 1));
  })();
}, 120_000);
afterAll(async () => s.stop());

interface Row { id: number; project_id: number; state: string; labels: string; created_at: string }

const LISTS: [Record<string, string>, (r: Row) => boolean][] = [
  [{ labels: 'None' }, (r) => r.labels === '[]'],
  [{ 'not[labels]': 'BUG' }, (r) => !(JSON.parse(r.labels) as string[]).some((l) => l.toLowerCase() === 'bug')],
  [{ labels: 'None', state: 'opened' }, (r) => r.labels === '[]' && r.state === 'opened'],
];

/** The author's records of `table` in the projects `member` leaves them (the private one only as a member), newest first. */
function reference(table: string, member: boolean, keep: (r: Row) => boolean): number[] {
  const rows = s.service.context.db.prepare(`SELECT id, project_id, state, labels, created_at FROM ${table} WHERE author_id = ?`).all(author.id) as Row[];
  return rows
    .filter((r) => (r.project_id === pub || member) && keep(r))
    .sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : b.id - a.id))
    .map((r) => r.id);
}

async function expectLists(member: boolean): Promise<void> {
  for (const [path, table] of [['/issues', 'issues'], ['/merge_requests', 'merge_requests']]) {
    for (const [query, keep] of LISTS) {
      // The author's own list (created_by_me), and an administrator's of the author (every project).
      for (const [token, extra, sees] of [[author.token, {}, member], [undefined, { scope: 'all', author_id: String(author.id) }, true]] as const) {
        const want = reference(table, sees, keep);
        const res = await s.get(path, { token, query: { ...query, ...extra, per_page: '20' } });
        const what = `${path} ${JSON.stringify({ ...query, ...extra })}`;
        if (want.length > COUNT_LIMIT) expectUncounted(res, '2');
        else expectCounted(res, want.length, 20);
        expect((res.body as { id: number }[]).map((r) => r.id), what).toEqual(want.slice(0, 20));
      }
    }
  }
}

describe("one author's records by labels=None or not[labels]", () => {
  it("bounds the count by the author's counters less their label rows", async () => {
    const reads = await statementReads(s, (sql) => sql.includes('INDEXED BY issuable_labels_author'), async () => {
      expect((await s.get('/issues', { token: author.token, query: { labels: 'None', per_page: '3' } })).status).toBe(200);
    }, ['all', 'get']);
    expect(reads.length).toBeGreaterThan(0);
  });

  it("counts only the author's records the scope keeps where it asks for the caller's too (an administrator's created_by_me, assigned_to_me)", async () => {
    for (const [path, table] of [['/issues', 'issues'], ['/merge_requests', 'merge_requests']]) {
      const assigned = (s.service.context.db.prepare(`SELECT id FROM ${table} WHERE project_id = ? AND iid <= 3 ORDER BY id DESC`).all(pub) as { id: number }[]).map((r) => r.id);
      for (const [scope, want] of [['created_by_me', []], ['assigned_to_me', assigned]] as const) {
        for (const filter of [{ labels: 'None' }, { 'not[labels]': 'bug' }] as Record<string, string>[]) {
          const res = await s.get(path, { query: { ...filter, scope, author_id: String(author.id), per_page: '20' } });
          expectCounted(res, want.length, 20);
          expect((res.body as { id: number }[]).map((r) => r.id), `${path} ${scope} ${JSON.stringify(filter)}`).toEqual(want);
        }
      }
    }
  });

  it('answers counts and page 1 as the records say, before and after membership and label writes', { timeout: 300_000 }, async () => {
    await expectLists(true);
    expect((await s.del(`/projects/${priv}/members/${author.id}`)).status).toBe(204);
    await expectLists(false);
    await s.addMember('projects', priv, author.id, 30);
    await expectLists(true);
    // Labels on 100 of the author's unlabelled public records: labels=None drops to 10,000 or fewer (feature), not[labels]=bug too (bug).
    const db = s.service.context.db;
    for (const [table, path] of [['issues', 'issues'], ['merge_requests', 'merge_requests']]) {
      const iids = (db.prepare(`SELECT iid FROM ${table} WHERE project_id = ? AND labels = '[]' ORDER BY id LIMIT 100`).all(pub) as { iid: number }[]).map((r) => r.iid);
      for (const [i, iid] of iids.entries()) expect((await s.put(`/projects/${pub}/${path}/${iid}`, { add_labels: i % 2 ? 'feature' : 'bug' })).status).toBe(200);
    }
    await expectLists(true);
    expect((await s.del(`/projects/${priv}/members/${author.id}`)).status).toBe(204);
    await expectLists(false);
  });
});
