import { isValidExpression } from '../expression';
import {
  ComposableArray, Configurable, Entry, type EntryType, type Errors, type Strategies, UnknownStrategy, attr,
  isBlank, isHash, isNil, isString, node,
} from './framework';
import { Needs } from './needs';
import { Variables } from './variables';

/** Entry::Rules, Rules::Rule (with changes/exists), AutoCancel, Policy (only/except). */

const MAX_PATHS = 50;

/** Rules::Rule::Changes::SimpleChanges: up to 50 paths. */
class SimpleChanges extends Entry {
  protected override validations(errors: Errors): void {
    errors.arrayOfStrings('config', this.config);
    errors.length('config', this.config, { maximum: MAX_PATHS, tooLong: 'has too many entries (maximum %{count})' });
  }
}

/** Rules::Rule::Changes::ComplexChanges: `paths` (required) and `compare_to`. */
class ComplexChanges extends Entry {
  protected override validations(errors: Errors): void {
    errors.allowedKeys('config', this.config, ['paths', 'compare_to']);
    errors.requiredKeys('config', this.config, ['paths']);
    const paths = attr(this.config, 'paths');
    errors.arrayOfStrings('paths', paths);
    errors.length('paths', paths, { maximum: MAX_PATHS, tooLong: 'has too many entries (maximum %{count})' });
    const compareTo = attr(this.config, 'compare_to');
    if (!isNil(compareTo)) errors.type('compare_to', compareTo, 'String');
  }
}

class UnknownChanges extends UnknownStrategy {
  message(): string {
    return `${this.location()} should be an array or a hash`;
  }
}

export const Changes: Strategies = {
  strategies: [
    [Array.isArray, SimpleChanges],
    [isHash, ComplexChanges],
  ],
  unknown: UnknownChanges,
};

/** Rules::Rule::Exists::SimpleExists: a path or paths (up to 50, unless the place lifts the limit). */
class SimpleExists extends Entry {
  protected override validations(errors: Errors): void {
    if (!Array.isArray(this.config)) return;
    errors.arrayOfStrings('config', this.config);
    if (!this.opt('disable_simple_exists_paths_limit')) {
      errors.length('config', this.config, { maximum: MAX_PATHS, tooLong: 'has too many entries (maximum %{count})' });
    }
  }
}

/** Rules::Rule::Exists::ComplexExists: `paths`, `project` and `ref` (which needs `project`). */
class ComplexExists extends Entry {
  protected override validations(errors: Errors): void {
    errors.allowedKeys('config', this.config, ['paths', 'project', 'ref']);
    errors.requiredKeys('config', this.config, ['paths']);
    if (!isNil(attr(this.config, 'ref'))) errors.requiredKeys('config', this.config, ['project']);
    const paths = attr(this.config, 'paths');
    if (!isNil(paths)) {
      errors.arrayOfStrings('paths', paths);
      errors.length('paths', paths, { maximum: MAX_PATHS, tooLong: 'has too many entries (maximum %{count})' });
    }
    for (const key of ['project', 'ref']) if (!isNil(attr(this.config, key))) errors.type(key, attr(this.config, key), 'String');
  }
}

class UnknownExists extends UnknownStrategy {
  message(): string {
    return `${this.location()} should be a string, an array of strings, or a hash`;
  }
}

export const Exists: Strategies = {
  strategies: [
    [(c) => isString(c) || Array.isArray(c) || isBlank(c), SimpleExists],
    [isHash, ComplexExists],
  ],
  unknown: UnknownExists,
};

const AUTO_CANCEL_ON_NEW_COMMIT = ['conservative', 'interruptible', 'none'];
const AUTO_CANCEL_ON_JOB_FAILURE = ['none', 'all'];

/** Entry::AutoCancel: `on_new_commit`, `on_job_failure`. */
export class AutoCancel extends Entry {
  protected override validations(errors: Errors): void {
    errors.type('config', this.config, 'Hash');
    errors.allowedKeys('config', this.config, ['on_new_commit', 'on_job_failure']);
    for (const [key, values] of [['on_new_commit', AUTO_CANCEL_ON_NEW_COMMIT], ['on_job_failure', AUTO_CANCEL_ON_JOB_FAILURE]] as const) {
      const value = attr(this.config, key);
      if (isNil(value)) continue;
      errors.type(key, value, 'String');
      errors.inclusion(key, value, values, `must be one of: ${values.join(', ')}`);
    }
  }
}

/** Entry::Rules::Rule: `if` (an expression), `changes`, `exists`, `when`, `start_in`, `allow_failure`... */
export class Rule extends Configurable {
  static override nodes() {
    return [
      node('changes', () => Changes),
      node('exists', () => Exists),
      node('variables', () => Variables),
      node('needs', () => Needs, { metadata: { allowed_needs: ['job'] } }),
      node('auto_cancel', () => AutoCancel),
    ];
  }

  protected override validations(errors: Errors): void {
    this.configurableValidations(errors);
    errors.presence('config', this.config);
    errors.type('config', this.config, 'Hash');
    const delayed = attr(this.config, 'when') === 'delayed';
    const startIn = attr(this.config, 'start_in');
    if (!delayed) errors.disallowedKeys('config', this.config, ['start_in']);
    if (delayed) {
      errors.presence('start_in', startIn);
      errors.duration('start_in', startIn, '1 week');
    }
    const condition = attr(this.config, 'if');
    if (!isNil(condition) && !isValidExpression(condition)) errors.add('if', 'Invalid expression syntax');
    for (const key of ['allow_failure', 'interruptible']) {
      const value = attr(this.config, key);
      if (!isNil(value)) errors.boolean(key, value);
    }
    const when = attr(this.config, 'when');
    if (!isNil(when)) errors.allowedValues('when', when, (this.opt('allowed_when') as string[]) ?? []);
    errors.allowedKeys('config', this.config, (this.opt('allowed_keys') as string[]) ?? []);
  }

  /** Rule#value: the keys it was written with (nil ones dropped). */
  override value(): Record<string, unknown> {
    return Object.fromEntries(Object.entries(this.config as Record<string, unknown>).filter(([, v]) => !isNil(v)));
  }
}

/** Entry::Rules */
export class Rules extends ComposableArray {
  protected override validations(errors: Errors): void {
    errors.presence('config', this.config);
    errors.type('config', this.config, 'Array');
  }

  composable(): EntryType {
    return Rule;
  }

  itemName(): string {
    return 'rule';
  }
}

/** Policy::RefsPolicy: refs, /regexps/ that RE2 compiles. */
class RefsPolicy extends Entry {
  protected override validations(errors: Errors): void {
    errors.arrayOfStringsOrRegexps('config', this.config);
  }
}

/** Policy::ComplexPolicy: `refs`, `kubernetes: active`, `variables` (expressions), `changes`. */
class ComplexPolicy extends Entry {
  protected override validations(errors: Errors): void {
    errors.presence('config', this.config);
    errors.allowedKeys('config', this.config, ['refs', 'kubernetes', 'variables', 'changes']);
    const variables = attr(this.config, 'variables');
    if (Array.isArray(variables)) {
      for (const statement of variables) if (!isValidExpression(statement)) errors.add('variables', 'Invalid expression syntax');
    }
    const refs = attr(this.config, 'refs');
    if (!isNil(refs)) errors.arrayOfStringsOrRegexps('refs', refs);
    const kubernetes = attr(this.config, 'kubernetes');
    if (!isNil(kubernetes)) errors.allowedValues('kubernetes', kubernetes, ['active']);
    if (!isNil(variables)) errors.arrayOfStrings('variables', variables);
    const changes = attr(this.config, 'changes');
    if (!isNil(changes)) errors.arrayOfStrings('changes', changes);
  }
}

class UnknownPolicy extends UnknownStrategy {
  message(): string {
    return `${this.location()} has to be either an array of conditions or a hash`;
  }
}

/** Entry::Policy: `only:`/`except:`. */
export const Policy: Strategies = {
  strategies: [
    [Array.isArray, RefsPolicy],
    [isHash, ComplexPolicy],
  ],
  unknown: UnknownPolicy,
};

export const DEFAULT_ONLY = { refs: ['branches', 'tags'] };


