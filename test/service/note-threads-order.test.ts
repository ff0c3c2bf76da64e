import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, TestService, ok } from '../helpers/service';
import { preparedBy, queryPlan } from '../helpers/lists';
import { mentionedUsernames } from '../../src/main/service/areas/core/todos';

/**
 * A record's discussions (core/088's rows), participants (commenters grouped, only notes holding an
 * @ parsed) and `subscribed` (core/087's indexes) instead of every note of the record grouped or
 * read: the same answers as the notes give (the SQL and the algorithm below, as the service had them before),
 * threads and their order, pagination headers, participants in their order, `subscribed` for each
 * kind of participant and for others, for a Planner (internal notes) and a Guest (none).
 */
let s: TestService;
let project: number;
let issueIid = 0;
let issueId = 0;
let mrIid = 0;
let mrId = 0;
let guestToken = '';
const users: { id: number; username: string; token: string }[] = [];
const N = 260;

beforeAll(async () => {
  s = await TestService.start();
  for (let i = 0; i < 6; i++) {
    const u = await s.createUser();
    users.push({ id: u.user.id, username: u.user.username, token: u.token });
  }
  guestToken = users[5].token;
  project = (await s.createProject({ name: 'threads', visibility: 'public' })).id;
  for (const u of users.slice(0, 5)) ok(await s.api('POST', `/projects/${project}/members`, { body: { user_id: u.id, access_level: 30 } }));
  const issue = ok(await s.api('POST', `/projects/${project}/issues`, { body: { title: 'Threads', description: `cc @${users[4].username.toUpperCase()}` } }));
  issueIid = issue.iid;
  issueId = issue.id;
  const mr = ok(await s.api('POST', `/projects/${project}/merge_requests`, { body: { title: 'Threads', source_branch: 'f', target_branch: 'main' } }));
  mrIid = mr.iid;
  mrId = mr.id;
  const db = s.service.context.db;
  const insert = db.prepare(`INSERT INTO notes (project_id, noteable_type, noteable_id, discussion_id, type, author_id, body, system, internal, created_at, updated_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  db.transaction(() => {
    for (const [type, id] of [['Issue', issueId], ['MergeRequest', mrId]] as const) {
      let thread = '';
      for (let i = 0; i < N; i++) {
        // Every other run of 6 notes a thread; the first note of some threads internal (a Guest sees the thread from its second note).
        const threaded = Math.floor(i / 6) % 2 === 1;
        if (!threaded || i % 6 === 0) thread = createHash('sha1').update(`${type}-${i}`).digest('hex');
        // Two commenters; users[2] and users[3] take part by mentions only.
        const author = users[(i * 7) % 2].id;
        const internal = i % 13 === 0 || (threaded && i % 6 === 0 && i % 4 === 0) ? 1 : 0;
        // Mentions: users[3] only in internal notes' text, users[2] in a note by someone else.
        const body = i === 39 ? `ping @${users[3].username}` : i === 50 ? `see @${users[2].username}.` : i % 17 === 0 ? 'mail me@example.com' : `Note ${i}`;
        // Created out of id order now and then: threads are ordered by their first note's id.
        const at = new Date(Date.UTC(2024, 0, 1) + (i % 9 === 0 ? -i : i) * 60_000).toISOString();
        insert.run(project, type, id, thread, threaded ? 'DiscussionNote' : null, author, body, i % 11 === 0 ? 1 : 0, i === 39 ? 1 : internal, at, at);
      }
    }
  })();
}, 60_000);
afterAll(async () => s.stop());

/** The threads as the service listed them before core/079: grouped, by their first visible note. */
function threadsTruth(type: string, id: number, internal: boolean): string[] {
  return (
    s.service.context.db
      .prepare(`SELECT discussion_id, min(id) AS first FROM notes WHERE noteable_type = ? AND noteable_id = ?${internal ? '' : ' AND internal = 0'} GROUP BY discussion_id ORDER BY first`)
      .all(type, id) as { discussion_id: string }[]
  ).map((r) => r.discussion_id);
}

/** Participable#participants as the service listed them before core/079: every note read in order, every text parsed. */
function participantsTruth(type: string, id: number, internal: boolean): number[] {
  const db = s.service.context.db;
  const item = db.prepare(`SELECT * FROM ${type === 'Issue' ? 'issues' : 'merge_requests'} WHERE id = ?`).get(id) as { author_id: number; assignee_ids: string; reviewer_ids?: string; description: string | null };
  const ids: number[] = [];
  const add = (u: number | null | undefined): void => void (u != null && !ids.includes(u) && ids.push(u));
  // GitLab's Participable order: reviewers, assignees, notes' authors, the author; then mentions, internal notes' first.
  for (const u of JSON.parse(item.reviewer_ids ?? '[]') as number[]) add(u);
  for (const u of JSON.parse(item.assignee_ids) as number[]) add(u);
  const notes = db.prepare(`SELECT author_id, body, internal FROM notes WHERE noteable_type = ? AND noteable_id = ?${internal ? '' : ' AND internal = 0'} ORDER BY id`).all(type, id) as { author_id: number; body: string; internal: number }[];
  for (const n of notes) add(n.author_id);
  add(item.author_id);
  const texts = [...notes.filter((n) => n.internal).map((n) => n.body), item.description, ...notes.filter((n) => !n.internal).map((n) => n.body)];
  for (const name of texts.flatMap((t) => mentionedUsernames(t))) {
    add((db.prepare('SELECT id FROM users WHERE lower(username) = ?').get(name) as { id: number } | undefined)?.id);
  }
  return ids;
}

async function expectThreads(kind: string, iid: number, expected: string[], token?: string): Promise<void> {
  for (const [page, perPage] of [[1, 20], [2, 20], [7, 20], [1, 100], [2, 100], [50, 3]] as const) {
    const res: ApiResult = await s.get(`/projects/${project}/${kind}/${iid}/discussions`, { query: { page: String(page), per_page: String(perPage) }, token });
    const where = `${kind} page ${page} per ${perPage}${token ? ' (guest)' : ''}`;
    expect(res.status, where).toBe(200);
    expect(res.body.map((d: any) => d.id), where).toEqual(expected.slice((page - 1) * perPage, page * perPage));
    expect(res.headers.get('x-total'), where).toBe(String(expected.length));
    expect(res.headers.get('x-total-pages'), where).toBe(String(Math.ceil(expected.length / perPage)));
    expect(res.headers.get('x-next-page'), where).toBe(expected.length > page * perPage ? String(page + 1) : '');
  }
}

describe('a record\'s threads, participants and subscribed without every note read', () => {
  it('lists the threads by their first visible note, paged and counted as before', async () => {
    for (const [kind, type, iid, id] of [['issues', 'Issue', issueIid, issueId], ['merge_requests', 'MergeRequest', mrIid, mrId]] as const) {
      const all = threadsTruth(type, id, true);
      const visible = threadsTruth(type, id, false);
      // The data has what the check needs: threads a Guest sees from a later note, or not at all.
      expect(visible.length).toBeLessThan(all.length);
      await expectThreads(kind, iid, all);
      await expectThreads(kind, iid, visible, guestToken);
    }
  });

  it('lists the participants in their order, internal notes\' authors and mentions for a Planner only', async () => {
    for (const [kind, type, iid, id] of [['issues', 'Issue', issueIid, issueId], ['merge_requests', 'MergeRequest', mrIid, mrId]] as const) {
      for (const token of [undefined, guestToken]) {
        const res = ok(await s.get(`/projects/${project}/${kind}/${iid}/participants`, { token }));
        expect(res.map((u: any) => u.id), `${kind} ${token ? 'guest' : 'root'}`).toEqual(participantsTruth(type, id, !token));
      }
    }
    // users[3] is mentioned only in an internal note: a participant for a Planner, not for a Guest.
    expect(participantsTruth('Issue', issueId, true)).toContain(users[3].id);
    expect(participantsTruth('Issue', issueId, false)).not.toContain(users[3].id);
  });

  it('answers subscribed as the participants say, unless a subscription says otherwise', async () => {
    for (const [kind, type, iid, id] of [['issues', 'Issue', issueIid, issueId], ['merge_requests', 'MergeRequest', mrIid, mrId]] as const) {
      const participants = participantsTruth(type, id, true);
      for (const u of users) {
        const res = ok(await s.get(`/projects/${project}/${kind}/${iid}`, { token: u.token }));
        expect(res.subscribed, `${kind} user ${users.indexOf(u)}`).toBe(participants.includes(u.id));
      }
      // Mentioned (in the description of the issue, in a note), commenting, or neither.
      expect(users.map((u) => participants.includes(u.id))).toEqual(kind === 'issues' ? [true, true, true, true, true, false] : [true, true, true, true, false, false]);
      ok(await s.api('POST', `/projects/${project}/${kind}/${iid}/unsubscribe`, { token: users[0].token }));
      expect(ok(await s.get(`/projects/${project}/${kind}/${iid}`, { token: users[0].token })).subscribed).toBe(false);
    }
  });

  it('reads a thread\'s notes, the caller\'s notes and the notes list by their own indexes', async () => {
    const db = s.service.context.db;
    for (const kind of ['issues', 'merge_requests']) {
      const iid = kind === 'issues' ? issueIid : mrIid;
      // A thread's notes by notes_discussion; the caller's notes on the record by the author index.
      const thread = await preparedBy(s, async () => void ok(await s.get(`/projects/${project}/${kind}/${iid}/discussions`)));
      // The page's threads' notes in one statement, each thread by notes_discussion.
      const notesOf = thread.find((sql) => sql.includes('AND discussion_id IN (SELECT value FROM json_each(?))'))!;
      expect(queryPlan(db, notesOf, 'Issue', issueId, '["x"]')).toContain('SEARCH notes USING INDEX notes_discussion (discussion_id=?)');
      const statements = await preparedBy(s, async () => void ok(await s.get(`/projects/${project}/${kind}/${iid}`, { token: users[4].token })));
      const commented = statements.find((sql) => sql.includes('AND author_id = ?'))!;
      expect(queryPlan(db, commented, 'Issue', issueId, 1)).toContain('SEARCH notes USING COVERING INDEX notes_author_noteable (author_id=? AND noteable_type=? AND noteable_id=?)');
      // Participants read the record's commenters from core/098's rows and only its notes holding an @ (its partial index).
      for (const token of [undefined, guestToken]) {
        const statements = await preparedBy(s, async () => void ok(await s.get(`/projects/${project}/${kind}/${iid}/participants`, { token })));
        const commenters = statements.filter((sql) => sql.includes('FROM note_authors'));
        const notes = statements.filter((sql) => sql.includes('FROM notes'));
        expect([commenters.length, notes.length]).toEqual([1, 1]);
        expect(queryPlan(db, commenters[0], 'Issue', issueId)).toContain('SEARCH note_authors USING PRIMARY KEY (noteable_type=? AND noteable_id=?)');
        expect(queryPlan(db, notes[0], 'Issue', issueId)).toContain('SEARCH notes USING INDEX notes_mentioning (noteable_type=? AND noteable_id=?)');
      }
      // The record's notes listed and counted in created_at or id order (rows read in turn), never in author order.
      const queries: Record<string, string>[] = [{ activity_filter: 'only_comments' }, { activity_filter: 'only_activity', order_by: 'updated_at' }, { per_page: '5' }];
      for (const query of queries) {
        const statements = (await preparedBy(s, async () => void ok(await s.get(`/projects/${project}/${kind}/${iid}/notes`, { query })))).filter((sql) => sql.includes('FROM notes INDEXED BY'));
        expect(statements.length, JSON.stringify(query)).toBeGreaterThan(0);
        for (const sql of statements) expect(queryPlan(db, sql, 'Issue', issueId, ...(/OFFSET \?$/.test(sql) ? [0] : [])), sql).toMatch(/USING (COVERING )?INDEX notes_noteable_(created|updated)/);
      }
    }
  });
});

describe('a record\'s threads and participants after comments are deleted through the API', () => {
  /** Every read that may keep a page: the threads (Planner and Guest), the participants, the notes' count. */
  async function expectAsTheNotes(kind: string, type: string, iid: number, id: number, where: string): Promise<void> {
    await expectThreads(kind, iid, threadsTruth(type, id, true));
    await expectThreads(kind, iid, threadsTruth(type, id, false), guestToken);
    for (const token of [undefined, guestToken]) {
      const res = ok(await s.get(`/projects/${project}/${kind}/${iid}/participants`, { token }));
      expect(res.map((u: any) => u.id), `${where}: ${kind} participants ${token ? 'guest' : 'root'}`).toEqual(participantsTruth(type, id, !token));
    }
    const notes = await s.get(`/projects/${project}/${kind}/${iid}/notes`, { query: { per_page: '2' } });
    const count = s.service.context.db.prepare('SELECT count(*) AS n FROM notes WHERE noteable_type = ? AND noteable_id = ?').get(type, id) as { n: number };
    expect(notes.headers.get('x-total'), where).toBe(String(count.n));
  }

  it('moves a thread to its next note, a commenter to their next note, and drops both with their last', async () => {
    const [a, b, c] = users;
    for (const kind of ['issues', 'merge_requests']) {
      const type = kind === 'issues' ? 'Issue' : 'MergeRequest';
      const record = ok(await s.api('POST', `/projects/${project}/${kind}`, { body: kind === 'issues' ? { title: 'Deletes' } : { title: 'Deletes', source_branch: 'g', target_branch: 'main' } }));
      const base = `/projects/${project}/${kind}/${record.iid}`;
      const post = async (u: (typeof users)[number], body: Record<string, unknown>, thread?: string): Promise<any> =>
        ok(await s.api('POST', thread ? `${base}/discussions/${thread}/notes` : `${base}/discussions`, { body, token: u.token }));
      // a, b, a (internal: a Guest sees a from the fifth), c, a; a thread of b's with replies by a and c; a thread opened internal.
      const n1 = (await post(a, { body: 'one' })).notes[0].id;
      await post(b, { body: 'two' });
      const n3 = (await post(a, { body: 'three', internal: true })).notes[0].id;
      await post(c, { body: 'four' });
      await post(a, { body: 'five' });
      const thread = await post(b, { body: 'six' });
      const reply = (await post(a, { body: 'seven' }, thread.id)).id;
      await post(c, { body: 'eight' }, thread.id);
      const hidden = await post(b, { body: 'nine', internal: true });
      const shown = (await post(c, { body: 'ten' }, hidden.id)).id;
      await expectAsTheNotes(kind, type, record.iid, record.id, 'before');
      // a's first note: a follows b (and, for a Guest, c); the thread of one note goes.
      // The thread's first note: it starts at a's reply. The internal thread's first public note: a Guest no longer sees it.
      // Then the rest of a's notes: a is no commenter.
      const deletes: [string, number][] = [['a\'s first', n1], ['a thread\'s first', thread.notes[0].id], ['an internal thread\'s public reply', shown], ['a\'s internal', n3]];
      for (const [what, note] of deletes) {
        expect((await s.api('DELETE', `${base}/notes/${note}`)).status, what).toBe(204);
        await expectAsTheNotes(kind, type, record.iid, record.id, `after ${what}`);
      }
      const left = s.service.context.db.prepare('SELECT id FROM notes WHERE noteable_type = ? AND noteable_id = ? AND author_id = ?').all(type, record.id, a.id) as { id: number }[];
      expect(left.map((n) => n.id)).toContain(reply);
      for (const n of left) expect((await s.api('DELETE', `${base}/notes/${n.id}`)).status).toBe(204);
      await expectAsTheNotes(kind, type, record.iid, record.id, 'after all of a\'s');
      expect(ok(await s.get(`${base}/participants`)).map((u: any) => u.id)).not.toContain(a.id);
    }
  });

  it('recomputes a deleted note\'s thread and commenter by their own indexes, not the record\'s notes', () => {
    const db = s.service.context.db;
    const body = (trigger: string): string => (db.prepare("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?").get(trigger) as { sql: string }).sql;
    // The triggers' SELECTs, with OLD's values as parameters (a record of 260 notes, an author with 130 of them).
    const select = (trigger: string, end: RegExp): string => {
      const sql = body(trigger);
      const start = sql.indexOf('SELECT', sql.indexOf('INSERT INTO'));
      return sql.slice(start, sql.search(end) + sql.match(end)![0].length).replace(/OLD\.\w+/g, (m) => `@${m.slice(4)}`);
    };
    const old = { noteable_type: 'Issue', noteable_id: issueId, discussion_id: 'x', author_id: users[0].id };
    const discussion = select('note_discussions_delete', /GROUP BY noteable_type, noteable_id, discussion_id/);
    expect(queryPlan(db, discussion, old)).toContain('SEARCH notes USING INDEX notes_discussion (discussion_id=?)');
    const author = select('note_authors_delete', /ORDER BY n\.id LIMIT 1/);
    const plan = queryPlan(db, author, old);
    expect(plan).toContain('SEARCH n USING COVERING INDEX notes_author_noteable (author_id=? AND noteable_type=? AND noteable_id=?)');
    expect(plan).not.toMatch(/TEMP B-TREE|CO-ROUTINE/);
  });
});
