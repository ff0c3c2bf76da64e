import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s.stop());

/**
 * What PUT /projects/:id accepts (doc/api/projects.md, "Edit a project"), each with a value that
 * differs from a new project's, and what GET /projects/:id reads back.
 */
const PROJECT_WRITES: Record<string, unknown> = {
  description: 'Round trip',
  request_access_enabled: false,
  topics: ['ops', 'infra'],
  issues_access_level: 'private',
  repository_access_level: 'private',
  merge_requests_access_level: 'private',
  forking_access_level: 'disabled',
  wiki_access_level: 'disabled',
  builds_access_level: 'private',
  snippets_access_level: 'disabled',
  pages_access_level: 'public',
  package_registry_access_level: 'private',
  analytics_access_level: 'private',
  container_registry_access_level: 'private',
  security_and_compliance_access_level: 'disabled',
  releases_access_level: 'private',
  environments_access_level: 'private',
  feature_flags_access_level: 'private',
  infrastructure_access_level: 'private',
  monitor_access_level: 'private',
  model_experiments_access_level: 'private',
  model_registry_access_level: 'private',
  requirements_access_level: 'private',
  lfs_enabled: false,
  emails_enabled: false,
  show_default_award_emojis: false,
  show_diff_preview_in_email: false,
  warn_about_potentially_unwanted_characters: false,
  enforce_auth_checks_on_uploads: false,
  service_desk_enabled: true,
  shared_runners_enabled: false,
  group_runners_enabled: false,
  public_jobs: false,
  resolve_outdated_diff_discussions: true,
  remove_source_branch_after_merge: false,
  printing_merge_request_link_enabled: false,
  only_allow_merge_if_pipeline_succeeds: true,
  allow_merge_on_skipped_pipeline: true,
  only_allow_merge_if_all_discussions_are_resolved: true,
  autoclose_referenced_issues: false,
  mr_default_target_self: true,
  merge_method: 'ff',
  squash_option: 'always',
  suggestion_commit_message: 'Apply %{suggestions_count} suggestions',
  merge_commit_template: 'Merge %{source_branch}',
  squash_commit_template: '%{title}',
  issue_branch_template: 'feature-%{id}',
  merge_request_title_regex: '^(feat|fix):',
  merge_request_title_regex_description: 'Conventional commits',
  ci_config_path: 'ci/pipeline.yml',
  build_git_strategy: 'clone',
  build_timeout: 7200,
  auto_cancel_pending_pipelines: 'disabled',
  auto_devops_enabled: true,
  auto_devops_deploy_strategy: 'manual',
  resource_group_default_process_mode: 'oldest_first',
  ci_default_git_depth: 50,
  keep_latest_artifact: false,
  ci_forward_deployment_enabled: false,
  ci_forward_deployment_rollback_allowed: false,
  ci_allow_fork_pipelines_to_run_in_parent_project: false,
  ci_separated_caches: false,
  restrict_user_defined_variables: true,
  ci_pipeline_variables_minimum_override_role: 'maintainer',
  ci_push_repository_for_job_token_allowed: true,
  ci_id_token_sub_claim_components: ['project_path', 'ref_type'],
  ci_delete_pipelines_in_seconds: 86400,
  max_artifacts_size: 50,
  approvals_before_merge: 2,
  merge_pipelines_enabled: true,
  merge_trains_enabled: true,
  merge_trains_skip_train_allowed: true,
  only_allow_merge_if_all_status_checks_passed: true,
  issues_template: 'Steps to reproduce',
  merge_requests_template: 'What changes',
};

/** What PUT /groups/:id accepts (doc/api/groups.md, "Update group attributes"). */
const GROUP_WRITES: Record<string, unknown> = {
  description: 'Round trip group',
  visibility: 'internal',
  request_access_enabled: false,
  share_with_group_lock: true,
  require_two_factor_authentication: true,
  two_factor_grace_period: 24,
  project_creation_level: 'maintainer',
  auto_devops_enabled: false,
  subgroup_creation_level: 'owner',
  emails_enabled: false,
  show_diff_preview_in_email: false,
  mentions_disabled: true,
  lfs_enabled: false,
  default_branch: 'trunk',
  shared_runners_setting: 'disabled_and_overridable',
  enabled_git_access_protocol: 'http',
  prevent_sharing_groups_outside_hierarchy: true,
  lock_math_rendering_limits_enabled: true,
  math_rendering_limits_enabled: false,
  max_artifacts_size: 30,
  membership_lock: true,
  prevent_forking_outside_group: true,
  wiki_access_level: 'private',
  shared_runners_minutes_limit: 400,
  extra_shared_runners_minutes_limit: 100,
};

describe('PUT /projects/:id round trip', () => {
  it('stores every setting it accepts and reads each back from GET', async () => {
    const p = await s.createProject({ visibility: 'internal' });
    const put = await s.put(`/projects/${p.id}`, PROJECT_WRITES);
    expect(put.status).toBe(200);
    const got = await s.get(`/projects/${p.id}`);
    for (const [name, value] of Object.entries(PROJECT_WRITES)) expect([name, got.body[name]]).toEqual([name, value]);
    expect(put.body).toEqual(got.body);
    // The deprecated names read the current ones.
    expect(got.body).toMatchObject({
      issues_enabled: true,
      wiki_enabled: false,
      snippets_enabled: false,
      container_registry_enabled: true,
      emails_disabled: true,
      packages_enabled: true,
    });
  });

  it('starts a new project with GitLab defaults', async () => {
    const p = await s.createProject({ visibility: 'public' });
    expect(p).toMatchObject({
      issues_access_level: 'enabled',
      forking_access_level: 'enabled',
      pages_access_level: 'enabled',
      security_and_compliance_access_level: 'private',
      merge_method: 'merge',
      squash_option: 'default_off',
      build_git_strategy: 'fetch',
      build_timeout: 3600,
      ci_default_git_depth: 20,
      shared_runners_enabled: true,
      emails_enabled: true,
      emails_disabled: false,
      auto_devops_enabled: true,
      approvals_before_merge: 0,
      ci_config_path: null,
      ci_id_token_sub_claim_components: ['project_path', 'ref_type', 'ref'],
    });
    const priv = await s.createProject({ visibility: 'private' });
    expect(priv.pages_access_level).toBe('private');
  });

  it('takes the settings on create as well', async () => {
    const p = await s.createProject({ merge_method: 'rebase_merge', only_allow_merge_if_pipeline_succeeds: true, wiki_access_level: 'disabled', build_timeout: 900 });
    expect(p).toMatchObject({ merge_method: 'rebase_merge', only_allow_merge_if_pipeline_succeeds: true, wiki_access_level: 'disabled', wiki_enabled: false, build_timeout: 900 });
  });

  it('maps the deprecated feature toggles onto the access levels', async () => {
    const p = await s.createProject();
    const res = await s.put(`/projects/${p.id}`, { issues_enabled: false, jobs_enabled: false, emails_disabled: true, public_builds: false, container_registry_enabled: false });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      issues_access_level: 'disabled',
      issues_enabled: false,
      builds_access_level: 'disabled',
      jobs_enabled: false,
      emails_enabled: false,
      public_jobs: false,
      container_registry_access_level: 'disabled',
      container_registry_enabled: false,
    });
  });

  it('refuses values GitLab refuses, changing nothing', async () => {
    const p = await s.createProject();
    const bad = await s.put(`/projects/${p.id}`, { merge_method: 'squash' });
    expect(bad).toMatchObject({ status: 400, body: { error: 'merge_method does not have a valid value' } });
    const timeout = await s.put(`/projects/${p.id}`, { build_timeout: 60, description: 'not kept' });
    expect(timeout.status).toBe(400);
    expect(timeout.body).toEqual({ message: { build_timeout: ['needs to be between 10 minutes and 1 month'] } });
    const lowered = await s.put(`/projects/${p.id}`, { repository_access_level: 'private' });
    expect(lowered.body).toEqual({
      message: {
        'project_feature.merge_requests_access_level': ['cannot have higher visibility level than repository access level'],
        'project_feature.builds_access_level': ['cannot have higher visibility level than repository access level'],
      },
    });
    const level = await s.put(`/projects/${p.id}`, { repository_access_level: 'private', merge_requests_access_level: 'private', builds_access_level: 'private' });
    expect(level.status).toBe(200);
    const child = await s.put(`/projects/${p.id}`, { merge_requests_access_level: 'enabled' });
    expect(child.status).toBe(400);
    expect(child.body).toEqual({ message: { 'project_feature.merge_requests_access_level': ['cannot have higher visibility level than repository access level'] } });
    const path = await s.put(`/projects/${p.id}`, { ci_config_path: '../secret.yml' });
    expect(path.body).toEqual({ message: { ci_config_path: ['cannot include leading slash or directory traversal.'] } });
    const after = await s.get(`/projects/${p.id}`);
    expect(after.body).toMatchObject({ build_timeout: 3600, description: p.description, merge_requests_access_level: 'private', ci_config_path: null });
  });

  it('puts a setting back to its default when given null', async () => {
    const p = await s.createProject({ suggestion_commit_message: 'x' });
    expect(p.suggestion_commit_message).toBe('x');
    const res = await s.put(`/projects/${p.id}`, { suggestion_commit_message: null });
    expect(res.body.suggestion_commit_message).toBeNull();
  });

  it('takes the new project ci_config_path from the instance default', async () => {
    await s.put('/application/settings', { default_ci_config_path: 'build/.gitlab-ci.yml' });
    try {
      const p = await s.createProject();
      expect(p.ci_config_path).toBe('build/.gitlab-ci.yml');
    } finally {
      await s.put('/application/settings', { default_ci_config_path: null });
    }
  });
});

describe('PUT /groups/:id round trip', () => {
  it('stores every setting it accepts and reads each back from GET', async () => {
    const g = await s.createGroup({ visibility: 'public' });
    const put = await s.put(`/groups/${g.id}`, GROUP_WRITES);
    expect(put.status).toBe(200);
    const got = await s.get(`/groups/${g.id}`);
    for (const [name, value] of Object.entries(GROUP_WRITES)) expect([name, got.body[name]]).toEqual([name, value]);
    expect(got.body.emails_disabled).toBe(true);
  });

  it('starts a new group with GitLab defaults', async () => {
    const g = await s.createGroup();
    expect(g).toMatchObject({
      share_with_group_lock: false,
      require_two_factor_authentication: false,
      two_factor_grace_period: 48,
      project_creation_level: 'developer',
      subgroup_creation_level: 'maintainer',
      emails_enabled: true,
      emails_disabled: false,
      default_branch_protection: 2,
      default_branch_protection_defaults: {
        allowed_to_push: [{ access_level: 40 }],
        allowed_to_merge: [{ access_level: 40 }],
        allow_force_push: false,
        developer_can_initial_push: false,
      },
      shared_runners_setting: 'enabled',
      membership_lock: false,
      wiki_access_level: 'enabled',
    });
  });

  it('sets the branch protection defaults a protection level stands for', async () => {
    const g = await s.createGroup();
    const res = await s.put(`/groups/${g.id}`, { default_branch_protection: 1 });
    expect(res.body).toMatchObject({
      default_branch_protection: 1,
      default_branch_protection_defaults: { allowed_to_push: [{ access_level: 30 }], allowed_to_merge: [{ access_level: 40 }], allow_force_push: false },
    });
  });

  it('lets only administrators set CI minutes limits', async () => {
    const owner = await s.createUser();
    const g = await s.createGroup({}, owner.token);
    const res = await s.put(`/groups/${g.id}`, { shared_runners_minutes_limit: 10 }, { token: owner.token });
    expect(res.status).toBe(403);
    const ok = await s.put(`/groups/${g.id}`, { two_factor_grace_period: 12 }, { token: owner.token });
    expect(ok.body.two_factor_grace_period).toBe(12);
  });

  it('honours project_creation_level and subgroup_creation_level', async () => {
    const owner = await s.createUser();
    const dev = await s.createUser();
    const maintainer = await s.createUser();
    const g = await s.createGroup({}, owner.token);
    await s.addMember('groups', g.id, dev.user.id, 30);
    await s.addMember('groups', g.id, maintainer.user.id, 40);
    expect((await s.post('/projects', { name: 'by-dev', namespace_id: g.id }, { token: dev.token })).status).toBe(201);
    await s.put(`/groups/${g.id}`, { project_creation_level: 'maintainer', subgroup_creation_level: 'owner' }, { token: owner.token });
    const refused = await s.post('/projects', { name: 'by-dev-2', namespace_id: g.id }, { token: dev.token });
    expect(refused).toMatchObject({ status: 400, body: { message: { namespace: ['is not valid'] } } });
    expect((await s.post('/projects', { name: 'by-maintainer', namespace_id: g.id }, { token: maintainer.token })).status).toBe(201);
    const sub = await s.post('/groups', { name: 'sub', path: 'sub', parent_id: g.id }, { token: maintainer.token });
    expect(sub.status).toBe(403);
    expect((await s.post('/groups', { name: 'sub', path: 'sub', parent_id: g.id }, { token: owner.token })).status).toBe(201);
  });

  it('refuses a negative grace period, changing nothing', async () => {
    const g = await s.createGroup();
    const res = await s.put(`/groups/${g.id}`, { two_factor_grace_period: -1, description: 'not kept' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: { two_factor_grace_period: ['must be greater than or equal to 0'] } });
    expect((await s.get(`/groups/${g.id}`)).body.description).toBe(g.description);
  });
});

describe('instance settings new projects and groups follow', () => {
  it('keeps restricted visibility levels for administrators', async () => {
    const alice = await s.createUser();
    await s.put('/application/settings', { restricted_visibility_levels: ['public'] });
    try {
      const project = await s.post('/projects', { name: 'open', visibility: 'public' }, { token: alice.token });
      expect(project).toMatchObject({ status: 400, body: { message: { visibility_level: ['Public has been restricted by your GitLab administrator'] } } });
      const group = await s.post('/groups', { name: 'open', path: 'open-group', visibility: 'public' }, { token: alice.token });
      expect(group).toMatchObject({ status: 400, body: { message: 'Failed to save group {:visibility_level=>["Public has been restricted by your GitLab administrator"]}' } });
      const own = await s.createProject({ visibility: 'private' }, alice.token);
      const raise = await s.put(`/projects/${own.id}`, { visibility: 'public' }, { token: alice.token });
      expect(raise.body).toEqual({ message: { visibility_level: ['Public has been restricted by your GitLab administrator'] } });
      expect((await s.post('/projects', { name: 'admin-open', visibility: 'public' })).status).toBe(201);
    } finally {
      await s.put('/application/settings', { restricted_visibility_levels: [] });
    }
  });

  it('names a new project\'s default branch after default_branch_name', async () => {
    await s.put('/application/settings', { default_branch_name: 'trunk' });
    try {
      expect((await s.createProject()).default_branch).toBe('trunk');
      expect((await s.createProject({ default_branch: 'dev' })).default_branch).toBe('dev');
    } finally {
      await s.put('/application/settings', { default_branch_name: null });
    }
    expect((await s.createProject()).default_branch).toBe('main');
  });
});
