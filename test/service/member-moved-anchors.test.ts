import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ApiResult, ok, TestService } from '../helpers/service';
import { pagedReads } from '../helpers/lists';
import { insertImportedIssue } from '../../src/main/service/areas/core/imported';

/**
 * A Guest's deep pages of a project's issues (newest first, all or opened) move their anchors
 * back by the issues that left them, as the administrator's do (core/295, workitems.ts
 * issuesMoved), though a Guest sees only the confidential issues they wrote or are assigned to:
 * those leave by a delete, a close, a confidential flip or an unassignment, each judged by the
 * issue as it was, its assignees too. Pinned: every page is the slice the records say for the
 * Guest (and a Reporter, who sees them all), and no read after a write walks from the list's start.
 */
let s: TestService;
let project: number;
let guest: { id: number; token: string };
let reporter: { id: number; token: string };

interface Seed {
  id: number;
  iid: number;
  state: string;
  createdAt: string;
  confidential: boolean;
  authorId: number;
  assignees: number[];
}
const issues: Seed[] = [];
const N = 1_800;
const createdAt = (i: number): string => new Date(Date.UTC(2024, 0, 1) + Math.floor(i / 3) * 60_000).toISOString();

beforeAll(async () => {
  s = await TestService.start();
  project = (await s.createProject({ name: 'guest-moves', visibility: 'public' })).id;
  const g = await s.createUser({ username: 'guest-moves' });
  guest = { id: g.user.id, token: g.token };
  const r = await s.createUser({ username: 'reporter-moves' });
  reporter = { id: r.user.id, token: r.token };
  await s.addMember('projects', project, guest.id, 10);
  await s.addMember('projects', project, reporter.id, 20);
  const ctx = s.service.context;
  ctx.db.transaction(() => {
    for (let i = 1; i <= N; i++) {
      // Every fifth confidential: of those, some the Guest's by authorship, some by assignment.
      const confidential = i % 5 === 0;
      const authorId = confidential && i % 15 === 0 ? guest.id : 1;
      const assignees = confidential && i % 10 === 0 ? [guest.id] : [];
      const state = i % 7 === 0 ? 'closed' : 'opened';
      const common = { iid: i, title: `Item ${i}`, description: null, authorId, createdAt: createdAt(i), updatedAt: createdAt(i), importedFrom: 'none' };
      const issue = insertImportedIssue(ctx, project, { ...common, state: state as 'opened', labels: [], confidential, assigneeIds: assignees });
      issues.push({ id: issue.id, iid: i, state, createdAt: createdAt(i), confidential, authorId, assignees });
    }
  })();
}, 120_000);
afterAll(async () => s.stop());

const newestFirst = (xs: Seed[]): Seed[] => [...xs].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : b.id - a.id));
const ids = (res: ApiResult): number[] => res.body.map((x: any) => x.id);
/** The Guest's level (a Planner sees every confidential issue: another key, as a Reporter's list). */
let guestLevel = 10;
const seenBy = (userId: number) => (x: Seed): boolean => userId === reporter.id || (userId === guest.id && guestLevel >= 15) || !x.confidential || x.authorId === userId || x.assignees.includes(userId);
const states = { all: (_: Seed) => true, opened: (x: Seed) => x.state === 'opened' };

async function pages(): Promise<void> {
  for (const caller of [guest, reporter])
    for (const n of [61, 60, 70])
      for (const state of ['all', 'opened'] as const) {
        const res = await s.get(`/projects/${project}/issues`, { token: caller.token, query: { per_page: '20', page: String(n), state } });
        const listed = newestFirst(issues.filter(seenBy(caller.id)).filter(states[state]));
        expect(ids(res), `${caller === guest ? 'guest' : 'reporter'} ${state} page ${n}`).toEqual(listed.slice((n - 1) * 20, n * 20).map((x) => x.id));
        expect(res.headers.get('x-total')).toBe(String(listed.length));
      }
}

/** Every page as the records say, each read from its own anchor, moved: no read skips more than a page (a walk from the start skips 1,180 and more). */
async function anchored(what: string): Promise<void> {
  const reads = await pagedReads(s, pages);
  expect(reads.length, what).toBeGreaterThan(0);
  expect(reads.map((r) => Number(r.args.at(-1))).filter((skip) => skip > 20), what).toEqual([]);
}

const visibleToGuest = (): Seed[] => newestFirst(issues.filter(seenBy(guest.id)));

it("moves a Guest's anchors back by the issues that left their list, each judged as it was", async () => {
  await pages();
  // The newest issue the Guest sees, deleted.
  const newest = visibleToGuest()[0];
  expect((await s.del(`/projects/${project}/issues/${newest.iid}`)).status).toBe(204);
  issues.splice(issues.indexOf(newest), 1);
  await anchored('a delete');
  // The newest open one closed: it leaves the open list.
  const open = visibleToGuest().filter(states.opened)[0];
  ok(await s.put(`/projects/${project}/issues/${open.iid}`, { state_event: 'close' }));
  open.state = 'closed';
  await anchored('a close');
  // A confidential issue the Guest sees by assignment, newest among them, unassigned: it leaves the Guest's lists alone.
  const assigned = visibleToGuest().find((x) => x.confidential && x.assignees.includes(guest.id) && x.authorId !== guest.id)!;
  ok(await s.put(`/projects/${project}/issues/${assigned.iid}`, { assignee_ids: [] }));
  assigned.assignees = [];
  await anchored('an unassignment');
  // A public issue made confidential (leaves the Guest's lists), a confidential one the Guest cannot see deleted (left none of them).
  const flipped = visibleToGuest().find((x) => !x.confidential)!;
  ok(await s.put(`/projects/${project}/issues/${flipped.iid}`, { confidential: true }));
  flipped.confidential = true;
  await anchored('a confidential flip');
  const unseen = newestFirst(issues).find((x) => !seenBy(guest.id)(x))!;
  expect((await s.del(`/projects/${project}/issues/${unseen.iid}`)).status).toBe(204);
  issues.splice(issues.indexOf(unseen), 1);
  await anchored('a delete the Guest cannot see');
});

it("moves a Guest's anchors along by the issues that entered their list, each judged as it is now", async () => {
  await pages();
  const other = (await s.createUser({ username: 'other-moves' })).user.id;
  // A confidential issue the Guest cannot see (newest among them), assigned to the Guest: it enters the Guest's lists alone.
  const hidden = newestFirst(issues).find((x) => !seenBy(guest.id)(x) && x.state === 'opened')!;
  ok(await s.put(`/projects/${project}/issues/${hidden.iid}`, { assignee_ids: [guest.id] }));
  hidden.assignees = [guest.id];
  await anchored('an assignment');
  // Reassigned away in one write: it leaves again (as it was: the Guest's; as it is: another's).
  ok(await s.put(`/projects/${project}/issues/${hidden.iid}`, { assignee_ids: [other] }));
  hidden.assignees = [other];
  await anchored('a reassignment');
  // A new confidential issue assigned to the Guest, and one for another: the first enters, the second not.
  for (const assignee of [guest.id, other]) {
    const made: any = ok(await s.post(`/projects/${project}/issues`, { title: `New for ${assignee}`, confidential: true, assignee_ids: [assignee] }));
    issues.push({ id: made.id, iid: made.iid, state: 'opened', createdAt: made.created_at, confidential: true, authorId: 1, assignees: [assignee] });
  }
  await anchored('new confidential issues');
  // The Guest made a Planner (every confidential issue shown, no issue written) and back: each list as the records say.
  ok(await s.put(`/projects/${project}/members/${guest.id}`, { access_level: 15 }));
  guestLevel = 15;
  await pages();
  ok(await s.put(`/projects/${project}/members/${guest.id}`, { access_level: 10 }));
  guestLevel = 10;
  await pages();
  // Then a write that reads as the Guest's again: the issue reassigned to the Guest, judged as it is.
  ok(await s.put(`/projects/${project}/issues/${hidden.iid}`, { assignee_ids: [guest.id] }));
  hidden.assignees = [guest.id];
  await anchored('an assignment after a role change');
});
