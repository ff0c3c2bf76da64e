import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

// System notes for issue and merge request changes made through the API (SystemNoteService, Issuable::CommonSystemNotesService).
let s: TestService;
let project: any;
let p: string;
let alice: { user: any; token: string };
let bob: { user: any; token: string };
let carol: { user: any; token: string };

beforeAll(async () => {
  s = await TestService.start();
  alice = await s.createUser({ username: 'alice' });
  bob = await s.createUser({ username: 'bob' });
  carol = await s.createUser({ username: 'carol' });
  project = await s.createProject({ name: 'sysnotes', initialize_with_readme: true });
  p = `/projects/${project.id}`;
  for (const u of [alice, bob, carol]) await s.addMember('projects', project.id, u.user.id, 30);
});
afterAll(async () => s?.stop());

const systemBodies = async (path: string): Promise<string[]> =>
  ((await s.get(`${path}/notes`, { query: { sort: 'asc', order_by: 'created_at' } })).body as any[]).filter((n) => n.system).map((n) => n.body);

describe('issue system notes', () => {
  it('writes title (marked), description, lock, due date, assignee and confidentiality notes in GitLab order, as the caller, with no event', async () => {
    const issue = (await s.post(`${p}/issues`, { title: 'Old title' })).body;
    const path = `${p}/issues/${issue.iid}`;
    expect(await systemBodies(path)).toEqual([]);
    const eventsBefore = (await s.get(`${p}/events`, { query: { per_page: 100 } })).body.length;
    const before = (await s.get(path)).body;
    const res = await s.put(
      path,
      { title: 'New title', description: 'text', discussion_locked: true, due_date: '2026-11-05', assignee_ids: [alice.user.id, bob.user.id], confidential: true },
      { token: carol.token },
    );
    expect(res.status).toBe(200);
    expect(await systemBodies(path)).toEqual([
      'changed title from **{-Old-} title** to **{+New+} title**',
      'changed the description',
      'locked the discussion in this issue',
      'changed due date to November 5, 2026',
      'assigned to @alice and @bob',
      'made the issue confidential',
    ]);
    const notes = (await s.get(`${path}/notes`)).body as any[];
    for (const n of notes) {
      expect(n).toMatchObject({ system: true, author: { username: 'carol' }, noteable_type: 'Issue', noteable_iid: issue.iid, type: null });
      expect(n.created_at).toBe(n.updated_at);
    }
    // One individual discussion per note.
    const discussions = (await s.get(`${path}/discussions`)).body as any[];
    expect(discussions.map((d) => [d.individual_note, d.notes.length])).toEqual(notes.map(() => [true, 1]));
    expect(new Set(discussions.map((d) => d.id)).size).toBe(notes.length);
    const after = (await s.get(path)).body;
    expect(after.user_notes_count).toBe(0);
    expect(before.user_notes_count).toBe(0);
    expect((await s.get(`${p}/events`, { query: { per_page: 100 } })).body.length).toBe(eventsBefore);
    // The notes leave updated_at as the update set it.
    expect(after.updated_at).toBe(res.body.updated_at);
  });

  it('combines assignee changes, removes the due date and makes the issue visible, unlocks', async () => {
    const issue = (await s.post(`${p}/issues`, { title: 't', assignee_ids: [alice.user.id, bob.user.id, carol.user.id], due_date: '2026-01-31', confidential: true, discussion_locked: true })).body;
    const path = `${p}/issues/${issue.iid}`;
    // A create writes only the due date note (create_due_date_note is not gated by is_update).
    expect(await systemBodies(path)).toEqual(['changed due date to January 31, 2026']);
    await s.put(path, { assignee_ids: [carol.user.id] });
    await s.put(path, { assignee_ids: [alice.user.id, carol.user.id] });
    expect((await s.put(path, { due_date: null, confidential: false, discussion_locked: false })).status).toBe(200);
    expect((await systemBodies(path)).slice(1)).toEqual([
      'unassigned @alice and @bob',
      'assigned to @alice',
      'unlocked the discussion in this issue',
      'removed due date January 31, 2026',
      'made the issue visible to everyone',
    ]);
    await s.put(path, { assignee_ids: [bob.user.id] });
    expect((await systemBodies(path)).at(-1)).toBe('assigned to @bob and unassigned @alice and @carol');
    await s.put(path, { assignee_ids: [alice.user.id, carol.user.id, bob.user.id] });
    await s.put(path, { assignee_ids: [] });
    expect((await systemBodies(path)).at(-1)).toBe('unassigned @alice, @carol, and @bob');
  });

  it('writes nothing for an update that changes nothing, a labels-only or state-only update, or a failed update', async () => {
    const issue = (await s.post(`${p}/issues`, { title: 'same', description: 'd' })).body;
    const path = `${p}/issues/${issue.iid}`;
    await s.put(path, { title: 'same', description: 'd', confidential: false });
    await s.put(path, { labels: 'bug' });
    await s.put(path, { state_event: 'close' });
    await s.put(path, { state_event: 'reopen' });
    expect((await s.put(path, { title: 'x'.repeat(256), description: 'changed' })).status).toBe(400);
    expect((await s.put(path, { title: 'changed', milestone_id: 1, milestone: 'm' })).status).toBe(400);
    const outsider = await s.createUser();
    expect([403, 404]).toContain((await s.put(path, { title: 'changed' }, { token: outsider.token })).status);
    expect(await systemBodies(path)).toEqual([]);
    expect((await s.get(path)).body.title).toBe('same');
  });

  it('writes a note per task item checked or unchecked instead of "changed the description"', async () => {
    const issue = (await s.post(`${p}/issues`, { title: 'tasks', description: '- [ ] one\n- [x] two\n- [ ] three' })).body;
    const path = `${p}/issues/${issue.iid}`;
    await s.put(path, { description: '- [x] one\n- [ ] two\n- [ ] three' });
    await s.put(path, { description: '- [x] one\n- [ ] two\n- [ ] three and more' });
    expect(await systemBodies(path)).toEqual(['marked the checklist item **one** as completed', 'marked the checklist item **two** as incomplete', 'changed the description']);
  });

  it('reads checklist items of ordered lists numbered with a dot or a parenthesis (Taskable::ITEM_PATTERN)', async () => {
    const issue = (await s.post(`${p}/issues`, { title: 'ordered tasks', description: '1. [ ] dot\n2) [ ] paren' })).body;
    const path = `${p}/issues/${issue.iid}`;
    await s.put(path, { description: '1. [x] dot\n2) [x] paren' });
    expect(await systemBodies(path)).toEqual(['marked the checklist item **dot** as completed', 'marked the checklist item **paren** as completed']);
  });

  it('marks a changed emoji whole in a title change (GitLab diffs characters, not UTF-16 halves)', async () => {
    const issue = (await s.post(`${p}/issues`, { title: 'Fix 😀 now' })).body;
    const path = `${p}/issues/${issue.iid}`;
    await s.put(path, { title: 'Fix 😃 now' });
    await s.put(path, { title: 'Fix 😃 now 🎉' });
    expect(await systemBodies(path)).toEqual([
      'changed title from **Fix {-😀-} now** to **Fix {+😃+} now**',
      'changed title from **Fix 😃 now** to **Fix 😃 now{+ 🎉+}**',
    ]);
  });

  it('leaves out checklist items in code blocks and HTML comments (Taskable::REGEX)', async () => {
    const text = (a: string, b: string, c: string, d: string) =>
      `intro\n\n\`\`\`\n- [${a}] in code\n\`\`\`\n<!-- a comment line -->\n- [${b}] between\n<!--\n- [${c}] in a comment block\n-->\n- [${d}] outside`;
    const issue = (await s.post(`${p}/issues`, { title: 'code tasks', description: text(' ', ' ', ' ', ' ') })).body;
    const path = `${p}/issues/${issue.iid}`;
    // Only items inside code or a comment block flipped: no checklist item changed, so the description note.
    await s.put(path, { description: text('x', ' ', 'x', ' ') });
    // The items outside flipped (one after a comment line, which closes on its own line): their notes alone.
    await s.put(path, { description: text('x', 'x', 'x', 'x') });
    expect(await systemBodies(path)).toEqual([
      'changed the description',
      'marked the checklist item **between** as completed',
      'marked the checklist item **outside** as completed',
    ]);
  });
});

describe('merge request system notes', () => {
  it('writes draft, title, description, lock, assignee, reviewer and target branch notes; a merge writes none', async () => {
    await s.post(`${p}/repository/commits`, { branch: 'feature', start_branch: 'main', commit_message: 'c', actions: [{ action: 'create', file_path: 'f.txt', content: 'f' }] });
    await s.post(`${p}/repository/branches`, { branch: 'other', ref: 'main' });
    const mr = (await s.post(`${p}/merge_requests`, { source_branch: 'feature', target_branch: 'main', title: 'Add f', assignee_ids: [alice.user.id] })).body;
    const path = `${p}/merge_requests/${mr.iid}`;
    expect(await systemBodies(path)).toEqual([]);
    await s.put(path, { title: 'Draft: Add f' });
    await s.put(path, { title: 'Draft: Add the f' });
    await s.put(path, { title: 'Draft: Fix bug in login' });
    await s.put(path, { title: 'Draft: Fix crash in logout' });
    await s.put(path, { title: 'Add the f', description: 'why', discussion_locked: true });
    await s.put(path, { assignee_ids: [bob.user.id], reviewer_ids: [carol.user.id, alice.user.id] });
    await s.put(path, { reviewer_ids: [], target_branch: 'other' });
    await s.put(path, { target_branch: 'main', discussion_locked: false });
    expect(await systemBodies(path)).toEqual([
      'marked this merge request as **draft**',
      'changed title from **Draft: Add f** to **Draft: Add {+the +}f**',
      // CharDiff marks every changed stretch, not one span between a common prefix and suffix.
      'changed title from **Draft: {-Add the f-}** to **Draft: {+Fix bug in login+}**',
      'changed title from **Draft: Fix {-bug-} in log{-in-}** to **Draft: Fix {+crash+} in log{+out+}**',
      'marked this merge request as **ready**',
      'changed title from **{-Draft: Fix crash in logout-}** to **{+Add the f+}**',
      'changed the description',
      'locked the discussion in this merge request',
      'assigned to @bob and unassigned @alice',
      'requested review from @carol and @alice',
      'removed review request for @carol and @alice',
      'changed target branch from `main` to `other`',
      'unlocked the discussion in this merge request',
      'changed target branch from `other` to `main`',
    ]);
    expect((await s.get(path)).body.user_notes_count).toBe(0);
    const count = (await systemBodies(path)).length;
    expect((await s.put(`${path}/merge`)).status).toBe(200);
    expect(await systemBodies(path)).toHaveLength(count);
  });
});
