import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { preparedBy } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * A group's or the instance's list by labels=None or one not[labels] title (perhaps in a state) is
 * "more than 10,000" when its projects' counters show it (the records the caller sees less every
 * label row, of that title), not counted by walking the records. Near the bound the list is
 * counted as before: every header and page against the records, for an administrator and a Guest
 * (who sees fewer: the confidential issues left out), before and after writes move it across.
 */
let s: TestService;
let group: number;
let inside: number;
let guest: string;
const BIG = 10_030;
const at = (i: number): string => new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString();

beforeAll(async () => {
  s = await TestService.start();
  group = (await s.createGroup({ visibility: 'private' })).id;
  inside = (await s.createProject({ name: 'inside', namespace_id: group, visibility: 'private' })).id;
  // Outside the group, every record with bug: the instance's lists hold them, the group's not.
  const outside = (await s.createProject({ name: 'outside', visibility: 'private' })).id;
  const g = await s.createUser();
  guest = g.token;
  await s.addMember('groups', group, g.user.id, 10);
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (const [project, n] of [[inside, BIG], [outside, 30]] as const)
      for (let i = 1; i <= n; i++) {
        // 40 with bug, 100 with doc alone; 21 issues confidential (none labelled).
        const labels = project === outside || i % 250 === 0 ? ['bug'] : i % 100 === 50 ? ['doc'] : [];
        const common = { iid: i, title: `Change ${i}`, description: null, authorId: 1, labels, milestoneId: null, createdAt: at(i), updatedAt: at(i), importedFrom: 'none' };
        const state = i % 7 === 0 ? 'closed' : 'opened';
        insertImportedMergeRequest(ctx, project, { ...common, state, sourceBranch: `f-${i}`, targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40), mergedAt: null });
        insertImportedIssue(ctx, project, { ...common, state, confidential: project === inside && i % 500 === 1 });
      }
  })();
}, 120_000);
afterAll(async () => s.stop());

interface Rec {
  id: number;
  project_id: number;
  state: string;
  labels: string;
  confidential?: number;
  created_at: string;
}

/** The records of `projects` (all: every project) meeting `q`, newest first, as `asGuest` sees them. */
function want(table: 'merge_requests' | 'issues', projects: number[] | 'all', q: Record<string, string>, asGuest: boolean): number[] {
  const rows = s.service.context.db.prepare(`SELECT * FROM ${table}`).all() as Rec[];
  return rows
    .filter((r) => projects === 'all' || projects.includes(r.project_id))
    .filter((r) => !asGuest || !r.confidential)
    .filter((r) => !q.state || r.state === q.state)
    .filter((r) => q.labels !== 'None' || r.labels === '[]')
    .filter((r) => !q['not[labels]'] || !(JSON.parse(r.labels) as string[]).includes(q['not[labels]']))
    .sort((a, b) => (a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : b.id - a.id))
    .map((r) => r.id);
}

/** Pages 1, 2, 50, the last and the one past it of 100: ids and every pagination header, counted up to 10,000, uncounted past it. */
async function expectPages(path: string, q: Record<string, string>, ids: number[], token?: string): Promise<void> {
  const last = Math.max(1, Math.ceil(ids.length / 100));
  const counted = ids.length <= 10_000;
  for (const page of [1, 2, 50, last, last + 1]) {
    const res = await s.get(path, { token, query: { ...q, per_page: '100', page: String(page) } });
    const what = `${path} ${JSON.stringify(q)} ${token ? 'guest' : 'admin'} page ${page}`;
    expect(res.status, what).toBe(200);
    expect((res.body as { id: number }[]).map((e) => e.id), what).toEqual(ids.slice((page - 1) * 100, page * 100));
    expect(res.headers.get('x-total'), what).toBe(counted ? String(ids.length) : null);
    expect(res.headers.get('x-total-pages'), what).toBe(counted ? String(last) : null);
    expect(res.headers.get('x-page'), what).toBe(String(page));
    expect(res.headers.get('x-next-page'), what).toBe(page < last ? String(page + 1) : '');
    // A page past the last is out of range (Kaminari): no previous page.
    expect(res.headers.get('x-prev-page'), what).toBe(page > 1 && page <= last ? String(page - 1) : '');
    if (counted) expect(res.headers.get('link'), what).toContain(`page=${last}&per_page=100`);
    else expect(res.headers.get('link') ?? '', what).not.toContain('rel="last"');
  }
}

const lists = (): { path: string; table: 'merge_requests' | 'issues'; projects: number[] | 'all'; q: Record<string, string>; guest: boolean }[] => [
  { path: `/groups/${group}/issues`, table: 'issues', projects: [inside], q: { 'not[labels]': 'bug' }, guest: true },
  { path: `/groups/${group}/issues`, table: 'issues', projects: [inside], q: { labels: 'None' }, guest: true },
  { path: `/groups/${group}/issues`, table: 'issues', projects: [inside], q: { 'not[labels]': 'bug', state: 'opened' }, guest: true },
  { path: `/groups/${group}/merge_requests`, table: 'merge_requests', projects: [inside], q: { 'not[labels]': 'bug' }, guest: true },
  { path: `/groups/${group}/merge_requests`, table: 'merge_requests', projects: [inside], q: { labels: 'None' }, guest: false },
  { path: '/issues', table: 'issues', projects: 'all', q: { 'not[labels]': 'bug', scope: 'all' }, guest: true },
  { path: '/merge_requests', table: 'merge_requests', projects: 'all', q: { labels: 'None', scope: 'all' }, guest: false },
];

async function expectLists(): Promise<void> {
  for (const l of lists()) {
    await expectPages(l.path, l.q, want(l.table, l.projects, l.q, false));
    if (l.guest) await expectPages(l.path, l.q, want(l.table, l.projects, l.q, true), guest);
  }
}

/** The statements that count a list by walking its records for the label condition. */
const countsByWalk = (sql: string[]): string[] => sql.filter((q) => /^SELECT count\(\*\)/.test(q) && /NOT EXISTS \(SELECT 1 FROM issuable_labels/.test(q));

describe("a group's or the instance's labels=None and not[labels] past 10,000", () => {
  it('every page and header as the records say, near the bound and across it after writes, administrator and Guest', async () => {
    // 9,990 without bug (9,969 for the Guest), 9,890 without a label: counted.
    await expectLists();
    // 31 issues and merge requests lose bug: 10,021 without it (10,000 for the Guest, still counted).
    for (let i = 250; i <= 31 * 250; i += 250) {
      expect((await s.put(`/projects/${inside}/issues/${i}`, { labels: '' })).status).toBe(200);
      expect((await s.put(`/projects/${inside}/merge_requests/${i}`, { labels: '' })).status).toBe(200);
    }
    await expectLists();
    // One more: 10,001 for the Guest too; then a new issue with bug, and one without a label.
    expect((await s.put(`/projects/${inside}/issues/${32 * 250}`, { labels: '' })).status).toBe(200);
    expect((await s.post(`/projects/${inside}/issues`, { title: 'a bug', labels: 'bug' })).status).toBe(201);
    expect((await s.post(`/projects/${inside}/issues`, { title: 'plain' })).status).toBe(201);
    await expectLists();
  }, 240_000);

  it('says "more than 10,000" from the counters, no record walked to count', async () => {
    const sql = await preparedBy(s, async () => {
      for (const token of [undefined, guest]) {
        expect((await s.get(`/groups/${group}/issues`, { token, query: { 'not[labels]': 'bug' } })).headers.has('x-total')).toBe(false);
        expect((await s.get(`/groups/${group}/merge_requests`, { token, query: { 'not[labels]': 'bug' } })).headers.has('x-total')).toBe(false);
      }
    });
    expect(countsByWalk(sql)).toEqual([]);
  });
});
