import type { Document, Scalar } from 'yaml';
import { lazyRequire } from '../../lazy-require';
import { EntryConfigError } from './entries/framework';
import { Bridge, Job, jobType } from './entries/jobs';
import { Root } from './entries/root';
import * as K from './keywords';
import { type NormalizedJob, injectEdgeStages, logicalError, normalizeJobs, pipelineStages } from './processor';

/** The YAML library, loaded on the first lint: it is large, and most runs of Sandlab never lint. */
const yaml = lazyRequire<typeof import('yaml')>('yaml');

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
const failure = (errors: string[], warnings: string[] = []): LintResult => ({ valid: false, errors, warnings, merged_yaml: null, includes: null, jobs: [] });

export function lintCiConfig(content: string | null | undefined, ctx: LintContext): LintResult {
  if (content == null || content.trim() === '') return failure(['Please provide content of .gitlab-ci.yml']);
  let config: Hash;
  const includes: IncludeEntry[] = [];
  const warnings: string[] = [];
  const load: LoadState = { nonSymbolKeys: new Set() };
  try {
    config = loadYaml(content, load);
    config = expandIncludes(config, ctx, includes, warnings, new Set(), 0, load);
    config = expandExtends(config);
    config = resolveReferences(config);
    config = injectEdgeStages(config);
  } catch (err) {
    if (err instanceof ConfigError) return failure([err.message], warnings);
    throw err;
  }
  // Gitlab::Ci::Config: the entry tree checks every keyword's value...
  const root = Root.fromConfig(config, { non_symbol_keys: load.nonSymbolKeys });
  try {
    root.compose();
  } catch (err) {
    if (err instanceof EntryConfigError) return failure([err.message], warnings);
    throw err;
  }
  warnings.push(...root.warnings());
  const errors = [...root.errors()];
  if (errors.length) return failure(errors, warnings);
  // ...then YamlProcessor's logical validations run on the normalized jobs.
  const stages = pipelineStages(config);
  const jobs = normalizeJobs(visibleJobs(config));
  const logical = logicalError(stages, jobs);
  if (logical) return failure([logical], warnings);
  const workflowRules = isHash(config.workflow) && config.workflow.rules !== undefined && config.workflow.rules !== null;
  return {
    valid: true,
    errors: [],
    warnings,
    merged_yaml: dumpYaml(config),
    includes,
    jobs: lintJobs(config, stages, jobs, workflowRules),
    pipeline: {
      variables: config.variables,
      workflowRules: isHash(config.workflow) ? config.workflow.rules : undefined,
      jobs: Object.fromEntries(jobs.map((j) => [j.name, { rules: j.config.rules, variables: j.config.variables }])),
    },
  };
}

/** The jobs and bridges of a configuration, in order (Entry::Jobs, visible types only). */
function visibleJobs(config: Hash): [string, Hash, 'job' | 'bridge'][] {
  return Object.entries(config).flatMap(([name, value]): [string, Hash, 'job' | 'bridge'][] => {
    const type = jobType(name, value);
    if (type === Job) return [[name, value as Hash, 'job']];
    if (type === Bridge) return [[name, value as Hash, 'bridge']];
    return [];
  });
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

/** What loading learns beyond the values: the top-level keys YAML wrote as numbers, booleans or null. */
interface LoadState {
  nonSymbolKeys: Set<string>;
}

/** Loads one YAML document as GitLab does: a mapping, Ruby-symbol keys (`:job:`) read as names. */
export function loadYaml(content: string, load?: LoadState): Hash {
  const { LineCounter, parseDocument, isMap, isScalar } = yaml();
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
  if (load && isMap(doc.contents)) {
    for (const pair of doc.contents.items) {
      if (isScalar(pair.key) && typeof pair.key.value !== 'string') load.nonSymbolKeys.add(pair.key.value === null ? '' : String(pair.key.value));
    }
  }
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

/**
 * `!reference [job, key, ...]`: kept as a marker until the whole configuration is known. Only a
 * non-empty list of names is a reference (Tags::Reference#valid?); anything else tagged so is not.
 */
class Reference {
  constructor(
    readonly path: unknown[],
    /** Ruby's inspect of what the tag was given, as GitLab's messages show it. */
    readonly data: string,
    readonly valid: boolean,
  ) {}

  get shown(): string {
    return `!reference ${this.data}`;
  }
}

/** Ruby's `inspect` of a plain YAML value (Ruby 3.3: `{"b"=>"c"}`). */
const rubyInspect = (v: unknown): string =>
  Array.isArray(v) ? `[${v.map(rubyInspect).join(', ')}]`
  : isHash(v) ? `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}=>${rubyInspect(x)}`).join(', ')}}`
  : v === null || v === undefined ? 'nil'
  : isString(v) ? JSON.stringify(v)
  : String(v);

function markReferences(doc: Document): void {
  const { Scalar: YamlScalar, isMap, isScalar, isSeq, visit } = yaml();
  const tagged = (node: unknown): boolean => (isSeq(node) || isMap(node) || isScalar(node)) && (node as { tag?: string }).tag === '!reference';
  visit(doc, {
    Node(_, node) {
      if (!tagged(node) || (isScalar(node) && node.value instanceof Reference)) return undefined;
      if (isSeq(node)) {
        const path = node.items.map((i) => (isScalar(i) ? i.value : (i as { toJSON(): unknown }).toJSON()));
        return new YamlScalar(new Reference(path, rubyInspect(path), path.length > 0 && path.every(isString)));
      }
      if (isMap(node)) return new YamlScalar(new Reference([], rubyInspect(node.toJSON()), false));
      const text = String((node as Scalar).source ?? (node as Scalar).value ?? '');
      return new YamlScalar(new Reference([], text === '' ? '[]' : JSON.stringify(text), false));
    },
  });
}

/** Gitlab::Ci::Config::Yaml::Tags::Resolver: replaces every `!reference` with the value it points at. */
function resolveReferences(config: Hash): Hash {
  const resolve = (value: unknown, chain: Reference[]): unknown => {
    if (value instanceof Reference) {
      if (!value.valid) throw new ConfigError(`${value.shown} is not valid`);
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
  const { isPair, isScalar, visit } = yaml();
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
  const { stringify } = yaml();
  return `---\n${stringify(config, { indentSeq: false, lineWidth: 0, aliasDuplicateObjects: false })}`;
}

// --- include -----------------------------------------------------------------------------------

const MAX_INCLUDES = 150;

function expandIncludes(config: Hash, ctx: LintContext, out: IncludeEntry[], warnings: string[], seen: Set<string>, depth: number, load?: LoadState): Hash {
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
        loaded = loadYaml(text, load);
      } catch (err) {
        if (err instanceof ConfigError) throw new ConfigError(`Included file \`${shown}\` does not have valid YAML syntax!`);
        throw err;
      }
      merged = deepMerge(merged, expandIncludes(loaded, ctx, out, warnings, seen, depth + 1, load));
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

/**
 * Config::Extendable: every top-level hash with `extends` is deep-merged over its bases (bases
 * first, in order), each base extended first; the extended value replaces the entry.
 */
function expandExtends(config: Hash): Hash {
  const context: Hash = { ...config };
  const extend = (key: string, ancestors: string[]): unknown => {
    const value = context[key];
    if (!isHash(value) || !('extends' in value)) return value;
    const ext = value.extends;
    const bases = (ext === undefined || ext === null ? [] : Array.isArray(ext) ? ext : [ext]).map((b) => (isHash(b) ? inspectHash(b) : String(b ?? '')));
    const unknown = bases.filter((b) => !(b in context));
    if (unknown.length) throw new ConfigError(`${key}: unknown keys in \`extends\` (${unknown.join(', ')})`);
    const invalid = bases.filter((b) => !isHash(context[b]));
    if (invalid.length) throw new ConfigError(`${key}: invalid base hashes in \`extends\` (${invalid.join(', ')})`);
    if (ancestors.length > K.MAX_EXTENDS_NESTING) throw new ConfigError(`${key}: nesting too deep in \`extends\``);
    if (ancestors.includes(key)) throw new ConfigError(`${key}: circular dependency detected in \`extends\``);
    let merged: Hash = {};
    for (const base of bases) merged = deepMerge(merged, extend(base, [...ancestors, key]) as Hash);
    context[key] = deepMerge(merged, value);
    return context[key];
  };
  for (const key of Object.keys(context)) extend(key, []);
  return context;
}

/** Ruby's Hash#to_s, for a hash listed where a job name was expected. */
const inspectHash = (h: Hash): string => `{${Object.entries(h).map(([k, v]) => `:${k}=>${JSON.stringify(v)}`).join(', ')}}`;

// --- lint result jobs (Gitlab::Ci::Lint#yaml_processor_result_to_jobs) -----------------------------

/** Entry::Commands#value */
const commands = (v: unknown): string[] => (v === undefined || v === null ? [] : ([v].flat(Infinity) as string[]));

function policy(v: unknown): unknown {
  if (v === undefined || v === null) return null;
  if (Array.isArray(v)) return { refs: v };
  return v;
}

/** The `jobs` of the lint result, stage by stage, with what they inherit from `default:` (or the top level). */
function lintJobs(config: Hash, stages: string[], jobs: NormalizedJob[], workflowRules: boolean): LintJob[] {
  const defaults: Hash = {};
  for (const key of ['before_script', 'after_script', 'image', 'services', 'cache']) if (config[key] !== undefined) defaults[key] = config[key];
  Object.assign(defaults, isHash(config.default) ? config.default : {});
  const inherited = (job: NormalizedJob, key: string): unknown => {
    if (job.config[key] !== undefined) return job.config[key];
    const inherit = isHash(job.config.inherit) ? job.config.inherit.default : undefined;
    if (inherit === false || (Array.isArray(inherit) && !inherit.includes(key))) return undefined;
    return defaults[key];
  };
  const out: LintJob[] = [];
  for (const stage of stages) {
    for (const job of jobs) {
      if (job.stage !== stage) continue;
      const c = job.config;
      const hasRules = c.rules !== undefined && c.rules !== null;
      const when = isString(c.when) ? c.when : 'on_success';
      const env = c.environment;
      out.push({
        name: job.name,
        stage,
        before_script: job.kind === 'job' ? commands(inherited(job, 'before_script')) : [],
        script: job.kind === 'job' ? commands(c.script) : [],
        after_script: job.kind === 'job' ? commands(inherited(job, 'after_script')) : [],
        tag_list: (inherited(job, 'tags') as string[] | undefined) ?? [],
        only: policy(c.only) ?? (hasRules || workflowRules ? null : { refs: ['branches', 'tags'] }),
        except: policy(c.except),
        environment: isString(env) ? env : isHash(env) && isString(env.name) ? env.name : null,
        when,
        allow_failure: typeof c.allow_failure === 'boolean' ? c.allow_failure : isHash(c.allow_failure) ? false : when === 'manual',
        needs: job.needs?.map(({ name, artifacts, optional }) => ({ name, artifacts, optional })) ?? null,
      });
    }
  }
  return out;
}
