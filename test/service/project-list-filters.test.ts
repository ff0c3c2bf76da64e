import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, TestService } from '../helpers/service';
import { preparedBy, queryPlan } from '../helpers/lists';

// GET /projects's filters and orders beyond the basic ones (ProjectsFinder, API::Projects):
// with_issues_enabled / with_merge_requests_enabled (ProjectFeature.with_feature_available_for_user),
// topic_id, last_activity_after/before, updated_after/before (paired with order_by=updated_at on
// GET /projects), the administrators' statistics orders, and `statistics=true`.

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s?.stop());

const sql = (text: string, ...args: unknown[]) => s.service.context.db.prepare(text).run(...args);
const ids = (rows: any[]) => rows.map((p) => p.id);
/** No token: the test service calls as root (an administrator). */
const ROOT = undefined;

describe('project list filters', () => {
  let viewer: { user: any; token: string };
  let reporter: { user: any; token: string };
  let open: any;
  let noIssues: any;
  let privateMrs: any;
  let privateIssues: any;
  let mine: number[];

  beforeAll(async () => {
    viewer = await s.createUser();
    reporter = await s.createUser();
    const g = await s.createGroup({ visibility: 'public' });
    open = await s.createProject({ namespace_id: g.id, visibility: 'public', topics: ['alpha'] });
    noIssues = await s.createProject({ namespace_id: g.id, visibility: 'public', issues_access_level: 'disabled', topics: ['alpha', 'beta'] });
    privateMrs = await s.createProject({ namespace_id: g.id, visibility: 'public', merge_requests_access_level: 'private' });
    privateIssues = await s.createProject({ namespace_id: g.id, visibility: 'public', issues_access_level: 'private' });
    // A guest of both private-feature projects: enough for issues, not for merge requests (Reporter).
    await s.addMember('projects', privateMrs.id, viewer.user.id, 10);
    await s.addMember('projects', privateIssues.id, viewer.user.id, 10);
    await s.addMember('projects', privateMrs.id, reporter.user.id, 20);
    mine = [open.id, noIssues.id, privateMrs.id, privateIssues.id];
  });

  const listed = async (query: Record<string, unknown>, token?: string | null): Promise<number[]> => {
    const res = await s.get('/projects', { token, query: { per_page: 100, ...query } });
    expect(res.status).toBe(200);
    return ids(res.body).filter((id: number) => mine.includes(id));
  };

  it('with_issues_enabled: enabled for all, or private to members (Guest and up); administrators see every one not disabled', async () => {
    expect(await listed({ with_issues_enabled: true }, viewer.token)).toEqual([privateIssues.id, privateMrs.id, open.id]);
    expect(await listed({ with_issues_enabled: true }, reporter.token)).toEqual([privateMrs.id, open.id]);
    expect(await listed({ with_issues_enabled: true }, null)).toEqual([privateMrs.id, open.id]);
    expect(await listed({ with_issues_enabled: true }, ROOT)).toEqual([privateIssues.id, privateMrs.id, open.id]);
    // false filters nothing, as GitLab's `if params[:with_issues_enabled]`.
    expect(await listed({ with_issues_enabled: false }, viewer.token)).toEqual([...mine].reverse());
  });

  it('with_merge_requests_enabled: a private feature needs Reporter', async () => {
    expect(await listed({ with_merge_requests_enabled: true }, viewer.token)).toEqual([privateIssues.id, noIssues.id, open.id]);
    expect(await listed({ with_merge_requests_enabled: true }, reporter.token)).toEqual([privateIssues.id, privateMrs.id, noIssues.id, open.id]);
    expect(await listed({ with_merge_requests_enabled: true, with_issues_enabled: true }, reporter.token)).toEqual([privateMrs.id, open.id]);
  });

  it("with_issues_enabled / with_merge_requests_enabled leave out the hidden projects by id (core/127's partial index), no project's settings read by the list", async () => {
    let n = 0;
    for (const token of [viewer.token, reporter.token, null, ROOT]) {
      for (const filter of ['with_issues_enabled', 'with_merge_requests_enabled']) {
        // A page size not asked before: nothing kept answers it.
        const statements = await preparedBy(s, () => listed({ [filter]: true, per_page: 50 + ++n }, token));
        const lists = statements.filter((q) => /FROM projects p WHERE/.test(q) && !/INDEXED BY projects_(issues|merge_requests)_restricted/.test(q));
        expect(lists.length, `${filter} ${token}`).toBeGreaterThan(0);
        for (const q of lists) expect(q, `${filter} ${token}`).not.toContain("json_extract(p.settings, '$.");
        const hidden = statements.find((q) => q.includes('INDEXED BY projects_issues_restricted') || q.includes('INDEXED BY projects_merge_requests_restricted'));
        expect(queryPlan(s.service.context.db, hidden!)).toMatch(/USING (COVERING )?INDEX projects_(issues|merge_requests)_restricted/);
      }
    }
  });

  it('topic_id: the projects carrying that topic; an unknown topic, none', async () => {
    const topics = ok(await s.get('/topics', { query: { search: 'beta' } }));
    const beta = topics.find((t: any) => t.name === 'beta');
    const alpha = ok(await s.get('/topics', { query: { search: 'alpha' } })).find((t: any) => t.name === 'alpha');
    expect(await listed({ topic_id: beta.id })).toEqual([noIssues.id]);
    expect(await listed({ topic_id: alpha.id })).toEqual([noIssues.id, open.id]);
    const none = await s.get('/projects', { query: { topic_id: 999999 } });
    expect(none.body).toEqual([]);
    expect(none.headers.get('x-total')).toBe('0');
    expect((await s.get('/projects', { query: { topic_id: 'x' } })).body).toEqual({ error: 'topic_id is invalid' });
  });

  it('last_activity_after/before compare strictly; updated_after/before inclusively, only with order_by=updated_at', async () => {
    sql('UPDATE projects SET last_activity_at = ?, updated_at = ? WHERE id = ?', '2020-01-01T00:00:00.000Z', '2020-01-01T00:00:00.000Z', open.id);
    sql('UPDATE projects SET last_activity_at = ?, updated_at = ? WHERE id = ?', '2020-02-01T00:00:00.000Z', '2020-02-01T00:00:00.000Z', noIssues.id);
    expect(await listed({ last_activity_after: '2020-01-01T00:00:00Z', last_activity_before: '2020-03-01T00:00:00Z' })).toEqual([noIssues.id]);
    expect(await listed({ last_activity_before: '2020-02-01T00:00:00Z' })).toEqual([open.id]);
    expect(await listed({ updated_after: '2020-01-01T00:00:00Z', updated_before: '2020-02-01T00:00:00Z', order_by: 'updated_at' })).toEqual([noIssues.id, open.id]);
    expect(await listed({ updated_before: '2020-01-15T00:00:00Z', order_by: 'updated_at', sort: 'asc' })).toEqual([open.id]);
    // UpdatedAtFilter: before earlier than after, none.
    expect(await listed({ updated_after: '2020-02-01T00:00:00Z', updated_before: '2020-01-01T00:00:00Z', order_by: 'updated_at' })).toEqual([]);
    const unpaired = await s.get('/projects', { query: { updated_after: '2020-01-01T00:00:00Z' } });
    expect(unpaired.status).toBe(400);
    expect(unpaired.body).toEqual({ message: '400 Bad request - `updated_at` filter and `updated_at` sorting must be paired' });
    expect((await s.get('/projects', { query: { updated_before: '2020-01-01T00:00:00Z', order_by: 'name' } })).status).toBe(400);
    // Only GET /projects checks the pairing (a user's projects filter either way).
    const owner = ok(await s.get(`/projects/${open.id}`)).namespace;
    expect(owner.kind).toBe('group');
    const theirs = await s.get(`/users/${viewer.user.id}/projects`, { query: { updated_after: '2020-01-01T00:00:00Z' } });
    expect(theirs.status).toBe(200);
  });

  it('a range few projects meet reads their own index and sorts them, not the order walked (last_activity_at, updated_at)', async () => {
    sql('UPDATE projects SET last_activity_at = ?, updated_at = ? WHERE id = ?', '2090-01-01T00:00:00.000Z', '2090-01-01T00:00:00.000Z', privateMrs.id);
    sql('UPDATE projects SET last_activity_at = ?, updated_at = ? WHERE id = ?', '2090-02-01T00:00:00.000Z', '2090-02-01T00:00:00.000Z', privateIssues.id);
    const byPath = [privateMrs, privateIssues].sort((a, b) => (a.path < b.path ? 1 : a.path > b.path ? -1 : b.id - a.id)).map((p) => p.id);
    const cases: [Record<string, unknown>, number[], RegExp][] = [
      [{ order_by: 'path', last_activity_after: '2089-12-31T00:00:00Z' }, byPath, /projects_last_activity \(last_activity_at>\?\)/],
      [{ order_by: 'name', sort: 'asc', last_activity_after: '2090-01-15T00:00:00Z' }, [privateIssues.id], /projects_last_activity \(last_activity_at>\?\)/],
      [{ last_activity_before: '2000-01-01T00:00:00Z' }, [], /projects_last_activity \(last_activity_at<\?\)/],
      [{ order_by: 'updated_at', updated_after: '2089-12-31T00:00:00Z', sort: 'asc' }, [privateMrs.id, privateIssues.id], /projects_updated \(updated_at>\?\)/],
      // Read in two parts (starCountRows), counted (page 2 of 1) from the range's index too.
      [{ order_by: 'star_count', last_activity_after: '2089-12-31T00:00:00Z', per_page: 1, page: 2 }, [privateMrs.id], /projects_last_activity \(last_activity_at>\?\)/],
    ];
    let n = 0;
    for (const [query, want, index] of cases) {
      // A page size not asked before: nothing kept answers it.
      const perPage = 30 + ++n;
      let res: any;
      const statements = await preparedBy(s, async () => (res = await s.get('/projects', { query: { per_page: perPage, ...query } })));
      expect(res.status).toBe(200);
      expect(ids(res.body), JSON.stringify(query)).toEqual(want);
      expect(res.headers.get('x-total')).toBe(String(query.page === 2 ? 2 : want.length));
      const reads = statements.filter((q) => /^SELECT p\.id AS id FROM projects p WHERE/.test(q) && /ORDER BY/.test(q));
      const counts = statements.filter((q) => /^SELECT count\(\*\) AS n FROM \(SELECT 1 FROM projects p WHERE/.test(q));
      expect(reads.length, JSON.stringify(query)).toBeGreaterThan(0);
      expect(counts.length, JSON.stringify(query)).toBeGreaterThan(0);
      const plan = (q: string) => queryPlan(s.service.context.db, q, ...Array(q.split('?').length - 1).fill('2090-01-01T00:00:00.000Z'));
      // No statement walks the table; the counts and the rows read in the list's order search the range.
      for (const q of [...reads, ...counts]) expect(plan(q), `${JSON.stringify(query)} ${q}`).not.toMatch(/SCAN p( |$)/m);
      for (const q of [...reads.filter((r) => !/p\.id IN \(SELECT project_id FROM project_stars\)/.test(r)), ...counts]) expect(plan(q), `${JSON.stringify(query)} ${q}`).toMatch(index);
    }
    sql('UPDATE projects SET last_activity_at = ?, updated_at = ? WHERE id IN (?, ?)', '2020-03-01T00:00:00.000Z', '2020-03-01T00:00:00.000Z', privateMrs.id, privateIssues.id);
  });

  it('statistics orders: an administrator\'s by size; anyone else gets created_at', async () => {
    sql('INSERT INTO project_statistics (project_id, commit_count, repository_size, refreshed_at) VALUES (?, 1, 5000, ?), (?, 1, 9000, ?)', open.id, 'x', privateMrs.id, 'x');
    expect(await listed({ order_by: 'repository_size' }, ROOT)).toEqual([privateMrs.id, open.id, privateIssues.id, noIssues.id]);
    expect(await listed({ order_by: 'storage_size', sort: 'asc' }, ROOT)).toEqual([noIssues.id, privateIssues.id, open.id, privateMrs.id]);
    expect(await listed({ order_by: 'repository_size' }, viewer.token)).toEqual([...mine].reverse());
    expect(await listed({ order_by: 'wiki_size', sort: 'asc' }, viewer.token)).toEqual(mine);
    expect((await s.get('/projects', { query: { order_by: 'lfs_objects_size' } })).body).toEqual({ error: 'order_by does not have a valid value' });
    sql('DELETE FROM project_statistics WHERE project_id IN (?, ?)', open.id, privateMrs.id);
  });
});

describe('statistics=true', () => {
  it('shows commits and sizes to Reporters and up, on the project, its lists and its group\'s list, kept fresh by pushes', async () => {
    const owner = await s.createUser();
    const guest = await s.createUser();
    const g = await s.createGroup({ visibility: 'public' });
    await s.addMember('groups', g.id, owner.user.id, 50);
    const p = ok(await s.post('/projects', { name: 'stats', namespace_id: g.id, visibility: 'public', initialize_with_readme: true }, { token: owner.token }));
    await s.addMember('projects', p.id, guest.user.id, 10);
    const get = (token?: string | null) => s.get(`/projects/${p.id}`, { token, query: { statistics: true } });
    const first = ok(await get(owner.token));
    const keys = Object.keys(first);
    expect(keys.slice(keys.indexOf('issue_branch_template'), keys.indexOf('issue_branch_template') + 3)).toEqual([
      'issue_branch_template',
      'statistics',
      'warn_about_potentially_unwanted_characters',
    ]);
    expect(Object.keys(first.statistics)).toEqual([
      'commit_count', 'storage_size', 'repository_size', 'wiki_size', 'lfs_objects_size', 'job_artifacts_size',
      'pipeline_artifacts_size', 'packages_size', 'snippets_size', 'uploads_size', 'container_registry_size',
    ]);
    expect(first.statistics.commit_count).toBe(1);
    expect(first.statistics.repository_size).toBeGreaterThan(0);
    expect(first.statistics.repository_size % 1024).toBe(0);
    expect(first.statistics.uploads_size).toBe(0);
    expect(first.statistics.storage_size).toBe(first.statistics.repository_size);

    // A commit moves the count and the size; a snippet and an upload add their bytes.
    const commit = { branch: 'main', commit_message: 'more', actions: [{ action: 'create', file_path: 'big.txt', content: 'x'.repeat(50_000) + Math.random() }] };
    expect((await s.post(`/projects/${p.id}/repository/commits`, commit, { token: owner.token })).status).toBe(201);
    ok(await s.post(`/projects/${p.id}/snippets`, { title: 't', visibility: 'public', file_name: 'a.txt', content: 'hello' }, { token: owner.token }));
    const fd = new FormData();
    fd.append('file', new Blob([new Uint8Array(321)]), 'f.bin');
    expect((await s.post(`/projects/${p.id}/uploads`, undefined, { multipart: fd, token: owner.token })).status).toBe(201);
    const after = ok(await get(owner.token)).statistics;
    expect(after.commit_count).toBe(2);
    expect(after.repository_size).toBeGreaterThan(first.statistics.repository_size);
    expect(after.snippets_size).toBe(5);
    expect(after.uploads_size).toBe(321);
    expect(after.storage_size).toBe(after.repository_size + 5 + 321);

    // Below Reporter, anonymous, or without the parameter: no statistics key.
    expect('statistics' in ok(await get(guest.token))).toBe(false);
    expect('statistics' in ok(await get(null))).toBe(false);
    expect('statistics' in ok(await s.get(`/projects/${p.id}`, { token: owner.token }))).toBe(false);

    // Lists: the same object on each row the viewer may read it of; none on `simple`.
    const row = (rows: any[]) => rows.find((r) => r.id === p.id);
    expect(row(ok(await s.get('/projects', { token: owner.token, query: { statistics: true, membership: true } }))).statistics).toEqual(after);
    expect(row(ok(await s.get(`/groups/${g.id}/projects`, { token: owner.token, query: { statistics: true } }))).statistics).toEqual(after);
    expect('statistics' in row(ok(await s.get(`/groups/${g.id}/projects`, { token: guest.token, query: { statistics: true } })))).toBe(false);
    expect('statistics' in row(ok(await s.get('/projects', { token: owner.token, query: { statistics: true, simple: true, membership: true } })))).toBe(false);
  });

  it('a push marks them stale without measuring; the next read measures', async () => {
    const p = await s.createProject({ initialize_with_readme: true });
    const first = ok(await s.get(`/projects/${p.id}`, { query: { statistics: true } })).statistics;
    const kept = () => s.service.context.db.prepare('SELECT commit_count, stale FROM project_statistics WHERE project_id = ?').get(p.id);
    expect(kept()).toEqual({ commit_count: 1, stale: 0 });
    const commit = { branch: 'main', commit_message: 'two', actions: [{ action: 'create', file_path: 'b.txt', content: 'b' }] };
    expect((await s.post(`/projects/${p.id}/repository/commits`, commit)).status).toBe(201);
    expect(kept()).toEqual({ commit_count: 1, stale: 1 });
    expect(ok(await s.get(`/projects/${p.id}`, { query: { statistics: true } })).statistics.commit_count).toBe(first.commit_count + 1);
    expect(kept()).toEqual({ commit_count: 2, stale: 0 });
  });

  it('a repository from before project statistics were kept is measured on its first read', async () => {
    const p = await s.createProject({ initialize_with_readme: true });
    sql('DELETE FROM project_statistics WHERE project_id = ?', p.id);
    const stats = ok(await s.get(`/projects/${p.id}`, { query: { statistics: true } })).statistics;
    expect(stats.commit_count).toBe(1);
    expect(stats.repository_size).toBeGreaterThan(0);
    const kept = s.service.context.db.prepare('SELECT commit_count, repository_size FROM project_statistics WHERE project_id = ?').get(p.id);
    expect(kept).toEqual({ commit_count: 1, repository_size: stats.repository_size });
    // A project without a repository: zeros, nothing kept.
    const bare = await s.createProject();
    expect(ok(await s.get(`/projects/${bare.id}`, { query: { statistics: true } })).statistics.commit_count).toBe(0);
  });
});

describe('group statistics', () => {
  it('an administrator\'s group list sums its own projects\' statistics (not its subgroups\'); nobody else gets them', async () => {
    const member = await s.createUser();
    const g = await s.createGroup({ visibility: 'public' });
    const sub = await s.createGroup({ parent_id: g.id, visibility: 'public' });
    await s.addMember('groups', g.id, member.user.id, 50);
    const a = await s.createProject({ namespace_id: g.id, initialize_with_readme: true });
    const b = await s.createProject({ namespace_id: g.id });
    const c = await s.createProject({ namespace_id: sub.id, initialize_with_readme: true });
    ok(await s.post(`/projects/${b.id}/snippets`, { title: 't', visibility: 'public', file_name: 'a.txt', content: 'héllo' }));
    const size = (id: number) => (s.service.context.db.prepare('SELECT repository_size FROM project_statistics WHERE project_id = ?').get(id) as any).repository_size;
    // The subgroup's project measured (its own statistics read), and left out of the group's sums.
    expect(ok(await s.get(`/projects/${c.id}`, { query: { statistics: true } })).statistics.repository_size).toBe(size(c.id));
    expect(size(c.id)).toBeGreaterThan(0);
    const rows = ok(await s.get('/groups', { query: { statistics: true, search: g.path } }));
    expect(size(a.id)).toBeGreaterThan(0);
    const keys = Object.keys(rows[0]);
    expect(keys[keys.indexOf('max_artifacts_size') + 1]).toBe('statistics');
    expect(rows[0].statistics).toEqual({
      storage_size: size(a.id) + 6,
      repository_size: size(a.id),
      wiki_size: 0,
      lfs_objects_size: 0,
      job_artifacts_size: 0,
      pipeline_artifacts_size: 0,
      packages_size: 0,
      snippets_size: 6,
      uploads_size: 0,
    });
    expect('statistics' in ok(await s.get('/groups', { token: member.token, query: { statistics: true, search: g.path } }))[0]).toBe(false);
    expect('statistics' in ok(await s.get(`/groups/${g.id}`, { query: { statistics: true } }))).toBe(false);
  });
});
