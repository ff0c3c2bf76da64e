import { LineCounter, Scalar, parseDocument, stringify, isPair, isScalar, isSeq, visit, type Document } from 'yaml';
import * as K from './keywords';

/**
 * A GitLab CI configuration validator (Gitlab::Ci::YamlProcessor and Gitlab::Ci::Config::Entry):
 * load (YAML, Ruby-symbol keys), expand `include` and `extends`, check every entry against the
 * keyword tables, then the logical rules (stages, needs, dependencies, environments). Messages are
 * GitLab's, lower-cased the way its entry validator reports them.
 */

type Hash = Record<string, unknown>;

export interface IncludeEntry {
  type: string;
  location: string;
  blob: string | null;
  raw: string | null;
  extra: Record<string, unknown>;
  context_project: string | null;
  context_sha: string | null;
}

export interface LintJob {
  name: string;
  stage: string;
  before_script: string[];
  script: string[];
  after_script: string[];
  tag_list: string[];
  only: unknown;
  except: unknown;
  environment: string | null;
  when: string;
  allow_failure: boolean;
  needs: { name: string; artifacts: boolean; optional: boolean }[] | null;
}

export interface LintResult {
  valid: boolean;
  errors: string[];
  warnings: string[];
  merged_yaml: string | null;
  includes: IncludeEntry[] | null;
  jobs: LintJob[];
  /** What a pipeline simulation (dry run) evaluates; only on a valid configuration. */
  pipeline?: PipelineInput;
}

/** The parts of a valid configuration that decide which jobs a pipeline gets. */
export interface PipelineInput {
  variables: unknown;
  workflowRules: unknown;
  jobs: Record<string, { rules: unknown; variables: unknown }>;
}

export interface LintContext {
  /** Reads a file committed to the project at the linted ref; undefined when absent. */
  readLocal: (path: string) => string | undefined;
  /** Every file path at the linted ref, for `include: local` wildcards. */
  listLocal?: () => string[];
  /** Describes a local include for the `includes` list (blob/raw URLs, project, sha). */
  describeLocal: (path: string) => Omit<IncludeEntry, 'type' | 'location' | 'extra'>;
}

class ConfigError extends Error {}

const isHash = (v: unknown): v is Hash => !!v && typeof v === 'object' && !Array.isArray(v);
const isString = (v: unknown): v is string => typeof v === 'string';
const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);
const failure = (errors: string[], warnings: string[] = []): LintResult => ({ valid: false, errors, warnings, merged_yaml: null, includes: null, jobs: [] });

export function lintCiConfig(content: string | null | undefined, ctx: LintContext): LintResult {
  if (content == null || content.trim() === '') return failure(['Please provide content of .gitlab-ci.yml']);
  let config: Hash;
  const includes: IncludeEntry[] = [];
  const warnings: string[] = [];
  try {
    config = loadYaml(content);
    config = expandIncludes(config, ctx, includes, warnings, new Set(), 0);
    config = expandExtends(config);
    config = resolveReferences(config);
  } catch (err) {
    if (err instanceof ConfigError) return failure([err.message], warnings);
    throw err;
  }
  const structure = new StructureCheck(config);
  structure.run();
  warnings.push(...structure.warnings);
  if (structure.errors.length) return failure(structure.errors, warnings);
  const logical = logicalError(structure);
  if (logical) return failure([logical], warnings);
  return {
    valid: true,
    errors: [],
    warnings,
    merged_yaml: dumpYaml(config),
    includes,
    jobs: structure.lintJobs(),
    pipeline: {
      variables: config.variables,
      workflowRules: isHash(config.workflow) ? config.workflow.rules : undefined,
      jobs: Object.fromEntries(structure.jobs.map((j) => [j.name, { rules: j.config.rules, variables: j.config.variables }])),
    },
  };
}

// --- loading -----------------------------------------------------------------------------------

/** Psych-style syntax error text for the yaml library's error codes. */
const YAML_PROBLEMS: Record<string, string> = {
  TAB_AS_INDENT: 'found character that cannot start any token while scanning for the next token',
  BLOCK_AS_IMPLICIT_KEY: 'mapping values are not allowed in this context',
  MULTILINE_IMPLICIT_KEY: 'could not find expected \':\' while scanning a simple key',
  BAD_ALIAS: 'found undefined alias',
  BAD_DIRECTIVE: 'found unknown directive name while scanning a directive',
};

/** Loads one YAML document as GitLab does: a mapping, Ruby-symbol keys (`:job:`) read as names. */
export function loadYaml(content: string): Hash {
  const lines = new LineCounter();
  const doc = parseDocument(content, { uniqueKeys: false, merge: true, prettyErrors: false, lineCounter: lines });
  const err = doc.errors[0];
  if (err) {
    const problem = yamlProblem(err.code, err.message);
    let offset = err.pos[0];
    // libyaml marks the offending ':' of `a: b: c`.
    if (err.code === 'BLOCK_AS_IMPLICIT_KEY') offset = colonAfter(content, offset) ?? offset;
    let pos = lines.linePos(offset);
    if (problem.endsWith('while parsing a block mapping')) pos = blockMappingStart(content, pos.line) ?? pos;
    throw new ConfigError(`(<unknown>): ${problem} at line ${pos.line} column ${pos.col}`);
  }
  stripSymbolKeys(doc);
  markReferences(doc);
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 1000 });
  } catch (e) {
    const alias = /alias[^:]*: (.+)$/.exec((e as Error).message);
    throw new ConfigError(alias ? `Unknown alias: ${alias[1]}` : `(<unknown>): ${(e as Error).message}`);
  }
  if (!isHash(value)) throw new ConfigError('Invalid configuration format');
  return value;
}

function colonAfter(content: string, offset: number): number | null {
  const end = content.indexOf('\n', offset);
  const m = /:(\s|$)/.exec(content.slice(offset, end < 0 ? undefined : end));
  return m ? offset + m.index : null;
}

/**
 * libyaml reports a block mapping error at the mapping's start (its context mark): the first key of
 * the enclosing block that the misplaced line fell out of.
 */
function blockMappingStart(content: string, errorLine: number): { line: number; col: number } | null {
  const lines = content.split('\n');
  const indent = (l: string): number => l.length - l.trimStart().length;
  const meaningful = (l: string | undefined): l is string => l !== undefined && l.trim() !== '' && !l.trim().startsWith('#');
  const errIndent = indent(lines[errorLine - 1] ?? '');
  let parent = -1;
  for (let i = errorLine - 2; i >= 0; i--) {
    if (meaningful(lines[i]) && indent(lines[i]) < errIndent) {
      parent = i;
      break;
    }
  }
  if (parent < 0) return null;
  const level = indent(lines[parent]);
  let first = parent;
  for (let i = parent - 1; i >= 0; i--) {
    if (!meaningful(lines[i]) || lines[i].trim() === '---') continue;
    if (indent(lines[i]) < level) break;
    if (indent(lines[i]) === level) first = i;
  }
  return { line: first + 1, col: level + 1 };
}

function yamlProblem(code: string, message: string): string {
  if (YAML_PROBLEMS[code]) return YAML_PROBLEMS[code];
  if (code === 'MISSING_CHAR') {
    if (/quote/i.test(message)) return 'found unexpected end of stream while scanning a quoted scalar';
    if (/\]/.test(message)) return "did not find expected ',' or ']' while parsing a flow sequence";
    return "did not find expected ',' or '}' while parsing a flow mapping";
  }
  if (/flow sequence/i.test(message)) return "did not find expected ',' or ']' while parsing a flow sequence";
  return 'did not find expected key while parsing a block mapping';
}

/** `!reference [job, key, ...]`: kept as a marker until the whole configuration is known. */
class Reference {
  constructor(readonly path: unknown[]) {}
  /** Ruby's `Array#inspect`, as GitLab's messages show it. */
  get shown(): string {
    return `!reference [${this.path.map((p) => JSON.stringify(String(p))).join(', ')}]`;
  }
}

function markReferences(doc: Document): void {
  visit(doc, {
    Seq(_, node) {
      if (isSeq(node) && node.tag === '!reference') {
        return new Scalar(new Reference(node.items.map((i) => (isScalar(i) ? i.value : null))));
      }
      return undefined;
    },
  });
}

/** Gitlab::Ci::Config::Yaml::Tags::Resolver: replaces every `!reference` with the value it points at. */
function resolveReferences(config: Hash): Hash {
  const resolve = (value: unknown, chain: Reference[]): unknown => {
    if (value instanceof Reference) {
      if (chain.some((r) => r.shown === value.shown)) throw new ConfigError(`${value.shown} is part of a circular chain`);
      let target: unknown = config;
      for (const key of value.path) {
        if (!isHash(target) || !isString(key) || !(key in target)) throw new ConfigError(`${value.shown} could not be found`);
        target = target[key];
      }
      return resolve(target, [...chain, value]);
    }
    if (Array.isArray(value)) return value.map((v) => resolve(v, chain));
    if (isHash(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v, chain)]));
    return value;
  };
  return resolve(config, []) as Hash;
}

function stripSymbolKeys(doc: Document): void {
  visit(doc, {
    Pair(_, pair) {
      if (isPair(pair) && isScalar(pair.key) && typeof pair.key.value === 'string' && /^:[^:\s]/.test(pair.key.value)) {
        pair.key.value = pair.key.value.slice(1);
      }
    },
  });
}

/** merged_yaml: Ruby's `to_yaml` layout (`---` header, sequences not indented under their key). */
export function dumpYaml(config: Hash): string {
  return `---\n${stringify(config, { indentSeq: false, lineWidth: 0, aliasDuplicateObjects: false })}`;
}

// --- include -----------------------------------------------------------------------------------

const MAX_INCLUDES = 150;

function expandIncludes(config: Hash, ctx: LintContext, out: IncludeEntry[], warnings: string[], seen: Set<string>, depth: number): Hash {
  const raw = config.include;
  if (raw === undefined) return config;
  const { include: _drop, ...rest } = config;
  void _drop;
  const items = Array.isArray(raw) ? raw : [raw];
  let merged: Hash = {};
  for (const item of items) {
    const spec = normalizeInclude(item);
    if (spec.kind !== 'local') {
      out.push({ type: spec.kind, location: spec.location, blob: null, raw: spec.kind === 'remote' ? spec.location : null, extra: spec.extra, context_project: null, context_sha: null });
      warnings.push(`Included file \`${spec.location}\` (${spec.kind}) was not fetched: Sandlab validates offline, only \`include:local\` files are read`);
      continue;
    }
    const wanted = spec.location.replace(/^\/+/, '');
    const paths = wanted.includes('*') ? (ctx.listLocal?.() ?? []).filter((f) => globMatch(wanted, f)).sort() : [wanted];
    if (!paths.length) throw new ConfigError(`Local file \`${spec.location}\` does not exist!`);
    for (const path of paths) {
      if (seen.has(path)) continue;
      if (out.length >= MAX_INCLUDES || depth > 100) throw new ConfigError(`Maximum of ${MAX_INCLUDES} nested includes are allowed!`);
      const text = ctx.readLocal(path);
      const shown = paths.length > 1 || wanted.includes('*') ? path : spec.location;
      if (text === undefined) throw new ConfigError(`Local file \`${shown}\` does not exist!`);
      if (text.trim() === '') throw new ConfigError(`Local file \`${shown}\` is empty!`);
      const where = ctx.describeLocal(path);
      out.push({ type: 'local', location: shown, blob: where.blob, raw: where.raw, extra: {}, context_project: where.context_project, context_sha: where.context_sha });
      seen.add(path);
      let loaded: Hash;
      try {
        loaded = loadYaml(text);
      } catch (err) {
        if (err instanceof ConfigError) throw new ConfigError(`Included file \`${shown}\` does not have valid YAML syntax!`);
        throw err;
      }
      merged = deepMerge(merged, expandIncludes(loaded, ctx, out, warnings, seen, depth + 1));
    }
  }
  return deepMerge(merged, rest);
}

/** `include:local` wildcards: `*` within a directory, `**` across directories. */
function globMatch(pattern: string, path: string): boolean {
  const re = pattern
    .split(/(\*\*\/?|\*)/)
    .map((part) => (part === '**/' || part === '**' ? '(?:.*/)?' + (part === '**' ? '.*' : '') : part === '*' ? '[^/]*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${re}$`).test(path);
}

function normalizeInclude(item: unknown): { kind: string; location: string; extra: Hash } {
  if (isString(item)) {
    return /^https?:\/\//.test(item) ? { kind: 'remote', location: item, extra: {} } : { kind: 'local', location: item, extra: {} };
  }
  if (!isHash(item)) throw new ConfigError('Include config should be a hash, a string or an array of hashes or strings');
  const unknown = Object.keys(item).filter((k) => !K.INCLUDE_KEYS.includes(k));
  if (unknown.length) throw new ConfigError(`Include \`${JSON.stringify(item)}\` contains unknown keys: ${unknown.join(', ')}`);
  if (isString(item.local)) return { kind: 'local', location: item.local, extra: {} };
  if (isString(item.remote)) return { kind: 'remote', location: item.remote, extra: {} };
  if (isString(item.template)) return { kind: 'template', location: item.template, extra: {} };
  if (isString(item.component)) return { kind: 'component', location: item.component, extra: {} };
  if (isString(item.project)) {
    const files = Array.isArray(item.file) ? item.file.map(String) : [String(item.file ?? '')];
    return { kind: 'file', location: files.join(', '), extra: { project: item.project, ref: item.ref ?? 'HEAD' } };
  }
  if (isString(item.artifact)) return { kind: 'artifact', location: item.artifact, extra: { job_name: item.job ?? null } };
  throw new ConfigError(`Include \`${JSON.stringify(item)}\` does not have a valid subkey for include. Valid subkeys are: \`local\`, \`project\`, \`remote\`, \`template\`, \`component\``);
}

/** Hashes merge key by key (the later wins); anything else is replaced. */
function deepMerge(base: Hash, over: Hash): Hash {
  const out: Hash = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = isHash(out[k]) && isHash(v) ? deepMerge(out[k] as Hash, v) : v;
  return out;
}

// --- extends -----------------------------------------------------------------------------------

function expandExtends(config: Hash): Hash {
  const out: Hash = { ...config };
  const done = new Map<string, Hash>();
  const resolve = (key: string, stack: string[]): Hash => {
    const cached = done.get(key);
    if (cached) return cached;
    const entry = config[key] as Hash;
    if (stack.includes(key)) throw new ConfigError(`${key}: circular dependency detected in \`extends\``);
    if (stack.length >= K.MAX_EXTENDS_NESTING) throw new ConfigError(`${key}: nesting too deep in \`extends\``);
    const ext = entry.extends;
    if (ext === undefined) return entry;
    if (!isString(ext) && !isStringArray(ext)) throw new ConfigError(`${key}: invalid base hash in \`extends\``);
    const bases = isString(ext) ? [ext] : ext;
    const unknown = bases.filter((b) => !(b in config));
    if (unknown.length) throw new ConfigError(`${key}: unknown keys in \`extends\` (${unknown.join(', ')})`);
    let merged: Hash = {};
    for (const b of bases) {
      if (!isHash(config[b])) throw new ConfigError(`${key}: invalid base hash in \`extends\``);
      merged = deepMerge(merged, resolve(b, [...stack, key]));
    }
    const result = deepMerge(merged, entry);
    done.set(key, result);
    return result;
  };
  for (const [key, value] of Object.entries(config)) {
    if (isHash(value) && value.extends !== undefined) out[key] = resolve(key, []);
  }
  return out;
}

// --- structure (Gitlab::Ci::Config::Entry) -----------------------------------------------------

type JobKind = 'job' | 'bridge' | 'hidden';

/** Entry::Job#pages_job?: named `pages` (unless `pages: false`) or carrying a `pages:` setting. */
function isPagesJob(name: string, job: Hash): boolean {
  if (name === 'pages') return job.pages !== false;
  return job.pages === true || isHash(job.pages);
}

function jobKind(name: string, value: unknown): JobKind | null {
  if (name.startsWith('.')) return 'hidden';
  if (!isHash(value)) return null;
  if ('trigger' in value) return 'bridge';
  if ('script' in value || 'run' in value) return 'job';
  return null;
}

interface NormalizedJob {
  name: string;
  kind: 'job' | 'bridge';
  config: Hash;
  stage: string;
}

/** Entry::Commands: a string or nested arrays of strings, flattened. */
function commands(v: unknown, depth = 0): string[] | null {
  if (isString(v)) return [v];
  if (!Array.isArray(v) || depth >= K.MAX_SCRIPT_NESTING) return null;
  const out: string[] = [];
  for (const x of v) {
    const c = commands(x, depth + 1);
    if (!c) return null;
    out.push(...c);
  }
  return out;
}

const COMMANDS_MESSAGE = `config should be a string or a nested array of strings up to ${K.MAX_SCRIPT_NESTING} levels deep`;
const STAGES_MESSAGE = `config should be an array of strings or a nested array of strings up to ${K.MAX_SCRIPT_NESTING} levels deep`;
const ENVIRONMENT_NAME = /^[a-zA-Z0-9 \-_/${}.]+$/;
const ENVIRONMENT_NAME_MESSAGE = "can contain only letters, digits, '-', '_', '/', '$', '{', '}', '.', and spaces, but it cannot start or end with '/'";
const DURATION = /^\s*(\d+(\.\d+)?\s*(s|sec|secs|second|seconds|m|min|mins|minute|minutes|h|hr|hrs|hour|hours|d|day|days|w|wk|wks|week|weeks|mo|mos|month|months|y|yr|yrs|year|years)?\s*(and\s*)?,?\s*)+$/i;
const UNIT_SECONDS: [RegExp, number][] = [
  [/^(s|sec|secs|second|seconds)$/i, 1], [/^(m|min|mins|minute|minutes)$/i, 60], [/^(h|hr|hrs|hour|hours)$/i, 3600],
  [/^(d|day|days)$/i, 86400], [/^(w|wk|wks|week|weeks)$/i, 604800], [/^(mo|mos|month|months)$/i, 2592000], [/^(y|yr|yrs|year|years)$/i, 31536000],
];

/** ChronicDuration-style "1 week", "1h 30m", "90" (seconds); null when not a duration. */
export function durationSeconds(v: unknown): number | null {
  if (!isString(v) || !v.trim() || !DURATION.test(v)) return null;
  let total = 0;
  for (const m of v.matchAll(/(\d+(?:\.\d+)?)\s*([a-z]+)?/gi)) {
    const unit = m[2] && m[2].toLowerCase() !== 'and' ? m[2] : 's';
    const factor = UNIT_SECONDS.find(([re]) => re.test(unit))?.[1];
    if (factor === undefined) return null;
    total += Number(m[1]) * factor;
  }
  return total;
}

const isCacheKey = (v: unknown): boolean => isString(v) || isHash(v);

class StructureCheck {
  errors: string[] = [];
  warnings: string[] = [];
  stages: string[] = [];
  jobs: NormalizedJob[] = [];
  private defaults: Hash = {};
  private workflowRules = false;

  constructor(readonly config: Hash) {}

  /** Entry::Validator#messages: "<location> <message>", lower-cased. */
  private err(location: string, message: string): void {
    this.errors.push(`${location} ${message}`.toLowerCase());
  }

  run(): void {
    const c = this.config;
    const jobKeys = Object.keys(c).filter(
      (k) => !K.RESERVED_ROOT_KEYS.includes(k) && (jobKind(k, c[k]) !== null || !K.ROOT_KEYS.includes(k)),
    );
    // Root entries, in GitLab's declaration order (Entry::Root).
    const root = { ...c };
    for (const k of jobKeys) delete root[k];
    if (root.default !== undefined) this.checkDefault(root.default);
    if (root.before_script !== undefined && commands(root.before_script) === null) this.err('before_script', COMMANDS_MESSAGE);
    if (root.image !== undefined) this.checkImage('image', root.image);
    if (root.services !== undefined) this.checkServices('services', root.services);
    if (root.after_script !== undefined && commands(root.after_script) === null) this.err('after_script', COMMANDS_MESSAGE);
    if (root.variables !== undefined) this.checkVariables('variables', root.variables, ['value', 'description', 'expand', 'options']);
    this.stages = ['.pre', ...K.DEFAULT_STAGES, '.post'];
    if (root.stages !== undefined) {
      const list = root.stages === null ? [] : Array.isArray(root.stages) ? commands(root.stages) : null;
      if (!list) this.err('stages', STAGES_MESSAGE);
      else this.stages = ['.pre', ...list.filter((x) => x !== '.pre' && x !== '.post'), '.post'];
    }
    if (root.cache !== undefined) this.checkCache('cache', root.cache);
    if (root.workflow !== undefined) this.checkWorkflow(root.workflow);
    this.defaults = {
      ...(root.before_script !== undefined ? { before_script: root.before_script } : {}),
      ...(root.after_script !== undefined ? { after_script: root.after_script } : {}),
      ...(root.image !== undefined ? { image: root.image } : {}),
      ...(root.services !== undefined ? { services: root.services } : {}),
      ...(root.cache !== undefined ? { cache: root.cache } : {}),
      ...(isHash(root.default) ? root.default : {}),
    };
    this.checkJobs(jobKeys);
  }

  private checkDefault(value: unknown): void {
    if (!isHash(value)) return this.err('default', 'config should be a hash');
    const unknown = Object.keys(value).filter((k) => !K.DEFAULT_KEYS.includes(k));
    if (unknown.length) this.err('default', `config contains unknown keys: ${unknown.join(', ')}`);
    this.checkShared('default', value);
  }

  /** Keys a job and `default` share: scripts, image, services, cache, tags, artifacts, timeout. */
  private checkShared(loc: string, v: Hash): void {
    for (const key of ['before_script', 'after_script']) {
      if (v[key] !== undefined && commands(v[key]) === null) this.err(`${loc}:${key}`, COMMANDS_MESSAGE);
    }
    if (v.image !== undefined) this.checkImage(`${loc}:image`, v.image);
    if (v.services !== undefined) this.checkServices(`${loc}:services`, v.services);
    if (v.cache !== undefined) this.checkCache(`${loc}:cache`, v.cache);
    if (v.tags !== undefined) {
      if (!isStringArray(v.tags)) this.err(`${loc}:tags`, 'config should be an array of strings');
      else if (v.tags.length > K.TAGS_LIMIT) this.err(`${loc}:tags`, `config must be less than the limit of ${K.TAGS_LIMIT} tags`);
    }
    if (v.artifacts !== undefined) this.checkArtifacts(`${loc}:artifacts`, v.artifacts);
    if (v.timeout !== undefined && durationSeconds(v.timeout) === null) this.err(`${loc}:timeout`, 'config should be a duration');
    if (v.interruptible !== undefined && typeof v.interruptible !== 'boolean') this.err(`${loc}:interruptible`, 'config should be a boolean value');
  }

  private checkImage(loc: string, v: unknown): void {
    if (!isString(v) && !isHash(v)) this.err(loc, 'config should be a hash or a string');
  }

  private checkServices(loc: string, v: unknown): void {
    if (!Array.isArray(v)) return this.err(loc, 'config should be a array');
    for (const svc of v) if (!isString(svc) && !isHash(svc)) this.err(`${loc}:service`, 'config should be a hash or a string');
  }

  private checkCache(loc: string, v: unknown): void {
    for (const cache of Array.isArray(v) ? v : [v]) {
      if (!isHash(cache)) {
        this.err(loc, 'config should be a hash');
        continue;
      }
      const bad = Object.keys(cache).filter((k) => !K.CACHE_KEYS.includes(k));
      if (bad.length) this.err(loc, `config contains unknown keys: ${bad.join(', ')}`);
      if (cache.key !== undefined && !isCacheKey(cache.key)) this.err(`${loc}:key`, 'should be a hash, a string or a symbol');
      if (cache.paths !== undefined && !isStringArray(cache.paths)) this.err(`${loc}:paths`, 'config should be an array of strings');
      if (cache.untracked !== undefined && typeof cache.untracked !== 'boolean') this.err(`${loc}:untracked`, 'config should be a boolean value');
    }
  }

  private checkArtifacts(loc: string, v: unknown): void {
    if (!isHash(v)) return this.err(loc, 'config should be a hash');
    const bad = Object.keys(v).filter((k) => !K.ARTIFACTS_KEYS.includes(k));
    if (bad.length) this.err(loc, `config contains unknown keys: ${bad.join(', ')}`);
    if (v.name !== undefined && !isString(v.name)) this.err(loc, 'name should be a string');
    if (v.untracked !== undefined && typeof v.untracked !== 'boolean') this.err(loc, 'untracked should be a boolean value');
    if (v.paths !== undefined && !isStringArray(v.paths)) this.err(loc, 'paths should be an array of strings');
    if (v.exclude !== undefined && !isStringArray(v.exclude)) this.err(loc, 'exclude should be an array of strings');
    if (v.when !== undefined && !K.ARTIFACTS_WHEN.includes(v.when as string)) this.err(loc, `when should be one of: ${K.ARTIFACTS_WHEN.join(', ')}`);
    if (v.expire_in !== undefined && v.expire_in !== 'never' && durationSeconds(v.expire_in) === null) this.err(loc, 'expire in should be a duration');
  }

  private checkVariables(location: string, value: unknown, dataKeys: string[]): void {
    if (!isHash(value)) return this.err(location, 'config should be a hash');
    for (const [k, v] of Object.entries(value)) {
      if (isHash(v)) {
        const bad = Object.keys(v).filter((x) => !dataKeys.includes(x));
        if (bad.length) this.err(`${location}:${k}`, `config uses invalid data keys: ${bad.join(', ')}`);
      } else if (!(isString(v) || typeof v === 'number' || typeof v === 'boolean' || v === null)) {
        // Entry::Variable's unknown strategy reports this message without a location.
        this.errors.push('variable definition must be either a string or a hash');
      }
    }
  }

  private checkWorkflow(value: unknown): void {
    if (!isHash(value)) return this.err('workflow', 'config should be a hash');
    const unknown = Object.keys(value).filter((k) => !K.WORKFLOW_KEYS.includes(k));
    if (unknown.length) this.err('workflow', `config contains unknown keys: ${unknown.join(', ')}`);
    if (value.name !== undefined && !isString(value.name)) this.err('workflow', 'name should be a string');
    if (value.rules !== undefined && value.rules !== null) {
      this.workflowRules = true;
      if (!Array.isArray(value.rules)) this.err('workflow:rules', 'config should be an array of hashes');
      else this.checkRuleList('workflow:rules', value.rules, K.WORKFLOW_RULE_KEYS, K.WORKFLOW_RULE_WHEN);
    }
  }

  private checkRuleList(location: string, rules: unknown[], keys: string[], whens: string[]): void {
    for (const rule of rules.flat(K.MAX_SCRIPT_NESTING)) {
      if (!isHash(rule)) {
        this.err(`${location}:rule`, 'config should be a hash');
        continue;
      }
      const unknown = Object.keys(rule).filter((k) => !keys.includes(k));
      if (unknown.length) this.err(`${location}:rule`, `config contains unknown keys: ${unknown.join(', ')}`);
      if (rule.if !== undefined && !isString(rule.if)) this.err(`${location}:rule`, 'if should be a string');
      if (rule.when !== undefined && rule.when !== null && !whens.includes(rule.when as string)) {
        this.err(`${location}:rule`, `when unknown value: ${String(rule.when)}`);
      }
      if (rule.changes !== undefined && !isStringArray(rule.changes) && !isHash(rule.changes)) {
        this.err(`${location}:rule:changes`, 'should be an array or a hash');
      }
    }
  }

  private checkJobs(jobKeys: string[]): void {
    const c = this.config;
    const unmatched = jobKeys.filter((k) => jobKind(k, c[k]) === null);
    for (const name of unmatched) {
      // ActiveModel humanizes the key; Entry::Validator puts the underscores back.
      const message = `jobs ${name.replace(/_/g, ' ')} config should implement the script:, run:, or trigger: keyword`.toLowerCase();
      this.errors.push(message.replace(/jobs ([a-z\s]+) config should implement/, (_, n: string) => `jobs ${n.replace(/ /g, '_')} config should implement`));
    }
    const visible = jobKeys.filter((k) => {
      const kind = jobKind(k, c[k]);
      return kind === 'job' || kind === 'bridge';
    });
    if (!visible.length) this.err('jobs', 'config should contain at least one visible job');
    for (const name of visible) this.checkJob(name, c[name] as Hash, jobKind(name, c[name]) as 'job' | 'bridge');
  }

  private checkJob(name: string, job: Hash, kind: 'job' | 'bridge'): void {
    const loc = name === '' ? 'jobs:job' : `jobs:${name}`;
    // The job's own validations (Entry::Job, Processable)...
    const allowed = kind === 'job' ? K.JOB_KEYS : K.BRIDGE_KEYS;
    const unknown = Object.keys(job).filter((k) => !allowed.includes(k));
    if (unknown.length) this.err(loc, `config contains unknown keys: ${unknown.join(', ')}`);
    if (name === '') this.err(loc, "name can't be blank");
    if (name.length > 255) this.err(loc, 'name is too long (maximum is 255 characters)');
    const hasRules = job.rules !== undefined && job.rules !== null;
    if (hasRules) {
      const clash = ['only', 'except', 'start_in'].filter((k) => job[k] !== undefined && job[k] !== null);
      if (clash.length) this.err(loc, `config key may not be used with \`rules\`: ${clash.join(', ')}`);
    }
    if (job.extends !== undefined && !isString(job.extends) && !isStringArray(job.extends)) this.err(loc, 'extends should be an array of strings or a string');
    if (hasRules && !Array.isArray(job.rules)) this.err(loc, 'rules should be an array containing hashes and arrays of hashes');
    if (job.resource_group !== undefined && !isString(job.resource_group)) this.err(loc, 'resource group should be a string');
    if (kind === 'job') {
      if ('script' in job && 'run' in job) this.err(loc, 'config these keys cannot be used together: script, run');
      if ('script' in job && (job.script === null || commands(job.script)?.length === 0)) this.err(loc, "script can't be blank");
      if (job.when !== undefined && job.when !== null && !K.JOB_WHEN.includes(job.when as string)) {
        this.err(loc, `when should be one of: ${K.JOB_WHEN.join(', ')}`);
      }
      if (job.dependencies !== undefined && job.dependencies !== null && !isStringArray(job.dependencies)) {
        this.err(loc, 'dependencies should be an array of strings');
      }
      if (job.allow_failure !== undefined && job.allow_failure !== null && typeof job.allow_failure !== 'boolean' && !isHash(job.allow_failure)) {
        this.err(loc, 'allow failure should be a hash or a boolean value');
      }
      if (job.when === 'delayed' && durationSeconds(job.start_in) === null) this.err(loc, 'start in should be a duration');
      else if (job.when === 'delayed' && (durationSeconds(job.start_in) ?? 0) > 604800) this.err(loc, 'start in should not exceed the limit');
      if (job.start_in !== undefined && job.start_in !== null && (hasRules || job.when !== 'delayed')) this.err(loc, 'start in must be blank');
      if (job.publish !== undefined && !isPagesJob(name, job)) this.err(loc, 'publish can only be used within a `pages` job');
    }
    // ...then its entries.
    if (kind === 'job') {
      if (job.script !== undefined && job.script !== null && commands(job.script) === null) this.err(`${loc}:script`, COMMANDS_MESSAGE);
      this.checkShared(loc, job);
      if (job.parallel !== undefined) this.checkParallel(`${loc}:parallel`, job.parallel);
    }
    if (job.stage !== undefined && !isString(job.stage)) this.err(`${loc}:stage`, 'config should be a string');
    if (job.type !== undefined && !isString(job.type)) this.err(`${loc}:type`, 'config should be a string');
    if (job.variables !== undefined && job.variables !== null) this.checkVariables(`${loc}:variables`, job.variables, ['value', 'expand']);
    if (job.environment !== undefined && job.environment !== null) this.checkEnvironment(`${loc}:environment`, job.environment);
    if (isHash(job.allow_failure)) {
      const bad = Object.keys(job.allow_failure).filter((k) => !K.ALLOW_FAILURE_KEYS.includes(k));
      if (bad.length) this.err(`${loc}:allow_failure`, `config contains unknown keys: ${bad.join(', ')}`);
      const codes = job.allow_failure.exit_codes;
      if (codes !== undefined && !Number.isInteger(codes) && !(Array.isArray(codes) && codes.every((x) => Number.isInteger(x)))) {
        this.err(`${loc}:allow_failure`, 'exit codes should be an array of integers or an integer');
      }
    }
    if (Array.isArray(job.rules)) this.checkRuleList(`${loc}:rules`, job.rules, K.RULE_KEYS, K.RULE_WHEN);
    for (const key of ['only', 'except']) if (job[key] !== undefined && job[key] !== null) this.checkPolicy(`${loc}:${key}`, job[key]);
    if (job.needs !== undefined && job.needs !== null) this.checkNeeds(`${loc}:needs`, job.needs);
    if (kind === 'bridge' && !isString(job.trigger) && !isHash(job.trigger)) this.err(`${loc}:trigger`, 'has to be either a string or a hash');
    if (Array.isArray(job.rules) && !this.workflowRules) {
      const last = job.rules[job.rules.length - 1] as unknown;
      if (isHash(last) && Object.keys(last).length === 1 && 'when' in last && last.when !== 'never') {
        this.warnings.push(`${loc} may allow multiple pipelines to run for a single action due to \`rules:when\` clause with no \`workflow:rules\` - ${K.PIPELINE_WARNING_DOCS}`);
      }
    }
    const stage = isString(job.stage) ? job.stage : isString(job.type) ? job.type : K.DEFAULT_JOB_STAGE;
    this.jobs.push({ name, kind, config: job, stage });
  }

  private checkParallel(loc: string, v: unknown): void {
    if (Number.isInteger(v)) {
      if ((v as number) < 1) this.err(loc, 'config must be greater than or equal to 1');
      else if ((v as number) > 200) this.err(loc, 'config must be less than or equal to 200');
    } else if (isHash(v)) {
      if (v.matrix === undefined) this.err(loc, 'config missing required keys: matrix');
    } else this.err(loc, 'should be an integer or a hash');
  }

  private checkEnvironment(loc: string, env: unknown): void {
    if (!isString(env) && !isHash(env)) return this.err(loc, 'config should be a hash or a string');
    const name = isString(env) ? env : env.name;
    if (isHash(env)) {
      const bad = Object.keys(env).filter((k) => !K.ENVIRONMENT_KEYS.includes(k));
      if (bad.length) this.err(loc, `config contains unknown keys: ${bad.join(', ')}`);
    }
    if (name === undefined || name === null || name === '') this.err(loc, "name can't be blank");
    else if (!isString(name)) this.err(loc, 'name has to be a string');
    else if (!ENVIRONMENT_NAME.test(name) || name.startsWith('/') || name.endsWith('/')) this.err(loc, `name ${ENVIRONMENT_NAME_MESSAGE}`);
    if (isHash(env)) {
      if (env.action !== undefined && !K.ENVIRONMENT_ACTIONS.includes(env.action as string)) {
        this.err(loc, `action should be ${K.ENVIRONMENT_ACTIONS.slice(0, -1).join(', ')}, or ${K.ENVIRONMENT_ACTIONS[K.ENVIRONMENT_ACTIONS.length - 1]}`);
      }
      if (env.url !== undefined && !isString(env.url)) this.err(loc, 'url should be a string');
      if (env.on_stop !== undefined && !isString(env.on_stop)) this.err(loc, 'on stop should be a string');
    }
  }

  private checkPolicy(loc: string, value: unknown): void {
    if (Array.isArray(value)) {
      if (!isStringArray(value)) this.err(loc, 'config should be an array of strings or regular expressions using re2 syntax');
      return;
    }
    if (isHash(value)) {
      const bad = Object.keys(value).filter((k) => !K.POLICY_KEYS.includes(k));
      if (bad.length) this.err(loc, `config contains unknown keys: ${bad.join(', ')}`);
      if (value.refs !== undefined && !isStringArray(value.refs)) this.err(loc, 'refs should be an array of strings or regular expressions using re2 syntax');
      if (value.changes !== undefined && !isStringArray(value.changes) && !isHash(value.changes)) this.err(loc, 'changes should be an array of strings');
      if (value.variables !== undefined && !isStringArray(value.variables)) this.err(loc, 'variables should be an array of strings');
      return;
    }
    // Entry::Policy::UnknownStrategy
    this.errors.push(`${loc} has to be either an array of conditions or a hash`);
  }

  private checkNeeds(loc: string, value: unknown): void {
    const list = Array.isArray(value) ? value : isHash(value) || isString(value) ? [value] : null;
    if (!list) return this.err(loc, 'config can only be a hash or an array');
    for (const need of list) {
      if (isString(need)) continue;
      if (!isHash(need)) {
        this.err(`${loc}:need`, 'has an unsupported type');
        continue;
      }
      const bad = Object.keys(need).filter((k) => !K.NEED_KEYS.includes(k));
      if (bad.length) this.err(`${loc}:need`, `config contains unknown keys: ${bad.join(', ')}`);
      if (!isString(need.job)) this.err(`${loc}:need`, 'job config should be a string');
      if (need.artifacts !== undefined && typeof need.artifacts !== 'boolean') this.err(`${loc}:need`, 'artifacts should be a boolean value');
      if (need.optional !== undefined && typeof need.optional !== 'boolean') this.err(`${loc}:need`, 'optional should be a boolean value');
    }
  }

  /** Needs that name jobs of this pipeline: [{name, artifacts, optional}]. */
  needsOf(job: NormalizedJob): { name: string; artifacts: boolean; optional: boolean }[] | null {
    const raw = job.config.needs;
    if (raw === undefined || raw === null) return null;
    const list = Array.isArray(raw) ? raw : [raw];
    return list.flatMap((n) => {
      if (isString(n)) return [{ name: n, artifacts: true, optional: false }];
      if (isHash(n) && isString(n.job) && n.project === undefined && n.pipeline === undefined) {
        return [{ name: n.job, artifacts: n.artifacts !== false, optional: n.optional === true }];
      }
      return [];
    });
  }

  private inherited(job: NormalizedJob, key: string): unknown {
    if (job.config[key] !== undefined) return job.config[key];
    const inherit = job.config.inherit;
    const defaultInherit = isHash(inherit) ? inherit.default : undefined;
    if (defaultInherit === false) return undefined;
    if (Array.isArray(defaultInherit) && !defaultInherit.includes(key)) return undefined;
    return this.defaults[key];
  }

  /** The `jobs` of the lint result, stage by stage (Gitlab::Ci::Lint#yaml_processor_result_to_jobs). */
  lintJobs(): LintJob[] {
    const out: LintJob[] = [];
    for (const stage of this.stages) {
      for (const job of this.jobs) {
        if (job.stage !== stage) continue;
        const c = job.config;
        const hasRules = c.rules !== undefined && c.rules !== null;
        const when = isString(c.when) ? c.when : 'on_success';
        const env = c.environment;
        out.push({
          name: job.name,
          stage,
          before_script: job.kind === 'job' ? (commands(this.inherited(job, 'before_script')) ?? []) : [],
          script: job.kind === 'job' ? (commands(c.script) ?? []) : [],
          after_script: job.kind === 'job' ? (commands(this.inherited(job, 'after_script')) ?? []) : [],
          tag_list: (this.inherited(job, 'tags') as string[] | undefined) ?? [],
          only: policy(c.only) ?? (hasRules || this.workflowRules ? null : { refs: ['branches', 'tags'] }),
          except: policy(c.except),
          environment: isString(env) ? env : isHash(env) && isString(env.name) ? env.name : null,
          when,
          allow_failure: typeof c.allow_failure === 'boolean' ? c.allow_failure : isHash(c.allow_failure) ? false : when === 'manual',
          needs: this.needsOf(job),
        });
      }
    }
    return out;
  }
}

function policy(v: unknown): unknown {
  if (v === undefined || v === null) return null;
  if (Array.isArray(v)) return { refs: v };
  return v;
}

// --- logical rules (YamlProcessor#run_logical_validations!): the first failure is reported -----

function logicalError(s: StructureCheck): string | null {
  const byName = new Map(s.jobs.map((j) => [j.name, j]));
  const stageIndex = (name: string): number => s.stages.indexOf(byName.get(name)?.stage ?? '');
  for (const job of s.jobs) {
    if (!s.stages.includes(job.stage)) {
      return `${job.name} job: chosen stage ${job.stage} does not exist; available stages are ${s.stages.join(', ')}`;
    }
  }
  for (const job of s.jobs) {
    const deps = job.config.dependencies;
    for (const dep of isStringArray(deps) ? deps : []) {
      if (!byName.has(dep)) return `${job.name} job: undefined dependency: ${dep}`;
      if (stageIndex(dep) > stageIndex(job.name)) return `${job.name} job: dependency ${dep} is not defined in current or prior stages`;
    }
    const needs = s.needsOf(job) ?? [];
    for (const need of needs) {
      if (!byName.has(need.name)) {
        if (need.optional) continue;
        return `${job.name} job: undefined need: ${need.name}`;
      }
      if (stageIndex(need.name) > stageIndex(job.name)) return `${job.name} job: need ${need.name} is not defined in current or prior stages`;
    }
    const counts = new Map<string, number>();
    for (const n of needs) counts.set(n.name, (counts.get(n.name) ?? 0) + 1);
    const dup = [...counts].filter(([, n]) => n > 1).map(([k]) => k);
    if (dup.length) return `${job.name} has the following needs duplicated: ${dup.join(', ')}.`;
    if (isStringArray(deps) && job.config.needs !== undefined) {
      const missing = deps.filter((d) => !needs.some((n) => n.name === d));
      if (missing.length) return `jobs:${job.name} dependencies the ${missing.join(', ')} should be part of needs`;
    }
    const env = job.config.environment;
    if (isHash(env) && isString(env.on_stop)) {
      const stop = byName.get(env.on_stop);
      if (!stop) return `${job.name} job: on_stop job ${env.on_stop} is not defined`;
      const stopEnv = stop.config.environment;
      if (stopEnv === undefined) return `${job.name} job: on_stop job ${env.on_stop} does not have environment defined`;
      const stopName = isString(stopEnv) ? stopEnv : isHash(stopEnv) ? stopEnv.name : undefined;
      if (stopName !== env.name) return `${job.name} job: on_stop job ${env.on_stop} have different environment name`;
      if (!isHash(stopEnv) || stopEnv.action !== 'stop') return `${job.name} job: on_stop job ${env.on_stop} needs to have action stop defined`;
    }
  }
  return circularNeeds(s, byName);
}

/**
 * Ci::YamlProcessor::Dag: Ruby's TSort over `needs`, in job order. A job needing itself is a
 * "self-dependency"; otherwise the first strongly connected component of several jobs, in the
 * order Tarjan's stack holds them.
 */
function circularNeeds(s: StructureCheck, byName: Map<string, NormalizedJob>): string | null {
  const children = (name: string): string[] => {
    const job = byName.get(name);
    return job ? (s.needsOf(job) ?? []).map((n) => n.name).filter((n) => byName.has(n)) : [];
  };
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  let counter = 0;
  const strongConnect = (v: string): string | null => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of children(v)) {
      if (w === v) return `self-dependency: ${v}`;
      if (!index.has(w)) {
        const found = strongConnect(w);
        if (found) return found;
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component = stack.splice(stack.indexOf(v));
      for (const c of component) onStack.delete(c);
      if (component.length > 1) return `topological sort failed: ${JSON.stringify(component).replace(/","/g, '", "')}`;
    }
    return null;
  };
  for (const job of s.jobs) {
    if (index.has(job.name)) continue;
    const found = strongConnect(job.name);
    if (found) return `The pipeline has circular dependencies: ${found}`;
  }
  return null;
}
