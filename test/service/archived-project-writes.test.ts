import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

/**
 * An archived project's issues, merge requests, notes, labels, milestones and snippets are read-only:
 * ProjectPolicy's `rule { archived }` prevents their create_/update_/admin_/destroy_, even an
 * administrator's, and the API answers 403 `{"message":"403 Forbidden"}` with nothing written.
 * Reads stay 200; after unarchive the same writes succeed.
 */
let s: TestService;
let id: number;

beforeAll(async () => {
  s = await TestService.start();
  id = (await s.createProject({ name: 'archived-writes', visibility: 'public' })).id;
});
afterAll(async () => s?.stop());

describe('writes to an archived project', () => {
  it('refuses each read-only feature with 403, writes nothing, and allows them again after unarchive', async () => {
    const p = `/projects/${id}`;
    const issue = (await s.post(`${p}/issues`, { title: 'kept' })).body;
    const note = (await s.post(`${p}/issues/${issue.iid}/notes`, { body: 'a note' })).body;
    expect((await s.post(`${p}/labels`, { name: 'bug', color: '#ff0000' })).status).toBe(201);
    const milestone = (await s.post(`${p}/milestones`, { title: 'v1' })).body;
    const snippet = (await s.post(`${p}/snippets`, { title: 'snip', file_name: 'a.txt', content: 'x', visibility: 'public' })).body;
    expect((await s.post(`${p}/archive`)).status).toBe(201);

    const refused = [
      () => s.post(`${p}/issues`, { title: 'new' }),
      () => s.put(`${p}/issues/${issue.iid}`, { title: 'changed' }),
      () => s.del(`${p}/issues/${issue.iid}`),
      () => s.post(`${p}/issues/${issue.iid}/notes`, { body: 'another' }),
      () => s.put(`${p}/issues/${issue.iid}/notes/${note.id}`, { body: 'changed' }),
      () => s.del(`${p}/issues/${issue.iid}/notes/${note.id}`),
      () => s.post(`${p}/merge_requests`, { source_branch: 'feature', target_branch: 'main', title: 'mr' }),
      () => s.post(`${p}/labels`, { name: 'other', color: '#00ff00' }),
      () => s.put(`${p}/labels/bug`, { new_name: 'defect' }),
      () => s.del(`${p}/labels/bug`),
      () => s.post(`${p}/milestones`, { title: 'v2' }),
      () => s.put(`${p}/milestones/${milestone.id}`, { title: 'v1.1' }),
      () => s.del(`${p}/milestones/${milestone.id}`),
      () => s.post(`${p}/snippets`, { title: 'snip2', file_name: 'b.txt', content: 'y', visibility: 'public' }),
      () => s.put(`${p}/snippets/${snippet.id}`, { title: 'changed' }),
      () => s.del(`${p}/snippets/${snippet.id}`),
    ];
    for (const write of refused) {
      const res = await write();
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ message: '403 Forbidden' });
    }

    // Nothing written; reads still answer.
    const issues = await s.get(`${p}/issues`);
    expect(issues.status).toBe(200);
    expect(issues.body.map((i: { title: string }) => i.title)).toEqual(['kept']);
    expect((await s.get(`${p}/issues/${issue.iid}/notes`)).body.filter((n: { system: boolean }) => !n.system).map((n: { body: string }) => n.body)).toEqual(['a note']);
    expect((await s.get(`${p}/labels`)).body.map((l: { name: string }) => l.name)).toEqual(['bug']);
    expect((await s.get(`${p}/milestones`)).body.map((m: { title: string }) => m.title)).toEqual(['v1']);
    expect((await s.get(`${p}/snippets`)).body.map((m: { title: string }) => m.title)).toEqual(['snip']);
    expect((await s.get(`${p}/merge_requests`)).status).toBe(200);

    expect((await s.post(`${p}/unarchive`)).status).toBe(201);
    expect((await s.put(`${p}/issues/${issue.iid}`, { title: 'changed' })).status).toBe(200);
    expect((await s.post(`${p}/issues/${issue.iid}/notes`, { body: 'another' })).status).toBe(201);
    expect((await s.put(`${p}/labels/bug`, { new_name: 'defect' })).status).toBe(200);
    expect((await s.put(`${p}/milestones/${milestone.id}`, { title: 'v1.1' })).status).toBe(200);
    expect((await s.put(`${p}/snippets/${snippet.id}`, { title: 'changed' })).status).toBe(200);
    expect((await s.post(`${p}/issues`, { title: 'new' })).status).toBe(201);
    expect((await s.del(`${p}/issues/${issue.iid}`)).status).toBe(204);
  });

  it('answers a merge with 401 (can_be_merged_by?: push_code is prevented too), merges nothing, and merges after unarchive', async () => {
    const repo = (await s.post('/projects', { name: 'archived-merge', initialize_with_readme: true })).body;
    const p = `/projects/${repo.id}`;
    await s.post(`${p}/repository/commits`, { branch: 'feature', start_branch: 'main', commit_message: 'change', actions: [{ action: 'create', file_path: 'f.txt', content: 'f' }] });
    const mr = (await s.post(`${p}/merge_requests`, { source_branch: 'feature', target_branch: 'main', title: 'to merge' })).body;
    expect((await s.post(`${p}/archive`)).status).toBe(201);

    const refused = await s.put(`${p}/merge_requests/${mr.iid}/merge`);
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ message: '401 Unauthorized' });
    expect((await s.get(`${p}/merge_requests/${mr.iid}`)).body.state).toBe('opened');
    // An unknown merge request is still 404 first (find_project_merge_request).
    expect((await s.put(`${p}/merge_requests/${mr.iid + 1}/merge`)).status).toBe(404);

    expect((await s.post(`${p}/unarchive`)).status).toBe(201);
    const merged = await s.put(`${p}/merge_requests/${mr.iid}/merge`);
    expect(merged.status).toBe(200);
    expect(merged.body.state).toBe('merged');
  });
  it('refuses uploads, commit statuses, commit discussions, feature flags and access requests; badges, variables and the rest stay writable', async () => {
    const repo = (await s.post('/projects', { name: 'archived-rest', initialize_with_readme: true, visibility: 'public' })).body;
    const p = `/projects/${repo.id}`;
    const sha = (await s.get(`${p}/repository/commits/main`)).body.id;
    const file = () => {
      const f = new FormData();
      f.append('file', new Blob(['x']), 'a.txt');
      return f;
    };
    const upload = (await s.post(`${p}/uploads`, undefined, { multipart: file() })).body;
    const thread = (await s.post(`${p}/repository/commits/${sha}/discussions`, { body: 'thread' })).body;
    expect((await s.post(`${p}/feature_flags`, { name: 'flag' })).status).toBe(201);
    const { token } = await s.createUser();
    expect((await s.post(`${p}/archive`)).status).toBe(201);

    const refused = [
      () => s.post(`${p}/uploads`, undefined, { multipart: file() }),
      () => s.post(`${p}/statuses/${sha}`, { state: 'success' }),
      () => s.post(`${p}/repository/commits/${sha}/discussions`, { body: 'another' }),
      () => s.post(`${p}/repository/commits/${sha}/discussions/${thread.id}/notes`, { body: 'reply' }),
      () => s.put(`${p}/repository/commits/${sha}/discussions/${thread.id}/notes/${thread.notes[0].id}`, { body: 'changed' }),
      () => s.del(`${p}/repository/commits/${sha}/discussions/${thread.id}/notes/${thread.notes[0].id}`),
      () => s.post(`${p}/feature_flags`, { name: 'other' }),
      () => s.put(`${p}/feature_flags/flag`, { description: 'changed' }),
      () => s.del(`${p}/feature_flags/flag`),
      () => s.post(`${p}/access_requests`, undefined, { token }),
    ];
    for (const write of refused) {
      const res = await write();
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ message: '403 Forbidden' });
    }
    // The statuses route reads its parameters before the project, as Grape (400 before 403).
    expect((await s.post(`${p}/statuses/${sha}`, {})).status).toBe(400);

    // Nothing written.
    expect((await s.get(`${p}/uploads`)).body.map((u: { id: number }) => u.id)).toEqual([upload.id]);
    expect((await s.get(`${p}/repository/commits/${sha}/statuses`)).body).toEqual([]);
    const threads = (await s.get(`${p}/repository/commits/${sha}/discussions`)).body;
    expect(threads.map((d: { notes: { body: string }[] }) => d.notes.map((n) => n.body))).toEqual([['thread']]);
    expect((await s.get(`${p}/feature_flags`)).body.map((f: { name: string; description: string | null }) => [f.name, f.description])).toEqual([['flag', null]]);
    expect((await s.get(`${p}/access_requests`)).body).toEqual([]);

    // What ProjectPolicy's archived rule leaves alone.
    expect((await s.post(`${p}/badges`, { link_url: 'http://example.com/a', image_url: 'http://example.com/b.svg' })).status).toBe(201);
    expect((await s.post(`${p}/variables`, { key: 'KEY', value: 'v' })).status).toBe(201);
    expect((await s.post(`${p}/feature_flags_user_lists`, { name: 'list', user_xids: 'a' })).status).toBe(201);
    expect((await s.post(`${p}/repository/commits/${sha}/comments`, { note: 'on the commit' })).status).toBe(201);
    expect((await s.put(p, { description: 'still editable' })).status).toBe(200);
    expect((await s.del(`${p}/uploads/${upload.id}`)).status).toBe(204);

    expect((await s.post(`${p}/unarchive`)).status).toBe(201);
    expect((await s.post(`${p}/uploads`, undefined, { multipart: file() })).status).toBe(201);
    expect((await s.post(`${p}/statuses/${sha}`, { state: 'success' })).status).toBe(201);
    expect((await s.post(`${p}/repository/commits/${sha}/discussions`, { body: 'another' })).status).toBe(201);
    expect((await s.put(`${p}/feature_flags/flag`, { description: 'changed' })).status).toBe(200);
    expect((await s.post(`${p}/access_requests`, undefined, { token })).status).toBe(201);
  });
  it("answers a missing parameter's 400 and a record's 404 before the refusal where GitLab does, and refuses what it authorizes first", async () => {
    // GitLab: Grape validates the parameters before any endpoint code (400), the endpoint finds the
    // project (404) and, where it looks the record up before authorize! (issues, merge requests,
    // notes, snippets, feature flags, a label's delete), the record (404); then authorize! refuses
    // (403). Milestones, a label's create and update, and creates authorize on the project first.
    const repo = (await s.post('/projects', { name: 'archived-order', initialize_with_readme: true })).body;
    const p = `/projects/${repo.id}`;
    const issue = (await s.post(`${p}/issues`, { title: 'kept' })).body;
    const note = (await s.post(`${p}/issues/${issue.iid}/notes`, { body: 'a note' })).body;
    expect((await s.post(`${p}/labels`, { name: 'bug', color: '#ff0000' })).status).toBe(201);
    const milestone = (await s.post(`${p}/milestones`, { title: 'v1' })).body;
    const snippet = (await s.post(`${p}/snippets`, { title: 'snip', file_name: 'a.txt', content: 'x', visibility: 'public' })).body;
    await s.post(`${p}/repository/commits`, { branch: 'feature', start_branch: 'main', commit_message: 'change', actions: [{ action: 'create', file_path: 'f.txt', content: 'f' }] });
    const mr = (await s.post(`${p}/merge_requests`, { source_branch: 'feature', target_branch: 'main', title: 'mr' })).body;
    expect((await s.post(`${p}/feature_flags`, { name: 'flag' })).status).toBe(201);
    expect((await s.post(`${p}/archive`)).status).toBe(201);

    const cases: [string, () => Promise<{ status: number; body: unknown }>, number][] = [
      ['issue without title', () => s.post(`${p}/issues`, { description: 'no title' }), 400],
      ['issue update without a field', () => s.put(`${p}/issues/${issue.iid}`, {}), 400],
      ['issue update, bad state_event', () => s.put(`${p}/issues/${issue.iid}`, { state_event: 'shut' }), 400],
      ['missing issue update', () => s.put(`${p}/issues/${issue.iid + 100}`, { title: 'x' }), 404],
      ['missing issue delete', () => s.del(`${p}/issues/${issue.iid + 100}`), 404],
      ['note without body', () => s.post(`${p}/issues/${issue.iid}/notes`, {}), 400],
      ['note on a missing issue', () => s.post(`${p}/issues/${issue.iid + 100}/notes`, { body: 'x' }), 404],
      ['missing note update', () => s.put(`${p}/issues/${issue.iid}/notes/${note.id + 100}`, { body: 'x' }), 404],
      ['merge request without title', () => s.post(`${p}/merge_requests`, { source_branch: 'feature', target_branch: 'main' }), 400],
      ['missing merge request update', () => s.put(`${p}/merge_requests/${mr.iid + 100}`, { title: 'x' }), 404],
      ['label without color', () => s.post(`${p}/labels`, { name: 'other' }), 400],
      ['missing label delete', () => s.del(`${p}/labels/nosuch`), 404],
      ['milestone without title', () => s.post(`${p}/milestones`, {}), 400],
      ['snippet without title', () => s.post(`${p}/snippets`, { file_name: 'b.txt', content: 'y' }), 400],
      ['missing snippet update', () => s.put(`${p}/snippets/${snippet.id + 100}`, { title: 'x' }), 404],
      ['missing feature flag update', () => s.put(`${p}/feature_flags/nosuch`, { description: 'x' }), 404],
      // authorize! on the project before the record is looked up, or before the model validates.
      ['missing label update', () => s.put(`${p}/labels/nosuch`, { new_name: 'x' }), 403],
      ['missing milestone update', () => s.put(`${p}/milestones/${milestone.id + 100}`, { title: 'x' }), 403],
      ['missing milestone delete', () => s.del(`${p}/milestones/${milestone.id + 100}`), 403],
      ['label that exists (409 when writable)', () => s.post(`${p}/labels`, { name: 'bug', color: '#00ff00' }), 403],
      ['issue title too long (400 when writable)', () => s.post(`${p}/issues`, { title: 'x'.repeat(300) }), 403],
      ['issue in a missing milestone', () => s.post(`${p}/issues`, { title: 'x', milestone_id: milestone.id + 100 }), 403],
      ['issue update', () => s.put(`${p}/issues/${issue.iid}`, { title: 'changed' }), 403],
      ['note update', () => s.put(`${p}/issues/${issue.iid}/notes/${note.id}`, { body: 'changed' }), 403],
    ];
    const answers = [];
    for (const [what, write] of cases) answers.push([what, (await write()).status]);
    expect(answers).toEqual(cases.map(([what, , status]) => [what, status]));

    // Nothing written by any of them.
    expect((await s.get(`${p}/issues`)).body.map((i: { title: string }) => i.title)).toEqual(['kept']);
    expect((await s.get(`${p}/issues/${issue.iid}/notes`)).body.filter((n: { system: boolean }) => !n.system).map((n: { body: string }) => n.body)).toEqual(['a note']);
    expect((await s.get(`${p}/labels`)).body.map((l: { name: string; color: string }) => [l.name, l.color])).toEqual([['bug', '#ff0000']]);
    expect((await s.get(`${p}/milestones`)).body.map((m: { title: string }) => m.title)).toEqual(['v1']);
    expect((await s.get(`${p}/merge_requests`)).body.map((m: { title: string }) => m.title)).toEqual(['mr']);

    // The same requests on the project unarchived: the 400s and 404s are the requests' own.
    expect((await s.post(`${p}/unarchive`)).status).toBe(201);
    expect((await s.put(`${p}/labels/nosuch`, { new_name: 'x' })).status).toBe(404);
    expect((await s.put(`${p}/milestones/${milestone.id + 100}`, { title: 'x' })).status).toBe(404);
    expect((await s.post(`${p}/labels`, { name: 'bug', color: '#00ff00' })).status).toBe(409);
    expect((await s.post(`${p}/issues`, { title: 'x'.repeat(300) })).status).toBe(400);
  });
});
