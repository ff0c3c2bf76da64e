import { Configurable, type Errors, attr, isBlank, isHash, isNil, isString, node } from './framework';
import { DASHBOARD, MANAGED_RESOURCES, schemaErrors } from './schema';

/** Entry::Environment (with Kubernetes) and Entry::Release (with assets and links). */

/** Gitlab::Regex.environment_name_regex and its message. */
const ENVIRONMENT_NAME = /^[a-zA-Z0-9_$\{\}. -]([a-zA-Z0-9_/$\{\}. -]*[a-zA-Z0-9_$\{\}. -])?$/;
export const ENVIRONMENT_NAME_MESSAGE = "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', and spaces, but it cannot start or end with '/'";
const ENVIRONMENT_ACTIONS = ['start', 'stop', 'prepare', 'verify', 'access'];
/** Environment.tiers */
const DEPLOYMENT_TIERS = ['production', 'staging', 'testing', 'development', 'other'];
const JSON_SIZE_LIMIT = 64 * 1024;

/** Entry::Kubernetes: `namespace`, `agent`, `flux_resource_path`, `managed_resources`, `dashboard`. */
class Kubernetes extends Configurable {
  protected override validations(errors: Errors): void {
    this.configurableValidations(errors);
    const get = (key: string): unknown => attr(this.config, key);
    errors.type('config', this.config, 'Hash');
    errors.presence('config', this.config);
    errors.allowedKeys('config', this.config, ['namespace', 'agent', 'flux_resource_path', 'managed_resources', 'dashboard']);
    const dashboard = isHash(get('dashboard')) ? (get('dashboard') as Record<string, unknown>) : isNil(get('dashboard')) ? {} : get('dashboard');
    const managed = get('managed_resources');
    const agentRequired = !isBlank(get('flux_resource_path')) || !isBlank(dashboard) || (isHash(managed) && managed.enabled === true);
    if (!isNil(get('namespace'))) errors.type('namespace', get('namespace'), 'String');
    if (!isBlank(get('flux_resource_path'))) errors.presence('namespace', get('namespace'));
    if (!isNil(get('agent'))) errors.type('agent', get('agent'), 'String');
    if (agentRequired) errors.presence('agent', get('agent'));
    if (!isNil(get('flux_resource_path'))) errors.type('flux_resource_path', get('flux_resource_path'), 'String');
    for (const [key, schema] of [['managed_resources', MANAGED_RESOURCES], ['dashboard', DASHBOARD]] as const) {
      const value = get(key);
      if (key === 'managed_resources' ? isNil(value) : isBlank(dashboard)) continue;
      if (JSON.stringify(value).length > JSON_SIZE_LIMIT) errors.add(key, 'is too large. Maximum size allowed is 64 KB');
      else for (const message of schemaErrors(schema, JSON.parse(JSON.stringify(value)))) errors.add(key, message);
    }
    if (isHash(dashboard)) {
      if (!isBlank(get('namespace')) && !isBlank(dashboard.namespace)) errors.add('namespace', 'cannot be specified when dashboard.namespace is set');
      if (!isBlank(get('flux_resource_path')) && !isBlank(dashboard.flux_resource_path)) {
        errors.add('flux_resource_path', 'cannot be specified when dashboard.flux_resource_path is set');
      }
    }
  }
}

/** Entry::Environment: a name, or a hash with `name`, `url`, `action`, `on_stop`... */
export class Environment extends Configurable {
  static override nodes() {
    return [node('kubernetes', () => Kubernetes)];
  }

  protected override skipsHashValidation(): boolean {
    return true;
  }

  name(): unknown {
    return isString(this.config) ? this.config : attr(this.config, 'name');
  }

  protected override validations(errors: Errors): void {
    const config = this.config;
    if (!isHash(config) && !isString(config)) errors.add('config', 'should be a hash or a string');
    const name = this.name();
    errors.presence('name', name);
    errors.type('name', name, 'String', ENVIRONMENT_NAME_MESSAGE);
    if (!ENVIRONMENT_NAME.test(isNil(name) ? '' : String(name))) errors.add('name', ENVIRONMENT_NAME_MESSAGE);
    if (!isHash(config)) return;
    errors.allowedKeys('config', config, ['name', 'url', 'action', 'on_stop', 'auto_stop_in', 'kubernetes', 'deployment_tier']);
    if (!isNil(config.url)) {
      errors.type('url', config.url, 'String');
      errors.length('url', config.url, { maximum: 255 });
    }
    if (!isNil(config.action)) {
      errors.type('action', config.action, 'String');
      errors.inclusion('action', config.action, ENVIRONMENT_ACTIONS, 'should be start, stop, prepare, verify, or access');
    }
    if (!isNil(config.deployment_tier)) {
      errors.type('deployment_tier', config.deployment_tier, 'String');
      errors.inclusion('deployment_tier', config.deployment_tier, DEPLOYMENT_TIERS, `must be one of ${DEPLOYMENT_TIERS.join(', ')}`);
    }
    if (!isNil(config.on_stop)) errors.type('on_stop', config.on_stop, 'String');
    if (!isNil(config.kubernetes)) errors.type('kubernetes', config.kubernetes, 'Hash');
    if (!isNil(config.auto_stop_in)) errors.type('auto_stop_in', config.auto_stop_in, 'String');
  }
}

/** Commit::EXACT_COMMIT_SHA_PATTERN */
const COMMIT_SHA = /^[0-9a-fA-F]{7,64}$/;

/** Gitlab::GitRefValidator.validate: a name git check-ref-format accepts as a branch. */
export function isValidRefName(ref: string): boolean {
  if (!ref || ref.startsWith('refs/heads/') || ref.startsWith('refs/remotes/') || ref === 'HEAD') return false;
  if (ref.startsWith('-') || ref.endsWith('/') || ref.endsWith('.')) return false;
  if (/[\x00-\x1f\x7f ~^:?*[\\]/.test(ref)) return false;
  if (ref.includes('..') || ref.includes('//') || ref.includes('@{')) return false;
  return !ref.split('/').some((part) => part.startsWith('.') || part.endsWith('.lock'));
}

const daysInMonth = (y: number, m: number): number => new Date(Date.UTC(y, m, 0)).getUTCDate();

/** DateTime.iso8601 accepts it: an ISO 8601 date, optionally with a time and zone. */
export function isIso8601(value: string): boolean {
  const m =
    /^([+-]?\d{4})-?(\d{2})-?(\d{2})(?:T(\d{2}):?(\d{2})(?::?(\d{2})(?:[.,]\d+)?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i.exec(value.trim()) ??
    null;
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return false;
  if (m[4] !== undefined && (Number(m[4]) > 24 || Number(m[5]) > 59 || Number(m[6] ?? 0) > 60)) return false;
  return true;
}

/** Release::Assets::Link: `name` and `url`. (Links never compose their items, as in GitLab.) */
class Links extends Configurable {
  protected override skipsHashValidation(): boolean {
    return true;
  }

  protected override validations(errors: Errors): void {
    errors.type('config', this.config, 'Array');
    errors.presence('config', this.config);
  }
}

/** Entry::Release::Assets: `links`. */
class Assets extends Configurable {
  static override nodes() {
    return [node('links', () => Links)];
  }

  protected override validations(errors: Errors): void {
    this.configurableValidations(errors);
    errors.allowedKeys('config', this.config, ['links']);
    const links = attr(this.config, 'links');
    errors.arrayOfHashes('links', links);
    errors.presence('links', links);
  }
}

/** Entry::Release: `tag_name`, `description` (required), `name`, `ref`, `released_at`, `milestones`, `assets`. */
export class Release extends Configurable {
  static override nodes() {
    return [node('assets', () => Assets)];
  }

  protected override validations(errors: Errors): void {
    this.configurableValidations(errors);
    const get = (key: string): unknown => attr(this.config, key);
    errors.allowedKeys('config', this.config, ['tag_name', 'tag_message', 'name', 'description', 'ref', 'released_at', 'milestones', 'assets']);
    errors.type('tag_name', get('tag_name'), 'String');
    errors.presence('tag_name', get('tag_name'));
    if (!isBlank(get('tag_message'))) errors.type('tag_message', get('tag_message'), 'String');
    errors.type('description', get('description'), 'String');
    errors.presence('description', get('description'));
    if (!isBlank(get('milestones'))) errors.arrayOfStringsOrString('milestones', get('milestones'));
    const releasedAt = get('released_at');
    if (releasedAt && !(isString(releasedAt) && isIso8601(releasedAt))) errors.add('released_at', 'must be a valid datetime');
    const ref = get('ref');
    if (ref && !(isString(ref) && (COMMIT_SHA.test(ref) || isValidRefName(ref)))) errors.add('ref', 'must be a valid ref');
  }
}

