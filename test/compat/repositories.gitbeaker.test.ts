import { Gitlab } from '@gitbeaker/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, startServe } from './harness';

let served: Served;
let api: InstanceType<typeof Gitlab>;
beforeAll(async () => {
  served = await startServe();
  api = new Gitlab({ host: served.url, token: served.token });
});
afterAll(async () => served?.stop());

describe('@gitbeaker/rest 43: Repositories, RepositoryFiles, Commits, Branches and MergeRequests', () => {
  it('commits files on a branch, opens a merge request, reads its diffs and versions, squashes and merges it', async () => {
    const project = await api.Projects.create({ name: 'gb-repo', initializeWithReadme: true });
    await api.Branches.create(project.id, 'feature', 'main');
    await api.RepositoryFiles.create(project.id, 'src/app.ts', 'feature', 'export const one = 1;\n', 'Add app');
    await api.Commits.create(project.id, 'feature', 'Two more files', [
      { action: 'create', filePath: 'docs/a.md', content: '# A\n' },
      { action: 'update', filePath: 'src/app.ts', content: 'export const one = 1;\nexport const two = 2;\n' },
    ]);
    const file = await api.RepositoryFiles.show(project.id, 'src/app.ts', 'feature');
    expect(Buffer.from(file.content, 'base64').toString()).toContain('two = 2');
    const tree = await api.Repositories.allRepositoryTrees(project.id, { ref: 'feature', recursive: true });
    expect(tree.filter((e) => e.type === 'blob').map((e) => e.path)).toEqual(['README.md', 'docs/a.md', 'src/app.ts']);

    const mr = await api.MergeRequests.create(project.id, 'feature', 'main', 'Add the app');
    expect(mr.diff_refs).toMatchObject({ head_sha: (await api.Branches.show(project.id, 'feature')).commit.id });
    const commits = await api.MergeRequests.allCommits(project.id, mr.iid);
    expect(commits.map((c) => c.title)).toEqual(['Two more files', 'Add app']);
    const diffs = await api.MergeRequests.allDiffs(project.id, mr.iid);
    expect(diffs.map((d) => d.new_path)).toEqual(['docs/a.md', 'src/app.ts']);
    const changes = await api.MergeRequests.showChanges(project.id, mr.iid);
    expect((changes.changes as { new_path: string }[]).map((c) => c.new_path)).toEqual(['docs/a.md', 'src/app.ts']);
    const versions = await api.MergeRequests.allDiffVersions(project.id, mr.iid);
    expect(versions).toHaveLength(1);
    const version = await api.MergeRequests.showDiffVersion(project.id, mr.iid, versions[0].id as number);
    expect((version.commits as { id: string }[]).map((c) => c.id)).toEqual(commits.map((c) => c.id));

    const base = await api.Repositories.mergeBase(project.id, ['main', 'feature']);
    const merged = await api.MergeRequests.accept(project.id, mr.iid, { squash: true, squashCommitMessage: 'The app', shouldRemoveSourceBranch: true });
    expect(merged).toMatchObject({ state: 'merged', squash: true });
    const squash = await api.Commits.show(project.id, merged.squash_commit_sha as string);
    expect(squash).toMatchObject({ message: 'The app', parent_ids: [base.id] });
    const main = await api.Commits.all(project.id, { refName: 'main' });
    expect(main[0].id).toBe(merged.merge_commit_sha);
    await expect(api.Branches.show(project.id, 'feature')).rejects.toMatchObject({ cause: { response: { status: 404 } } });
  });
});
