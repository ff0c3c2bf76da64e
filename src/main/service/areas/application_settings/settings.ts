import type { ServiceContext } from '../../context';
import { cachedLookup, inTransaction } from '../../db/connection';
import { type Params, declared, isFilePart, t } from '../../http/params';
import { grapeError } from '../../http/errors';
import { isoTime } from '../core/time';
import type { RateLimits } from '../../http/throttle';

export type Visibility = 'private' | 'internal' | 'public';

/** GitLab's import sources (`import_sources` values). */
export const IMPORT_SOURCES = ['github', 'bitbucket', 'bitbucket_server', 'fogbugz', 'git', 'gitlab_project', 'gitea', 'manifest'] as const;
const VISIBILITIES = ['private', 'internal', 'public'] as const;
const VISIBILITY_LEVELS: Record<string, Visibility> = { '0': 'private', '10': 'internal', '20': 'public' };

/** `private`/`internal`/`public`, or GitLab's numeric levels 0/10/20 (older clients send those). */
const visibility = () => t.string().values([...VISIBILITIES, ...Object.keys(VISIBILITY_LEVELS)]);
/** Arrays sent as `a[]=x` or comma-separated (Grape's CommaSeparatedToArray). */
const list = () => t.commaList();

/**
 * Every setting Sandlab knows, with its type and the default a new GitLab instance has (Sandlab
 * differs where it is a local sandbox: direct transfer is on, nothing phones home). Settings not
 * listed here are accepted too and read back as given (`PUT` never refuses an unknown name).
 */
const KNOWN = {
  admin_mode: [t.boolean(), false],
  after_sign_out_path: [t.string(), null],
  after_sign_up_text: [t.string(), null],
  akismet_enabled: [t.boolean(), false],
  akismet_api_key: [t.string(), null],
  allow_local_requests_from_system_hooks: [t.boolean(), true],
  allow_local_requests_from_web_hooks_and_services: [t.boolean(), false],
  allow_possible_spam: [t.boolean(), false],
  auto_devops_enabled: [t.boolean(), true],
  bulk_import_enabled: [t.boolean(), true],
  bulk_import_max_download_file_size: [t.integer(), 5120],
  container_registry_token_expire_delay: [t.integer(), 5],
  deactivate_dormant_users: [t.boolean(), false],
  default_artifacts_expire_in: [t.string(), '30 days'],
  default_branch_name: [t.string(), null],
  default_branch_protection: [t.integer().values([0, 1, 2, 3, 4]), 2],
  default_ci_config_path: [t.string(), null],
  default_group_visibility: [visibility(), 'private'],
  default_preferred_language: [t.string(), 'en'],
  default_project_creation: [t.integer().values([0, 1, 2, 3]), 2],
  default_project_visibility: [visibility(), 'private'],
  default_projects_limit: [t.integer(), 100000],
  default_snippet_visibility: [visibility(), 'private'],
  deletion_adjourned_period: [t.integer(), 7],
  diff_max_patch_bytes: [t.integer(), 204800],
  disabled_oauth_sign_in_sources: [list(), []],
  dns_rebinding_protection_enabled: [t.boolean(), true],
  domain_allowlist: [list(), []],
  domain_denylist: [list(), []],
  domain_denylist_enabled: [t.boolean(), false],
  email_confirmation_setting: [t.string().values(['off', 'soft', 'hard']), 'off'],
  enabled_git_access_protocol: [t.string().values(['ssh', 'http', 'nil', '']), null],
  enforce_terms: [t.boolean(), false],
  first_day_of_week: [t.integer().values([0, 1, 6]), 0],
  gravatar_enabled: [t.boolean(), false],
  help_page_text: [t.string(), null],
  home_page_url: [t.string(), null],
  housekeeping_enabled: [t.boolean(), true],
  import_sources: [list().values([...IMPORT_SOURCES]), [...IMPORT_SOURCES]],
  invisible_captcha_enabled: [t.boolean(), false],
  max_artifacts_size: [t.integer(), 100],
  max_attachment_size: [t.integer(), 100],
  max_export_size: [t.integer(), 0],
  max_import_size: [t.integer(), 0],
  max_pages_size: [t.integer(), 100],
  max_personal_access_token_lifetime: [t.integer(), null],
  mirror_available: [t.boolean(), true],
  outbound_local_requests_whitelist: [list(), []],
  password_authentication_enabled_for_git: [t.boolean(), true],
  password_authentication_enabled_for_web: [t.boolean(), true],
  personal_access_token_prefix: [t.string(), 'glpat-'],
  polling_interval_multiplier: [t.string(), '1.0'],
  project_export_enabled: [t.boolean(), true],
  recaptcha_enabled: [t.boolean(), false],
  recaptcha_private_key: [t.string(), null],
  recaptcha_site_key: [t.string(), null],
  require_admin_approval_after_user_signup: [t.boolean(), true],
  require_two_factor_authentication: [t.boolean(), false],
  // Sandlab-only: the local spam check standing in for GitLab's spam service (areas/spam, README).
  sandlab_spam_check_enabled: [t.boolean(), false],
  sandlab_spam_patterns: [list(), []],
  restricted_visibility_levels: [list().values([...VISIBILITIES, ...Object.keys(VISIBILITY_LEVELS)]), []],
  session_expire_delay: [t.integer(), 10080],
  shared_runners_enabled: [t.boolean(), true],
  sign_in_text: [t.string(), null],
  signup_enabled: [t.boolean(), true],
  snippet_size_limit: [t.integer(), 52428800],
  terminal_max_session_time: [t.integer(), 0],
  terms: [t.string(), null],
  rate_limiting_response_text: [t.string(), null],
  throttle_authenticated_api_enabled: [t.boolean(), false],
  throttle_authenticated_api_period_in_seconds: [t.integer(), 3600],
  throttle_authenticated_api_requests_per_period: [t.integer(), 7200],
  throttle_unauthenticated_api_enabled: [t.boolean(), false],
  throttle_unauthenticated_api_period_in_seconds: [t.integer(), 3600],
  throttle_unauthenticated_api_requests_per_period: [t.integer(), 3600],
  two_factor_grace_period: [t.integer(), 48],
  usage_ping_enabled: [t.boolean(), false],
  user_default_external: [t.boolean(), false],
  user_oauth_applications: [t.boolean(), true],
  version_check_enabled: [t.boolean(), false],
} as const;

type Known = typeof KNOWN;
type Value<K extends keyof Known> = Known[K][1] extends readonly unknown[] ? string[] : Known[K][1] extends null ? unknown : Known[K][1] extends boolean ? boolean : Known[K][1] extends number ? number : string;

/** Every setting, typed where Sandlab knows it, plus whatever else an administrator has set. */
export type ApplicationSettings = { readonly [K in keyof Known]: Value<K> } & {
  readonly default_project_visibility: Visibility;
  readonly default_group_visibility: Visibility;
  readonly default_snippet_visibility: Visibility;
  readonly import_sources: string[];
  readonly id: 1;
  readonly created_at: string;
  readonly updated_at: string;
  readonly [other: string]: unknown;
};

interface Row {
  overrides: string;
  created_at: string;
  updated_at: string;
}

/** Parameters that are never settings: credentials and the like ride along with any request. */
const NOT_SETTINGS = new Set(['private_token', 'access_token', 'job_token', 'sudo', 'id', 'created_at', 'updated_at']);

/** Creates the settings row on a new data dir (the area's start), so `created_at` stays put. */
export function ensureApplicationSettings(svc: ServiceContext): void {
  const now = isoTime(svc.now());
  svc.db.prepare("INSERT OR IGNORE INTO application_settings (id, overrides, created_at, updated_at) VALUES (1, '{}', ?, ?)").run(now, now);
}

const readRow = (svc: ServiceContext): Row =>
  svc.db.prepare('SELECT overrides, created_at, updated_at FROM application_settings WHERE id = 1').get() as Row;

function build(row: Row): ApplicationSettings {
  const defaults = Object.fromEntries(Object.entries(KNOWN).map(([k, [, v]]) => [k, Array.isArray(v) ? [...v] : v]));
  return { id: 1, ...defaults, ...JSON.parse(row.overrides), created_at: row.created_at, updated_at: row.updated_at } as ApplicationSettings;
}

/** The settings last built per database, with the row they were built from. */
const lastBuilt = new WeakMap<ServiceContext['db'], { row: Row; settings: ApplicationSettings }>();

/**
 * The current settings; cheap to call on every request (memoized until the next write). A write
 * to any other table ends the memo too: the row is read again, but the settings built from it are
 * reused while it is unchanged (and with them what is memoized per settings object).
 */
export function applicationSettings(svc: ServiceContext): ApplicationSettings {
  return cachedLookup(svc.db, 'application_settings', 0, loadSettings, undefined, svc)!;
}

function loadSettings(svc: ServiceContext): ApplicationSettings {
  const row = readRow(svc);
  const last = lastBuilt.get(svc.db);
  if (last && last.row.overrides === row.overrides && last.row.created_at === row.created_at && last.row.updated_at === row.updated_at) return last.settings;
  const settings = build(row);
  lastBuilt.set(svc.db, { row, settings });
  return settings;
}

/**
 * Gitlab::VisibilityLevel.allowed_for?: a level in `restricted_visibility_levels` is for
 * administrators only; anyone else gets the validation error Projects/Groups::CreateService add.
 */
export function restrictedVisibilityErrors(svc: ServiceContext, isAdmin: boolean, v: Visibility): Record<string, string[]> {
  if (isAdmin || !applicationSettings(svc).restricted_visibility_levels.includes(v)) return {};
  return { visibility_level: [`${v[0].toUpperCase()}${v.slice(1)} has been restricted by your GitLab administrator`] };
}

const normalizeVisibility = (v: unknown): unknown => (typeof v === 'string' && v in VISIBILITY_LEVELS ? VISIBILITY_LEVELS[v] : v);
const VISIBILITY_SETTINGS = new Set(['default_group_visibility', 'default_project_visibility', 'default_snippet_visibility']);

/**
 * `PUT /application/settings`: known settings are coerced and checked as Grape declares them
 * (400 `{"error": "x is invalid"}`); unknown ones are stored as given. With nothing at all to
 * set, Grape's at_least_one_of answer.
 */
export function updateApplicationSettings(svc: ServiceContext, params: Params): ApplicationSettings {
  const spec = Object.fromEntries(Object.entries(KNOWN).map(([k, [field]]) => [k, field]));
  const known = declared(params, spec) as Record<string, unknown>;
  // Grape: `given recaptcha_enabled: ->(val) { val } do requires :recaptcha_site_key, :recaptcha_private_key end`.
  if (known.recaptcha_enabled === true) {
    const missing = ['recaptcha_site_key', 'recaptcha_private_key'].filter((k) => known[k] === undefined);
    if (missing.length) throw grapeError(400, missing.map((k) => `${k} is missing`).join(', '));
  }
  const changes: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(known)) {
    if (value === undefined) continue;
    if (value === null) changes[key] = null; // back to the default
    else if (VISIBILITY_SETTINGS.has(key)) changes[key] = normalizeVisibility(value);
    else if (key === 'restricted_visibility_levels') changes[key] = [...new Set((value as string[]).map(normalizeVisibility))];
    else changes[key] = value;
  }
  for (const [key, value] of Object.entries(params)) {
    if (!(key in KNOWN) && !NOT_SETTINGS.has(key) && value !== undefined && !isFilePart(value)) changes[key] = value;
  }
  if (!Object.keys(changes).length) {
    throw grapeError(400, `${Object.keys(KNOWN).join(', ')} are missing, at least one parameter must be provided`);
  }
  inTransaction(svc.db, () => {
    const overrides = { ...JSON.parse(readRow(svc).overrides), ...changes };
    for (const key of Object.keys(changes)) if (key in KNOWN && changes[key] === null) delete overrides[key];
    svc.db.prepare('UPDATE application_settings SET overrides = ?, updated_at = ? WHERE id = 1').run(JSON.stringify(overrides), isoTime(svc.now()));
  });
  return applicationSettings(svc);
}

const rateLimitsMemo = new WeakMap<ApplicationSettings, RateLimits>();

/** The API throttles as the settings say (memoized per settings version: read on every request). */
export function rateLimits(svc: ServiceContext): RateLimits {
  const settings = applicationSettings(svc);
  let limits = rateLimitsMemo.get(settings);
  if (!limits) {
    limits = {
      authenticated: {
        enabled: settings.throttle_authenticated_api_enabled,
        periodSeconds: settings.throttle_authenticated_api_period_in_seconds,
        requestsPerPeriod: settings.throttle_authenticated_api_requests_per_period,
      },
      unauthenticated: {
        enabled: settings.throttle_unauthenticated_api_enabled,
        periodSeconds: settings.throttle_unauthenticated_api_period_in_seconds,
        requestsPerPeriod: settings.throttle_unauthenticated_api_requests_per_period,
      },
      responseText: typeof settings.rate_limiting_response_text === 'string' ? settings.rate_limiting_response_text : '',
    };
    rateLimitsMemo.set(settings, limits);
  }
  return limits;
}
