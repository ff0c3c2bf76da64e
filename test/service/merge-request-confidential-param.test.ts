import { afterAll, beforeAll, expect, it } from 'vitest';
import { ok, TestService } from '../helpers/service';

/**
 * `confidential` on merge request lists: GitLab's merge request API does not declare it
 * (API::Helpers::MergeRequestsHelpers merge_requests_base_params), find_merge_requests passes only
 * declared params to MergeRequestsFinder, and by_confidential is IssuesFinder's (and EpicsFinder's)
 * alone. So any value, even one that is no boolean, answers the list without it: same rows, same
 * headers.
 */
let s: TestService;
let group: { id: number };
let project: { id: number };

beforeAll(async () => {
  s = await TestService.start();
  group = await s.createGroup({ path: 'mrconf', visibility: 'public' });
  project = await s.createProject({ name: 'mrconf-p', namespace_id: group.id, visibility: 'public', initialize_with_readme: true });
  for (const b of ['one', 'two', 'three']) {
    ok(await s.post(`/projects/${project.id}/repository/branches`, { branch: b, ref: 'main' }));
    ok(await s.post(`/projects/${project.id}/merge_requests`, { title: `mr ${b}`, source_branch: b, target_branch: 'main' }));
  }
  ok(await s.post(`/projects/${project.id}/issues`, { title: 'secret', confidential: true }));
}, 60_000);
afterAll(async () => s?.stop());

it('is ignored by project, group and instance merge request lists (rows and headers as without it)', async () => {
  for (const path of [`/projects/${project.id}/merge_requests`, `/groups/${group.id}/merge_requests`, '/merge_requests']) {
    const base = { scope: 'all', per_page: '2' };
    const plain = await s.get(path, { query: base });
    expect(plain.status).toBe(200);
    expect((plain.body as { title: string }[]).map((m) => m.title)).toEqual(['mr three', 'mr two']);
    for (const confidential of ['true', 'false', 'maybe']) {
      const res = await s.get(path, { query: { ...base, confidential } });
      expect(res.status, `${path} confidential=${confidential}`).toBe(200);
      expect(res.body).toEqual(plain.body);
      for (const h of ['x-total', 'x-total-pages', 'x-next-page', 'x-page', 'x-per-page']) expect(res.headers.get(h), h).toBe(plain.headers.get(h));
    }
  }
  // Issues do filter by it (IssuesFinder#by_confidential).
  const issues = ok(await s.get(`/projects/${project.id}/issues`, { query: { confidential: 'false' } })) as unknown[];
  expect(issues).toEqual([]);
});
