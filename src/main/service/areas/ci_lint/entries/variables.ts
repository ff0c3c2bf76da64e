import { ComposableHash, Entry, type EntryType, type Errors, type Metadata, type Strategies, UnknownStrategy, attr, isArrayOfStrings, isBoolean, isHash, isNil, isString } from './framework';

/** Entry::Variables and Entry::Variable: `variables:` of the root, jobs, services and rules. */

/** ScalarValidator */
const isScalar = (v: unknown): boolean => isString(v) || typeof v === 'number' || isBoolean(v);
/** AlphanumericValidator */
const isAlphanumeric = (v: unknown): boolean => isString(v) || (typeof v === 'number' && Number.isInteger(v));

/** Entry::Variable::SimpleVariable: a scalar value. */
class SimpleVariable extends Entry {
  protected override validations(errors: Errors): void {
    if (!isAlphanumeric(this.key)) errors.add('key', 'must be an alphanumeric string');
    if (!isScalar(this.config)) errors.add('config', 'must be a scalar');
  }
}

/**
 * Entry::Variable::ComplexVariable: `value`, `description`, `expand`, `options` — the data keys the
 * place allows (`allowed_value_data`); where it allows none, a hash is no variable at all.
 */
class ComplexVariable extends Entry {
  protected override validations(errors: Errors): void {
    if (!isAlphanumeric(this.key)) errors.add('key', 'must be an alphanumeric string');
    const value = attr(this.config, 'value');
    const description = attr(this.config, 'description');
    const expand = attr(this.config, 'expand');
    const options = attr(this.config, 'options');
    if (!isNil(value) && !isScalar(value)) errors.add('config_value', 'must be a scalar');
    if (!isNil(description) && !isAlphanumeric(description)) errors.add('config_description', 'must be an alphanumeric string');
    if (!isNil(expand) && !isBoolean(expand)) errors.add('config_expand', 'should be a boolean value');
    if (!isNil(options) && !isArrayOfStrings(options)) errors.add('config_options', 'should be an array of strings');
    const allowed = (this.opt('allowed_value_data') as string[] | undefined) ?? [];
    if (allowed.length) {
      const extra = Object.keys(this.config as object).filter((k) => !allowed.includes(k));
      if (extra.length) errors.add('config', `uses invalid data keys: ${extra.join(', ')}`);
    } else errors.add('config', 'must be a string');
    if (Array.isArray(options) && options.length && !options.includes(value as string)) errors.add('config', 'value must be present in options');
  }
}

class UnknownVariable extends UnknownStrategy {
  message(): string {
    return 'variable definition must be either a string or a hash';
  }
}

const Variable: Strategies = {
  strategies: [
    [isScalar, SimpleVariable],
    [isHash, ComplexVariable],
  ],
  unknown: UnknownVariable,
};

/** Entry::Variables */
export class Variables extends ComposableHash {
  static defaultConfig(): unknown {
    return {};
  }

  protected override validations(errors: Errors): void {
    errors.type('config', this.config, 'Hash');
  }

  composable(): EntryType {
    return Variable;
  }

  protected override itemMetadata(): Metadata {
    return { allowed_value_data: this.opt('allowed_value_data') };
  }
}
