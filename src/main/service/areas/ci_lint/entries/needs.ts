import {
  ComposableArray, Configurable, Entry, type EntryType, type Errors, type Strategies, UnknownStrategy, attr, hasKey,
  isBlank, isHash, isInteger, isNil, isString, node,
} from './framework';

/** Entry::Needs, Entry::Need, Entry::Product::{Parallel,Matrix,Variables}: `needs:` and `parallel:`. */

export const PARALLEL_LIMIT = 200;
/** Entry::Needs::NEEDS_CROSS_PIPELINE_DEPENDENCIES_LIMIT (and EE's cross-project one). */
const NEEDS_CROSS_DEPENDENCIES_LIMIT = 5;

export interface NeedValue {
  name?: string;
  artifacts?: boolean;
  optional?: boolean;
  parallel?: unknown;
  pipeline?: string;
  project?: string;
  job?: string;
}

/** A need entry knows its type: a job of this pipeline, another pipeline's job, or a bridge's pipeline. */
abstract class NeedEntry extends Entry {
  abstract needType(): 'job' | 'cross_dependency' | 'bridge' | null;
}

/** Need::JobString */
class JobString extends NeedEntry {
  protected override validations(errors: Errors): void {
    errors.presence('config', this.config);
    errors.type('config', this.config, 'String');
  }

  needType(): 'job' {
    return 'job';
  }

  override value(): NeedValue {
    return { name: this.config as string, artifacts: true, optional: false };
  }
}

/** Need::JobHash: `job`, `artifacts`, `optional`, `parallel:matrix`. */
class JobHash extends Configurable {
  static override nodes() {
    return [node('parallel', () => Parallel)];
  }

  protected override validations(errors: Errors): void {
    this.configurableValidations(errors);
    errors.presence('config', this.config);
    errors.allowedKeys('config', this.config, ['job', 'artifacts', 'optional', 'parallel']);
    const job = attr(this.config, 'job');
    errors.type('job', job, 'String');
    errors.presence('job', job);
    for (const key of ['artifacts', 'optional']) {
      const value = attr(this.config, key);
      if (!isNil(value)) errors.boolean(key, value);
    }
  }

  needType(): 'job' {
    return 'job';
  }

  override value(): NeedValue {
    const artifacts = attr(this.config, 'artifacts');
    const out: NeedValue = { name: attr(this.config, 'job') as string, artifacts: artifacts === true || isNil(artifacts), optional: !!attr(this.config, 'optional') };
    if (hasKey(this.config, 'parallel')) out.parallel = this.childValue('parallel');
    return out;
  }
}

/** Need::CrossPipelineDependency: `pipeline` and `job`. */
class CrossPipelineDependency extends NeedEntry {
  protected override validations(errors: Errors): void {
    errors.presence('config', this.config);
    errors.allowedKeys('config', this.config, ['pipeline', 'job', 'artifacts']);
    for (const key of ['pipeline', 'job']) {
      errors.type(key, attr(this.config, key), 'String');
      errors.presence(key, attr(this.config, key));
    }
    const artifacts = attr(this.config, 'artifacts');
    if (!isNil(artifacts)) errors.boolean('artifacts', artifacts);
  }

  needType(): 'cross_dependency' {
    return 'cross_dependency';
  }

  override value(): NeedValue {
    const artifacts = attr(this.config, 'artifacts');
    return { ...(this.config as NeedValue), artifacts: artifacts === true || isNil(artifacts) };
  }
}

/** EE Need::CrossProjectDependency: `project`, `job`, `ref`, `artifacts`. */
class CrossProjectDependency extends NeedEntry {
  protected override validations(errors: Errors): void {
    errors.presence('config', this.config);
    errors.allowedKeys('config', this.config, ['project', 'job', 'ref', 'artifacts']);
    for (const key of ['project', 'job']) {
      errors.type(key, attr(this.config, key), 'String');
      errors.presence(key, attr(this.config, key));
    }
    const ref = attr(this.config, 'ref');
    if (!isNil(ref)) errors.type('ref', ref, 'String');
    const artifacts = attr(this.config, 'artifacts');
    if (!isNil(artifacts)) errors.boolean('artifacts', artifacts);
  }

  needType(): 'cross_dependency' {
    return 'cross_dependency';
  }

  override value(): NeedValue {
    const artifacts = attr(this.config, 'artifacts');
    return { ...(this.config as NeedValue), artifacts: artifacts === true || isNil(artifacts) };
  }
}

/** EE Need::BridgeHash: a bridge mirroring an upstream `pipeline`. */
class BridgeHash extends NeedEntry {
  protected override validations(errors: Errors): void {
    errors.presence('config', this.config);
    errors.allowedKeys('config', this.config, ['pipeline']);
    errors.type('pipeline', attr(this.config, 'pipeline'), 'String');
    errors.presence('pipeline', attr(this.config, 'pipeline'));
  }

  needType(): 'bridge' {
    return 'bridge';
  }

  override value(): NeedValue {
    return { pipeline: attr(this.config, 'pipeline') as string };
  }
}

class UnknownNeed extends UnknownStrategy {
  message(): string {
    return `${this.location()} has an unsupported type`;
  }

  needType(): null {
    return null;
  }
}

const samePipelineNeed = (c: unknown): boolean => hasKey(c, 'job') && !hasKey(c, 'project') && !hasKey(c, 'ref') && !hasKey(c, 'pipeline');
const crossPipelineNeed = (c: unknown): boolean => hasKey(c, 'job') && hasKey(c, 'pipeline') && !hasKey(c, 'project');

const Need: Strategies = {
  strategies: [
    [isString, JobString],
    [(c) => isHash(c) && samePipelineNeed(c), JobHash],
    [(c) => isHash(c) && crossPipelineNeed(c), CrossPipelineDependency],
    [(c) => isHash(c) && hasKey(c, 'job') && hasKey(c, 'project'), CrossProjectDependency],
    [(c) => isHash(c) && !hasKey(c, 'job') && hasKey(c, 'pipeline'), BridgeHash],
  ],
  unknown: UnknownNeed,
};

export type NeedsValue = Partial<Record<'job' | 'cross_dependency' | 'bridge', NeedValue[]>>;

/** Entry::Needs: a list (or one hash) of needs of the kinds the place allows (`allowed_needs`). */
export class Needs extends ComposableArray {
  protected override validations(errors: Errors, composed: boolean): void {
    const config = this.config;
    if (!isHash(config) && !Array.isArray(config)) errors.add('config', 'can only be a Hash or an Array');
    if (isHash(config) && !Object.keys(config).length) errors.add('config', 'can not be an empty Hash');
    const numberParallel = (n: unknown): boolean => isHash(n) && typeof n.parallel === 'number';
    if (Array.isArray(config) ? config.some(numberParallel) : numberParallel(config)) errors.add('config', 'cannot use "parallel: <number>".');
    if (!composed) return;
    const value = this.value();
    const allowed = (this.opt('allowed_needs') as string[] | undefined) ?? [];
    const extra = Object.keys(value).filter((k) => !allowed.includes(k));
    if (extra.length) errors.add('config', `uses invalid types: ${extra.join(', ')}`);
    const cross = value.cross_dependency ?? [];
    if (cross.filter((d) => d.pipeline).length > NEEDS_CROSS_DEPENDENCIES_LIMIT) errors.add('config', `must be less than or equal to ${NEEDS_CROSS_DEPENDENCIES_LIMIT}`);
    if (cross.filter((d) => d.project).length > NEEDS_CROSS_DEPENDENCIES_LIMIT) errors.add('config', `must be less than or equal to ${NEEDS_CROSS_DEPENDENCIES_LIMIT}`);
  }

  composable(): EntryType {
    return Need;
  }

  itemName(): string {
    return 'need';
  }

  override value(): NeedsValue {
    const out: NeedsValue = {};
    for (const entry of this.entries.values()) {
      const type = (entry as unknown as NeedEntry).needType?.();
      if (type) (out[type] ??= []).push(entry.value() as NeedValue);
    }
    return out;
  }
}

/** Entry::Product::Parallel::ParallelBuilds: 1 to 200, unless the place only allows a matrix. */
class ParallelBuilds extends Entry {
  protected override validations(errors: Errors): void {
    errors.integerBetween('config', this.config, 1, PARALLEL_LIMIT);
    const allowed = this.opt('allowed_strategies') as string[] | undefined;
    if (allowed && !allowed.includes('numeric')) errors.add('config', 'cannot use "parallel: <number>".');
  }

  override value(): unknown {
    return { number: Math.trunc(this.config as number) };
  }
}

/** Entry::Product::Parallel::MatrixBuilds: `matrix:` only. */
class MatrixBuilds extends Configurable {
  static override nodes() {
    return [node('matrix', () => Matrix)];
  }

  protected override validations(errors: Errors): void {
    this.configurableValidations(errors);
    errors.allowedKeys('config', this.config, ['matrix']);
    errors.requiredKeys('config', this.config, ['matrix']);
    const allowed = this.opt('allowed_strategies') as string[] | undefined;
    if (allowed && !allowed.includes('matrix')) errors.add('config', 'cannot use "parallel: matrix".');
  }
}

class UnknownParallel extends UnknownStrategy {
  message(): string {
    return `${this.location()} should be an integer or a hash`;
  }
}

export const Parallel: Strategies = {
  strategies: [
    [(c) => typeof c === 'number', ParallelBuilds],
    [isHash, MatrixBuilds],
  ],
  unknown: UnknownParallel,
};

/** Entry::Product::Matrix: a list of variable hashes, generating at most 200 jobs. */
export class Matrix extends Entry {
  protected override validations(errors: Errors, composed: boolean): void {
    errors.arrayOfHashes('config', this.config);
    if (composed && this.numberOfGeneratedJobs() > PARALLEL_LIMIT) errors.add('config', `generates too many jobs (maximum is ${PARALLEL_LIMIT})`);
  }

  protected override composeEntries(deps: Entry | null): void {
    if (!this.valid()) return;
    (this.config as unknown[]).forEach((variables, index) => {
      const entry = new MatrixVariables(variables, {});
      entry.parent = this;
      entry.validate(false);
      this.entries.set(String(index), entry);
    });
    for (const entry of this.entries.values()) entry.compose(deps);
  }

  override value(): Record<string, string[]>[] {
    return [...this.entries.values()].map((e) => e.value() as Record<string, string[]>);
  }

  numberOfGeneratedJobs(): number {
    return this.value().reduce((sum, vars) => sum + Object.values(vars).reduce((acc, values) => acc * values.length, 1), 0);
  }
}

/** Ruby's Array(value) */
const rubyArray = (v: unknown): unknown[] => (isNil(v) ? [] : Array.isArray(v) ? v : isHash(v) ? Object.entries(v) : [v]);

/** Entry::Product::Variables: one matrix row; values may be lists. */
class MatrixVariables extends Entry {
  static override readonly className = 'variables';

  protected override validations(errors: Errors): void {
    const config = this.config;
    const alphanumeric = (v: unknown): boolean => isString(v) || isInteger(v);
    const ok = isHash(config) && Object.values(config).every((v) => !isBlank(v)) && Object.values(config).flat(1).every(alphanumeric);
    if (!ok) errors.add('config', 'should be a hash of key value pairs, value can be an array');
    errors.length('config', config, { minimum: 1, tooShort: 'requires at least %{count} items' });
  }

  override value(): Record<string, string[]> {
    if (!isHash(this.config)) return {};
    return Object.fromEntries(Object.entries(this.config).map(([k, v]) => [k, rubyArray(v).map(String)]));
  }
}
