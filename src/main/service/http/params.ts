import { grapeError } from './errors';

/**
 * Request parameters the way Grape sees them: query string, form body, multipart fields and JSON
 * body merged into one object; `name[]` becomes an array, `name[member]` a hash, `a[][k]` and
 * `a[0][k]` arrays of hashes (Rack's nesting rules).
 */
export type Params = Record<string, unknown>;

/** Parses a query string or form body into ordered [key, value] pairs (no nesting yet). */
export function parsePairs(text: string): [string, string][] {
  const pairs: [string, string][] = [];
  if (!text) return pairs;
  for (const part of text.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const rawKey = eq < 0 ? part : part.slice(0, eq);
    const rawValue = eq < 0 ? '' : part.slice(eq + 1);
    pairs.push([decodeFormComponent(rawKey), decodeFormComponent(rawValue)]);
  }
  return pairs;
}

function decodeFormComponent(s: string): string {
  // Most names and values have nothing to decode: the same string, without a regex and a decode each.
  if (s.indexOf('%') < 0 && s.indexOf('+') < 0) return s;
  const plus = s.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(plus);
  } catch {
    return plus;
  }
}

/** Nests flat pairs by Rack's rules into `target`. */
export function nestPairs(pairs: Iterable<[string, unknown]>, target: Params = {}): Params {
  for (const [key, value] of pairs) assignNested(target, key, value);
  return numericHashesToArrays(target) as Params;
}

function assignNested(target: Params, key: string, value: unknown): void {
  const m = /^([^[\]]+)((?:\[[^\]]*\])*)$/.exec(key);
  if (!m || !m[2]) {
    target[key] = value;
    return;
  }
  const path = [m[1], ...[...m[2].matchAll(/\[([^\]]*)\]/g)].map((x) => x[1])];
  let node: Record<string, unknown> | unknown[] = target;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    const last = i === path.length - 1;
    const next = path[i + 1];
    if (Array.isArray(node)) {
      // seg is '' here: `a[]` or `a[][k]`
      if (last) {
        node.push(value);
        return;
      }
      // `a[][k]=v`: start a new hash when the last one already has k (Rack).
      let tail = node[node.length - 1] as Record<string, unknown> | undefined;
      if (!tail || typeof tail !== 'object' || Array.isArray(tail) || (path.length === i + 2 && next in tail)) {
        tail = {};
        node.push(tail);
      }
      node = tail;
      continue;
    }
    if (last) {
      node[seg] = value;
      return;
    }
    let child = node[seg];
    if (next === '') {
      if (!Array.isArray(child)) child = node[seg] = [];
    } else if (!child || typeof child !== 'object' || Array.isArray(child)) {
      child = node[seg] = {};
    }
    node = child as Record<string, unknown> | unknown[];
  }
}

/** `{ "0": {...}, "1": {...} }` from `a[0][k]=v` becomes an array, in index order. */
function numericHashesToArrays(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(numericHashesToArrays);
  if (!v || typeof v !== 'object' || isFilePart(v)) return v;
  const obj = v as Record<string, unknown>;
  for (const k of Object.keys(obj)) obj[k] = numericHashesToArrays(obj[k]);
  const keys = Object.keys(obj);
  if (keys.length > 0 && keys.every((k) => /^\d+$/.test(k))) {
    return keys.sort((a, b) => Number(a) - Number(b)).map((k) => obj[k]);
  }
  return obj;
}

/** A file part of a multipart body, already streamed to a temporary file on disk. */
export interface FilePart {
  kind: 'file';
  filename: string;
  mimetype: string;
  path: string;
  size: number;
}

export function isFilePart(v: unknown): v is FilePart {
  return !!v && typeof v === 'object' && (v as FilePart).kind === 'file' && typeof (v as FilePart).path === 'string';
}

// ---------------------------------------------------------------------------------------------
// Declared parameters (Grape's `requires`/`optional`): coercion and GitLab's error messages.
// ---------------------------------------------------------------------------------------------

const INVALID = Symbol('invalid');
type Parsed<T> = T | typeof INVALID;

type Elem<T> = T extends (infer E)[] ? E : T;
type WithElem<T, V> = T extends unknown[] ? V[] : V;

/** What a declared parameter is, by name (the fuzz suite generates wrong values from it). */
export type FieldKind = 'string' | 'integer' | 'float' | 'boolean' | 'date' | 'dateTime' | 'commaList' | 'commaIntegers' | 'idOrPath' | 'array' | 'hash' | 'any' | 'file';

/** A declared parameter: how to coerce it, whether it is required, its allowed values. */
export class Field<T, R extends boolean = false> {
  constructor(
    readonly kind: FieldKind,
    readonly parse: (v: unknown) => Parsed<T>,
    readonly isRequired = false,
    readonly allowed?: readonly unknown[],
    readonly defaultValue?: T,
    readonly allowBlank = true,
  ) {}
  required(): Field<T, true> {
    return new Field<T, true>(this.kind, this.parse, true, this.allowed, this.defaultValue, this.allowBlank);
  }
  /** Allowed values (for arrays: allowed elements) -> "x does not have a valid value". */
  values<const V extends Elem<T>>(allowed: readonly V[]): Field<WithElem<T, V>, R> {
    return new Field(this.kind, this.parse as unknown as (v: unknown) => Parsed<WithElem<T, V>>, this.isRequired, allowed, this.defaultValue as WithElem<T, V>, this.allowBlank);
  }
  default(value: T): Field<T, true> {
    return new Field<T, true>(this.kind, this.parse, this.isRequired, this.allowed, value, this.allowBlank);
  }
  /** Grape's `allow_blank: false` -> "x is empty". */
  notBlank(): Field<T, R> {
    return new Field<T, R>(this.kind, this.parse, this.isRequired, this.allowed, this.defaultValue, false);
  }
}

const str = (v: unknown): Parsed<string> =>
  typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : INVALID;

const int = (v: unknown): Parsed<number> => {
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  if (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v)) return Number.parseInt(v, 10);
  return INVALID;
};

/** Grape's Float: a finite number, or a string that is one. */
const float = (v: unknown): Parsed<number> => {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  const n = typeof v === 'string' && /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(v) ? Number.parseFloat(v) : NaN;
  return Number.isFinite(n) ? n : INVALID;
};

const bool = (v: unknown): Parsed<boolean> => {
  if (typeof v === 'boolean') return v;
  if (v === 1 || v === 0) return v === 1;
  if (typeof v === 'string') {
    const s = v.toLowerCase();
    if (['true', '1', 't', 'yes', 'y', 'on'].includes(s)) return true;
    if (['false', '0', 'f', 'no', 'n', 'off'].includes(s)) return false;
  }
  return INVALID;
};

const date = (v: unknown): Parsed<string> => {
  if (typeof v !== 'string') return INVALID;
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v.trim());
  if (!m) return INVALID;
  const d = new Date(`${m[0]}T00:00:00Z`);
  return Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== m[0] ? INVALID : m[0];
};

const dateTime = (v: unknown): Parsed<string> => {
  if (typeof v !== 'string' || !v.trim()) return INVALID;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? INVALID : d.toISOString();
};

/** Comma-separated list or array (GitLab's `labels` style). */
const commaList = (v: unknown): Parsed<string[]> => {
  if (Array.isArray(v)) return v.flatMap((x) => String(x).split(',')).map((s) => s.trim()).filter(Boolean);
  if (typeof v === 'string') return v.split(',').map((s) => s.trim()).filter(Boolean);
  return INVALID;
};

/** Comma-separated integers or an array of them (Grape's CommaSeparatedToIntegerArray). */
const commaIntegers = (v: unknown): Parsed<number[]> => {
  const parts = Array.isArray(v) ? v.flatMap((x) => (typeof x === 'string' ? x.split(',') : [x])) : typeof v === 'string' ? v.split(',') : [v];
  const out: number[] = [];
  for (const p of parts) {
    if (typeof p === 'string' && !p.trim()) continue;
    const n = int(p);
    if (n === INVALID) return INVALID;
    out.push(n);
  }
  return out;
};

export const t = {
  string: () => new Field<string>('string', str),
  integer: () => new Field<number>('integer', int),
  float: () => new Field<number>('float', float),
  boolean: () => new Field<boolean>('boolean', bool),
  /** `YYYY-MM-DD` */
  date: () => new Field<string>('date', date),
  /** Any parseable time, normalized to ISO-8601. */
  dateTime: () => new Field<string>('dateTime', dateTime),
  commaList: () => new Field<string[]>('commaList', commaList),
  commaIntegers: () => new Field<number[]>('commaIntegers', commaIntegers),
  /** An integer id or a string (full path, username). */
  idOrPath: () => new Field<string>('idOrPath', (v) => (typeof v === 'number' ? String(v) : str(v))),
  array: <T>(item: Field<T>) =>
    new Field<T[]>('array', (v) => {
      const list = Array.isArray(v) ? v : v === undefined || v === null ? INVALID : [v];
      if (list === INVALID) return INVALID;
      const out: T[] = [];
      for (const x of list) {
        const p = item.parse(x);
        if (p === INVALID) return INVALID;
        out.push(p);
      }
      return out;
    }),
  hash: () =>
    new Field<Record<string, unknown>>('hash', (v) =>
      v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : INVALID,
    ),
  any: () => new Field<unknown>('any', (v) => v),
  file: () => new Field<FilePart>('file', (v) => (isFilePart(v) ? v : INVALID)),
};

type Out<F> = F extends Field<infer T, infer R> ? (R extends true ? T : T | null | undefined) : never;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyField = Field<any, boolean>;
export type Declared<S extends Record<string, AnyField>> = { [K in keyof S]: Out<S[K]> };

/**
 * Validates and coerces the declared parameters. All failures are reported at once, joined with
 * ", " as Grape does: `{"error":"name is missing, visibility does not have a valid value"}`.
 * A parameter given as JSON `null` counts as given (GitLab uses it to clear values) and stays null,
 * so an optional parameter's type includes null: the compiler makes every route say what null
 * means to it (clear the value, ignore the filter, or "can't be blank").
 */
export function declared<S extends Record<string, AnyField>>(params: Params, spec: S, within?: string): Declared<S> {
  parameterObserver?.(spec);
  const out: Record<string, unknown> = {};
  const errors: string[] = [];
  for (const [key, field] of Object.entries(spec)) {
    // Grape names a hash's member by its full name (`not[assignee_id] is invalid`).
    const name = within ? `${within}[${key}]` : key;
    const raw = params[key];
    if (raw === undefined) {
      if (field.isRequired) errors.push(`${name} is missing`);
      else if (field.defaultValue !== undefined) out[key] = field.defaultValue;
      continue;
    }
    if (raw === null) {
      if (field.isRequired) errors.push(`${name} is missing`);
      // Grape's `default:` applies to nil as to a missing value.
      else out[key] = field.defaultValue !== undefined ? field.defaultValue : null;
      continue;
    }
    if (!field.allowBlank && typeof raw === 'string' && raw.trim() === '') {
      errors.push(`${name} is empty`);
      continue;
    }
    const parsed = field.parse(raw);
    if (parsed === INVALID) {
      errors.push(`${name} is invalid`);
      continue;
    }
    if (field.allowed && !(Array.isArray(parsed) ? parsed.every((p) => field.allowed!.includes(p)) : field.allowed.includes(parsed))) {
      errors.push(`${name} does not have a valid value`);
      continue;
    }
    out[key] = parsed;
  }
  if (errors.length) throw grapeError(400, errors.join(', '));
  return out as Declared<S>;
}

/** Grape's `at_least_one_of`. */
export function requireAtLeastOne(params: Params, names: string[]): void {
  parameterObserver?.(namesOnly(names));
  if (!names.some((n) => params[n] !== undefined)) {
    throw grapeError(400, `${names.join(', ')} are missing, at least one parameter must be provided`);
  }
}

/** Grape's `mutually_exclusive`. */
export function requireMutuallyExclusive(params: Params, names: string[], within?: string): void {
  parameterObserver?.(namesOnly(names));
  const given = names.filter((n) => params[n] !== undefined).map((n) => (within ? `${within}[${n}]` : n));
  if (given.length > 1) throw grapeError(400, `${given.join(', ')} are mutually exclusive`);
}

/** Grape's `exactly_one_of`. */
export function requireExactlyOne(params: Params, names: string[]): void {
  parameterObserver?.(namesOnly(names));
  const given = names.filter((n) => params[n] !== undefined);
  if (given.length === 0) throw grapeError(400, `${names.join(', ')} are missing, exactly one parameter must be provided`);
  if (given.length > 1) throw grapeError(400, `${given.join(', ')} are mutually exclusive`);
}

// ---------------------------------------------------------------------------------------------
// Test hook: the hardening suites learn each route's parameters from the routes themselves.
// ---------------------------------------------------------------------------------------------

type ParameterObserver = (spec: Readonly<Record<string, AnyField>>) => void;
let parameterObserver: ParameterObserver | null = null;

/**
 * Calls `observer` with every spec `declared()` checks and every name list the `require*`
 * helpers check (as `any` fields), until called again with null. Tests only: a request's specs
 * are the ones seen while it runs, so the fuzz suite sends its discovery requests one at a time.
 */
export function observeDeclaredParameters(observer: ParameterObserver | null): void {
  parameterObserver = observer;
}

const namesOnly = (names: string[]): Record<string, AnyField> => Object.fromEntries(names.map((n) => [n, t.any()]));
