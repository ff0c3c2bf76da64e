import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAsReadAfresh } from '../helpers/lists';
import { ok, TestService } from '../helpers/service';

/**
 * Review of the kept answers of many projects' lists (a group's issues and merge requests, the
 * instance's): writes to a project, not to its records, move its records in or out of them: a project
 * transferred out of the group and back, archived, made private, its issues and merge requests
 * features turned off and on, deleted, a member removed. Every page, for an administrator, a
 * group Guest, a group Reporter and an anonymous caller, is the text read with nothing kept
 * (inside a transaction).
 */
let s: TestService;
let group: any;
let other: any;
const projects: any[] = [];
let guest: { user: any; token: string };
let reporter: { user: any; token: string };

beforeAll(async () => {
  s = await TestService.start();
  group = await s.createGroup({ path: 'review-group-pages', visibility: 'public' });
  other = await s.createGroup({ path: 'review-group-other', visibility: 'public' });
  guest = await s.createUser({ username: 'review-gp-guest' });
  reporter = await s.createUser({ username: 'review-gp-reporter' });
  await s.addMember('groups', group.id, guest.user.id, 10);
  await s.addMember('groups', group.id, reporter.user.id, 20);
  for (let p = 0; p < 3; p++) {
    const project = await s.createProject({ name: `gp-${p}`, namespace_id: group.id, visibility: 'public' });
    projects.push(project);
    for (let i = 0; i < 8; i++) {
      ok(await s.post(`/projects/${project.id}/issues`, { title: `gp ${p} issue ${i}`, labels: i % 2 ? 'bug' : '', confidential: i % 4 === 3 }));
      ok(await s.post(`/projects/${project.id}/merge_requests`, { title: `gp ${p} mr ${i}`, labels: i % 2 ? 'bug' : '', source_branch: `b${i}`, target_branch: 'main' }));
    }
  }
}, 120_000);
afterAll(async () => s.stop());

const callers = (): (string | null | undefined)[] => [undefined, guest.token, reporter.token, null];
const paths = (): string[] =>
  ['issues', 'merge_requests'].flatMap((kind) =>
    ['', '&labels=bug', '&state=opened&order_by=title&sort=asc'].flatMap((q) =>
      [1, 2, 3].flatMap((n) => [`/groups/${group.id}/${kind}?per_page=4&page=${n}${q}`, `/${kind}?scope=all&per_page=4&page=${n}${q}`]),
    ),
  );

async function check(what: string): Promise<void> {
  await expectAsReadAfresh(s, what, callers(), paths(), false);
}

describe("many projects' lists after writes to a project, not its records", () => {
  it('answer as with nothing kept, for every caller', async () => {
    const [first, second, third] = projects;
    const steps: [string, () => Promise<unknown>][] = [
      ['transferred out', () => s.put(`/projects/${first.id}/transfer`, { namespace: other.id })],
      ['transferred back', () => s.put(`/projects/${first.id}/transfer`, { namespace: group.id })],
      ['archived', () => s.post(`/projects/${second.id}/archive`)],
      ['unarchived', () => s.post(`/projects/${second.id}/unarchive`)],
      ['made private', () => s.put(`/projects/${second.id}`, { visibility: 'private' })],
      ['made public', () => s.put(`/projects/${second.id}`, { visibility: 'public' })],
      ['issues and merge requests turned off', () => s.put(`/projects/${third.id}`, { issues_access_level: 'disabled', merge_requests_access_level: 'disabled' })],
      ['issues and merge requests for members only', () => s.put(`/projects/${third.id}`, { issues_access_level: 'private', merge_requests_access_level: 'private' })],
      ['issues and merge requests turned on', () => s.put(`/projects/${third.id}`, { issues_access_level: 'enabled', merge_requests_access_level: 'enabled' })],
      ['the Reporter removed from the group', () => s.del(`/groups/${group.id}/members/${reporter.user.id}`)],
      ['the Reporter added back', () => s.post(`/groups/${group.id}/members`, { user_id: reporter.user.id, access_level: 20 })],
      ['the group made private', () => s.put(`/groups/${group.id}`, { visibility: 'private' })],
      ['deleted', () => s.del(`/projects/${first.id}`)],
    ];
    await check('start');
    for (const [what, write] of steps) {
      const res: any = await write();
      expect(res.status, what).toBeLessThan(300);
      await check(what);
    }
  }, 120_000);
});
