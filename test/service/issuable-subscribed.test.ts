import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, TestService } from '../helpers/service';
import { preparedBy, queryPlan } from '../helpers/lists';
import { participantIds } from '../../src/main/service/areas/core/participants';

/**
 * `subscribed` on an issue's and a merge request's GET: a participant (author, assignee, reviewer,
 * commenter, mentioned in the title (GitLab's attr_mentionable :title), the description, a comment or a system note) is subscribed unless they
 * unsubscribed; as participantIds has them, found without reading every note of the record (its
 * notes by author, mentions through the notes' full-text index and the system notes' index).
 */
let s: TestService;
let project: number;
const users: Record<string, { id: number; token: string }> = {};
const names = ['author', 'assignee', 'reviewer', 'commenter', 'intitle', 'indesc', 'incomment', 'insystem', 'q', 'user1x', 'hhh', 'outsider'];

beforeAll(async () => {
  s = await TestService.start();
  for (const name of names) {
    const u = await s.createUser({ username: name });
    users[name] = { id: u.user.id, token: u.token };
  }
  project = (await s.createProject({ name: 'subs', visibility: 'public' })).id;
  for (const name of names) await s.addMember('projects', project, users[name].id, 30);
}, 60_000);
afterAll(async () => s.stop());

/** Notes on a record: filler, a commenter's internal note, mentions (real ones and look-alikes), a system note. */
async function discuss(path: string): Promise<void> {
  const db = s.service.context.db;
  for (let i = 0; i < 30; i++) ok(await s.post(`${path}/notes`, { body: `note ${i} about @user1xy and mail to foo@hhh.com` }));
  ok(await s.post(`${path}/notes`, { body: 'internal thoughts', internal: true }, { token: users.commenter.token }));
  ok(await s.post(`${path}/notes`, { body: 'cc @InComment and @q.' }));
  const note = ok(await s.post(`${path}/notes`, { body: 'to become a system note' }));
  db.prepare('UPDATE notes SET system = 1, body = ? WHERE id = ?').run('assigned to @insystem', note.id);
}

describe('subscribed', () => {
  for (const kind of ['issues', 'merge_requests'] as const) {
    it(`${kind}: each user as participantIds has them, and an unsubscription wins`, async () => {
      const body: Record<string, unknown> = { title: 'subs for @intitle', description: 'see @indesc', assignee_ids: [users.assignee.id] };
      if (kind === 'merge_requests') Object.assign(body, { source_branch: 'subs', target_branch: 'main', reviewer_ids: [users.reviewer.id] });
      const created = ok(await s.post(`/projects/${project}/${kind}`, body, { token: users.author.token }));
      const path = `/projects/${project}/${kind}/${created.iid}`;
      await discuss(path);
      const table = kind === 'issues' ? 'issues' : 'merge_requests';
      const row = s.service.context.db.prepare(`SELECT * FROM ${table} WHERE id = ?`).get(created.id) as any;
      const participants = participantIds(s.service.context, { type: kind === 'issues' ? 'Issue' : 'MergeRequest', ...row }, true);
      const expected = ['author', 'assignee', 'commenter', 'intitle', 'indesc', 'incomment', 'insystem', 'q', ...(kind === 'merge_requests' ? ['reviewer'] : [])];
      for (const name of names) {
        const res = ok(await s.get(path, { token: users[name].token }));
        expect(res.subscribed, name).toBe(expected.includes(name));
        expect(res.subscribed, name).toBe(participants.includes(users[name].id));
      }
      const listed = (ok(await s.get(`${path}/participants`)) as { username: string }[]).map((u) => u.username);
      expect(listed.sort()).toEqual([...expected, 'root'].sort()); // root wrote the filler notes
      ok(await s.post(`${path}/unsubscribe`, {}, { token: users.incomment.token }));
      expect(ok(await s.get(path, { token: users.incomment.token })).subscribed).toBe(false);
      ok(await s.post(`${path}/subscribe`, {}, { token: users.outsider.token }));
      expect(ok(await s.get(path, { token: users.outsider.token })).subscribed).toBe(true);
    });
  }

  it("reads a non-participant's notes and mentions through indexes, not every note", async () => {
    const created = ok(await s.post(`/projects/${project}/issues`, { title: 'plans' }));
    const path = `/projects/${project}/issues/${created.iid}`;
    await discuss(path);
    const sql = await preparedBy(s, () => s.get(path, { token: users.hhh.token }));
    const db = s.service.context.db;
    const plan = (find: RegExp): string => {
      const q = sql.find((x) => find.test(x));
      expect(q, String(find)).toBeDefined();
      return queryPlan(db, q!, ...Array.from({ length: q!.split('?').length - 1 }, () => 1));
    };
    expect(plan(/FROM notes WHERE noteable_type = \? AND noteable_id = \? AND author_id = \?/)).toContain('USING COVERING INDEX notes_author_noteable');
    expect(plan(/AND system = 1 AND body LIKE/)).toContain('USING INDEX notes_noteable_system');
    expect(plan(/notes_search MATCH/)).toMatch(/SCAN notes_search VIRTUAL TABLE INDEX/);
    // The matches among the record's notes that hold an @, not a walk of all its notes.
    expect(plan(/notes_search MATCH/)).toContain('USING INDEX notes_mentioning');
  });

  it('a Guest is not subscribed by a mention in an internal note they cannot read, a Reporter is; after writes', async () => {
    const roles = { guestm: 10, reporterm: 20 } as const;
    const role: Record<string, { id: number; token: string }> = {};
    for (const [name, access] of Object.entries(roles)) {
      const u = await s.createUser({ username: name });
      role[name] = { id: u.user.id, token: u.token };
      await s.addMember('projects', project, u.user.id, access);
    }
    const created = ok(await s.post(`/projects/${project}/issues`, { title: 'internal mentions' }));
    const path = `/projects/${project}/issues/${created.iid}`;
    for (let i = 0; i < 5; i++) ok(await s.post(`${path}/notes`, { body: `filler ${i} for @someone` }));
    ok(await s.post(`${path}/notes`, { body: 'only for @guestm and @reporterm', internal: true }));
    const subscribed = async (name: string): Promise<boolean> => ok(await s.get(path, { token: role[name].token })).subscribed;
    expect(await subscribed('guestm')).toBe(false);
    expect(await subscribed('reporterm')).toBe(true);
    const note = ok(await s.post(`${path}/notes`, { body: 'now in public, @guestm' }));
    expect(await subscribed('guestm')).toBe(true);
    ok(await s.put(`${path}/notes/${note.id}`, { body: 'edited, nobody mentioned' }));
    expect(await subscribed('guestm')).toBe(false);
    // A confidential issue stays out of a Guest's reach, mention or not.
    ok(await s.put(path, { confidential: true }));
    expect((await s.get(path, { token: role.guestm.token })).status).toBe(404);
    expect(await subscribed('reporterm')).toBe(true);
  });
});
