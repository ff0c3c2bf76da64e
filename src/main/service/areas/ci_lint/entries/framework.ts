import { isDuration, isWithinDuration } from '../duration';
import { looksLikeRegexp, fabricateRegexp } from '../re2';

/**
 * Gitlab::Config::Entry in TypeScript: a tree of entries, one per configuration key, each with
 * its ActiveModel-style validations. An entry validates its own value when it is made; a valid
 * entry then composes its children (Configurable), validates again with its `on: :composed`
 * rules, and may inherit entries from `default:` (Inheritable). Its errors are its own messages
 * ("<location> <Attribute> <message>", lower-cased) followed by its descendants' errors.
 *
 * As in GitLab, validations are not inherited from a superclass: each entry class lists all of
 * its own (the shared ones come from helpers, the way GitLab's modules add them).
 */

export type Hash = Record<string, unknown>;
export type Metadata = Record<string, unknown>;

export const isHash = (v: unknown): v is Hash => !!v && typeof v === 'object' && !Array.isArray(v);
export const isString = (v: unknown): v is string => typeof v === 'string';
export const isInteger = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);
export const isBoolean = (v: unknown): v is boolean => v === true || v === false;
export const isNil = (v: unknown): v is null | undefined => v === undefined || v === null;
export const isArrayOfStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);
/** Ruby's `blank?`: nil, false, empty or whitespace-only strings, empty arrays and hashes. */
export const isBlank = (v: unknown): boolean =>
  isNil(v) || v === false || (isString(v) && /^\s*$/.test(v)) || (Array.isArray(v) && !v.length) || (isHash(v) && !Object.keys(v).length);
/** `config.key?(name)` */
export const hasKey = (config: unknown, key: string): boolean => isHash(config) && Object.prototype.hasOwnProperty.call(config, key);
/** An attribute of a hash config (Attributable): nil unless the config is a hash. */
export const attr = (config: unknown, key: string): unknown => (isHash(config) ? config[key] : undefined);

/** NestedArrayHelpers#validate_nested_array */
export function isNestedArray(value: unknown, maxLevel: number, item: (v: unknown) => boolean): boolean {
  if (!Array.isArray(value)) return false;
  const walk = (v: unknown, level: number): boolean => {
    if (item(v)) return true;
    if (level <= 0 || !Array.isArray(v)) return false;
    return v.every((x) => walk(x, level - 1));
  };
  return walk(value, maxLevel);
}

/** LegacyValidationHelpers#validate_string_or_regexp: a string, valid RE2 when written /like this/. */
export const isStringOrRegexp = (v: unknown): boolean => isString(v) && (!looksLikeRegexp(v) || fabricateRegexp(v) !== null);

/**
 * The ActiveModel errors of one entry. `add(attribute, message)` keeps GitLab's full message: the
 * humanized attribute, then the message (`base` errors are the message alone).
 */
export class Errors {
  readonly full: string[] = [];

  add(attribute: string, message: string): void {
    this.full.push(attribute === 'base' ? message : `${attribute.replace(/_/g, ' ')} ${message}`);
  }

  // The validators of Gitlab::Config::Entry::Validators and ActiveModel, by their GitLab names.

  type(attribute: string, value: unknown, type: 'String' | 'Hash' | 'Array' | 'Integer' | 'Symbol', message?: string): void {
    const ok = type === 'String' ? isString(value) : type === 'Hash' ? isHash(value) : type === 'Array' ? Array.isArray(value) : type === 'Integer' ? isInteger(value) : false;
    if (!ok) this.add(attribute, message ?? `should be a ${type}`);
  }

  presence(attribute: string, value: unknown, message = "can't be blank"): void {
    if (isBlank(value)) this.add(attribute, message);
  }

  absence(attribute: string, value: unknown, message = 'must be blank'): void {
    if (!isBlank(value)) this.add(attribute, message);
  }

  allowedKeys(attribute: string, value: unknown, allowed: readonly string[]): void {
    const unknown = isHash(value) ? Object.keys(value).filter((k) => !allowed.includes(k)) : [];
    if (unknown.length) this.add(attribute, `contains unknown keys: ${unknown.join(', ')}`);
  }

  requiredKeys(attribute: string, value: unknown, required: readonly string[]): void {
    const missing = required.filter((k) => !hasKey(value, k));
    if (missing.length) this.add(attribute, `missing required keys: ${missing.join(', ')}`);
  }

  disallowedKeys(attribute: string, value: unknown, keys: readonly string[], message = 'contains disallowed keys', ignoreNil = false): void {
    const present = isHash(value) ? Object.keys(value).filter((k) => keys.includes(k) && !(ignoreNil && isNil(value[k]))) : [];
    // GitLab lists them in the validator's order (`keys & options[:in]` keeps the config's order).
    if (present.length) this.add(attribute, `${message}: ${present.join(', ')}`);
  }

  mutuallyExclusiveKeys(attribute: string, value: unknown, keys: readonly string[]): void {
    const present = isHash(value) ? Object.keys(value).filter((k) => keys.includes(k)) : [];
    if (present.length > 1) this.add(attribute, `these keys cannot be used together: ${present.join(', ')}`);
  }

  onlyOneOfKeys(attribute: string, value: unknown, keys: readonly string[]): void {
    if (keys.filter((k) => hasKey(value, k)).length !== 1) this.add(attribute, `must use exactly one of these keys: ${keys.join(', ')}`);
  }

  allowedValues(attribute: string, value: unknown, allowed: readonly string[]): void {
    if (!allowed.includes(rubyToS(value))) this.add(attribute, `unknown value: ${rubyToS(value)}`);
  }

  allowedArrayValues(attribute: string, value: unknown[], allowed: readonly string[]): void {
    const unknown = value.filter((v) => !allowed.includes(v as string));
    if (unknown.length) this.add(attribute, `contains unknown values: ${unknown.map(rubyToS).join(', ')}`);
  }

  inclusion(attribute: string, value: unknown, allowed: readonly unknown[], message = 'is not included in the list'): void {
    if (!allowed.includes(value)) this.add(attribute, message);
  }

  arrayOfStrings(attribute: string, value: unknown): boolean {
    if (!isArrayOfStrings(value)) {
      this.add(attribute, 'should be an array of strings');
      return false;
    }
    return true;
  }

  arrayOfStringsOrString(attribute: string, value: unknown): void {
    if (!isArrayOfStrings(value) && !isString(value)) this.add(attribute, 'should be an array of strings or a string');
  }

  arrayOfStringsOrRegexps(attribute: string, value: unknown): void {
    if (!(Array.isArray(value) && value.every(isStringOrRegexp))) {
      this.add(attribute, 'should be an array of strings or regular expressions using re2 syntax');
    }
  }

  arrayOfHashes(attribute: string, value: unknown): void {
    if (!(Array.isArray(value) && value.every(isHash))) this.add(attribute, 'should be an array of hashes');
  }

  arrayOfIntegersOrInteger(attribute: string, value: unknown): void {
    if (!isInteger(value) && !(Array.isArray(value) && value.every(isInteger))) {
      this.add(attribute, 'should be an array of integers or an integer');
    }
  }

  arrayOrString(attribute: string, value: unknown): void {
    if (!Array.isArray(value) && !isString(value)) this.add(attribute, 'should be an array or a string');
  }

  boolean(attribute: string, value: unknown): void {
    if (!isBoolean(value)) this.add(attribute, 'should be a boolean value');
  }

  hashOrString(attribute: string, value: unknown): void {
    if (!isHash(value) && !isString(value)) this.add(attribute, 'should be a hash or a string');
  }

  hashOrInteger(attribute: string, value: unknown): void {
    if (!isHash(value) && !isInteger(value)) this.add(attribute, 'should be a hash or an integer');
  }

  hashOrBoolean(attribute: string, value: unknown): void {
    if (!isHash(value) && !isBoolean(value)) this.add(attribute, 'should be a hash or a boolean value');
  }

  /** KeyValidator: a string (or symbol), no "/", not "." or "..". */
  key(attribute: string, value: unknown): void {
    if (!isString(value)) return this.add(attribute, 'should be a string or symbol');
    let path = value;
    try {
      path = decodeURIComponent(value.replace(/\+/g, ' '));
    } catch {
      // CGI.unescape leaves malformed escapes as they are
    }
    if (path.includes('/')) this.add(attribute, 'cannot contain the "/" character');
    else if (path === '.' || path === '..') this.add(attribute, 'cannot be "." or ".."');
  }

  /** RegexpValidator: `/pattern/flags` that RE2 compiles. */
  regexp(attribute: string, value: unknown): void {
    if (!(looksLikeRegexp(value) && fabricateRegexp(value) !== null)) this.add(attribute, 'must be a regular expression with re2 syntax');
  }

  /** StringOrNestedArrayOfStringsValidator */
  stringOrNestedArrayOfStrings(attribute: string, value: unknown, maxLevel: number): void {
    if (!isString(value) && !isNestedArray(value, maxLevel, isString)) {
      this.add(attribute, `should be a string or a nested array of strings up to ${maxLevel} levels deep`);
    }
  }

  /** DurationValidator, with the limit check it makes when given one. */
  duration(attribute: string, value: unknown, limit?: string, parse: (v: unknown) => boolean = isDuration): void {
    if (!parse(value)) this.add(attribute, 'should be a duration');
    if (limit !== undefined && !isWithinDuration(value, limit)) this.add(attribute, 'should not exceed the limit');
  }

  /** NumericalityValidator with only_integer and bounds. */
  integerBetween(attribute: string, value: unknown, min: number, max: number): void {
    if (typeof value !== 'number' || Number.isNaN(value)) return this.add(attribute, 'is not a number');
    if (!Number.isInteger(value)) return this.add(attribute, 'must be an integer');
    if (value < min) this.add(attribute, `must be greater than or equal to ${min}`);
    if (value > max) this.add(attribute, `must be less than or equal to ${max}`);
  }

  /** LengthValidator for arrays, hashes and strings. */
  length(attribute: string, value: unknown, opts: { minimum?: number; maximum?: number; tooShort?: string; tooLong?: string }): void {
    const size = isString(value) || Array.isArray(value) ? value.length : isHash(value) ? Object.keys(value).length : isNil(value) ? null : rubyToS(value).length;
    if (size === null) return;
    if (opts.minimum !== undefined && size < opts.minimum) {
      this.add(attribute, (opts.tooShort ?? 'is too short (minimum is %{count} characters)').replace('%{count}', String(opts.minimum)));
    }
    if (opts.maximum !== undefined && size > opts.maximum) {
      this.add(attribute, (opts.tooLong ?? 'is too long (maximum is %{count} characters)').replace('%{count}', String(opts.maximum)));
    }
  }
}

/** Ruby's `to_s` of a YAML value, as messages interpolate it. */
export function rubyToS(value: unknown): string {
  if (isNil(value)) return '';
  if (isString(value)) return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return inspect(value);
}

/** Ruby's `inspect` of a YAML value (hashes with symbol keys, as GitLab's messages show them). */
export function inspect(value: unknown): string {
  if (isNil(value)) return 'nil';
  if (isString(value)) return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(inspect).join(', ')}]`;
  if (isHash(value)) {
    const body = Object.entries(value).map(([k, v]) => `${/^[A-Za-z_][A-Za-z0-9_]*$/.test(k) ? `${k}: ` : `${JSON.stringify(k)}=>`}${inspect(v)}`);
    return `{${body.join(', ')}}`;
  }
  return String(value);
}

export interface EntryClass {
  new (config: unknown, metadata: Metadata): Entry;
  /** Entry.default: the config an unspecified entry of this class gets (nil: it stays undefined). */
  defaultConfig?(): unknown;
}

/** Simplifiable: the first strategy whose condition holds decides the entry class. */
export interface Strategies {
  strategies: [(config: unknown) => boolean, EntryType][];
  unknown: EntryClass;
  defaultConfig?(): unknown;
}

export type EntryType = EntryClass | Strategies;

export interface NodeSpec {
  key: string;
  type: () => EntryType;
  default?: unknown;
  inherit?: boolean;
  metadata?: Metadata;
}

/** A class's child entries, in declaration order (Configurable.entry). */
export const node = (key: string, type: () => EntryType, opts: Omit<NodeSpec, 'key' | 'type'> = {}): NodeSpec => ({ key, type, ...opts });

/** Gitlab::Config::Entry::Factory#create!: an unspecified (nil) value gets the default or stays undefined. */
export function createEntry(type: EntryType, value: unknown, place: { key: string | null; parent: Entry | null; metadata?: Metadata; default?: unknown }): Entry {
  if (isNil(value)) {
    const fallback = place.default ?? type.defaultConfig?.();
    if (isNil(fallback)) return UNDEFINED;
    const entry = fabricate(type, fallback, place);
    entry.specified = false;
    return entry;
  }
  return fabricate(type, value, place);
}

function fabricate(type: EntryType, value: unknown, place: { key: string | null; parent: Entry | null; metadata?: Metadata }): Entry {
  let cls: EntryType = type;
  while ('strategies' in cls) cls = cls.strategies.find(([when]) => when(value))?.[1] ?? cls.unknown;
  const entry = new cls(value, place.metadata ?? {});
  entry.key = (cls as unknown as typeof Entry).keyless ? null : place.key;
  entry.parent = place.parent;
  entry.validate(false);
  return entry;
}

/** The empty list entries share for no messages and no children. */
const NONE: readonly never[] = Object.freeze([]);

export abstract class Entry {
  key: string | null = null;
  parent: Entry | null = null;
  /** False for an entry made from its default because the config left it out (Unspecified). */
  specified = true;
  /** `relevant?`: hidden jobs are not. */
  relevant = true;
  /** Location name when the entry has no key: GitLab's class name, underscored and humanized. */
  static readonly className: string = 'node';
  /** Caches drops the key it is given (`@key = nil`): its location is its class name. */
  static readonly keyless: boolean = false;
  // Allocated when first needed: most entries are leaves, and a configuration of 500 jobs makes some 8,000.
  private entryMap: Map<string, Entry> | null = null;
  private fullMessages: readonly string[] = NONE;
  private ownWarnings: string[] | null = null;

  constructor(
    readonly config: unknown,
    readonly metadata: Metadata = {},
  ) {}

  /** The entry's ActiveModel validations; `composed` adds the `on: :composed` ones. */
  protected validations(_errors: Errors, _composed: boolean): void {}

  validate(composed: boolean): void {
    const errors = new Errors();
    this.validations(errors, composed);
    this.fullMessages = errors.full.length ? errors.full : NONE;
  }

  protected get entries(): Map<string, Entry> {
    return (this.entryMap ??= new Map());
  }

  /** Node#opt: metadata looked up through the ancestors. */
  opt(key: string): unknown {
    return this.metadata[key] ?? this.parent?.opt(key);
  }

  location(): string {
    const name = this.key || (this.constructor as typeof Entry).className;
    return [...this.ancestors().map((a) => a.key), name].filter((k) => k !== null).join(':');
  }

  ancestors(): Entry[] {
    return this.parent ? [...this.parent.ancestors(), this.parent] : [];
  }

  /** Validator#messages: "<location> <full message>", lower-cased, job names keeping their underscores. */
  messages(): readonly string[] {
    if (!this.fullMessages.length) return NONE;
    return this.fullMessages.map((m) =>
      `${this.location()} ${m}`.toLowerCase().replace(/jobs ([a-z\s]+) config should implement/, (_, name: string) => `jobs ${name.replace(/\s/g, '_')} config should implement`),
    );
  }

  descendants(): readonly Entry[] {
    return this.entryMap ? [...this.entryMap.values()] : NONE;
  }

  errors(): readonly string[] {
    const own = this.messages();
    const children = this.descendants();
    if (!children.length) return own;
    const out = [...own];
    for (const child of children) for (const message of child.errors()) out.push(message);
    return out;
  }

  valid(): boolean {
    return this.errors().length === 0;
  }

  warnings(): readonly string[] {
    const children = this.descendants();
    if (!children.length) return this.ownWarnings ?? NONE;
    const out = [...(this.ownWarnings ?? NONE)];
    for (const child of children) for (const warning of child.warnings()) out.push(warning);
    return out;
  }

  protected addWarning(message: string): void {
    (this.ownWarnings ??= []).push(`${this.location()} ${message}`);
  }

  /** Node#[]: a child entry, or an undefined one. */
  child(key: string): Entry {
    return this.entryMap?.get(key) ?? UNDEFINED;
  }

  /** `<key>_value`: the child's value when it is valid. */
  childValue(key: string): unknown {
    const entry = this.entryMap?.get(key);
    return entry && entry.specified && entry.valid() ? entry.value() : undefined;
  }

  /** `<key>_defined?` */
  defined(key: string): boolean {
    return !!this.entryMap?.get(key)?.specified;
  }

  value(): unknown {
    return this.config;
  }

  /** compose!: children (when valid), the composed validations, then what follows composition. */
  compose(deps: Entry | null): void {
    this.composeEntries(deps);
    this.validate(true);
    this.afterCompose(deps);
  }

  protected composeEntries(_deps: Entry | null): void {}

  protected afterCompose(_deps: Entry | null): void {}
}

/** Entry::Undefined: what an absent key with no default becomes (one shared instance: it holds nothing). */
export class Undefined extends Entry {
  constructor() {
    super(undefined);
    this.specified = false;
    this.relevant = false;
  }

  override validate(): void {}

  override compose(): void {}
}

const UNDEFINED = new Undefined();

/** An UnknownStrategy: a config of no known shape, with the one error its class words. */
export abstract class UnknownStrategy extends Entry {
  abstract message(): string;

  override errors(): string[] {
    return [this.message()];
  }
}

/** Configurable: a hash whose keys are child entries, composed when the entry itself is valid. */
export abstract class Configurable extends Entry {
  static nodes(): NodeSpec[] {
    return [];
  }

  /** Configurable's own validation (`config` should be a Hash), which every configurable entry runs first. */
  protected configurableValidations(errors: Errors): void {
    if (!this.skipsHashValidation()) errors.type('config', this.config, 'Hash');
  }

  protected override validations(errors: Errors, _composed: boolean): void {
    this.configurableValidations(errors);
  }

  protected skipsHashValidation(): boolean {
    return false;
  }

  protected nodeSpecs(): NodeSpec[] {
    return (this.constructor as typeof Configurable).nodes();
  }

  protected override composeEntries(deps: Entry | null): void {
    if (!this.valid()) return;
    for (const spec of this.nodeSpecs()) {
      if (!isHash(this.config)) continue;
      this.entries.set(spec.key, createEntry(spec.type(), this.config[spec.key], { key: spec.key, parent: this, metadata: spec.metadata, default: spec.default }));
    }
    this.composeBlock(deps);
    for (const entry of [...this.entries.values()]) entry.compose(deps);
  }

  /** The block a class passes to compose! (after its entries are made, before they compose). */
  protected composeBlock(_deps: Entry | null): void {}

  override value(): unknown {
    if (!this.descendants().length) return this.config;
    const out: Hash = {};
    for (const [key, entry] of this.entries) if (entry.specified && entry.relevant) out[key] = entry.value();
    return out;
  }
}

/** ComposableArray: one entry per item of the (flattened) list, each keyed by the item class's name. */
export abstract class ComposableArray extends Entry {
  abstract composable(): EntryType;
  /** The item class's name, demodulized and underscored: each item's key. */
  abstract itemName(): string;

  protected override composeEntries(deps: Entry | null): void {
    if (!this.valid()) return;
    const items = [this.config].flat(Infinity);
    items.forEach((item, index) => {
      this.entries.set(String(index), createEntry(this.composable(), item, { key: this.itemName(), parent: this }));
    });
    for (const entry of this.entries.values()) entry.compose(deps);
  }

  override value(): unknown {
    return [...this.entries.values()].map((e) => e.value());
  }
}

/** ComposableHash: one entry per key, its class chosen by the key and value. */
export abstract class ComposableHash extends Entry {
  abstract composable(name: string, config: unknown): EntryType | null;

  protected itemMetadata(_name: string): Metadata {
    return {};
  }

  protected override composeEntries(deps: Entry | null): void {
    if (!this.valid() || !isHash(this.config)) return;
    for (const [name, value] of Object.entries(this.config)) {
      const type = this.composable(name, value);
      if (!type) continue;
      this.entries.set(name, createEntry(type, isNil(value) ? {} : value, { key: name, parent: this, metadata: { ...this.itemMetadata(name), name } }));
    }
    for (const entry of this.entries.values()) entry.compose(deps);
  }
}

/** Gitlab::Config::Entry::Boolean */
export class BooleanEntry extends Entry {
  protected override validations(errors: Errors): void {
    errors.boolean('config', this.config);
  }
}

/** Gitlab::Config::Entry::ArrayOfStrings */
export class ArrayOfStringsEntry extends Entry {
  protected override validations(errors: Errors): void {
    errors.arrayOfStrings('config', this.config);
  }
}

/** Raised during composition (Inheritable's conflict): the whole configuration fails with its message. */
export class EntryConfigError extends Error {}
