import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, runPython, runRacadabra, startServe } from './harness';

let served: Served;
beforeAll(async () => {
  served = await startServe();
});
afterAll(async () => served?.stop());

// Debian's gitlabracadabra 1.12: a declarative GitOps tool on python-gitlab. Applying the same
// configuration twice must find nothing to change the second time.
describe('gitlabracadabra against a live Sandlab', () => {
  const config = `
ops/:
  create_object: true
  name: Ops
  description: Managed by gitlabracadabra
  visibility: private
  request_access_enabled: false
ops/platform/:
  create_object: true
  name: Platform
  description: Platform team
ops/platform/deployer:
  create_object: true
  description: Deploys things
  visibility: private
  default_branch: main
  request_access_enabled: false
  labels:
    - name: bug
      color: '#ff0000'
      description: Something is broken
`;

  it('creates a group, a subgroup and a project inside it', () => {
    runRacadabra(served, config);
    const out = runPython(
      served,
      `
p = gl.projects.get("ops/platform/deployer")
g = gl.groups.get("ops")
print(json.dumps({"project": p.description, "request_access": p.request_access_enabled, "group": g.description,
  "labels": [(l.name, l.color, l.description) for l in p.labels.list()]}))`,
    );
    expect(out).toEqual({ project: 'Deploys things', request_access: false, group: 'Managed by gitlabracadabra', labels: [['bug', '#ff0000', 'Something is broken']] });
  });

  it('finds nothing to change when applied again', () => {
    const output = runRacadabra(served, config);
    expect(output).not.toMatch(/Changing|Creating|Adding|Deleting/i);
  });

  // Every project and group setting gitlabracadabra manages, each away from its default: the
  // second run must read back exactly what the first one wrote.
  const settingsConfig = `
settings/:
  create_object: true
  name: Settings
  description: Every group setting
  visibility: internal
  request_access_enabled: false
  share_with_group_lock: true
  emails_disabled: true
  lfs_enabled: false
  project_creation_level: maintainer
  subgroup_creation_level: owner
  require_two_factor_authentication: true
  two_factor_grace_period: 24
  membership_lock: true
  auto_devops_enabled: false
  shared_runners_minutes_limit: 400
  extra_shared_runners_minutes_limit: 100
settings/everything:
  create_object: true
  description: Every project setting
  visibility: internal
  request_access_enabled: false
  tag_list: [infra, ops]
  issues_access_level: private
  repository_access_level: private
  merge_requests_access_level: private
  forking_access_level: disabled
  builds_access_level: private
  container_registry_enabled: false
  lfs_enabled: false
  packages_enabled: false
  wiki_access_level: disabled
  snippets_access_level: private
  squash_option: always
  pages_access_level: disabled
  emails_disabled: true
  merge_method: ff
  resolve_outdated_diff_discussions: true
  printing_merge_request_link_enabled: false
  remove_source_branch_after_merge: false
  only_allow_merge_if_pipeline_succeeds: true
  allow_merge_on_skipped_pipeline: true
  only_allow_merge_if_all_discussions_are_resolved: true
  suggestion_commit_message: 'Apply %{suggestions_count} suggestions'
  approvals_before_merge: 2
  autoclose_referenced_issues: false
  build_git_strategy: clone
  ci_default_git_depth: 10
  build_timeout: 7200
  ci_config_path: ci/main.yml
  auto_cancel_pending_pipelines: disabled
  auto_devops_enabled: true
  auto_devops_deploy_strategy: timed_incremental
  shared_runners_enabled: false
`;

  it('applies every project and group setting, then finds nothing to change', () => {
    const first = runRacadabra(served, settingsConfig);
    expect(first).toMatch(/Changing param merge_method/);
    const out = runPython(
      served,
      `
p = gl.projects.get("settings/everything")
g = gl.groups.get("settings")
print(json.dumps({"merge_method": p.merge_method, "wiki": p.wiki_access_level, "timeout": p.build_timeout, "topics": sorted(p.topics),
  "group_2fa": g.require_two_factor_authentication, "creation": g.project_creation_level, "minutes": g.shared_runners_minutes_limit}))`,
    );
    expect(out).toEqual({ merge_method: 'ff', wiki: 'disabled', timeout: 7200, topics: ['infra', 'ops'], group_2fa: true, creation: 'maintainer', minutes: 400 });
    const second = runRacadabra(served, settingsConfig);
    expect(second).not.toMatch(/Changing|Creating|Adding|Deleting|NOT Changing/i);
  });

  // Group labels, the seed's area gitlabracadabra manages: it lists them (ancestors' too, as GitLab's
  // include_ancestor_groups defaults to true), creates, edits through the deprecated PUT with `name`
  // and deletes by name. A CSS color name reads back as hex (Gitlab::Color.of), so against GitLab too
  // it shows a change on every run.
  it('manages group labels: creates, finds nothing to change, edits and deletes unknown ones', () => {
    const labels = (extra: string): string => `
labelled/:
  create_object: true
  name: Labelled
${extra}
labelled/team/:
  create_object: true
  name: Team
  labels:
    - name: team-only
      color: '#0000ff'
      description: Team label
`;
    const first = `  labels:
    - name: bug
      color: '#ff0000'
      description: Something is broken
    - name: feature request
      color: '#00ff00'
    - name: stale
      color: '#cccccc'
    - name: named
      color: lightblue`;
    const created = runRacadabra(served, labels(first));
    expect(created).toMatch(/\[labelled\] Adding label feature request/);
    expect(created).toMatch(/\[labelled\/team\] NOT Removing label: bug/);
    const again = runRacadabra(served, labels(first));
    expect(again.match(/^INFO.*(Changing|Adding|Removing).*$/gm)).toEqual([expect.stringContaining('[labelled] Changing label named color: #ADD8E6 -> lightblue')]);
    const edited = runRacadabra(
      served,
      labels(`  unknown_labels: delete
  labels:
    - name: bug
      color: '#aa0000'
      description: Broken, really
    - name: feature request
      color: '#00ff00'
      description: Wanted`),
    );
    expect(edited).toMatch(/\[labelled\] Removing label stale/);
    const out = runPython(
      served,
      `
g = gl.groups.get("labelled")
t = gl.groups.get("labelled/team")
print(json.dumps({"group": sorted((l.name, l.color, l.description) for l in g.labels.list()),
  "team": sorted(l.name for l in t.labels.list()), "team_only": [l.name for l in t.labels.list(include_ancestor_groups=False)]}))`,
    );
    expect(out).toEqual({
      group: [
        ['bug', '#aa0000', 'Broken, really'],
        ['feature request', '#00ff00', 'Wanted'],
      ],
      team: ['bug', 'feature request', 'team-only'],
      team_only: ['team-only'],
    });
  });
});
