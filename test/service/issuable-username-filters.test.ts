import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, TestService } from '../helpers/service';

/**
 * assignee_username (issues, merge requests; not[assignee_username] too) and reviewer_username
 * (merge requests) filter as the same user's id does: the same rows, order and headers, in project,
 * group and instance lists; a name no user has matches nothing; with the id too, 400.
 */
let s: TestService;
let group: number;
let project: number;
let ann: any;
let bob: any;

beforeAll(async () => {
  s = await TestService.start();
  ann = (await s.createUser({ username: 'Ann.Lee' })).user;
  bob = (await s.createUser({ username: 'bob' })).user;
  group = ok(await s.post('/groups', { name: 'people', path: 'people' })).id;
  project = ok(await s.post('/projects', { name: 'work', namespace_id: group })).id;
  for (const u of [ann, bob]) await s.addMember('groups', group, u.id, 30);
  const sets = [[ann.id], [bob.id], [ann.id, bob.id], [], [ann.id], [bob.id, ann.id], []];
  for (const [i, assignees] of sets.entries()) {
    ok(await s.post(`/projects/${project}/issues`, { title: `issue ${i}`, assignee_ids: assignees }));
    ok(await s.post(`/projects/${project}/merge_requests`, { title: `mr ${i}`, source_branch: `b${i}`, target_branch: 'main', assignee_ids: assignees, reviewer_ids: [...assignees].reverse() }));
  }
});
afterAll(async () => s.stop());

const ids = (body: any[]): number[] => body.map((x) => x.id);
const heads = (res: { headers: Headers }) => ['x-total', 'x-total-pages', 'x-next-page', 'link'].map((h) => res.headers.get(h));

describe('filters by username', () => {
  for (const kind of ['issues', 'merge_requests']) {
    for (const [where, base] of [
      ['a project', () => `/projects/${project}`],
      ['a group', () => `/groups/${group}`],
      ['the instance', () => ''],
    ] as const) {
      it(`${kind} of ${where}: assignee_username as assignee_id, not[] too`, async () => {
        const path = `${base()}/${kind}`;
        const scope: Record<string, string> = base() ? {} : { scope: 'all' };
        for (const [user, name] of [
          [ann, 'Ann.Lee'],
          [ann, 'ann.lee'],
          [bob, 'bob'],
        ]) {
          const byId = await s.get(path, { query: { ...scope, assignee_id: String(user.id), per_page: '2' } });
          const byName = await s.get(path, { query: { ...scope, assignee_username: name, per_page: '2' } });
          expect(byName.status).toBe(200);
          expect(ids(byName.body)).toEqual(ids(byId.body));
          expect(heads(byName).slice(0, 3)).toEqual(heads(byId).slice(0, 3));
          expect(byId.body.length).toBe(2);
          const notId = await s.get(path, { query: { ...scope, 'not[assignee_id]': String(user.id) } });
          const notName = await s.get(path, { query: { ...scope, 'not[assignee_username]': name } });
          expect(ids(notName.body)).toEqual(ids(notId.body));
        }
        // Every name given: assigned to both.
        const both = await s.get(path, { query: { ...scope, 'assignee_username[]': ['Ann.Lee', 'bob'] } });
        expect(both.body.map((x: any) => x.assignees.map((a: any) => a.id).sort())).toEqual([
          [ann.id, bob.id].sort(),
          [ann.id, bob.id].sort(),
        ]);
        expect((await s.get(path, { query: { ...scope, assignee_username: 'nobody-at-all' } })).body).toEqual([]);
        const clash = await s.get(path, { query: { ...scope, assignee_username: 'bob', assignee_id: String(bob.id) } });
        expect(clash.status).toBe(400);
        expect(clash.body.error).toBe('assignee_id, assignee_username are mutually exclusive');
      });
    }
  }

  it('merge requests: reviewer_username as reviewer_id; an unknown name matches none; both -> 400', async () => {
    for (const path of [`/projects/${project}/merge_requests`, `/groups/${group}/merge_requests`]) {
      const byId = await s.get(path, { query: { reviewer_id: String(bob.id) } });
      const byName = await s.get(path, { query: { reviewer_username: 'BOB' } });
      expect(byId.body.length).toBe(3);
      expect(ids(byName.body)).toEqual(ids(byId.body));
      expect(heads(byName).slice(0, 3)).toEqual(heads(byId).slice(0, 3));
      expect((await s.get(path, { query: { reviewer_username: 'ghost' } })).body).toEqual([]);
      const clash = await s.get(path, { query: { reviewer_username: 'bob', reviewer_id: String(bob.id) } });
      expect(clash.status).toBe(400);
      expect(clash.body.error).toBe('reviewer_id, reviewer_username are mutually exclusive');
    }
  });
});
