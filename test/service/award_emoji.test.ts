import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

let s: TestService;
let project: any;
let pub: any;
let issue: any;
let mr: any;
let snippet: any;
let dev: { user: any; token: string };
let stranger: { user: any; token: string };

beforeAll(async () => {
  s = await TestService.start();
  dev = await s.createUser();
  stranger = await s.createUser();
  project = await s.createProject({ name: 'reactions', visibility: 'private' });
  pub = await s.createProject({ name: 'open', visibility: 'public' });
  await s.addMember('projects', project.id, dev.user.id, 30);
  issue = (await s.post(`/projects/${project.id}/issues`, { title: 'react to me' })).body;
  mr = (await s.post(`/projects/${project.id}/merge_requests`, { title: 'mr', source_branch: 'f', target_branch: 'main' })).body;
  snippet = (await s.post(`/projects/${project.id}/snippets`, { title: 's', file_name: 'a.txt', content: 'x', visibility: 'private' })).body;
});
afterAll(async () => s.stop());

describe('award emoji on issues, merge requests and snippets', () => {
  it('awards, lists and reads an emoji with the AwardEmoji fields', async () => {
    const res = await s.post(`/projects/${project.id}/issues/${issue.iid}/award_emoji`, { name: 'blowfish' });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['id', 'name', 'user', 'created_at', 'updated_at', 'awardable_id', 'awardable_type', 'url']);
    expect(res.body).toMatchObject({ name: 'blowfish', awardable_id: issue.id, awardable_type: 'Issue', url: null, user: { username: 'root' } });
    const list = await s.get(`/projects/${project.id}/issues/${issue.iid}/award_emoji`);
    expect(list.headers.get('x-total')).toBe('1');
    expect(list.body.map((a: any) => a.name)).toEqual(['blowfish']);
    expect((await s.get(`/projects/${project.id}/issues/${issue.iid}/award_emoji/${res.body.id}`)).body.id).toBe(res.body.id);
    expect((await s.get(`/projects/${project.id}/issues/${issue.iid}/award_emoji/999999`)).body).toEqual({ message: '404 Not found' });
  });

  it('normalizes aliases, refuses unknown names and repeats with a 404', async () => {
    const plus = await s.post(`/projects/${project.id}/issues/${issue.iid}/award_emoji`, { name: '+1' });
    expect(plus.body.name).toBe('thumbsup');
    const again = await s.post(`/projects/${project.id}/issues/${issue.iid}/award_emoji`, { name: 'thumbsup' });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ message: '404 Award Emoji Name has already been taken Not Found' });
    const bogus = await s.post(`/projects/${project.id}/issues/${issue.iid}/award_emoji`, { name: 'not_an_emoji_at_all' });
    expect(bogus.body).toEqual({ message: '404 Award Emoji Name is not a valid emoji name Not Found' });
    expect((await s.post(`/projects/${project.id}/issues/${issue.iid}/award_emoji`, {})).body).toEqual({ error: 'name is missing' });
    const satisfied = await s.post(`/projects/${project.id}/issues/${issue.iid}/award_emoji`, { name: 'satisfied' });
    expect(satisfied.body.name).toBe('laughing');
  });

  it('counts upvotes and downvotes on issues and merge requests', async () => {
    await s.post(`/projects/${project.id}/issues/${issue.iid}/award_emoji`, { name: 'thumbsup' }, { token: dev.token });
    await s.post(`/projects/${project.id}/merge_requests/${mr.iid}/award_emoji`, { name: '-1' });
    const got = await s.get(`/projects/${project.id}/issues/${issue.iid}`);
    expect(got.body).toMatchObject({ upvotes: 2, downvotes: 0 });
    const gotMr = await s.get(`/projects/${project.id}/merge_requests/${mr.iid}`);
    expect(gotMr.body).toMatchObject({ upvotes: 0, downvotes: 1 });
    const mrAwards = await s.get(`/projects/${project.id}/merge_requests/${mr.iid}/award_emoji`);
    expect(mrAwards.body.map((a: any) => [a.name, a.awardable_type])).toEqual([['thumbsdown', 'MergeRequest']]);
  });

  it('filters lists by my_reaction_emoji (a name, Any, None, and not[])', async () => {
    const other = (await s.post(`/projects/${project.id}/issues`, { title: 'quiet' })).body;
    const titles = async (query: Record<string, string>, token?: string) =>
      (await s.get(`/projects/${project.id}/issues`, { query, token })).body.map((i: any) => i.title).sort();
    expect(await titles({ my_reaction_emoji: 'blowfish' })).toEqual(['react to me']);
    expect(await titles({ my_reaction_emoji: 'Any' })).toEqual(['react to me']);
    expect(await titles({ my_reaction_emoji: 'None' })).toEqual(['quiet']);
    expect(await titles({ 'not[my_reaction_emoji]': 'blowfish' })).toEqual(['quiet']);
    expect(await titles({ my_reaction_emoji: 'blowfish' }, dev.token)).toEqual([]);
    expect(await titles({ my_reaction_emoji: 'thumbsup' }, dev.token)).toEqual(['react to me']);
    const mrs = await s.get(`/projects/${project.id}/merge_requests`, { query: { my_reaction_emoji: 'thumbsdown' } });
    expect(mrs.body.map((m: any) => m.iid)).toEqual([mr.iid]);
    void other;
  });

  it('awards snippets and notes on issues, merge requests and snippets', async () => {
    const sn = await s.post(`/projects/${project.id}/snippets/${snippet.id}/award_emoji`, { name: 'rocket' });
    expect(sn.body).toMatchObject({ awardable_type: 'Snippet', awardable_id: snippet.id });
    const note = (await s.post(`/projects/${project.id}/issues/${issue.iid}/notes`, { body: 'nice' })).body;
    const onNote = await s.post(`/projects/${project.id}/issues/${issue.iid}/notes/${note.id}/award_emoji`, { name: 'tractor' });
    expect(onNote.status).toBe(201);
    expect(onNote.body).toMatchObject({ awardable_type: 'Note', awardable_id: note.id, name: 'tractor' });
    expect((await s.get(`/projects/${project.id}/issues/${issue.iid}/notes/${note.id}/award_emoji`)).body.map((a: any) => a.name)).toEqual(['tractor']);
    const mrNote = (await s.post(`/projects/${project.id}/merge_requests/${mr.iid}/notes`, { body: 'ok' })).body;
    expect((await s.post(`/projects/${project.id}/merge_requests/${mr.iid}/notes/${mrNote.id}/award_emoji`, { name: '8ball' })).status).toBe(201);
    const snNote = (await s.post(`/projects/${project.id}/snippets/${snippet.id}/notes`, { body: 'ok' })).body;
    expect((await s.post(`/projects/${project.id}/snippets/${snippet.id}/notes/${snNote.id}/award_emoji`, { name: 'eyes' })).status).toBe(201);
    expect((await s.get(`/projects/${project.id}/issues/${issue.iid}/notes/999999/award_emoji`)).body).toEqual({ message: '404 Not found' });
    // A note of another issue is not found under this one.
    expect((await s.get(`/projects/${project.id}/merge_requests/${mr.iid}/notes/${note.id}/award_emoji`)).status).toBe(404);
    // Removing the note takes its reactions along.
    await s.del(`/projects/${project.id}/issues/${issue.iid}/notes/${note.id}`);
    expect((await s.get(`/projects/${project.id}/issues/${issue.iid}/notes/${note.id}/award_emoji`)).status).toBe(404);
  });

  it('hides a private awardable from strangers and anonymous callers, and shows a public one to anyone', async () => {
    expect((await s.get(`/projects/${project.id}/issues/${issue.iid}/award_emoji`, { token: stranger.token })).status).toBe(404);
    expect((await s.get(`/projects/${project.id}/issues/${issue.iid}/award_emoji`, { token: null })).status).toBe(404);
    expect((await s.post(`/projects/${project.id}/issues/${issue.iid}/award_emoji`, { name: 'smile' }, { token: null })).status).toBe(404);
    const pubIssue = (await s.post(`/projects/${pub.id}/issues`, { title: 'public' })).body;
    await s.post(`/projects/${pub.id}/issues/${pubIssue.iid}/award_emoji`, { name: 'smile' });
    const anon = await s.get(`/projects/${pub.id}/issues/${pubIssue.iid}/award_emoji`, { token: null });
    expect(anon.status).toBe(200);
    expect(anon.body.map((a: any) => a.name)).toEqual(['smile']);
    expect((await s.post(`/projects/${pub.id}/issues/${pubIssue.iid}/award_emoji`, { name: 'smile' }, { token: null })).body).toEqual({
      message: '404 Award Emoji Not Found',
    });
    // Any signed-in reader of a public issue may react.
    expect((await s.post(`/projects/${pub.id}/issues/${pubIssue.iid}/award_emoji`, { name: 'smile' }, { token: stranger.token })).status).toBe(201);
    expect((await s.get(`/projects/${project.id}/issues/abc/award_emoji`)).body).toEqual({ error: 'issue_iid is invalid' });
  });

  it("deletes one's own award (admins any), 401 for someone else's, 412 when modified since", async () => {
    const mine = (await s.post(`/projects/${project.id}/issues/${issue.iid}/award_emoji`, { name: 'heart' }, { token: dev.token })).body;
    const byRoot = (await s.post(`/projects/${project.id}/issues/${issue.iid}/award_emoji`, { name: 'heart' })).body;
    const theirs = await s.del(`/projects/${project.id}/issues/${issue.iid}/award_emoji/${byRoot.id}`, { token: dev.token });
    expect(theirs.status).toBe(401);
    expect(theirs.body).toEqual({ message: '401 Unauthorized' });
    const stale = await s.del(`/projects/${project.id}/issues/${issue.iid}/award_emoji/${mine.id}`, {
      token: dev.token,
      headers: { 'if-unmodified-since': 'Thu, 01 Jan 2015 00:00:00 GMT' },
    });
    expect(stale.status).toBe(412);
    expect((await s.del(`/projects/${project.id}/issues/${issue.iid}/award_emoji/${mine.id}`, { token: dev.token })).status).toBe(204);
    expect((await s.del(`/projects/${project.id}/issues/${issue.iid}/award_emoji/${byRoot.id}`)).status).toBe(204);
    expect((await s.del(`/projects/${project.id}/issues/${issue.iid}/award_emoji/${byRoot.id}`)).body).toEqual({ message: '404 Not found' });
  });

  it("an issue's, a merge request's and a snippet's reactions go with them", async () => {
    const db = s.service.context.db;
    const count = (type: string, id: number) =>
      (db.prepare('SELECT count(*) AS n FROM award_emoji WHERE awardable_type = ? AND awardable_id = ?').get(type, id) as { n: number }).n;
    const doomed = (await s.post(`/projects/${project.id}/issues`, { title: 'doomed' })).body;
    await s.post(`/projects/${project.id}/issues/${doomed.iid}/award_emoji`, { name: 'wave' });
    expect(count('Issue', doomed.id)).toBe(1);
    await s.del(`/projects/${project.id}/issues/${doomed.iid}`);
    expect(count('Issue', doomed.id)).toBe(0);
    const doomedSnippet = (await s.post(`/projects/${project.id}/snippets`, { title: 'gone', file_name: 'g.txt', content: 'g', visibility: 'private' })).body;
    await s.post(`/projects/${project.id}/snippets/${doomedSnippet.id}/award_emoji`, { name: 'wave' });
    await s.del(`/projects/${project.id}/snippets/${doomedSnippet.id}`);
    expect(count('Snippet', doomedSnippet.id)).toBe(0);
    await s.del(`/projects/${project.id}`);
    expect(count('MergeRequest', mr.id)).toBe(0);
  });
});
