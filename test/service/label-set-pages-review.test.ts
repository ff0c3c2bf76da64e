import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAsReadAfresh } from '../helpers/lists';
import { ok, TestService } from '../helpers/service';

/**
 * Review of lists read through their label sets (9ffb43f: filteredWalk's page sorted at once) and of
 * the kept answers beside them: labels=bug,label-1 with not[labels]=label-3 and milestone=None by
 * popularity (and two other orders), after writes that move a record in or out of the list or along
 * its order with no other record written: a label added or removed, a milestone set and unset, an
 * award, a label renamed, a record made confidential, closed, deleted. Every page, for an
 * administrator, a Guest and an anonymous caller, issues and merge requests, is the text read with
 * nothing kept (inside a transaction).
 */
let s: TestService;
let project: any;
let guest: { user: any; token: string };
let voter: { user: any; token: string };
let milestone: any;
const made: Record<'issues' | 'merge_requests', any[]> = { issues: [], merge_requests: [] };

beforeAll(async () => {
  s = await TestService.start();
  project = await s.createProject({ name: 'label-set-review', visibility: 'public' });
  guest = await s.createUser({ username: 'label-set-guest' });
  voter = await s.createUser({ username: 'label-set-voter' });
  await s.addMember('projects', project.id, guest.user.id, 10);
  await s.addMember('projects', project.id, voter.user.id, 30);
  milestone = ok(await s.post(`/projects/${project.id}/milestones`, { title: 'm' }));
  for (let n = 0; n < 24; n++) {
    const labels = [['bug', 'label-1'], ['bug', 'label-1', 'label-3'], ['bug'], ['bug', 'label-1', 'other']][n % 4].join(',');
    for (const kind of ['issues', 'merge_requests'] as const) {
      const body = { title: `${kind} ${n}`, labels, source_branch: `b${n}`, target_branch: 'main', ...(n % 5 === 0 ? { milestone_id: milestone.id } : {}), ...(kind === 'issues' && n % 6 === 5 ? { confidential: true } : {}) };
      const record = ok(await s.post(`/projects/${project.id}/${kind}`, body));
      made[kind].push(record);
      if (n % 3 === 1) ok(await s.post(`/projects/${project.id}/${kind}/${record.iid}/award_emoji`, { name: 'thumbsup' }, { token: voter.token }));
    }
  }
}, 120_000);
afterAll(async () => s.stop());

const callers = (): (string | null | undefined)[] => [undefined, guest.token, null];
const paths = (): string[] =>
  (['issues', 'merge_requests'] as const).flatMap((kind) =>
    ['order_by=popularity', 'order_by=popularity&sort=asc', 'order_by=updated_at', 'order_by=title&sort=asc'].flatMap((order) =>
      [1, 2, 3].map((n) => `/projects/${project.id}/${kind}?labels=bug,label-1&not[labels]=label-3&milestone=None&${order}&per_page=2&page=${n}`),
    ),
  );

async function check(what: string): Promise<void> {
  await expectAsReadAfresh(s, what, callers(), paths());
}

describe('lists read through their label sets, after writes that move a record in, out or along', () => {
  it('answer as with nothing kept, for every caller', async () => {
    await check('start');
    for (const kind of ['issues', 'merge_requests'] as const) {
      const iid = (n: number): number => made[kind][n].iid;
      const base = (n: number): string => `/projects/${project.id}/${kind}/${iid(n)}`;
      const steps: [string, () => Promise<unknown>][] = [
        ['label-3 added', () => s.put(base(4), { add_labels: 'label-3' })],
        ['label-1 removed', () => s.put(base(8), { remove_labels: 'label-1' })],
        ['label-3 removed', () => s.put(base(9), { remove_labels: 'label-3' })],
        ['milestone set', () => s.put(base(12), { milestone_id: milestone.id })],
        ['milestone unset', () => s.put(base(10), { milestone_id: 0 })],
        ['an award', () => s.post(`${base(15)}/award_emoji`, { name: 'thumbsup' }, { token: voter.token })],
        ['an award taken back', async () => {
          const awards = ok(await s.get(`${base(13)}/award_emoji`));
          return s.del(`${base(13)}/award_emoji/${awards[0].id}`, { token: voter.token });
        }],
        // A label renamed (and named back) rewrites the records of both kinds that carry it.
        ...(kind === 'issues'
          ? ([
              ['label-1 renamed', () => s.put(`/projects/${project.id}/labels/label-1`, { new_name: 'label-1x' })],
              ['label-1x named back', () => s.put(`/projects/${project.id}/labels/label-1x`, { new_name: 'label-1' })],
            ] as [string, () => Promise<unknown>][])
          : []),
        ['closed', () => s.put(base(20), { state_event: 'close' })],
        ['deleted', () => s.del(base(0))],
        ...(kind === 'issues' ? ([['made confidential', () => s.put(base(17), { confidential: true })]] as [string, () => Promise<unknown>][]) : []),
      ];
      for (const [what, write] of steps) {
        const res: any = await write();
        expect(res.status, `${kind} ${what}`).toBeLessThan(300);
        await check(`${kind} ${what}`);
      }
    }
  }, 120_000);
});
