import { type Hash, attr, isHash, isNil, isString } from './entries/framework';
import { wrapWithEdgeStages } from './entries/scalars';

/**
 * Gitlab::Ci::YamlProcessor's logical validations, which run on a configuration whose entries are
 * all valid: Config::Normalizer expands `parallel:` jobs (and the needs and dependencies naming
 * them), then each job in turn is checked (stage, dependencies, needs also inside rules, child
 * pipeline artifact jobs, on_stop environments, Pages publish) and the first failure is reported;
 * last, `needs` must not be circular (Dag, Ruby's TSort).
 */

/** Ci::BuildNeed::MAX_JOB_NAME_LENGTH */
const MAX_JOB_NAME_LENGTH = 255;

export interface Need {
  name: string;
  artifacts: boolean;
  optional: boolean;
  parallel?: unknown;
}

/** One job as the normalizer leaves it: a `parallel:` job becomes one job per instance. */
export interface NormalizedJob {
  name: string;
  /** The name it has in the configuration. */
  configName: string;
  kind: 'job' | 'bridge';
  config: Hash;
  stage: unknown;
  /** `needs:` of this pipeline's jobs, parallel names expanded; null without `needs:`. */
  needs: Need[] | null;
  dependencies: string[] | null;
}

/** Root#stages_value: the configured stages (with .pre/.post already injected), flattened. */
export function pipelineStages(config: Hash): string[] {
  return (Array.isArray(config.stages) ? config.stages : wrapWithEdgeStages(['build', 'test', 'deploy'])).flat(Infinity) as string[];
}

/** Config::Stages#inject_edge_stages!: `.pre` first and `.post` last in a written `stages:` list. */
export function injectEdgeStages(config: Hash): Hash {
  if (!Array.isArray(config.stages) || !config.stages.length) return config;
  return { ...config, stages: wrapWithEdgeStages(config.stages) };
}

/** Entry::Need values of a `needs:` list: this pipeline's jobs only. */
function jobNeeds(needs: unknown): Need[] | null {
  if (isNil(needs)) return null;
  return [needs].flat(Infinity).flatMap((n): Need[] => {
    if (isString(n)) return [{ name: n, artifacts: true, optional: false }];
    if (isHash(n) && 'job' in n && !('project' in n) && !('ref' in n) && !('pipeline' in n)) {
      const need: Need = { name: String(n.job), artifacts: n.artifacts !== false, optional: n.optional === true };
      if ('parallel' in n) need.parallel = n.parallel;
      return [need];
    }
    return [];
  });
}

/** Product::Variables#value: each matrix value as a list of strings. */
const matrixRows = (matrix: unknown): Record<string, string[]>[] =>
  (Array.isArray(matrix) ? matrix : []).filter(isHash).map((row) =>
    Object.fromEntries(Object.entries(row).map(([k, v]) => [k, (isNil(v) ? [] : Array.isArray(v) ? v : [v]).map(String)])),
  );

/** Normalizer::Factory: the instance names of a `parallel:` value (a number, or a matrix). */
function parallelNames(name: string, parallel: unknown): string[] {
  const number = typeof parallel === 'number' ? parallel : isHash(parallel) && typeof parallel.number === 'number' ? parallel.number : null;
  if (number !== null) return Array.from({ length: number }, (_, i) => `${name} ${i + 1}/${number}`);
  if (!isHash(parallel) || !('matrix' in parallel)) return [];
  return matrixRows(parallel.matrix).flatMap((row) => {
    const values = Object.values(row);
    const product = values.reduce<string[][]>((acc, list) => acc.flatMap((prefix) => list.map((v) => [...prefix, v])), [[]]);
    return product.map((combo) => `${name}: [${combo.join(', ')}]`);
  });
}

/** Config::Normalizer#normalize_jobs */
export function normalizeJobs(jobs: [string, Hash, 'job' | 'bridge'][]): NormalizedJob[] {
  const parallelized = new Map<string, string[]>();
  for (const [name, config] of jobs) if (!isNil(config.parallel)) parallelized.set(name, parallelNames(name, config.parallel));
  const expandNeeds = (needs: Need[] | null): Need[] | null =>
    needs?.flatMap((need) => {
      const instances = parallelized.get(need.name);
      if (!instances) return [need];
      const names = need.parallel !== undefined ? parallelNames(need.name, need.parallel) : instances;
      return names.map((name) => ({ name, artifacts: need.artifacts, optional: need.optional }));
    }) ?? null;
  return jobs.flatMap(([configName, config, kind]) => {
    const dependencies = Array.isArray(config.dependencies)
      ? (config.dependencies as unknown[]).flatMap((d) => parallelized.get(String(d)) ?? [String(d)])
      : null;
    const base = { configName, kind, config, stage: config.stage ?? 'test', needs: expandNeeds(jobNeeds(config.needs)), dependencies };
    const names = parallelized.get(configName) ?? [configName];
    return names.map((name) => ({ ...base, name }));
  });
}

class LogicalError extends Error {}

/** YamlProcessor#run_logical_validations!: the first failure, or null. */
export function logicalError(stages: string[], jobs: NormalizedJob[]): string | null {
  const byName = new Map(jobs.map((j) => [j.name, j]));
  const stageIndex = (name: string): number => stages.indexOf(byName.get(name)?.stage as string);
  const fail = (message: string): never => {
    throw new LogicalError(message);
  };

  const checkDependency = (name: string, dependency: string, type: 'dependency' | 'need', optional = false): void => {
    if (!byName.has(dependency)) {
      // An optional need of a job `include` rules left out is ignored.
      if (optional) return;
      fail(`${name} job: undefined ${type}: ${dependency}`);
    }
    if (type === 'need' && dependency.length > MAX_JOB_NAME_LENGTH) {
      fail(`${name} job: need \`${dependency}\` name is too long (maximum is ${MAX_JOB_NAME_LENGTH} characters)`);
    }
    const own = stageIndex(name);
    const theirs = stageIndex(dependency);
    if (theirs < 0 || theirs > own) fail(`${name} job: ${type} ${dependency} is not defined in current or prior stages`);
  };

  const checkNeeds = (name: string, needs: Need[] | null): void => {
    if (!needs) return;
    for (const need of needs) checkDependency(name, need.name, 'need', need.optional);
    const counts = new Map<string, number>();
    for (const need of needs) counts.set(need.name, (counts.get(need.name) ?? 0) + 1);
    const duplicated = [...counts].filter(([, n]) => n > 1).map(([k]) => k);
    if (duplicated.length) fail(`${name} has the following needs duplicated: ${duplicated.join(', ')}.`);
  };

  try {
    for (const job of jobs) {
      const { name, config } = job;
      if (!isNil(job.stage) && !(isString(job.stage) && stages.includes(job.stage))) {
        fail(`${name} job: chosen stage ${String(job.stage)} does not exist; available stages are ${stages.join(', ')}`);
      }
      for (const dependency of job.dependencies ?? []) checkDependency(name, dependency, 'dependency');
      checkNeeds(name, job.needs);
      // rules:needs are not expanded for parallel jobs (Config::Normalizer leaves rules alone).
      for (const rule of [config.rules].flat(Infinity)) if (isHash(rule)) checkNeeds(name, jobNeeds(rule.needs));
      const includes = attr(config.trigger, 'include');
      for (const included of [includes].flat()) {
        if (isHash(included) && !isNil(included.job) && included.job !== false) checkDependency(name, String(included.job), 'dependency');
      }
      checkOnStop(job, byName, fail);
      const pages = config.pages;
      if (isHash(pages) && 'publish' in config && 'publish' in pages) fail(`${name} job: use either ${name}:publish or ${name}:pages:publish`);
    }
  } catch (err) {
    if (err instanceof LogicalError) return err.message;
    throw err;
  }
  return circularNeeds(jobs);
}

/** The environment a job's `environment:` value names: a string is `{ name, action: start }`. */
const environmentOf = (env: unknown): Hash | null => (isString(env) ? { name: env, action: 'start' } : isHash(env) ? env : null);

function checkOnStop(job: NormalizedJob, byName: Map<string, NormalizedJob>, fail: (message: string) => never): void {
  const env = environmentOf(job.config.environment);
  if (!env || isNil(env.on_stop)) return;
  const onStop = String(env.on_stop);
  const stopJob = byName.get(onStop);
  if (!stopJob) fail(`${job.name} job: on_stop job ${onStop} is not defined`);
  const stopEnv = environmentOf(stopJob!.config.environment);
  if (!stopEnv) fail(`${job.name} job: on_stop job ${onStop} does not have environment defined`);
  if (stopEnv!.name !== env.name) fail(`${job.name} job: on_stop job ${onStop} have different environment name`);
  if (stopEnv!.action !== 'stop') fail(`${job.name} job: on_stop job ${onStop} needs to have action stop defined`);
}

/**
 * YamlProcessor::Dag: Ruby's TSort over `needs`, in job order. A job needing itself is a
 * "self-dependency"; otherwise the first strongly connected component of several jobs, in the
 * order Tarjan's stack holds them.
 */
function circularNeeds(jobs: NormalizedJob[]): string | null {
  const needsOf = new Map(jobs.map((j) => [j.name, (j.needs ?? []).map((n) => n.name)]));
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
    const children = needsOf.get(v) ?? [];
    if (children.includes(v)) return `self-dependency: ${v}`;
    for (const w of children) {
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
  for (const job of jobs) {
    if (index.has(job.name)) continue;
    const found = strongConnect(job.name);
    if (found) return `The pipeline has circular dependencies: ${found}`;
  }
  return null;
}
