import { Artifacts, Caches } from './artifacts';
import { Environment, Release } from './environment';
import {
  BooleanEntry, ComposableHash, Configurable, Entry, type EntryType, type Errors, type Metadata, type NodeSpec, attr, hasKey, isBlank,
  isHash, isNestedArray, isNil, isString, node,
} from './framework';
import { Image, Services } from './image';
import { Needs, type NeedsValue, Parallel } from './needs';
import { DEFAULT_ONLY, Policy, Rules } from './rules';
import {
  AllowFailure, Commands, Coverage, Hooks, IdTokens, Inherit, MAX_NESTING_LEVEL, Pages, Publish, Retry, Stage, Tags, Timeout,
} from './scalars';
import { Trigger } from './trigger';
import { Variables } from './variables';

/** Entry::Processable (what jobs and bridges share), Entry::Job, Entry::Bridge, Entry::Hidden, Entry::Jobs. */

const PROCESSABLE_KEYS = ['extends', 'stage', 'only', 'except', 'rules', 'variables', 'inherit', 'allow_failure', 'when', 'needs', 'resource_group', 'environment', 'interruptible'];
/** Entry::Job::ALLOWED_KEYS, with EE's `secrets`, `dast_configuration` and `identity`. */
const JOB_KEYS = [
  'tags', 'script', 'image', 'services', 'start_in', 'artifacts', 'cache', 'dependencies', 'before_script', 'after_script', 'hooks',
  'coverage', 'retry', 'parallel', 'timeout', 'inputs', 'release', 'id_tokens', 'publish', 'pages', 'manual_confirmation', 'run',
  'secrets', 'dast_configuration', 'identity',
];
const BRIDGE_KEYS = ['trigger', 'parallel'];
export const JOB_WHEN = ['on_success', 'on_failure', 'always', 'manual', 'delayed'];
const BRIDGE_WHEN = ['on_success', 'on_failure', 'always', 'manual'];
const JOB_RULE_WHEN = ['on_success', 'on_failure', 'always', 'never', 'manual', 'delayed'];
const JOB_RULE_KEYS = ['if', 'changes', 'exists', 'when', 'start_in', 'allow_failure', 'variables', 'needs', 'interruptible'];
const MAX_NAME_LENGTH = 255;
export const PIPELINE_WARNING_DOCS =
  'read more: https://docs.gitlab.com/ee/ci/jobs/job_troubleshooting.html#job-may-allow-multiple-pipelines-to-run-for-a-single-action-warning';

/** The root entry, as jobs see it (`deps`): the `default:` they inherit and whether `workflow:rules` exist. */
export interface JobDeps extends Entry {
  defaultEntry(): Entry | undefined;
  hasWorkflowRules(): boolean;
}

const PROCESSABLE_NODES: NodeSpec[] = [
  node('stage', () => Stage),
  node('only', () => Policy, { default: DEFAULT_ONLY }),
  node('except', () => Policy),
  node('rules', () => Rules, { metadata: { allowed_when: JOB_RULE_WHEN, allowed_keys: JOB_RULE_KEYS } }),
  node('variables', () => Variables, { metadata: { allowed_value_data: ['value', 'expand'] } }),
  node('inherit', () => Inherit, { default: {} }),
  node('environment', () => Environment),
  node('interruptible', () => BooleanEntry, { inherit: true }),
];

/** Entry::Processable: validations, inheritance from `default:` and the `rules:when` warning of jobs and bridges. */
abstract class Processable extends Configurable {
  name(): string {
    return this.metadata.name as string;
  }

  protected processableValidations(errors: Errors): void {
    const config = this.config;
    this.configurableValidations(errors);
    errors.presence('config', config);
    errors.presence('name', this.name());
    if (this.metadata.nameIsSymbol === false) errors.add('name', 'should be a Symbol');
    errors.length('name', this.name(), { maximum: MAX_NAME_LENGTH });
    errors.mutuallyExclusiveKeys('config', config, ['script', 'trigger']);
    errors.mutuallyExclusiveKeys('config', config, ['run', 'trigger']);
    if (!isNil(attr(config, 'rules'))) errors.disallowedKeys('config', config, ['only', 'except', 'start_in'], 'key may not be used with `rules`', true);
    const ext = attr(config, 'extends');
    if (!isNil(ext) && !isString(ext) && !(Array.isArray(ext) && ext.every(isString))) errors.add('extends', 'should be an array of strings or a string');
    const rules = attr(config, 'rules');
    if (!isNil(rules) && !isNestedArray(rules, MAX_NESTING_LEVEL, isHash)) errors.add('rules', 'should be an array containing hashes and arrays of hashes');
    const resourceGroup = attr(config, 'resource_group');
    if (!isNil(resourceGroup)) errors.type('resource_group', resourceGroup, 'String');
  }

  protected hasRules(): boolean {
    return hasKey(this.config, 'rules');
  }

  /** Inheritable#inherit!: the `default:` entries this job does not set (and `inherit:default` lets in). */
  protected override afterCompose(deps: Entry | null): void {
    const root = deps as JobDeps | null;
    if (!root) return;
    const inherit = this.entries.get('inherit') as Inherit | undefined;
    const defaults = root.defaultEntry();
    for (const spec of this.nodeSpecs()) {
      if (!spec.inherit || !inherit?.inheritsDefault(spec.key) || !defaults) continue;
      if (this.child(spec.key).specified) continue;
      const inherited = defaults.child(spec.key);
      if (inherited.specified) this.entries.set(spec.key, inherited);
    }
    if (!root.hasWorkflowRules()) this.warnAboutRulesWhen();
  }

  /** A last rule of only `when` (not never) and no workflow:rules may run duplicate pipelines. */
  private warnAboutRulesWhen(): void {
    const rules = this.childValue('rules') as Record<string, unknown>[] | undefined;
    const last = rules?.[rules.length - 1];
    if (last && Object.keys(last).join() === 'when' && last.when !== 'never') {
      this.addWarning(`may allow multiple pipelines to run for a single action due to \`rules:when\` clause with no \`workflow:rules\` - ${PIPELINE_WARNING_DOCS}`);
    }
  }

  protected needsValue(): NeedsValue | undefined {
    return this.childValue('needs') as NeedsValue | undefined;
  }
}

/** Entry::Job: a job with `script` (or `run`). */
export class Job extends Processable {
  static override readonly className = 'job';

  static override nodes(): NodeSpec[] {
    return [
      ...PROCESSABLE_NODES,
      node('before_script', () => Commands, { inherit: true }),
      node('script', () => Commands),
      node('after_script', () => Commands, { inherit: true }),
      node('hooks', () => Hooks, { inherit: true }),
      node('cache', () => Caches, { inherit: true }),
      node('image', () => Image, { inherit: true }),
      node('services', () => Services, { inherit: true }),
      node('timeout', () => Timeout, { inherit: true }),
      node('retry', () => Retry, { inherit: true }),
      node('tags', () => Tags, { inherit: true }),
      node('artifacts', () => Artifacts, { inherit: true }),
      node('needs', () => Needs, { metadata: { allowed_needs: ['job', 'cross_dependency'] } }),
      node('coverage', () => Coverage),
      node('release', () => Release),
      node('parallel', () => Parallel),
      node('allow_failure', () => AllowFailure),
      node('id_tokens', () => IdTokens, { inherit: true }),
      node('publish', () => Publish),
      node('pages', () => Pages),
    ];
  }

  /** Job#pages_job?: named `pages` (unless `pages: false`), or with a `pages:` setting. */
  isPagesJob(): boolean {
    const pages = attr(this.config, 'pages');
    if (!isBlank(pages)) return true;
    return this.name() === 'pages' && pages !== false;
  }

  protected override validations(errors: Errors, composed: boolean): void {
    const config = this.config;
    const get = (key: string): unknown => attr(config, key);
    this.processableValidations(errors);
    errors.allowedKeys('config', config, [...JOB_KEYS, ...PROCESSABLE_KEYS]);
    for (const key of ['script', 'before_script', 'after_script']) errors.mutuallyExclusiveKeys('config', config, [key, 'run']);
    if (isHash(config) && !hasKey(config, 'run')) errors.presence('script', get('script'));
    if (!isNil(get('when'))) {
      errors.type('when', get('when'), 'String');
      errors.inclusion('when', get('when'), JOB_WHEN, `should be one of: ${JOB_WHEN.join(', ')}`);
    }
    if (!isNil(get('dependencies'))) errors.arrayOfStrings('dependencies', get('dependencies'));
    if (!isNil(get('allow_failure'))) errors.hashOrBoolean('allow_failure', get('allow_failure'));
    if (!isNil(get('manual_confirmation'))) errors.type('manual_confirmation', get('manual_confirmation'), 'String');
    const delayed = get('when') === 'delayed';
    if (delayed) errors.duration('start_in', get('start_in'), '1 week');
    if (this.hasRules() || !delayed) errors.absence('start_in', get('start_in'));
    if (!(isHash(config) && this.isPagesJob())) errors.absence('publish', get('publish'), 'can only be used within a `pages` job');
    if (composed) this.dependenciesInNeeds(errors);
  }

  /** `dependencies:` of a job with `needs:` must be among its needs (of this pipeline). */
  private dependenciesInNeeds(errors: Errors): void {
    const dependencies = attr(this.config, 'dependencies');
    const needs = this.needsValue();
    if (isBlank(dependencies) || !needs || !Object.keys(needs).length || !Array.isArray(dependencies)) return;
    if (!needs.job && needs.cross_dependency?.length) {
      errors.add('needs', 'corresponding to dependencies must be from the same pipeline');
      return;
    }
    const names = (needs.job ?? []).map((n) => n.name);
    const missing = dependencies.filter((d) => !names.includes(d as string));
    if (missing.length) errors.add('dependencies', `the ${missing.join(', ')} should be part of needs`);
  }
}

/** Entry::Bridge: a trigger job (a downstream or child pipeline). */
export class Bridge extends Processable {
  static override readonly className = 'bridge';

  static override nodes(): NodeSpec[] {
    return [
      ...PROCESSABLE_NODES,
      node('trigger', () => Trigger),
      node('needs', () => Needs, { metadata: { allowed_needs: ['job', 'bridge'] } }),
      node('parallel', () => Parallel, { metadata: { allowed_strategies: ['matrix'] } }),
    ];
  }

  protected override validations(errors: Errors, composed: boolean): void {
    const config = this.config;
    this.processableValidations(errors);
    errors.allowedKeys('config', config, [...BRIDGE_KEYS, ...PROCESSABLE_KEYS]);
    const when = attr(config, 'when');
    if (!isNil(when)) {
      errors.type('when', when, 'String');
      errors.inclusion('when', when, BRIDGE_WHEN, `should be one of: ${BRIDGE_WHEN.join(', ')}`);
    }
    const allowFailure = attr(config, 'allow_failure');
    if (!isNil(allowFailure)) errors.boolean('allow_failure', allowFailure);
    if (!composed) return;
    const bridgeNeeds = this.needsValue()?.bridge ?? [];
    if (!this.defined('trigger') && !bridgeNeeds.length) errors.add('config', 'should contain either a trigger or a needs:pipeline');
    if (bridgeNeeds.length > 1) errors.add('config', 'should contain at most one bridge need');
  }
}

/** Entry::Hidden: a `.name` template; only its presence is checked. */
export class Hidden extends Entry {
  static override readonly className = 'hidden';
  override relevant = false;

  protected override validations(errors: Errors): void {
    errors.presence('config', this.config);
  }
}

/** Jobs::TYPES, in order: the kind of job a key and its value make, if any. */
export function jobType(name: string, config: unknown): EntryType | null {
  if (name.startsWith('.')) return Hidden;
  if (isHash(config) && (hasKey(config, 'script') || hasKey(config, 'run'))) return Job;
  if (isHash(config) && (hasKey(config, 'trigger') || hasKey(config, 'needs'))) return Bridge;
  return null;
}

/** Entry::Jobs: every job must be of a known kind, and one must be visible. */
export class Jobs extends ComposableHash {
  protected override validations(errors: Errors): void {
    errors.type('config', this.config, 'Hash');
    const jobs = isHash(this.config) ? Object.entries(this.config) : [];
    for (const [name, value] of jobs) {
      if (!jobType(name, value)) errors.add('base', `${name} config should implement the script:, run:, or trigger: keyword`);
    }
    if (!jobs.some(([name, value]) => { const type = jobType(name, value); return type === Job || type === Bridge; })) {
      errors.add('config', 'should contain at least one visible job');
    }
  }

  composable(name: string, config: unknown): EntryType | null {
    return jobType(name, config);
  }

  /** Job names the YAML wrote as numbers, booleans or null are no Symbols (`name should be a Symbol`). */
  protected override itemMetadata(name: string): Metadata {
    const nonSymbols = this.opt('non_symbol_keys') as Set<string> | undefined;
    return { nameIsSymbol: !nonSymbols?.has(name) };
  }
}
