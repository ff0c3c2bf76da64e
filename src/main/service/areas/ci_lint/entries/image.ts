import { ComposableArray, Configurable, Entry, type EntryType, type Errors, attr, isBlank, isHash, isInteger, isNil, isString, node } from './framework';
import { Commands } from './scalars';
import { EXECUTOR_OPTS, schemaErrors } from './schema';
import { Variables } from './variables';

/** Entry::Imageable, Image, Service(s), Port(s), PullPolicy: `image:` and `services:`. */

const EXECUTOR_OPTS_KEYS = ['docker', 'kubernetes'];
const IMAGEABLE_KEYS = [...EXECUTOR_OPTS_KEYS, 'name', 'entrypoint', 'ports', 'pull_policy'];

/** Entry::Imageable: a name, or a hash with `name`, `entrypoint`, executor options, `ports`, `pull_policy`. */
abstract class Imageable extends Configurable {
  protected override skipsHashValidation(): boolean {
    return true;
  }

  name(): unknown {
    return isString(this.config) ? this.config : attr(this.config, 'name');
  }

  /** `with_image_ports` is only set for the Web IDE terminal: in CI, ports are refused. */
  private withImagePorts(): boolean {
    return !!this.opt('with_image_ports');
  }

  protected imageableValidations(errors: Errors): void {
    errors.hashOrString('config', this.config);
    if (!this.withImagePorts()) errors.disallowedKeys('config', this.config, ['ports']);
    errors.type('name', this.name(), 'String');
    errors.presence('name', this.name());
    const entrypoint = attr(this.config, 'entrypoint');
    if (!isNil(entrypoint)) errors.arrayOfStrings('entrypoint', entrypoint);
    const opts = isHash(this.config) ? Object.fromEntries(EXECUTOR_OPTS_KEYS.filter((k) => !isNil(attr(this.config, k))).map((k) => [k, attr(this.config, k)])) : {};
    if (Object.keys(opts).length) {
      for (const message of schemaErrors(EXECUTOR_OPTS, JSON.parse(JSON.stringify(opts)))) errors.add('executor_opts', message);
    }
  }
}

/** Entry::Image */
export class Image extends Imageable {
  static override nodes() {
    return [node('ports', () => Ports), node('pull_policy', () => PullPolicy)];
  }

  protected override validations(errors: Errors): void {
    this.imageableValidations(errors);
    errors.allowedKeys('config', this.config, IMAGEABLE_KEYS);
  }
}

/** Entry::Service: an image with `command`, `alias` and `variables`. */
export class Service extends Imageable {
  static override nodes() {
    return [
      node('ports', () => Ports),
      node('pull_policy', () => PullPolicy),
      node('variables', () => Variables),
      node('command', () => Commands),
    ];
  }

  protected override validations(errors: Errors): void {
    this.imageableValidations(errors);
    errors.allowedKeys('config', this.config, ['command', 'alias', 'variables', ...IMAGEABLE_KEYS]);
    const alias = attr(this.config, 'alias');
    if (!isNil(alias)) errors.type('alias', alias, 'String');
    if (!isBlank(attr(this.config, 'ports'))) {
      errors.type('alias', alias, 'String');
      errors.presence('alias', alias);
    }
  }
}

/** Entry::Services */
export class Services extends ComposableArray {
  protected override validations(errors: Errors): void {
    errors.type('config', this.config, 'Array');
    if (this.opt('with_image_ports') && Array.isArray(this.config)) {
      const aliases = this.config.filter((s) => isHash(s) && !isNil(s.ports)).map((s) => (s as Record<string, unknown>).alias);
      if (new Set(aliases).size !== aliases.length) errors.add('config', 'alias must be unique in services with ports');
    }
  }

  composable(): EntryType {
    return Service;
  }

  itemName(): string {
    return 'service';
  }
}

/** Entry::Port: a number, or `number`, `protocol` (http/https), `name`. */
export class Port extends Entry {
  protected override validations(errors: Errors): void {
    errors.hashOrInteger('config', this.config);
    errors.allowedKeys('config', this.config, ['number', 'protocol', 'name']);
    const number = isInteger(this.config) ? this.config : attr(this.config, 'number');
    errors.type('number', number, 'Integer');
    errors.presence('number', number);
    const protocol = attr(this.config, 'protocol');
    if (!isBlank(protocol)) {
      errors.type('protocol', protocol, 'String');
      errors.inclusion('protocol', protocol, ['http', 'https'], 'should be http or https');
    }
    const name = attr(this.config, 'name');
    if (!isNil(name)) errors.type('name', name, 'String');
  }
}

/** Entry::Ports: several ports need unique names, and a port number is used once. */
export class Ports extends ComposableArray {
  protected override validations(errors: Errors): void {
    errors.type('config', this.config, 'Array');
    if (!Array.isArray(this.config) || this.config.length <= 1) return;
    const ports = this.config;
    const names = ports.filter(isHash).map((p) => p.name).filter((n) => !isNil(n) && n !== false).map((n) => String(n).toLowerCase());
    if (names.length !== ports.length) errors.add('config', 'when there is more than one port, a unique name should be added');
    if (new Set(names).size !== ports.length) errors.add('config', 'each port name must be different');
    const numbers = new Set(ports.map((p) => (isInteger(p) ? p : isHash(p) ? p.number : undefined)));
    if (numbers.size !== ports.length) errors.add('config', 'each port number can only be referenced once');
  }

  composable(): EntryType {
    return Port;
  }

  itemName(): string {
    return 'port';
  }
}

const PULL_POLICIES = ['always', 'never', 'if-not-present'];

/** Entry::PullPolicy: always, never, if-not-present (one, or a list). */
export class PullPolicy extends Entry {
  protected override validations(errors: Errors): void {
    errors.arrayOfStringsOrString('config', this.config);
    if (Array.isArray(this.config)) {
      errors.allowedArrayValues('config', this.config, PULL_POLICIES);
      errors.presence('config', this.config);
    }
    if (isString(this.config)) errors.inclusion('config', this.config, PULL_POLICIES);
  }
}


