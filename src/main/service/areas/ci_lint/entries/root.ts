import { Artifacts, Caches } from './artifacts';
import { BooleanEntry, Configurable, Entry, EntryConfigError, type Errors, type Hash, type Metadata, type NodeSpec, attr, createEntry, hasKey, isNil, node } from './framework';
import { Image, Services } from './image';
import { type JobDeps, Jobs, jobType } from './jobs';
import { AutoCancel, Rules } from './rules';
import { Commands, DEFAULT_KEYS, Hooks, IdTokens, Retry, Stages, Tags, Timeout } from './scalars';
import { Variables } from './variables';

/** Entry::Root (the whole configuration), Entry::Default and Entry::Workflow. */

const ROOT_KEYS = ['default', 'include', 'before_script', 'image', 'services', 'after_script', 'variables', 'stages', 'cache', 'workflow'];
/** Root keys that can never name a job (`reserved: true`). */
const RESERVED_KEYS = ['include', 'before_script', 'image', 'services', 'after_script', 'variables', 'stages', 'cache'];
const WORKFLOW_RULE_KEYS = ['if', 'changes', 'exists', 'when', 'start_in', 'allow_failure', 'variables', 'needs', 'auto_cancel'];

/** Entry::Default: what every job inherits; a key set here and at the top level is an error. */
export class Default extends Configurable {
  static override nodes(): NodeSpec[] {
    return [
      node('before_script', () => Commands, { inherit: true }),
      node('after_script', () => Commands, { inherit: true }),
      node('hooks', () => Hooks),
      node('cache', () => Caches, { inherit: true }),
      node('image', () => Image, { inherit: true }),
      node('services', () => Services, { inherit: true }),
      node('interruptible', () => BooleanEntry),
      node('timeout', () => Timeout),
      node('retry', () => Retry),
      node('tags', () => Tags),
      node('artifacts', () => Artifacts),
      node('id_tokens', () => IdTokens),
    ];
  }

  protected override validations(errors: Errors): void {
    this.configurableValidations(errors);
    // EE adds `identity`.
    errors.allowedKeys('config', this.config, [...DEFAULT_KEYS, 'identity']);
  }

  /** Default#overwrite_entry: the top-level `before_script`, `image`... unless `default:` has its own. */
  protected override afterCompose(deps: Entry | null): void {
    if (!deps) return;
    for (const spec of this.nodeSpecs()) {
      if (!spec.inherit) continue;
      const inherited = deps.child(spec.key);
      const current = this.child(spec.key);
      if (inherited.specified && current.specified) throw new EntryConfigError(`${spec.key} is defined in top-level and \`default:\` entry`);
      if (!current.specified && inherited.specified) this.entries.set(spec.key, inherited);
    }
  }
}

/** Entry::Workflow: `rules` (when: always/never), `name`, `auto_cancel`. */
export class Workflow extends Configurable {
  static override nodes(): NodeSpec[] {
    return [
      node('rules', () => Rules, { metadata: { allowed_when: ['always', 'never'], allowed_keys: WORKFLOW_RULE_KEYS } }),
      node('auto_cancel', () => AutoCancel),
    ];
  }

  protected override validations(errors: Errors): void {
    this.configurableValidations(errors);
    errors.type('config', this.config, 'Hash');
    errors.allowedKeys('config', this.config, ['rules', 'name', 'auto_cancel']);
    const name = attr(this.config, 'name');
    if (!isNil(name)) errors.length('name', name, { minimum: 0, maximum: 255 });
  }

  hasRules(): boolean {
    return hasKey(this.config, 'rules');
  }
}

/** Entry::Root: the global keywords; every other key is a job (or not a valid one). */
export class Root extends Configurable implements JobDeps {
  static override readonly className = 'root';
  private jobsConfig: Hash = {};

  static override nodes(): NodeSpec[] {
    return [
      node('default', () => Default, { default: {} }),
      node('before_script', () => Commands),
      node('image', () => Image),
      node('services', () => Services),
      node('after_script', () => Commands),
      node('variables', () => Variables, { metadata: { allowed_value_data: ['value', 'description', 'expand', 'options'] } }),
      node('stages', () => Stages),
      node('cache', () => Caches),
      node('workflow', () => Workflow, { default: {} }),
    ];
  }

  /** Root#filter_jobs!: the jobs are the keys no global keyword claims. */
  static fromConfig(config: Hash, metadata: Metadata = {}): Root {
    const globals: Hash = {};
    const jobs: Hash = {};
    for (const [name, value] of Object.entries(config)) {
      const isJob = !RESERVED_KEYS.includes(name) && (jobType(name, value) !== null || !ROOT_KEYS.includes(name));
      (isJob ? jobs : globals)[name] = value;
    }
    const root = new Root(globals, metadata);
    root.jobsConfig = jobs;
    root.validate(false);
    return root;
  }

  protected override validations(errors: Errors): void {
    this.configurableValidations(errors);
    errors.allowedKeys('config', this.config, ROOT_KEYS);
  }

  protected override composeBlock(): void {
    this.entries.set('jobs', createEntry(Jobs, this.jobsConfig, { key: 'jobs', parent: this }));
  }

  /** Root#compose!: everything composes with the root as its `deps`. */
  override compose(): void {
    super.compose(this);
  }

  defaultEntry(): Entry | undefined {
    return this.entries.get('default');
  }

  hasWorkflowRules(): boolean {
    return !!(this.entries.get('workflow') as Workflow | undefined)?.hasRules();
  }
}
