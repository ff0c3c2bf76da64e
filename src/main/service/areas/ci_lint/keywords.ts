/**
 * GitLab's CI keyword tables (lib/gitlab/ci/config/entry/{root,default,job,bridge,processable,
 * workflow,rules/rule,environment,need}.rb). The validator is driven by these, not by special cases.
 */

/** Root keys; the reserved ones can never be job names. `default` and `workflow` can. */
export const ROOT_KEYS = ['default', 'include', 'before_script', 'image', 'services', 'after_script', 'variables', 'stages', 'cache', 'workflow'];
export const RESERVED_ROOT_KEYS = ['include', 'before_script', 'image', 'services', 'after_script', 'variables', 'stages', 'cache'];

export const DEFAULT_KEYS = [
  'after_script', 'artifacts', 'before_script', 'cache', 'hooks', 'id_tokens', 'identity', 'image', 'interruptible', 'retry',
  'services', 'tags', 'timeout',
];
/** Keys a job inherits from `default` when it does not set them (and `inherit:default` allows). */
export const INHERITABLE_KEYS = DEFAULT_KEYS;

export const WORKFLOW_KEYS = ['rules', 'name', 'auto_cancel'];

const PROCESSABLE_KEYS = ['extends', 'stage', 'only', 'except', 'rules', 'variables', 'inherit', 'allow_failure', 'when', 'needs', 'resource_group'];
export const JOB_KEYS = [
  ...PROCESSABLE_KEYS,
  'tags', 'script', 'run', 'type', 'image', 'services', 'start_in', 'artifacts', 'cache', 'dependencies', 'before_script', 'after_script',
  'hooks', 'environment', 'coverage', 'retry', 'parallel', 'interruptible', 'timeout', 'release', 'secrets', 'id_tokens', 'pages',
  'publish', 'identity', 'manual_confirmation', 'dast_configuration',
];
export const BRIDGE_KEYS = [...PROCESSABLE_KEYS, 'trigger', 'parallel', 'environment'];

export const JOB_WHEN = ['on_success', 'on_failure', 'always', 'manual', 'delayed'];
export const RULE_WHEN = ['on_success', 'on_failure', 'always', 'never', 'manual', 'delayed'];
export const RULE_KEYS = ['if', 'changes', 'exists', 'when', 'start_in', 'allow_failure', 'variables', 'needs', 'interruptible'];
export const WORKFLOW_RULE_KEYS = ['if', 'changes', 'exists', 'when', 'variables', 'auto_cancel'];
export const WORKFLOW_RULE_WHEN = ['always', 'never'];
export const POLICY_KEYS = ['refs', 'kubernetes', 'variables', 'changes'];
export const ENVIRONMENT_KEYS = ['name', 'url', 'action', 'on_stop', 'auto_stop_in', 'kubernetes', 'deployment_tier'];
export const ENVIRONMENT_ACTIONS = ['start', 'stop', 'prepare', 'verify', 'access'];
export const CACHE_KEYS = ['key', 'untracked', 'paths', 'policy', 'when', 'unprotect', 'fallback_keys'];
export const ARTIFACTS_KEYS = ['name', 'untracked', 'paths', 'exclude', 'reports', 'when', 'expire_in', 'expose_as', 'public', 'access'];
export const ARTIFACTS_WHEN = ['on_success', 'on_failure', 'always'];
/** Entry::Tags::TAGS_LIMIT */
export const TAGS_LIMIT = 50;
export const NEED_KEYS = ['job', 'artifacts', 'optional', 'pipeline', 'project', 'ref', 'parallel'];
export const ALLOW_FAILURE_KEYS = ['exit_codes'];
export const INCLUDE_KEYS = ['local', 'remote', 'template', 'project', 'file', 'ref', 'component', 'artifact', 'job', 'inputs', 'rules', 'integrity'];

export const DEFAULT_STAGES = ['build', 'test', 'deploy'];
export const DEFAULT_JOB_STAGE = 'test';
/** Commands may nest arrays up to this depth (Entry::Commands). */
export const MAX_SCRIPT_NESTING = 10;
export const MAX_EXTENDS_NESTING = 11;
export const PIPELINE_WARNING_DOCS = 'read more: https://docs.gitlab.com/ee/ci/troubleshooting.html#pipeline-warnings';
