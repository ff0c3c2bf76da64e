import type { LintJob, LintResult } from './validator';

/**
 * The pipeline simulation of a dry run (Ci::CreatePipelineService with dry_run: true) for a push
 * to a branch: workflow:rules, then each job's rules or only/except decide which jobs the
 * pipeline gets. Expressions follow Gitlab::Ci::Pipeline::Expression (variables, "strings",
 * /regexps/, null, ==, !=, =~, !~, &&, ||, parentheses).
 */
export interface PushContext {
  ref: string;
  defaultBranch: string;
  projectPath: string;
  projectName: string;
  namespacePath: string;
  projectId: number;
  /** File paths at the ref, for `rules:exists`. */
  files: string[];
}

export const WORKFLOW_FILTERED = 'Pipeline filtered out by workflow rules.';
export const NO_JOBS =
  'Pipeline will not run for the selected trigger. The rules configuration prevented any jobs from being added to the pipeline.';

type Vars = Record<string, string>;
const isHash = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

const slug = (ref: string): string =>
  ref
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '-')
    .slice(0, 63)
    .replace(/^-+|-+$/g, '');

function predefined(c: PushContext): Vars {
  return {
    CI: 'true',
    GITLAB_CI: 'true',
    CI_PIPELINE_SOURCE: 'push',
    CI_COMMIT_BRANCH: c.ref,
    CI_COMMIT_REF_NAME: c.ref,
    CI_COMMIT_REF_SLUG: slug(c.ref),
    CI_DEFAULT_BRANCH: c.defaultBranch,
    CI_PROJECT_PATH: c.projectPath,
    CI_PROJECT_NAME: c.projectName,
    CI_PROJECT_NAMESPACE: c.namespacePath,
    CI_PROJECT_ID: String(c.projectId),
  };
}

/** `variables:` entries as strings (`{value: ...}` hashes read by their value). */
function yamlVariables(v: unknown): Vars {
  const out: Vars = {};
  if (!isHash(v)) return out;
  for (const [k, raw] of Object.entries(v)) {
    const value = isHash(raw) ? raw.value : raw;
    if (value !== undefined && value !== null) out[k] = String(value);
  }
  return out;
}

// --- expressions -----------------------------------------------------------------------------

type Token =
  | { t: 'var'; v: string }
  | { t: 'str'; v: string }
  | { t: 're'; v: RegExp }
  | { t: 'null' }
  | { t: 'op'; v: '==' | '!=' | '=~' | '!~' | '&&' | '||' }
  | { t: '(' }
  | { t: ')' };

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < src.length) {
    const ch = src[i];
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    const two = src.slice(i, i + 2);
    if (['==', '!=', '=~', '!~', '&&', '||'].includes(two)) {
      out.push({ t: 'op', v: two as '==' });
      i += 2;
    } else if (ch === '(' || ch === ')') {
      out.push({ t: ch });
      i++;
    } else if (ch === '$') {
      const m = /^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/.exec(src.slice(i));
      if (!m) throw new Error('bad variable');
      out.push({ t: 'var', v: m[1] ?? m[2] });
      i += m[0].length;
    } else if (ch === '"' || ch === "'") {
      const end = src.indexOf(ch, i + 1);
      if (end < 0) throw new Error('unterminated string');
      out.push({ t: 'str', v: src.slice(i + 1, end) });
      i = end + 1;
    } else if (ch === '/') {
      const m = /^\/((?:\\.|[^/\\])*)\/([a-z]*)/.exec(src.slice(i));
      if (!m) throw new Error('bad regexp');
      out.push({ t: 're', v: toRegExp(m[1], m[2]) });
      i += m[0].length;
    } else if (src.startsWith('null', i)) {
      out.push({ t: 'null' });
      i += 4;
    } else {
      throw new Error(`unexpected ${ch}`);
    }
  }
  return out;
}

function toRegExp(pattern: string, flags: string): RegExp {
  return new RegExp(pattern, flags.replace(/[^imsu]/g, ''));
}

type Value = string | null | RegExp | boolean;

/** Evaluates an `if:` expression against the variables; a malformed one is false. */
export function evaluate(expression: string, vars: Vars): boolean {
  let tokens: Token[];
  try {
    tokens = tokenize(expression);
  } catch {
    return false;
  }
  let pos = 0;
  const value = (tok: Token): Value => {
    if (tok.t === 'var') return vars[tok.v] ?? null;
    if (tok.t === 'str') return tok.v;
    if (tok.t === 're') return tok.v;
    return null;
  };
  const truthy = (v: Value): boolean => (typeof v === 'boolean' ? v : v instanceof RegExp ? true : v !== null && v !== '');
  const match = (l: Value, r: Value): boolean => {
    // The right side may also be a variable holding "/pattern/flags".
    const lit = typeof r === 'string' ? /^\/(.*)\/([a-z]*)$/.exec(r) : null;
    const re = r instanceof RegExp ? r : lit ? toRegExp(lit[1], lit[2]) : null;
    return !!re && typeof l === 'string' && re.test(l);
  };
  const primary = (): Value => {
    const tok = tokens[pos++];
    if (!tok) throw new Error('unexpected end');
    if (tok.t === '(') {
      const v = or();
      if (tokens[pos++]?.t !== ')') throw new Error('missing )');
      return v;
    }
    if (tok.t === ')' || tok.t === 'op') throw new Error('unexpected token');
    const left = value(tok);
    const next = tokens[pos];
    if (next?.t === 'op' && ['==', '!=', '=~', '!~'].includes(next.v)) {
      pos++;
      const rt = tokens[pos++];
      if (!rt || rt.t === 'op' || rt.t === '(' || rt.t === ')') throw new Error('missing operand');
      const right = value(rt);
      const l = left instanceof RegExp ? left.source : left;
      if (next.v === '==') return l === (right instanceof RegExp ? right.source : right);
      if (next.v === '!=') return l !== (right instanceof RegExp ? right.source : right);
      if (next.v === '=~') return match(left, right);
      return !match(left, right);
    }
    return left;
  };
  const and = (): Value => {
    let v = truthy(primary());
    while (tokens[pos]?.t === 'op' && (tokens[pos] as { v: string }).v === '&&') {
      pos++;
      const r = truthy(primary());
      v = v && r;
    }
    return v;
  };
  const or = (): Value => {
    let v = truthy(and());
    while (tokens[pos]?.t === 'op' && (tokens[pos] as { v: string }).v === '||') {
      pos++;
      const r = truthy(and());
      v = v || r;
    }
    return v;
  };
  try {
    const v = truthy(or());
    return pos === tokens.length ? v : false;
  } catch {
    return false;
  }
}

// --- rules and only/except -----------------------------------------------------------------------

function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i];
    if (ch === '*' && glob[i + 1] === '*') {
      re += '.*';
      i++;
      if (glob[i + 1] === '/') i++;
    } else if (ch === '*') re += '[^/]*';
    else if (ch === '?') re += '[^/]';
    else re += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

function existsMatch(spec: unknown, files: string[]): boolean {
  const globs = Array.isArray(spec) ? spec : isHash(spec) && Array.isArray(spec.paths) ? spec.paths : typeof spec === 'string' ? [spec] : [];
  return globs.some((g) => typeof g === 'string' && files.some((f) => globToRegExp(g.replace(/^\//, '')).test(f)));
}

/** The first matching rule, or null when none matches. */
function matchingRule(rules: unknown[], vars: Vars, files: string[]): Record<string, unknown> | null {
  for (const rule of rules.flat(10)) {
    if (!isHash(rule)) continue;
    if (typeof rule.if === 'string' && !evaluate(rule.if, vars)) continue;
    if (rule.exists !== undefined && !existsMatch(rule.exists, files)) continue;
    // `changes` on a push compares with the previous commit; a simulation counts every path as changed.
    return rule;
  }
  return null;
}

function refMatches(spec: unknown, ref: string): boolean {
  if (typeof spec !== 'string') return false;
  if (spec === 'branches' || spec === 'pushes') return true;
  const re = /^\/(.*)\/([a-z]*)$/.exec(spec);
  if (re) return toRegExp(re[1], re[2]).test(ref);
  return spec === ref;
}

/** only/except (Build::Policy): refs, then variables expressions; other policies count as met. */
function policyMatches(policy: unknown, vars: Vars, ref: string): boolean {
  const p = Array.isArray(policy) ? { refs: policy } : isHash(policy) ? policy : null;
  if (!p) return false;
  if (Array.isArray(p.refs) && !p.refs.some((r) => refMatches(r, ref))) return false;
  if (Array.isArray(p.variables) && !p.variables.some((e) => typeof e === 'string' && evaluate(e, vars))) return false;
  return true;
}

/** The lint result of a dry run: the jobs a push pipeline on `ctx.ref` gets, or why it gets none. */
export function simulatePush(result: LintResult, ctx: PushContext): LintResult {
  if (!result.valid || !result.pipeline) return result;
  const input = result.pipeline;
  const base = { ...predefined(ctx), ...yamlVariables(input.variables) };
  if (Array.isArray(input.workflowRules)) {
    const rule = matchingRule(input.workflowRules, base, ctx.files);
    if (!rule || rule.when === 'never') return { ...result, valid: false, errors: [WORKFLOW_FILTERED], jobs: [] };
    Object.assign(base, yamlVariables(rule.variables));
  }
  const jobs: LintJob[] = [];
  for (const job of result.jobs) {
    const raw = input.jobs[job.name];
    const vars = { ...base, ...yamlVariables(raw?.variables) };
    if (Array.isArray(raw?.rules)) {
      const rule = matchingRule(raw.rules, vars, ctx.files);
      if (!rule || rule.when === 'never') continue;
      const when = typeof rule.when === 'string' ? rule.when : job.when;
      // A manual job from rules does not allow failure unless the rule or the job says so.
      jobs.push({ ...job, when, allow_failure: typeof rule.allow_failure === 'boolean' ? rule.allow_failure : job.allow_failure });
      continue;
    }
    if (job.only !== null && !policyMatches(job.only, vars, ctx.ref)) continue;
    if (job.except !== null && policyMatches(job.except, vars, ctx.ref)) continue;
    jobs.push(job);
  }
  const real = jobs.filter((j) => j.stage !== '.pre' && j.stage !== '.post');
  if (!real.length) return { ...result, valid: false, errors: [NO_JOBS], jobs: [] };
  return { ...result, jobs };
}
