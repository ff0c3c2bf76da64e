import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService, ok } from '../helpers/service';
import { statementReads } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * A project's issue, merge request and label page kept whole by its request (core/kept-answers.ts
 * keptProjectPage, keptProjectLabelsPage): asked again after a write elsewhere, the list is not
 * planned again (no count, label row, label or record is read); after a write to one of the
 * project's records, a label's new name or priority, a label created or deleted, or the caller's
 * new access, the answer is the fresh one.
 */
let s: TestService;
let project: number;
let other: number;
let guest: { user: any; token: string };
const N = 30;
const at = (i: number): string => new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString();

beforeAll(async () => {
  s = await TestService.start();
  project = (await s.createProject({ name: 'kept-answers', visibility: 'public' })).id;
  other = (await s.createProject({ name: 'kept-answers-other', visibility: 'public' })).id;
  for (const [name, priority] of [['bug', 1], ['label-1', 2]] as const) ok(await s.post(`/projects/${project}/labels`, { name, color: '#ff0000', priority }));
  ok(await s.post(`/projects/${project}/milestones`, { title: 'v1' }));
  guest = await s.createUser();
  await s.addMember('projects', project, guest.user.id, 10);
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      const common = {
        iid: i,
        title: `Task ${i}`,
        description: null,
        state: i % 4 === 0 ? ('closed' as const) : ('opened' as const),
        authorId: 1,
        labels: i % 3 === 0 ? ['bug', 'label-1'] : i % 3 === 1 ? ['label-1'] : ['bug'],
        milestoneId: null,
        createdAt: at(i),
        updatedAt: at((i * 7) % N),
        importedFrom: 'none',
      };
      insertImportedIssue(ctx, project, { ...common, confidential: i % 5 === 0 });
      insertImportedMergeRequest(ctx, project, { ...common, sourceBranch: `b-${i}`, targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40) });
    }
  })();
}, 60_000);
afterAll(async () => s.stop());

const kinds = ['issues', 'merge_requests'] as const;
const SHAPES: Record<string, string>[] = [
  {},
  { labels: 'bug,label-1' },
  { state: 'opened', labels: 'bug' },
  { updated_after: at(5), page: '2', per_page: '5' },
  { order_by: 'label_priority', page: '2', per_page: '5' },
  { search: 'task', per_page: '5' },
  { labels: 'label-1', 'not[labels]': 'bug' },
];

/** The statements that plan or read a list (its counts, label rows, records) while `fn` ran: get, all and iterate alike. */
async function planReads(fn: () => Promise<unknown>): Promise<string[]> {
  const plans = /issuable_state_counts|label_counts|label_pair_counts|filter_counts|issuable_labels|label_priorities|FROM issues\b|FROM merge_requests\b/;
  return (await statementReads(s, (sql) => plans.test(sql), fn, ['get', 'all', 'iterate'])).map((r) => r.sql);
}

const answer = async (kind: string, shape: Record<string, string>, token?: string) => {
  const res = await s.get(`/projects/${project}/${kind}`, { query: shape, token });
  expect(res.status).toBe(200);
  return { ids: res.body.map((r: any) => [r.iid, r.title, [...r.labels].sort().join()]), total: res.headers.get('x-total'), link: res.headers.get('link'), next: res.headers.get('x-next-page') };
};

describe("a project's page kept whole by its request", () => {
  it('is not planned again after a write elsewhere', async () => {
    for (const kind of kinds) {
      for (const shape of SHAPES) {
        const first = await answer(kind, shape);
        ok(await s.put(`/projects/${other}`, { description: `elsewhere ${kind} ${JSON.stringify(shape)}` }));
        let second: Awaited<ReturnType<typeof answer>> | undefined;
        const reads = await planReads(async () => (second = await answer(kind, shape)));
        expect(second, `${kind} ${JSON.stringify(shape)}`).toEqual(first);
        expect(reads, `${kind} ${JSON.stringify(shape)}`).toEqual([]);
      }
    }
  });

  it("answers afresh after a write to the project's records", async () => {
    for (const kind of kinds) {
      const shape = { labels: 'bug', per_page: '5' };
      const before = await answer(kind, shape);
      const top = before.ids[0][0] as number;
      ok(await s.put(`/projects/${project}/${kind}/${top}`, { title: `Renamed ${kind}` }));
      const after = await answer(kind, shape);
      expect(after.ids[0][1]).toBe(`Renamed ${kind}`);
      ok(await s.put(`/projects/${project}/${kind}/${top}`, { remove_labels: 'bug' }));
      const without = await answer(kind, shape);
      expect(without.ids.map((r: unknown[]) => r[0])).not.toContain(top);
      expect(Number(without.total)).toBe(Number(before.total) - 1);
    }
  });

  it("answers afresh after a label's new priority and a label's new name", async () => {
    for (const kind of kinds) {
      const shape = { order_by: 'label_priority', per_page: '5' };
      const before = await answer(kind, shape);
      ok(await s.put(`/projects/${project}/labels`, { name: 'bug', priority: 3 }));
      const after = await answer(kind, shape);
      expect(after.ids).not.toEqual(before.ids);
      // The records that bear bug and not label-1 change places with those that bear label-1 and not bug.
      expect(after.ids.slice(0, 3).map((r: unknown[]) => r[2])).not.toEqual(before.ids.slice(0, 3).map((r: unknown[]) => r[2]));
      ok(await s.put(`/projects/${project}/labels`, { name: 'bug', priority: 1 }));
      expect(await answer(kind, shape)).toEqual(before);
    }
    for (const kind of kinds) {
      const shape = { labels: 'bug', per_page: '5' };
      const before = await answer(kind, shape);
      expect(before.ids.length).toBeGreaterThan(0);
      ok(await s.put(`/projects/${project}/labels`, { name: 'bug', new_name: 'defect' }));
      const after = await answer(kind, shape);
      expect(after.ids).toEqual([]);
      ok(await s.put(`/projects/${project}/labels`, { name: 'defect', new_name: 'bug' }));
      expect(await answer(kind, shape)).toEqual(before);
    }
  });

  it("answers afresh after the caller's access changes", async () => {
    const shape = { labels: 'bug', per_page: '100' };
    const rootSees = await answer('issues', shape);
    // An administrator's page is kept (it reads no membership); made a Guest, the confidential issues (every fifth) leave it.
    const admin = await s.createUser({ admin: true });
    await s.addMember('projects', project, admin.user.id, 10);
    expect(await answer('issues', shape, admin.token)).toEqual(rootSees);
    ok(await s.put(`/projects/${other}`, { description: 'elsewhere admin' }));
    expect(await planReads(async () => expect(await answer('issues', shape, admin.token)).toEqual(rootSees))).toEqual([]);
    ok(await s.put(`/users/${admin.user.id}`, { admin: false }));
    const asGuest = await answer('issues', shape, admin.token);
    expect(asGuest.ids.length).toBeLessThan(rootSees.ids.length);
    ok(await s.put(`/users/${admin.user.id}`, { admin: true }));
    expect(await answer('issues', shape, admin.token)).toEqual(rootSees);
    // A Guest's page (it reads memberships, kept too) made a Planner's.
    expect(await answer('issues', shape, guest.token)).toEqual(asGuest);
    ok(await s.put(`/projects/${other}`, { description: 'elsewhere guest' }));
    expect(await planReads(async () => expect(await answer('issues', shape, guest.token)).toEqual(asGuest))).toEqual([]);
    ok(await s.put(`/projects/${project}/members/${guest.user.id}`, { access_level: 15 }));
    expect(await answer('issues', shape, guest.token)).toEqual(rootSees);
    ok(await s.put(`/projects/${project}/members/${guest.user.id}`, { access_level: 10 }));
    expect(await answer('issues', shape, guest.token)).toEqual(asGuest);
  });

  it("keeps a project's labels page, and answers afresh after a label is created, renamed or deleted", async () => {
    for (let i = 0; i < 12; i++) ok(await s.post(`/projects/${project}/labels`, { name: `kept-${String(i).padStart(2, '0')}`, color: '#00ff00' }));
    const labelReads = /FROM labels\b|label_owner_counts|labels_search/;
    const page = async (query: Record<string, string>) => {
      const res = await s.get(`/projects/${project}/labels`, { query });
      expect(res.status).toBe(200);
      return { names: res.body.map((l: any) => l.name), total: res.headers.get('x-total'), link: res.headers.get('link') };
    };
    for (const query of [{ per_page: '5', page: '2' }, { search: 'kept', per_page: '3', page: '2' }] as Record<string, string>[]) {
      const first = await page(query);
      ok(await s.put(`/projects/${other}`, { description: `elsewhere labels ${JSON.stringify(query)}` }));
      const db = s.service.context.db;
      const prepare = db.prepare;
      const seen: string[] = [];
      db.prepare = ((sql: string) => (labelReads.test(sql) && seen.push(sql), prepare.call(db, sql))) as typeof db.prepare;
      try {
        expect(await page(query)).toEqual(first);
      } finally {
        db.prepare = prepare;
      }
      expect(seen, JSON.stringify(query)).toEqual([]);
      ok(await s.post(`/projects/${project}/labels`, { name: 'a-kept', color: '#00ff00' }));
      const created = await page(query);
      expect(created.total).toBe(String(Number(first.total) + 1));
      expect(created.names).not.toEqual(first.names);
      ok(await s.put(`/projects/${project}/labels`, { name: 'a-kept', new_name: 'zz-kept' }));
      expect(await page(query)).not.toEqual(created);
      ok(await s.del(`/projects/${project}/labels/zz-kept`));
      expect(await page(query)).toEqual(first);
    }
  });
});
