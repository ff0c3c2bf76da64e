import type { LintJob, LintResult } from './validator';

/** API::Entities::Ci::Lint::Result; `jobs` only with include_jobs. */
export function lintResult(r: LintResult, includeJobs: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {
    valid: r.valid,
    errors: r.errors,
    warnings: r.warnings,
    merged_yaml: r.merged_yaml,
    includes: r.includes,
  };
  if (includeJobs) out.jobs = r.jobs;
  return out;
}

/** A dry run (pipeline simulation) reports jobs without only/except/needs (Gitlab::Ci::Lint#dry_run_convert_to_jobs). */
export function dryRunJobs(jobs: LintJob[]): Record<string, unknown>[] {
  return jobs.map((j) => ({
    name: j.name,
    stage: j.stage,
    before_script: j.before_script,
    script: j.script,
    after_script: j.after_script,
    tag_list: j.tag_list,
    environment: j.environment,
    when: j.when,
    allow_failure: j.allow_failure,
  }));
}

/**
 * The legacy instance lint (`POST /ci/lint`, removed from GitLab in 16.0): the lint result plus
 * `status`, with `merged_yaml` only when asked for.
 */
export function legacyLintResult(r: LintResult, includeMergedYaml: boolean, includeJobs: boolean): Record<string, unknown> {
  const out = lintResult(r, includeJobs);
  if (!includeMergedYaml) delete out.merged_yaml;
  out.status = r.valid ? 'valid' : 'invalid';
  return out;
}
