import { evaluate } from './expression';
import { fabricateRegexp, looksLikeRegexp } from './re2';
import type { LintJob, LintResult } from './validator';

/**
 * The pipeline simulation of a dry run (Ci::CreatePipelineService with dry_run: true) for a push
 * to a branch: workflow:rules, then each job's rules or only/except decide which jobs the
 * pipeline gets. Expressions are evaluated by ./expression (GitLab's expression language).
 */
export interface PushContext {
  ref: string;
  /** `ref` names a tag (CI_COMMIT_TAG, `only: tags`), not a branch. */
  tag: boolean;
  /** The commit the ref points at. */
  sha: string;
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
    ...(c.tag ? { CI_COMMIT_TAG: c.ref } : { CI_COMMIT_BRANCH: c.ref }),
    CI_COMMIT_REF_NAME: c.ref,
    CI_COMMIT_SHA: c.sha,
    CI_COMMIT_SHORT_SHA: c.sha.slice(0, 8),
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

function refMatches(spec: unknown, ctx: PushContext): boolean {
  if (typeof spec !== 'string') return false;
  if (spec === 'pushes') return true;
  if (spec === 'branches') return !ctx.tag;
  if (spec === 'tags') return ctx.tag;
  if (looksLikeRegexp(spec)) return !!fabricateRegexp(spec)?.test(ctx.ref);
  return spec === ctx.ref;
}

/** only/except (Build::Policy): refs, then variables expressions; other policies count as met. */
function policyMatches(policy: unknown, vars: Vars, ctx: PushContext): boolean {
  const p = Array.isArray(policy) ? { refs: policy } : isHash(policy) ? policy : null;
  if (!p) return false;
  if (Array.isArray(p.refs) && !p.refs.some((r) => refMatches(r, ctx))) return false;
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
    if (job.only !== null && !policyMatches(job.only, vars, ctx)) continue;
    if (job.except !== null && policyMatches(job.except, vars, ctx)) continue;
    jobs.push(job);
  }
  const real = jobs.filter((j) => j.stage !== '.pre' && j.stage !== '.post');
  if (!real.length) return { ...result, valid: false, errors: [NO_JOBS], jobs: [] };
  return { ...result, jobs };
}
