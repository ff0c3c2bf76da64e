import {
  ArrayOfStringsEntry, BooleanEntry, ComposableArray, Configurable, Entry, type EntryType, type Errors, type Strategies,
  UnknownStrategy, attr, isArrayOfStrings, isBlank, isHash, isNil, isString, node,
} from './framework';
import { isExpiry } from './scalars';

/** Entry::Artifacts (with Reports), Entry::Caches, Cache, Key, Files, Prefix, Paths. */

const ARTIFACTS_WHEN = ['on_success', 'on_failure', 'always'];
const ARTIFACTS_ACCESS = ['none', 'developer', 'maintainer', 'all'];
/** Ci::JobArtifact::MAX_EXPOSED_AS_LENGTH */
const MAX_EXPOSED_AS_LENGTH = 100;

const REPORT_KEYS = [
  'junit', 'codequality', 'sast', 'secret_detection', 'dependency_scanning', 'container_scanning', 'dast', 'performance',
  'browser_performance', 'load_performance', 'license_scanning', 'metrics', 'lsif', 'dotenv', 'terraform', 'accessibility',
  'coverage_fuzzing', 'api_fuzzing', 'cluster_image_scanning', 'requirements', 'requirements_v2', 'coverage_report',
  'cyclonedx', 'annotations', 'repository_xray', 'sarif',
];
/** The reports GitLab checks as a path or paths, in its order (`sast` is declared twice). */
const REPORT_PATH_KEYS = [
  'junit', 'api_fuzzing', 'coverage_fuzzing', 'sast', 'sast', 'secret_detection', 'dependency_scanning', 'container_scanning',
  'cluster_image_scanning', 'dast', 'performance', 'browser_performance', 'load_performance', 'license_scanning', 'metrics',
  'lsif', 'dotenv', 'terraform', 'accessibility', 'requirements', 'requirements_v2', 'cyclonedx', 'annotations',
  'repository_xray', 'sarif',
];

/** Entry::Reports::CoverageReport: `coverage_format` (cobertura, jacoco) and `path`. */
class CoverageReport extends Entry {
  protected override validations(errors: Errors): void {
    errors.type('config', this.config, 'Hash');
    errors.allowedKeys('config', this.config, ['coverage_format', 'path']);
    const format = attr(this.config, 'coverage_format');
    errors.presence('coverage_format', format);
    errors.inclusion('coverage_format', format, ['cobertura', 'jacoco'], 'must be one of supported formats: cobertura, jacoco.');
    const path = attr(this.config, 'path');
    errors.presence('path', path);
    errors.type('path', path, 'String');
  }
}

/** Entry::Reports */
class Reports extends Configurable {
  static override nodes() {
    return [node('coverage_report', () => CoverageReport)];
  }

  protected override validations(errors: Errors): void {
    this.configurableValidations(errors);
    errors.type('config', this.config, 'Hash');
    errors.allowedKeys('config', this.config, REPORT_KEYS);
    for (const key of REPORT_PATH_KEYS) {
      const value = attr(this.config, key);
      if (!isNil(value)) errors.arrayOfStringsOrString(key, value);
    }
  }
}

/** Entry::Artifacts */
export class Artifacts extends Configurable {
  static override nodes() {
    return [node('reports', () => Reports)];
  }

  protected override validations(errors: Errors): void {
    this.configurableValidations(errors);
    const get = (key: string): unknown => attr(this.config, key);
    const exposeAs = get('expose_as');
    const exposed = isHash(this.config) && !isNil(exposeAs);
    errors.type('config', this.config, 'Hash');
    errors.allowedKeys('config', this.config, ['name', 'untracked', 'paths', 'reports', 'when', 'expire_in', 'expose_as', 'exclude', 'public', 'access']);
    if (exposed) errors.presence('paths', get('paths'));
    errors.mutuallyExclusiveKeys('config', this.config, ['access', 'public']);
    if (!isNil(get('name'))) errors.type('name', get('name'), 'String');
    if (!isNil(get('public'))) errors.boolean('public', get('public'));
    if (!isNil(get('untracked'))) errors.boolean('untracked', get('untracked'));
    const paths = get('paths');
    if (!isNil(paths)) {
      errors.arrayOfStrings('paths', paths);
      if (exposed && !isArrayOfStrings(paths)) errors.add('paths', 'should be an array of strings');
      else if (exposed && (paths as string[]).some((p) => p.includes('*'))) errors.add('paths', "can't contain '*' when used with 'expose_as'");
    }
    if (exposed) {
      errors.type('expose_as', exposeAs, 'String');
      errors.length('expose_as', exposeAs, { maximum: MAX_EXPOSED_AS_LENGTH });
      if (!/^\w[-\w ]*$/.test(String(exposeAs))) errors.add('expose_as', "can contain only letters, digits, '-', '_' and spaces");
    }
    if (!isNil(get('exclude'))) errors.arrayOfStrings('exclude', get('exclude'));
    if (!isNil(get('reports'))) errors.type('reports', get('reports'), 'Hash');
    if (!isNil(get('when'))) {
      errors.type('when', get('when'), 'String');
      errors.inclusion('when', get('when'), ARTIFACTS_WHEN, `should be one of: ${ARTIFACTS_WHEN.join(', ')}`);
    }
    if (!isNil(get('expire_in'))) errors.duration('expire_in', get('expire_in'), undefined, isExpiry);
    if (!isNil(get('access'))) {
      errors.type('access', get('access'), 'String');
      errors.inclusion('access', get('access'), ARTIFACTS_ACCESS, `should be one of: ${ARTIFACTS_ACCESS.join(', ')}`);
    }
  }
}

/** Entry::Files: one or two files whose content keys the cache. */
class Files extends Entry {
  protected override validations(errors: Errors): void {
    errors.arrayOfStrings('config', this.config);
    errors.length('config', this.config, { minimum: 1, maximum: 2, tooShort: 'requires at least %{count} item', tooLong: 'has too many items (maximum is %{count})' });
  }
}

/** Entry::Prefix */
class Prefix extends Entry {
  protected override validations(errors: Errors): void {
    errors.key('config', this.config);
  }
}

/** Entry::Paths */
class Paths extends ArrayOfStringsEntry {}

/** Key::SimpleKey: a name without "/" (and not "." or ".."). */
class SimpleKey extends Entry {
  protected override validations(errors: Errors): void {
    errors.key('config', this.config);
  }
}

/** Key::ComplexKey: `files` or `files_commits`, and a `prefix`. */
class ComplexKey extends Configurable {
  static override nodes() {
    return [node('files', () => Files), node('files_commits', () => Files), node('prefix', () => Prefix)];
  }

  protected override validations(errors: Errors): void {
    this.configurableValidations(errors);
    errors.allowedKeys('config', this.config, ['files', 'files_commits', 'prefix']);
    errors.onlyOneOfKeys('config', this.config, ['files', 'files_commits']);
  }
}

class UnknownKey extends UnknownStrategy {
  message(): string {
    return `${this.location()} should be a hash, a string or a symbol`;
  }
}

const Key: Strategies = {
  strategies: [
    [isString, SimpleKey],
    [isHash, ComplexKey],
  ],
  unknown: UnknownKey,
  defaultConfig: () => 'default',
};

/** Cache::ALLOWED_POLICY, unanchored as GitLab writes it. */
const CACHE_POLICY = /pull-push|push|pull|\$(?:\w{1,255})*/;
const CACHE_WHEN = ['on_success', 'on_failure', 'always'];

/** Entry::Cache */
class Cache extends Configurable {
  static override nodes() {
    return [
      node('key', () => Key),
      node('unprotect', () => BooleanEntry),
      node('untracked', () => BooleanEntry),
      node('paths', () => Paths),
      node('fallback_keys', () => ArrayOfStringsEntry),
    ];
  }

  protected override validations(errors: Errors): void {
    this.configurableValidations(errors);
    errors.type('config', this.config, 'Hash');
    errors.allowedKeys('config', this.config, ['key', 'untracked', 'paths', 'when', 'policy', 'unprotect', 'fallback_keys']);
    const policy = attr(this.config, 'policy');
    if (!isBlank(policy)) {
      errors.type('policy', policy, 'String');
      if (!CACHE_POLICY.test(String(policy))) errors.add('policy', 'should be a variable or one of: pull-push, push, pull');
    }
    const when = attr(this.config, 'when');
    if (!isNil(when)) {
      errors.type('when', when, 'String');
      errors.inclusion('when', when, CACHE_WHEN, `should be one of: ${CACHE_WHEN.join(', ')}`);
    }
    const fallbackKeys = attr(this.config, 'fallback_keys');
    if (!isNil(fallbackKeys)) errors.length('fallback_keys', fallbackKeys, { maximum: 5, tooLong: 'has to many entries (maximum %{count})' });
  }
}

const MULTIPLE_CACHE_LIMIT = 4;

/** Entry::Caches: one cache or up to four. It has no key of its own: its messages say `caches`. */
export class Caches extends ComposableArray {
  static override readonly className = 'caches';
  static override readonly keyless = true;

  protected override validations(errors: Errors): void {
    if (!isHash(this.config) && !Array.isArray(this.config)) errors.add('config', 'can only be a Hash or an Array');
    if (Array.isArray(this.config) && this.config.length > MULTIPLE_CACHE_LIMIT) {
      errors.add('config', `no more than ${MULTIPLE_CACHE_LIMIT} caches can be created`);
    }
  }

  composable(): EntryType {
    return Cache;
  }

  itemName(): string {
    return 'cache';
  }
}
