import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, runPython, startServe } from './harness';

let served: Served;
beforeAll(async () => {
  served = await startServe();
});
afterAll(async () => served?.stop());

describe('python-gitlab 3.12: repository, branches and merge requests (its functional flows)', () => {
  it('files on an empty project, a branch, a merge request with its changes, commits, diffs, rebase, merge_ref and merge', () => {
    const out = runPython(
      served,
      `
project = gl.projects.create({"name": "mr-flow"})
project.files.create({"file_path": "README.rst", "branch": "main", "content": "Initial content", "commit_message": "Initial commit"})
source = "branch-merge-request-api"
project.branches.create({"branch": source, "ref": "main"})
project.files.create({"file_path": "README2.rst", "branch": source, "content": "Initial content", "commit_message": "New commit in new branch"})
mr = project.mergerequests.create({"source_branch": source, "target_branch": "main", "title": "MR readme2", "remove_source_branch": True})
mr = project.mergerequests.get(mr.iid)
commits = [c.title for c in mr.commits()]
changes = mr.changes()
diffs = mr.diffs.list()
version = mr.diffs.get(diffs[0].id)
rebase = mr.rebase()
merge_ref = mr.merge_ref()
mr.merge(should_remove_source_branch=True)
mr = project.mergerequests.get(mr.iid)
try:
    mr.merge()
    second = "merged twice"
except gitlab.GitlabMRClosedError as e:
    second = e.response_code
try:
    project.branches.get(source)
    branch_left = True
except gitlab.exceptions.GitlabGetError:
    branch_left = False
main_files = sorted(f["path"] for f in project.repository_tree(ref="main"))
print(json.dumps({
    "commits": commits,
    "changes": [c["new_path"] for c in changes["changes"]],
    "diff_refs": sorted(mr.diff_refs.keys()),
    "versions": len(diffs),
    "version_diffs": [d["new_path"] for d in version.diffs],
    "rebase": rebase,
    "merge_ref": len(merge_ref["commit_id"]),
    "state": mr.state,
    "merged_at": mr.merged_at is not None,
    "second": second,
    "branch_left": branch_left,
    "main_files": main_files,
}))
`,
    );
    expect(out).toEqual({
      commits: ['New commit in new branch'],
      changes: ['README2.rst'],
      diff_refs: ['base_sha', 'head_sha', 'start_sha'],
      versions: 1,
      version_diffs: ['README2.rst'],
      rebase: { rebase_in_progress: false },
      merge_ref: 40,
      state: 'merged',
      merged_at: true,
      second: 405,
      branch_left: false,
      main_files: ['README.rst', 'README2.rst'],
    });
  });

  it('merges with a very long merge_commit_message and keeps the branch when asked', () => {
    const out = runPython(
      served,
      `
project = gl.projects.create({"name": "long-message", "initialize_with_readme": True})
project.branches.create({"branch": "topic", "ref": "main"})
project.files.create({"file_path": "README.topic", "branch": "topic", "content": "Initial content", "commit_message": "New commit in new branch"})
mr = project.mergerequests.create({"source_branch": "topic", "target_branch": "main", "title": "Should remove source branch", "remove_source_branch": True})
message = "large_message\\r\\n" * 1000
mr.merge(merge_commit_message=message, should_remove_source_branch=False)
mr = project.mergerequests.get(mr.iid)
commit = project.commits.get(mr.merge_commit_sha)
branch = project.branches.get("topic")
print(json.dumps({"merged": mr.merged_at is not None, "length": len(commit.message), "branch": branch.name}))
`,
    );
    expect(out).toEqual({ merged: true, length: 'large_message\r\n'.length * 1000, branch: 'topic' });
  });
});
