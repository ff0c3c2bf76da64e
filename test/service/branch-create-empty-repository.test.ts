import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok, TestService } from '../helpers/service';

/**
 * POST /projects/:id/repository/branches on a project without a commit yet: GitLab's
 * Branches::CreateService (create_default_branch_if_empty) first commits an empty README.md on
 * the default branch ("Add README.md", by the caller), then validates the name and makes the
 * branch, so `ref: main` works on a new project (python-gitlab's test_branch_name_with_period).
 */
let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
}, 60_000);
afterAll(async () => s?.stop());

describe('creating a branch in an empty repository', () => {
  it('commits an empty README.md on the default branch first, then branches from it', async () => {
    const project = await s.createProject({ name: 'empty-branch' });
    expect(project.empty_repo).toBe(true);
    const res = await s.post(`/projects/${project.id}/repository/branches`, { branch: 'my.branch.name', ref: 'main' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'my.branch.name', default: false, commit: { title: 'Add README.md', author_name: 'Administrator', parent_ids: [] } });
    const main = ok(await s.get(`/projects/${project.id}/repository/branches/main`)) as { default: boolean; commit: { id: string } };
    expect(main).toMatchObject({ default: true, commit: { id: (res.body as { commit: { id: string } }).commit.id } });
    const tree = ok(await s.get(`/projects/${project.id}/repository/tree`)) as { path: string }[];
    expect(tree.map((e) => e.path)).toEqual(['README.md']);
    const raw = await s.get(`/projects/${project.id}/repository/files/README.md/raw`, { query: { ref: 'main' } });
    expect(raw.status).toBe(200);
    expect(raw.text).toBe('');
    expect(ok(await s.get(`/projects/${project.id}`))).toMatchObject({ empty_repo: false, default_branch: 'main' });
    expect(ok(await s.get(`/projects/${project.id}/repository/branches/my.branch.name`))).toMatchObject({ name: 'my.branch.name' });
  });

  it('the README comes first even when the branch is then refused', async () => {
    const project = await s.createProject({ name: 'empty-branch-bad-ref' });
    const res = await s.post(`/projects/${project.id}/repository/branches`, { branch: 'feature', ref: 'no-such-ref' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'Invalid reference name: no-such-ref' });
    const branches = ok(await s.get(`/projects/${project.id}/repository/branches`)) as { name: string }[];
    expect(branches.map((b) => b.name)).toEqual(['main']);
  });

  it('a repository with commits is left as it is', async () => {
    const project = await s.createProject({ name: 'full-branch', initialize_with_readme: true });
    const before = ok(await s.get(`/projects/${project.id}/repository/commits`)) as { id: string }[];
    ok(await s.post(`/projects/${project.id}/repository/branches`, { branch: 'feature', ref: 'main' }));
    const after = ok(await s.get(`/projects/${project.id}/repository/commits`, { query: { ref_name: 'feature' } })) as { id: string }[];
    expect(after.map((c) => c.id)).toEqual(before.map((c) => c.id));
  });
});
