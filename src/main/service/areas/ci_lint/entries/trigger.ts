import { isValidExpression } from '../expression';
import { isDuration, parseDuration } from '../duration';
import { ComposableArray, Configurable, Entry, type EntryType, type Errors, type Strategies, UnknownStrategy, attr, hasKey, isBlank, isHash, isNil, isString, node } from './framework';
import { Changes, Exists } from './rules';
import { isExpiry } from './scalars';

/** Entry::Trigger (with Forward) and the `include:` of a child pipeline (Entry::Includes, Include, Include::Rules). */

const STRATEGIES = ['depend', 'mirror'];

/** Trigger::Forward: `yaml_variables`, `pipeline_variables`. */
class Forward extends Entry {
  protected override validations(errors: Errors): void {
    errors.allowedKeys('config', this.config, ['yaml_variables', 'pipeline_variables']);
    for (const key of ['yaml_variables', 'pipeline_variables']) {
      const value = attr(this.config, key);
      if (!isNil(value)) errors.boolean(key, value);
    }
  }
}

/** Trigger::SimpleTrigger: a project path. */
class SimpleTrigger extends Entry {
  protected override validations(errors: Errors): void {
    errors.presence('config', this.config);
  }
}

function strategyValidations(errors: Errors, config: unknown): void {
  const strategy = attr(config, 'strategy');
  if (isNil(strategy)) return;
  errors.type('strategy', strategy, 'String');
  errors.inclusion('strategy', strategy, STRATEGIES, 'should be depend or mirror');
}

/** Trigger::ComplexTrigger::CrossProjectTrigger: `project`, `branch`, `strategy`, `forward`, `inputs`. */
class CrossProjectTrigger extends Configurable {
  static override nodes() {
    return [node('forward', () => Forward)];
  }

  protected override validations(errors: Errors): void {
    this.configurableValidations(errors);
    errors.presence('config', this.config);
    errors.allowedKeys('config', this.config, ['project', 'branch', 'strategy', 'forward', 'inputs']);
    const inputs = attr(this.config, 'inputs');
    if (!isNil(inputs)) errors.type('inputs', inputs, 'Hash');
    const project = attr(this.config, 'project');
    errors.type('project', project, 'String');
    errors.presence('project', project);
    const branch = attr(this.config, 'branch');
    if (!isNil(branch)) errors.type('branch', branch, 'String');
    strategyValidations(errors, this.config);
  }
}

/** Trigger::ComplexTrigger::SameProjectTrigger: a child pipeline from `include` (at most 3 files). */
class SameProjectTrigger extends Configurable {
  static override nodes() {
    return [node('include', () => Includes, { metadata: { max_size: 3 } }), node('forward', () => Forward)];
  }

  protected override validations(errors: Errors): void {
    this.configurableValidations(errors);
    errors.presence('config', this.config);
    errors.allowedKeys('config', this.config, ['strategy', 'include', 'forward']);
    strategyValidations(errors, this.config);
  }
}

class UnknownTrigger extends UnknownStrategy {
  message(): string {
    return `${this.location()} has to be either a string or a hash`;
  }
}

class UnknownComplexTrigger extends UnknownStrategy {
  message(): string {
    return 'config must specify either project or include';
  }
}

/** Entry::Trigger */
export const Trigger: Strategies = {
  strategies: [
    [isString, SimpleTrigger],
    [
      isHash,
      {
        strategies: [
          [(c) => !hasKey(c, 'include'), CrossProjectTrigger],
          [(c) => hasKey(c, 'include'), SameProjectTrigger],
        ],
        unknown: UnknownComplexTrigger,
      },
    ],
  ],
  unknown: UnknownTrigger,
};

/** Include::Rules::Rule: `if`, `exists`, `when` (never/always), `changes`. */
class IncludeRule extends Configurable {
  static override nodes() {
    return [node('changes', () => Changes), node('exists', () => Exists, { metadata: { disable_simple_exists_paths_limit: true } })];
  }

  protected override validations(errors: Errors): void {
    this.configurableValidations(errors);
    errors.presence('config', this.config);
    errors.type('config', this.config, 'Hash');
    errors.allowedKeys('config', this.config, ['if', 'exists', 'when', 'changes']);
    const condition = attr(this.config, 'if');
    if (!isNil(condition) && !isValidExpression(condition)) errors.add('if', 'Invalid expression syntax');
    const when = attr(this.config, 'when');
    if (!isNil(when)) errors.allowedValues('when', when, ['never', 'always']);
  }
}

/** Entry::Include::Rules */
class IncludeRules extends ComposableArray {
  protected override validations(errors: Errors): void {
    errors.presence('config', this.config);
    errors.type('config', this.config, 'Array');
  }

  composable(): EntryType {
    return IncludeRule;
  }

  itemName(): string {
    return 'rule';
  }
}

const INCLUDE_CACHE_MIN_SECONDS = 60;

/** Entry::Include (with Concerns::BaseInclude): one file a child pipeline includes. */
class Include extends Configurable {
  static override nodes() {
    return [node('rules', () => IncludeRules)];
  }

  protected override skipsHashValidation(): boolean {
    return true;
  }

  protected override validations(errors: Errors): void {
    const config = this.config;
    errors.hashOrString('config', config);
    if (isHash(config)) {
      if (config.project && isBlank(config.file)) errors.add('config', 'must specify the file where to fetch the config from');
      if (config.integrity) this.integrityValidations(errors, config);
      if (!isBlank(config.cache)) this.cacheValidations(errors, config);
    }
    errors.allowedKeys('config', config, ['local', 'file', 'remote', 'project', 'ref', 'integrity', 'cache', 'template', 'artifact', 'inputs', 'job', 'rules', 'component']);
    if (isHash(config) && config.artifact && isBlank(config.job)) errors.add('config', 'must specify the job where to fetch the artifact from');
    const rules = attr(config, 'rules');
    if (!isNil(rules)) errors.arrayOfHashes('rules', rules);
  }

  private integrityValidations(errors: Errors, config: Record<string, unknown>): void {
    if (isBlank(config.remote)) errors.add('config', 'integrity can only be specified for remote includes');
    if (!(isString(config.integrity) && config.integrity.startsWith('sha256-'))) {
      errors.add('config', "integrity hash must start with 'sha256-'");
      return;
    }
    if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(config.integrity.slice('sha256-'.length))) {
      errors.add('config', 'integrity hash must be base64 encoded');
    }
  }

  /** Ci::IncludeCacheValidator: remote includes only; true or a duration of at least a minute. */
  private cacheValidations(errors: Errors, config: Record<string, unknown>): void {
    if (isBlank(config.remote)) errors.add('config', 'cache can only be specified for remote includes');
    if (config.cache === true) return;
    if (!isString(config.cache)) return errors.add('config', 'cache must be a boolean or a duration string');
    if (!isExpiry(config.cache) || !isDuration(config.cache)) return errors.add('config', 'cache contains an invalid duration');
    if ((parseDuration(config.cache) ?? 0) < INCLUDE_CACHE_MIN_SECONDS) errors.add('config', 'cache duration must be at least 1 minute');
  }
}

/** Entry::Includes: a file, or a list of them (at most `max_size` where the place limits it). */
export class Includes extends ComposableArray {
  protected override validations(errors: Errors): void {
    errors.arrayOrString('config', this.config);
    const max = this.opt('max_size') as number | undefined;
    if (max && Array.isArray(this.config) && this.config.length > max) errors.add('config', `is too long (maximum is ${max})`);
  }

  composable(): EntryType {
    return Include;
  }

  itemName(): string {
    return 'include';
  }
}
