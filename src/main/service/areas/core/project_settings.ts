import { type Field, t } from '../../http/params';

/**
 * The project settings a client writes through POST/PUT /projects (API::Helpers::ProjectsHelpers,
 * CE and the EE additions Sandlab offers in every tier), each with its Grape declaration and the
 * value a new project has. They live in `projects.settings` (JSON) under these names; the project
 * entity reads them back through `projectSetting`, so what a client writes is what it reads.
 */
const level = () => t.string().values(['disabled', 'private', 'enabled']);
const publicLevel = () => t.string().values(['disabled', 'private', 'enabled', 'public']);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Setting = readonly [field: Field<any, boolean>, initial: unknown];

export const PROJECT_SETTINGS = {
  // ProjectFeature: who sees each feature.
  issues_access_level: [level(), 'enabled'],
  repository_access_level: [level(), 'enabled'],
  merge_requests_access_level: [level(), 'enabled'],
  forking_access_level: [level(), 'enabled'],
  wiki_access_level: [level(), 'enabled'],
  builds_access_level: [level(), 'enabled'],
  snippets_access_level: [level(), 'enabled'],
  pages_access_level: [publicLevel(), null], // set on create: enabled for a public project, private otherwise
  package_registry_access_level: [publicLevel(), 'enabled'],
  analytics_access_level: [level(), 'enabled'],
  container_registry_access_level: [level(), 'enabled'],
  security_and_compliance_access_level: [level(), 'private'],
  releases_access_level: [level(), 'enabled'],
  environments_access_level: [level(), 'enabled'],
  feature_flags_access_level: [level(), 'enabled'],
  infrastructure_access_level: [level(), 'enabled'],
  monitor_access_level: [level(), 'enabled'],
  model_experiments_access_level: [level(), 'enabled'],
  model_registry_access_level: [level(), 'enabled'],
  requirements_access_level: [level(), 'enabled'],

  // Project and ProjectSetting columns.
  packages_enabled: [t.boolean(), true],
  lfs_enabled: [t.boolean(), true],
  emails_enabled: [t.boolean(), true],
  show_default_award_emojis: [t.boolean(), true],
  show_diff_preview_in_email: [t.boolean(), true],
  warn_about_potentially_unwanted_characters: [t.boolean(), true],
  enforce_auth_checks_on_uploads: [t.boolean(), true],
  service_desk_enabled: [t.boolean(), false],
  shared_runners_enabled: [t.boolean(), null], // the instance's shared_runners_enabled on create
  group_runners_enabled: [t.boolean(), true],
  public_jobs: [t.boolean(), true],
  resolve_outdated_diff_discussions: [t.boolean(), false],
  remove_source_branch_after_merge: [t.boolean(), true],
  printing_merge_request_link_enabled: [t.boolean(), true],
  only_allow_merge_if_pipeline_succeeds: [t.boolean(), false],
  allow_merge_on_skipped_pipeline: [t.boolean(), null],
  only_allow_merge_if_all_discussions_are_resolved: [t.boolean(), false],
  autoclose_referenced_issues: [t.boolean(), true],
  mr_default_target_self: [t.boolean(), false],
  merge_method: [t.string().values(['merge', 'rebase_merge', 'ff']), 'merge'],
  squash_option: [t.string().values(['never', 'always', 'default_on', 'default_off']), 'default_off'],
  suggestion_commit_message: [t.string(), null],
  merge_commit_template: [t.string(), null],
  squash_commit_template: [t.string(), null],
  issue_branch_template: [t.string(), null],
  merge_request_title_regex: [t.string(), null],
  merge_request_title_regex_description: [t.string(), null],
  ci_config_path: [t.string(), null], // the instance's default_ci_config_path on create
  build_git_strategy: [t.string().values(['fetch', 'clone']), 'fetch'],
  build_timeout: [t.integer(), 3600],
  auto_cancel_pending_pipelines: [t.string().values(['disabled', 'enabled']), 'enabled'],
  auto_devops_enabled: [t.boolean(), null], // unset: inherited from the groups, then the instance
  auto_devops_deploy_strategy: [t.string().values(['continuous', 'manual', 'timed_incremental']), 'continuous'],
  resource_group_default_process_mode: [t.string().values(['unordered', 'oldest_first', 'newest_first', 'newest_ready_first']), 'unordered'],
  repository_object_format: [t.string().values(['sha1', 'sha256']), 'sha1'],

  // ProjectCiCdSetting (PUT only in GitLab; Sandlab takes them on create as well).
  ci_default_git_depth: [t.integer(), 20],
  keep_latest_artifact: [t.boolean(), true],
  ci_forward_deployment_enabled: [t.boolean(), true],
  ci_forward_deployment_rollback_allowed: [t.boolean(), true],
  ci_allow_fork_pipelines_to_run_in_parent_project: [t.boolean(), true],
  ci_separated_caches: [t.boolean(), true],
  restrict_user_defined_variables: [t.boolean(), false],
  ci_pipeline_variables_minimum_override_role: [t.string().values(['no_one_allowed', 'developer', 'maintainer', 'owner']), 'developer'],
  ci_push_repository_for_job_token_allowed: [t.boolean(), false],
  ci_id_token_sub_claim_components: [t.array(t.string()), ['project_path', 'ref_type', 'ref']],
  ci_delete_pipelines_in_seconds: [t.integer(), null],
  max_artifacts_size: [t.integer(), null],

  // EE (Premium) merge request settings, offered in every tier.
  approvals_before_merge: [t.integer(), 0],
  merge_pipelines_enabled: [t.boolean(), false],
  merge_trains_enabled: [t.boolean(), false],
  merge_trains_skip_train_allowed: [t.boolean(), false],
  only_allow_merge_if_all_status_checks_passed: [t.boolean(), false],
  issues_template: [t.string(), null],
  merge_requests_template: [t.string(), null],
} as const satisfies Record<string, Setting>;

export type ProjectSettingName = keyof typeof PROJECT_SETTINGS;

/**
 * Deprecated names GitLab still takes and what they set: the feature toggles of API v3
 * (`issues_enabled` -> `issues_access_level` enabled/disabled), `emails_disabled`, `public_builds`.
 */
const FEATURE_TOGGLES = {
  issues_enabled: 'issues_access_level',
  merge_requests_enabled: 'merge_requests_access_level',
  wiki_enabled: 'wiki_access_level',
  jobs_enabled: 'builds_access_level',
  snippets_enabled: 'snippets_access_level',
  container_registry_enabled: 'container_registry_access_level',
} as const;

/** The Grape declarations of every setting and deprecated alias, for `declared(...)`. */
export function projectSettingsSpec() {
  const spec: Record<string, Field<unknown, boolean>> = {};
  for (const [name, [field]] of Object.entries(PROJECT_SETTINGS)) spec[name] = field;
  for (const name of Object.keys(FEATURE_TOGGLES)) spec[name] = t.boolean();
  spec.emails_disabled = t.boolean();
  spec.public_builds = t.boolean();
  return spec;
}

/** Every parameter name `projectSettingsSpec` declares. */
export const PROJECT_SETTING_PARAMS = Object.keys(projectSettingsSpec());

/**
 * Writes the given settings into `settings` (a project's stored JSON), turning deprecated names into
 * the current ones; the current name wins when both are given. `null` puts a setting back to its
 * default.
 */
export function applyProjectSettings(settings: Record<string, unknown>, p: Record<string, unknown>): void {
  const given = { ...p };
  for (const [toggle, levelName] of Object.entries(FEATURE_TOGGLES)) {
    if (typeof given[toggle] === 'boolean' && given[levelName] === undefined) given[levelName] = given[toggle] ? 'enabled' : 'disabled';
  }
  if (typeof given.emails_disabled === 'boolean' && given.emails_enabled === undefined) given.emails_enabled = !given.emails_disabled;
  if (typeof given.public_builds === 'boolean' && given.public_jobs === undefined) given.public_jobs = given.public_builds;
  // ProjectFeature#package_registry_access_level= keeps `packages_enabled` in step, and the other way round.
  if (typeof given.package_registry_access_level === 'string' && given.packages_enabled === undefined) {
    given.packages_enabled = given.package_registry_access_level !== 'disabled';
  } else if (typeof given.packages_enabled === 'boolean' && given.package_registry_access_level === undefined) {
    given.package_registry_access_level = given.packages_enabled ? 'enabled' : 'disabled';
  }
  for (const name of Object.keys(PROJECT_SETTINGS)) {
    if (given[name] === undefined) continue;
    if (given[name] === null) delete settings[name];
    else settings[name] = given[name];
  }
}

/** A stored setting, or its value on a new project. */
export function projectSetting<K extends ProjectSettingName>(settings: Record<string, unknown>, name: K): unknown {
  return name in settings ? settings[name] : PROJECT_SETTINGS[name][1];
}

const LEVELS: Record<string, number> = { disabled: 0, private: 10, enabled: 20, public: 30 };

/** The checks Project, ProjectFeature and ProjectCiCdSetting run on save, keyed as GitLab's errors are. */
export function projectSettingsErrors(settings: Record<string, unknown>): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const get = (name: ProjectSettingName) => projectSetting(settings, name);
  // ProjectFeature#repository_children_level
  for (const child of ['merge_requests_access_level', 'builds_access_level'] as const) {
    if (LEVELS[get(child) as string] > LEVELS[get('repository_access_level') as string]) {
      errors[`project_feature.${child}`] = ['cannot have higher visibility level than repository access level'];
    }
  }
  const timeout = get('build_timeout') as number;
  // Project::MAX_BUILD_TIMEOUT is 1.month (2629746 s).
  if (timeout < 600 || timeout >= 2_629_746) errors.build_timeout = ['needs to be between 10 minutes and 1 month'];
  const depth = get('ci_default_git_depth') as number | null;
  if (depth !== null && depth < 0) errors['ci_cd_settings.default_git_depth'] = ['must be greater than or equal to 0'];
  if (depth !== null && depth > 1000) errors['ci_cd_settings.default_git_depth'] = ['must be less than or equal to 1000'];
  const ciPath = get('ci_config_path') as string | null;
  if (ciPath && /\.{2}|^\//.test(ciPath)) errors.ci_config_path = ['cannot include leading slash or directory traversal.'];
  else if (ciPath && ciPath.length > 255) errors.ci_config_path = ['is too long (maximum is 255 characters)'];
  const maxLength = { suggestion_commit_message: 255, merge_commit_template: 500, squash_commit_template: 500, issue_branch_template: 255 } as const;
  for (const [name, max] of Object.entries(maxLength)) {
    const v = get(name as ProjectSettingName) as string | null;
    if (v && v.length > max) errors[name] = [`is too long (maximum is ${max} characters)`];
  }
  const artifacts = get('max_artifacts_size') as number | null;
  if (artifacts !== null && artifacts <= 0) errors.max_artifacts_size = ['must be greater than 0'];
  const approvals = get('approvals_before_merge') as number;
  if (approvals < 0) errors.approvals_before_merge = ['must be greater than or equal to 0'];
  return errors;
}
