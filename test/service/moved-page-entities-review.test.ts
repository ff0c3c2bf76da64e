import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectAsReadAfresh } from '../helpers/lists';
import { ok, TestService } from '../helpers/service';

/**
 * Review of pages moved along or back by one row (unchangedPage's movedAlong, bc0caf3) and of a fresh
 * page's entities kept in the page alone (559d2be, d315e37): a record before the page deleted, closed
 * or created, in the same step as a write that changes what the page's other rows show with none of
 * their rows written (their author's name, their milestone's title, their label's colour, their
 * project's path, a note or an award on one of them, a confidential flip). Every page, for an
 * administrator, a Guest and an anonymous caller, with and without label details, is the text read
 * with nothing kept (inside a transaction).
 */
let s: TestService;
let project: any;
let author: { user: any; token: string };
let guest: { user: any; token: string };
let milestone: any;
let label: any;
const sql = (text: string, ...args: unknown[]): void => void s.service.context.db.prepare(text).run(...args);

beforeAll(async () => {
  s = await TestService.start();
  const group = await s.createGroup({ path: 'moved-ent-group', visibility: 'public' });
  project = await s.createProject({ name: 'moved-ent', namespace_id: group.id, visibility: 'public' });
  author = await s.createUser({ username: 'moved-ent-author', name: 'Author One' });
  guest = await s.createUser({ username: 'moved-ent-guest', name: 'Guest One' });
  await s.addMember('projects', project.id, author.user.id, 30);
  await s.addMember('projects', project.id, guest.user.id, 10);
  milestone = ok(await s.post(`/projects/${project.id}/milestones`, { title: 'Kept milestone' }));
  label = ok(await s.post(`/projects/${project.id}/labels`, { name: 'kept-label', color: '#112233' }));
  for (let i = 0; i < 40; i++)
    ok(await s.post(`/projects/${project.id}/issues`, { title: `Moved ${i}`, milestone_id: milestone.id, labels: 'kept-label', assignee_ids: [author.user.id] }, { token: author.token }));
}, 60_000);
afterAll(async () => s.stop());

const callers = (): (string | null | undefined)[] => [undefined, guest.token, null];
const paths = (): string[] =>
  [2, 3, 4].flatMap((n) => [
    `/projects/${project.id}/issues?state=opened&per_page=3&page=${n}`,
    `/projects/${project.id}/issues?per_page=3&page=${n}&with_labels_details=true`,
    `/projects/${project.id}/issues?state=opened&per_page=3&page=${n}&sort=asc`,
  ]);

/** Every page for every caller, twice over (kept, then handed out again), each against the text read with nothing kept. */
async function check(what: string): Promise<void> {
  await expectAsReadAfresh(s, what, callers(), paths());
}

const newestOpen = (k = 0): number =>
  (s.service.context.db.prepare("SELECT iid FROM issues WHERE project_id = ? AND state = 'opened' ORDER BY created_at DESC, id DESC LIMIT 1 OFFSET ?").get(project.id, k) as { iid: number }).iid;
const gone = async (step: number): Promise<void> => {
  // In turn: the newest open issue deleted, closed, or a new one made (pages move back, back, along).
  if (step % 3 === 0) expect((await s.del(`/projects/${project.id}/issues/${newestOpen()}`)).status).toBe(204);
  else if (step % 3 === 1) ok(await s.put(`/projects/${project.id}/issues/${newestOpen()}`, { state_event: 'close' }));
  else ok(await s.post(`/projects/${project.id}/issues`, { title: `Made ${step}`, milestone_id: milestone.id }, { token: author.token }));
};

describe('pages moved by one row in the same step as a write to what their other rows show', () => {
  it('show every change, for every caller', async () => {
    const writes: [string, () => Promise<void>][] = [
      ['author renamed', async () => void ok(await s.put(`/users/${author.user.id}`, { name: 'Author Renamed' }))],
      ['author renamed in SQL', async () => sql('UPDATE users SET name = ? WHERE id = ?', 'Author Sql', author.user.id)],
      ['milestone retitled', async () => void ok(await s.put(`/projects/${project.id}/milestones/${milestone.id}`, { title: 'Retitled milestone' }))],
      ['label recoloured', async () => void ok(await s.put(`/projects/${project.id}/labels/${label.id}`, { color: '#445566' }))],
      ['label renamed', async () => void ok(await s.put(`/projects/${project.id}/labels/${label.id}`, { new_name: 'renamed-label' }))],
      ['project renamed', async () => void ok(await s.put(`/projects/${project.id}`, { path: 'moved-ent-renamed', name: 'moved-ent-renamed' }))],
      ['a note on a kept row', async () => void ok(await s.post(`/projects/${project.id}/issues/${newestOpen(7)}/notes`, { body: 'Noted' }))],
      ['an award on a kept row', async () => void ok(await s.post(`/projects/${project.id}/issues/${newestOpen(7)}/award_emoji`, { name: 'thumbsup' }))],
      ['a kept row made confidential', async () => void ok(await s.put(`/projects/${project.id}/issues/${newestOpen(8)}`, { confidential: true }))],
      ['the project archived', async () => void ok(await s.post(`/projects/${project.id}/archive`))],
      ['the project unarchived', async () => void ok(await s.post(`/projects/${project.id}/unarchive`))],
      ['the author blocked', async () => void ok(await s.post(`/users/${author.user.id}/block`))],
    ];
    await check('start');
    let step = 0;
    for (const [what, write] of writes) {
      // An archived project's issues take no write (GitLab's 403): that step's row moves just after unarchive.
      if (what === 'the project unarchived') {
        await write();
        await gone(step++);
      } else {
        await gone(step++);
        await write();
      }
      await check(what);
    }
  });
});
