import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, runRuby, startServe } from './harness';

let served: Served;
beforeAll(async () => {
  served = await startServe();
});
afterAll(async () => served?.stop());

// Debian's ruby-gitlab 4.17 (the `gitlab` gem), unchanged.
describe('the Ruby gitlab gem: branches, files and a merge request with a diff discussion', () => {
  it('reads the changes and versions, comments on a diff line (position as form fields) and accepts the merge request', () => {
    const out = runRuby(
      served,
      `
p = gl.create_project("ruby-mr", initialize_with_readme: true)
gl.create_branch(p.id, "topic", "main")
gl.create_file(p.id, "lib/topic.rb", "topic", "one\\ntwo\\n", "Add topic")
mr = gl.create_merge_request(p.id, "Topic", source_branch: "topic", target_branch: "main")
changes = gl.merge_request_changes(p.id, mr.iid)
versions = gl.merge_request_diff_versions(p.id, mr.iid)
version = gl.merge_request_diff_version(p.id, mr.iid, versions.first.id)
refs = changes.diff_refs
position = { base_sha: refs.base_sha, start_sha: refs.start_sha, head_sha: refs.head_sha, position_type: "text", old_path: "lib/topic.rb", new_path: "lib/topic.rb", new_line: 2 }
discussion = gl.create_merge_request_discussion(p.id, mr.iid, body: "Why two?", position: position)
refused = begin
  gl.create_merge_request_discussion(p.id, mr.iid, body: "Nowhere", position: position.merge(new_line: 9))
  nil
rescue Gitlab::Error::BadRequest => e
  e.response_status
end
merged = gl.accept_merge_request(p.id, mr.iid, should_remove_source_branch: true)
puts JSON.generate(
  changes: changes.changes.map { |c| c["new_path"] },
  versions: versions.map(&:real_size),
  version_commits: version.commits.map { |c| c["title"] },
  note_type: discussion.notes.first["type"],
  note_line: discussion.notes.first["position"]["new_line"],
  refused: refused,
  state: merged.state,
  commits_on_main: gl.commits(p.id, ref_name: "main").map(&:title).sort
)`,
    );
    expect(out).toEqual({
      changes: ['lib/topic.rb'],
      versions: ['1'],
      version_commits: ['Add topic'],
      note_type: 'DiffNote',
      note_line: 2,
      refused: 400,
      state: 'merged',
      commits_on_main: ['Add topic', 'Initial commit', "Merge branch 'topic' into 'main'"],
    });
  });
});
