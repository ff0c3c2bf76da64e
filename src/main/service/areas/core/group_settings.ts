import type { ServiceContext } from '../../context';
import { type Field, t } from '../../http/params';
import { applicationSettings } from '../application_settings/settings';
import { type Namespace, namespaceSettings } from './namespaces';

/**
 * The group settings a client writes through POST/PUT /groups (API::Helpers::GroupsHelpers, CE and
 * the EE additions Sandlab offers in every tier), each with its Grape declaration and the value a
 * new group has. They live in `namespaces.settings` (JSON) under these names.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Setting = readonly [field: Field<any, boolean>, initial: unknown];

/** Gitlab::Access.project_creation_string_values, indexed by the instance's default_project_creation code. */
export const PROJECT_CREATION_LEVELS = ['noone', 'maintainer', 'developer', 'administrator', 'owner'] as const;

export const GROUP_SETTINGS = {
  share_with_group_lock: [t.boolean(), false],
  require_two_factor_authentication: [t.boolean(), false],
  two_factor_grace_period: [t.integer(), 48],
  project_creation_level: [t.string().values(PROJECT_CREATION_LEVELS), null], // the instance's default_project_creation on create
  auto_devops_enabled: [t.boolean(), null],
  subgroup_creation_level: [t.string().values(['owner', 'maintainer']), 'maintainer'],
  emails_enabled: [t.boolean(), true],
  show_diff_preview_in_email: [t.boolean(), true],
  mentions_disabled: [t.boolean(), null],
  lfs_enabled: [t.boolean(), true],
  default_branch: [t.string(), null],
  default_branch_protection: [t.integer().values([0, 1, 2, 3, 4]), null], // unset: the instance's
  default_branch_protection_defaults: [t.hash(), null], // unset: what default_branch_protection means
  shared_runners_setting: [t.string().values(['enabled', 'disabled_and_overridable', 'disabled_and_unoverridable', 'disabled_with_override']), 'enabled'],
  enabled_git_access_protocol: [t.string().values(['ssh', 'http', 'all']), 'all'],
  prevent_sharing_groups_outside_hierarchy: [t.boolean(), false],
  lock_math_rendering_limits_enabled: [t.boolean(), false],
  math_rendering_limits_enabled: [t.boolean(), true],
  max_artifacts_size: [t.integer(), null],
  // EE
  membership_lock: [t.boolean(), false],
  prevent_forking_outside_group: [t.boolean(), false],
  wiki_access_level: [t.string().values(['disabled', 'private', 'enabled']), 'enabled'],
  file_template_project_id: [t.integer(), null],
  shared_runners_minutes_limit: [t.integer(), null],
  extra_shared_runners_minutes_limit: [t.integer(), null],
} as const satisfies Record<string, Setting>;

export type GroupSettingName = keyof typeof GROUP_SETTINGS;

/** Settings only administrators may set (EE's require_admin_on_create and the update's admin check). */
export const ADMIN_ONLY_GROUP_SETTINGS = ['shared_runners_minutes_limit', 'extra_shared_runners_minutes_limit'] as const;

/** The Grape declarations of every setting and the deprecated `emails_disabled`, for `declared(...)`. */
export function groupSettingsSpec() {
  const spec: Record<string, Field<unknown, boolean>> = {};
  for (const [name, [field]] of Object.entries(GROUP_SETTINGS)) spec[name] = field;
  spec.emails_disabled = t.boolean();
  return spec;
}

/**
 * Writes the given settings into `settings` (a group's stored JSON). `emails_disabled` sets
 * `emails_enabled`; a protection level also sets the protection defaults it stands for
 * (Groups::UpdateService); `null` puts a setting back to its default.
 */
export function applyGroupSettings(settings: Record<string, unknown>, p: Record<string, unknown>): void {
  const given = { ...p };
  if (typeof given.emails_disabled === 'boolean' && given.emails_enabled === undefined) given.emails_enabled = !given.emails_disabled;
  if (typeof given.default_branch_protection === 'number' && given.default_branch_protection_defaults === undefined) {
    given.default_branch_protection_defaults = branchProtectionDefaults(given.default_branch_protection);
  }
  for (const name of Object.keys(GROUP_SETTINGS)) {
    if (given[name] === undefined) continue;
    if (given[name] === null) delete settings[name];
    else settings[name] = given[name];
  }
}

/** A stored setting, or its value on a new group. */
export function groupSetting(settings: Record<string, unknown>, name: GroupSettingName): unknown {
  return name in settings ? settings[name] : GROUP_SETTINGS[name][1];
}

/** Who may create projects in a group: its own setting, else the instance's default. */
export function groupProjectCreationLevel(svc: ServiceContext, g: Namespace): (typeof PROJECT_CREATION_LEVELS)[number] {
  const own = groupSetting(namespaceSettings(g), 'project_creation_level') as (typeof PROJECT_CREATION_LEVELS)[number] | null;
  return own ?? PROJECT_CREATION_LEVELS[applicationSettings(svc).default_project_creation] ?? 'developer';
}

/** A group's branch protection level, else the instance's, and the rules it stands for. */
export function groupBranchProtection(svc: ServiceContext, g: Namespace): { level: number; defaults: Record<string, unknown> } {
  const settings = namespaceSettings(g);
  const level = (groupSetting(settings, 'default_branch_protection') as number | null) ?? applicationSettings(svc).default_branch_protection;
  const defaults = (groupSetting(settings, 'default_branch_protection_defaults') as Record<string, unknown> | null) ?? branchProtectionDefaults(level);
  return { level, defaults };
}

/** The checks Group and NamespaceSetting run on save, keyed as GitLab's errors are. */
export function groupSettingsErrors(settings: Record<string, unknown>): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const grace = groupSetting(settings, 'two_factor_grace_period') as number;
  if (grace < 0) errors.two_factor_grace_period = ['must be greater than or equal to 0'];
  const artifacts = groupSetting(settings, 'max_artifacts_size') as number | null;
  if (artifacts !== null && artifacts <= 0) errors.max_artifacts_size = ['must be greater than 0'];
  return errors;
}

const DEVELOPER = 30;
const MAINTAINER = 40;

/** Gitlab::Access::BranchProtection#to_hash: a protection level as protected-branch rules. */
export function branchProtectionDefaults(level: number): Record<string, unknown> {
  const rules = (push: number, merge: number, forcePush: boolean) => ({
    allowed_to_push: [{ access_level: push }],
    allowed_to_merge: [{ access_level: merge }],
    allow_force_push: forcePush,
  });
  switch (level) {
    case 0:
      return { ...rules(DEVELOPER, DEVELOPER, true), code_owner_approval_required: false, developer_can_initial_push: false };
    case 1:
      return { ...rules(DEVELOPER, MAINTAINER, false), developer_can_initial_push: false };
    case 3:
      return { ...rules(MAINTAINER, DEVELOPER, false), developer_can_initial_push: false };
    case 4:
      return { ...rules(MAINTAINER, MAINTAINER, false), code_owner_approval_required: false, developer_can_initial_push: true };
    default:
      return { ...rules(MAINTAINER, MAINTAINER, false), developer_can_initial_push: false };
  }
}
