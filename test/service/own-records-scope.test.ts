import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ApiResult, ok, TestService } from '../helpers/service';
import { statementReads } from '../helpers/lists';
import { insertImportedIssue, insertImportedMergeRequest } from '../../src/main/service/areas/core/imported';

/**
 * A non-administrator's own records of the instance (/issues and /merge_requests, scope=created_by_me
 * or the default) are the projects they see, as scope=all's, with themselves as author_id
 * (workitems.ts globalScope's ownRecords): the same rows, order and headers as author_id=<theirs>&
 * scope=all, through writes that move them (a project made private, a confidential flip, a new
 * record of theirs), for a Guest and a Reporter; and a page kept across a write elsewhere, as
 * scope=all's is (its records and the tables it reads unwritten).
 */
let s: TestService;
const callers: Record<'guest' | 'reporter', { id: number; token: string }> = {} as never;
let open: number;
let member: number;

interface Seed {
  id: number;
  type: 'issues' | 'merge_requests';
  projectId: number;
  authorId: number;
  confidential: boolean;
  createdAt: string;
}
const records: Seed[] = [];

beforeAll(async () => {
  s = await TestService.start();
  for (const name of ['guest', 'reporter'] as const) {
    const u = await s.createUser({ username: `own-${name}` });
    callers[name] = { id: u.user.id, token: u.token };
  }
  open = (await s.createProject({ name: 'open', visibility: 'public' })).id;
  member = (await s.createProject({ name: 'member', visibility: 'private' })).id;
  for (const [name, access] of [['guest', 10], ['reporter', 20]] as const) await s.addMember('projects', member, callers[name].id, access);
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= 240; i++) {
      const projectId = i % 2 ? open : member;
      const authorId = [1, callers.guest.id, callers.reporter.id][i % 3];
      const confidential = i % 4 === 0;
      const createdAt = new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString();
      const common = { iid: i, title: `Item ${i}`, description: null, authorId, createdAt, updatedAt: createdAt, importedFrom: 'none' };
      const issue = insertImportedIssue(ctx, projectId, { ...common, state: 'opened', labels: [], confidential });
      records.push({ id: issue.id, type: 'issues', projectId, authorId, confidential, createdAt });
      const mr = insertImportedMergeRequest(ctx, projectId, { ...common, state: 'opened', sourceBranch: `f-${i}`, targetBranch: 'main', baseSha: '0'.repeat(40), headSha: '1'.repeat(40) });
      records.push({ id: mr.id, type: 'merge_requests', projectId, authorId, confidential: false, createdAt });
    }
  })();
}, 60_000);
afterAll(async () => s.stop());

const ids = (res: ApiResult): number[] => (ok(res) as { id: number }[]).map((x) => x.id);
let openPrivate = false;
/** Feature levels of `open` made private (its callers are no members there) and memberships of `member` removed. */
const privateFeatures = new Set<'issues' | 'merge_requests'>();
const removed = new Set<number>();
const hidden = (userId: number, x: Seed): boolean => (x.projectId === open && privateFeatures.has(x.type)) || (x.projectId === member && removed.has(userId));

/** Each caller's own records of both types, by every spelling of the scope, page by page, against the records and author_id=<theirs>&scope=all. */
async function expectOwn(what: string): Promise<void> {
  for (const caller of Object.values(callers))
    for (const type of ['issues', 'merge_requests'] as const) {
      const want = records
        .filter((x) => x.type === type && x.authorId === caller.id && !(openPrivate && x.projectId === open) && !hidden(caller.id, x))
        .sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1))
        .map((x) => x.id);
      for (const page of ['1', '2', '3', '5']) {
        const query = { per_page: '20', page };
        const byAuthor = await s.get(`/${type}`, { token: caller.token, query: { ...query, scope: 'all', author_id: String(caller.id) } });
        for (const scope of [undefined, 'created_by_me', 'created-by-me']) {
          const res = await s.get(`/${type}`, { token: caller.token, query: scope ? { ...query, scope } : query });
          const at = `${what}: ${caller === callers.guest ? 'guest' : 'reporter'} ${type} ${scope} page ${page}`;
          expect(ids(res), at).toEqual(want.slice((Number(page) - 1) * 20, Number(page) * 20));
          expect(res.headers.get('x-total'), at).toBe(String(want.length));
          for (const h of ['x-total-pages', 'x-next-page', 'x-prev-page']) expect(res.headers.get(h), `${at} ${h}`).toBe(byAuthor.headers.get(h));
          expect(ids(byAuthor), at).toEqual(ids(res));
        }
      }
    }
}

it("answers a Guest's and a Reporter's own records as author_id=<theirs>&scope=all, through writes", async () => {
  await expectOwn('first');
  // A confidential issue of theirs stays theirs to see; another's made confidential was never in their list.
  const theirs = records.find((x) => x.type === 'issues' && x.authorId === callers.guest.id && !x.confidential)!;
  ok(await s.put(`/projects/${theirs.projectId}/issues/${records.filter((x) => x.type === 'issues').indexOf(theirs) + 1}`, { confidential: true }));
  theirs.confidential = true;
  await expectOwn('a confidential flip');
  const created = ok(await s.post(`/projects/${open}/issues`, { title: 'new of theirs' }, { token: callers.reporter.token }));
  records.push({ id: created.id, type: 'issues', projectId: open, authorId: callers.reporter.id, confidential: false, createdAt: created.created_at });
  await expectOwn('a new issue');
  ok(await s.put(`/projects/${open}`, { visibility: 'private' }));
  openPrivate = true;
  await expectOwn('a project made private');
});

it('keeps a page of their own records across a write elsewhere', async () => {
  const listReads = (fn: () => Promise<unknown>) => statementReads(s, (sql) => /FROM (issues|merge_requests) x/.test(sql), fn);
  for (const type of ['issues', 'merge_requests']) {
    const read = () => s.get(`/${type}`, { token: callers.reporter.token, query: { scope: 'created_by_me', page: '2' } });
    const first = ids(await read());
    ok(await s.put(`/projects/${member}`, { description: `elsewhere ${type}` }));
    let again: number[] = [];
    expect(await listReads(async () => void (again = ids(await read()))), type).toEqual([]);
    expect(again).toEqual(first);
  }
});

it('drops their records of a project whose feature they lose, or whose membership goes, as scope=all does; another author filter leaves none', async () => {
  ok(await s.put(`/projects/${open}`, { visibility: 'public' }));
  openPrivate = false;
  await expectOwn('the project public again');
  // Merge requests, then issues, of the public project for its members only (the callers are none).
  ok(await s.put(`/projects/${open}`, { merge_requests_access_level: 'private' }));
  privateFeatures.add('merge_requests');
  await expectOwn('merge requests made private');
  ok(await s.put(`/projects/${open}`, { issues_access_level: 'private' }));
  privateFeatures.add('issues');
  await expectOwn('issues made private');
  ok(await s.put(`/projects/${open}`, { issues_access_level: 'enabled', merge_requests_access_level: 'enabled' }));
  privateFeatures.clear();
  await expectOwn('features enabled again');
  // With an author filter too: another's (none, as GitLab's authored_by and by_author both apply) or their own (the same list).
  for (const type of ['issues', 'merge_requests'] as const) {
    const { guest, reporter } = callers;
    for (const query of [{ author_id: String(reporter.id) }, { author_username: 'own-reporter' }, { 'not[author_id]': String(guest.id) }] as Record<string, string>[]) {
      const res = await s.get(`/${type}`, { token: guest.token, query: { scope: 'created_by_me', ...query } });
      expect(ids(res), `${type} ${JSON.stringify(query)}`).toEqual([]);
      expect(res.headers.get('x-total')).toBe('0');
    }
    const mine = await s.get(`/${type}`, { token: guest.token, query: { scope: 'created_by_me', author_id: String(guest.id), per_page: '100' } });
    expect(ids(mine), type).toEqual(ids(await s.get(`/${type}`, { token: guest.token, query: { per_page: '100' } })));
  }
  // The Guest's membership of the private project removed, then given back.
  expect((await s.del(`/projects/${member}/members/${callers.guest.id}`)).status).toBe(204);
  removed.add(callers.guest.id);
  await expectOwn('a membership removed');
  await s.addMember('projects', member, callers.guest.id, 10);
  removed.clear();
  await expectOwn('a membership given back');
});
