import { MAX_BUILD_TIMEOUT, isDuration } from '../duration';
import {
  BooleanEntry, ComposableHash, Configurable, Entry, type EntryType, type Errors, type Strategies, UnknownStrategy,
  attr, isBoolean, isHash, isInteger, isNestedArray, isNil, isString, node,
} from './framework';

/**
 * Small entries of lib/gitlab/ci/config/entry: commands, stages, tags, timeout, retry, coverage,
 * allow_failure, hooks, id_tokens, inherit, pages, publish.
 */

export const MAX_NESTING_LEVEL = 10;

/** Entry::Commands: a string or strings nested up to 10 levels deep. */
export class Commands extends Entry {
  protected override validations(errors: Errors): void {
    errors.stringOrNestedArrayOfStrings('config', this.config, MAX_NESTING_LEVEL);
  }

  override value(): string[] {
    return [this.config].flat(Infinity) as string[];
  }
}

/** Entry::Stage */
export class Stage extends Entry {
  static defaultConfig(): unknown {
    return 'test';
  }

  protected override validations(errors: Errors): void {
    errors.type('config', this.config, 'String');
  }
}

export const EDGE_STAGES = ['.pre', '.post'];

/** Config::Stages.wrap_with_edge_stages */
export function wrapWithEdgeStages(stages: unknown[]): unknown[] {
  return ['.pre', ...stages.filter((s) => !EDGE_STAGES.includes(s as string)), '.post'];
}

/** Entry::Stages */
export class Stages extends Entry {
  static defaultConfig(): unknown {
    return wrapWithEdgeStages(['build', 'test', 'deploy']);
  }

  protected override validations(errors: Errors): void {
    if (!isNestedArray(this.config, MAX_NESTING_LEVEL, isString)) {
      errors.add('config', `should be an array of strings or a nested array of strings up to ${MAX_NESTING_LEVEL} levels deep`);
    }
  }

  override value(): string[] {
    return (this.config as unknown[]).flat(Infinity) as string[];
  }
}

/** Entry::Tags::TAGS_LIMIT */
export const TAGS_LIMIT = 50;

/** Gitlab::Ci::Tags::Parser: quoted tags whole, the rest split on commas; stripped, unique, none blank. */
function parseTags(list: unknown[]): string[] {
  const tags: string[] = [];
  let text = list.map(String).join(', ');
  for (const quoted of [/(^|,)\s*"(.*?)"\s*(?=,\s*|$)/g, /(^|,)\s*'(.*?)'\s*(?=,\s*|$)/g]) {
    text = text.replace(quoted, (_m, _start: string, tag: string) => {
      tags.push(tag);
      return '';
    });
  }
  tags.push(...text.split(','));
  return [...new Set(tags.map((t) => t.trim()).filter(Boolean))];
}

/** Entry::Tags */
export class Tags extends Entry {
  protected override validations(errors: Errors): void {
    errors.arrayOfStrings('config', this.config);
    if (Array.isArray(this.config) && parseTags(this.config).length >= TAGS_LIMIT) {
      errors.add('config', `must be less than the limit of ${TAGS_LIMIT} tags`);
    }
  }
}

/** Entry::Timeout: a duration up to Project::MAX_BUILD_TIMEOUT. */
export class Timeout extends Entry {
  protected override validations(errors: Errors): void {
    errors.duration('config', this.config, MAX_BUILD_TIMEOUT);
  }
}

/** Entry::Coverage: a /regexp/ RE2 compiles. */
export class Coverage extends Entry {
  protected override validations(errors: Errors): void {
    errors.regexp('config', this.config);
  }
}

/** Enums::Ci::CommitStatus.failure_reasons: what `retry:when` may name, with `always`. */
export const RETRY_WHEN = [
  'always', 'unknown_failure', 'script_failure', 'api_failure', 'stuck_or_timeout_failure', 'runner_system_failure',
  'missing_dependency_failure', 'runner_unsupported', 'stale_schedule', 'job_execution_timeout', 'archived_failure',
  'unmet_prerequisites', 'scheduler_failure', 'data_integrity_failure', 'forward_deployment_failure', 'user_blocked',
  'project_deleted', 'ci_quota_exceeded', 'pipeline_loop_detected', 'no_matching_runner', 'trace_size_exceeded',
  'builds_disabled', 'environment_creation_failure', 'deployment_rejected', 'failed_outdated_deployment_job',
  'job_execution_server_timeout', 'protected_environment_failure', 'insufficient_bridge_permissions',
  'downstream_bridge_project_not_found', 'invalid_bridge_trigger', 'upstream_bridge_project_not_found',
  'insufficient_upstream_permissions', 'bridge_pipeline_is_child_pipeline', 'downstream_pipeline_creation_failed',
  'secrets_provider_not_found', 'reached_max_descendant_pipelines_depth', 'ip_restriction_failure',
  'reached_max_pipeline_hierarchy_size', 'reached_downstream_pipeline_trigger_rate_limit', 'duo_workflow_not_allowed',
  'job_router_failure', 'job_token_expired',
];

/** Entry::Retry::SimpleRetry: 0, 1 or 2. Its location is `retry`, whatever the job. */
class SimpleRetry extends Entry {
  protected override validations(errors: Errors): void {
    errors.integerBetween('config', this.config, 0, 2);
  }

  override location(): string {
    return 'retry';
  }
}

/** Entry::Retry::FullRetry: `max`, `when` (failure reasons), `exit_codes`. */
class FullRetry extends Entry {
  protected override validations(errors: Errors): void {
    errors.allowedKeys('config', this.config, ['max', 'when', 'exit_codes']);
    const max = attr(this.config, 'max');
    const when = attr(this.config, 'when');
    const exitCodes = attr(this.config, 'exit_codes');
    if (!isNil(max)) errors.integerBetween('max', max, 0, 2);
    if (!isNil(when)) {
      errors.arrayOfStringsOrString('when', when);
      if (Array.isArray(when)) errors.allowedArrayValues('when', when, RETRY_WHEN);
      if (isString(when)) errors.inclusion('when', when, RETRY_WHEN);
    }
    if (!isNil(exitCodes)) errors.arrayOfIntegersOrInteger('exit_codes', exitCodes);
  }

  override location(): string {
    return 'retry';
  }
}

class UnknownRetry extends UnknownStrategy {
  message(): string {
    return 'retry config has to be either an integer or a hash';
  }
}

export const Retry: Strategies = {
  strategies: [
    [isInteger, SimpleRetry],
    [isHash, FullRetry],
  ],
  unknown: UnknownRetry,
};

/** Entry::AllowFailure: a boolean, or `exit_codes`. */
export class AllowFailure extends Entry {
  protected override validations(errors: Errors): void {
    errors.hashOrBoolean('config', this.config);
    errors.allowedKeys('config', this.config, ['exit_codes']);
    const codes = attr(this.config, 'exit_codes');
    if (!isNil(codes)) errors.arrayOfIntegersOrInteger('exit_codes', codes);
  }
}

/** Entry::Hooks */
export class Hooks extends Configurable {
  static override nodes() {
    return [node('pre_get_sources_script', () => Commands)];
  }

  protected override validations(errors: Errors): void {
    this.configurableValidations(errors);
    errors.type('config', this.config, 'Hash');
    errors.allowedKeys('config', this.config, ['pre_get_sources_script']);
  }
}

/** Entry::IdToken: `aud`, a string or strings. */
export class IdToken extends Entry {
  protected override validations(errors: Errors): void {
    errors.requiredKeys('config', this.config, ['aud']);
    errors.allowedKeys('config', this.config, ['aud']);
    const aud = attr(this.config, 'aud');
    errors.arrayOfStringsOrString('aud', aud);
  }
}

/** `id_tokens:` (a ComposableHash of IdToken). */
export class IdTokens extends ComposableHash {
  protected override validations(errors: Errors): void {
    errors.type('config', this.config, 'Hash');
  }

  composable(): EntryType {
    return IdToken;
  }
}

/** The keys of `default:`, which `inherit:default` may list. */
export const DEFAULT_KEYS = [
  'before_script', 'after_script', 'hooks', 'cache', 'image', 'services', 'interruptible', 'timeout', 'retry', 'tags',
  'artifacts', 'id_tokens',
];

/** Entry::Inherit::Default and ::Variables: true/false or a list. */
class InheritBoolean extends BooleanEntry {
  inherits(): boolean {
    return this.config === true;
  }
}

class InheritDefaultList extends Entry {
  protected override validations(errors: Errors): void {
    errors.type('config', this.config, 'Array');
    errors.arrayOfStrings('config', this.config);
    if (Array.isArray(this.config)) errors.allowedArrayValues('config', this.config, DEFAULT_KEYS);
  }

  inherits(key: string): boolean {
    return Array.isArray(this.config) && this.config.includes(key);
  }
}

class InheritVariablesList extends Entry {
  protected override validations(errors: Errors): void {
    errors.type('config', this.config, 'Array');
    errors.arrayOfStrings('config', this.config);
  }
}

class UnknownInherit extends UnknownStrategy {
  message(): string {
    return `${this.location()} should be a bool or array of strings`;
  }

  inherits(): boolean {
    return false;
  }
}

const InheritDefault: Strategies = {
  strategies: [
    [isBoolean, InheritBoolean],
    [Array.isArray, InheritDefaultList],
  ],
  unknown: UnknownInherit,
};

const InheritVariables: Strategies = {
  strategies: [
    [isBoolean, InheritBoolean],
    [Array.isArray, InheritVariablesList],
  ],
  unknown: UnknownInherit,
};

/** Entry::Inherit: `default:` and `variables:` inheritance of a job. */
export class Inherit extends Configurable {
  static override nodes() {
    return [node('default', () => InheritDefault, { default: true }), node('variables', () => InheritVariables, { default: true })];
  }

  protected override validations(errors: Errors): void {
    this.configurableValidations(errors);
    errors.allowedKeys('config', this.config, ['default', 'variables']);
  }

  /** `inherit_entry.default_entry.inherit?(key)` */
  inheritsDefault(key: string): boolean {
    const entry = this.entries.get('default') as (Entry & { inherits?: (key: string) => boolean }) | undefined;
    return !!entry?.inherits?.(key);
  }
}

/** Gitlab::Ci::Build::DurationParser: a duration or `never`. */
export const isExpiry = (v: unknown): boolean => isString(v) && (v.toLowerCase() === 'never' || isDuration(v));

/** Entry::Pages: true/false, or `path_prefix`, `expire_in`, `publish`. */
export class Pages extends Entry {
  protected override validations(errors: Errors): void {
    errors.hashOrBoolean('config', this.config);
    errors.allowedKeys('config', this.config, ['path_prefix', 'expire_in', 'publish']);
    const pathPrefix = attr(this.config, 'path_prefix');
    const expireIn = attr(this.config, 'expire_in');
    const publish = attr(this.config, 'publish');
    if (!isNil(pathPrefix)) errors.type('path_prefix', pathPrefix, 'String');
    if (!isNil(expireIn)) errors.duration('expire_in', expireIn, undefined, isExpiry);
    if (!isNil(publish)) errors.type('publish', publish, 'String');
  }
}

/** Entry::Publish: the folder Pages publishes. */
export class Publish extends Entry {
  static defaultConfig(): unknown {
    return 'public';
  }

  protected override validations(errors: Errors): void {
    errors.type('config', this.config, 'String');
  }
}

/** Accepted but not checked further: EE's `secrets`, `dast_configuration`, `identity` and `run` steps. */
export class Unchecked extends Entry {}

