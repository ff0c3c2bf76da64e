import type { ServiceContext } from '../../../context';
import type { JobContext } from '../../../jobs/runner';
import { ProviderError, ProviderUnreachable, type ProviderHttpOptions } from '../providers/http';
import type { ImportRun } from './run';

/** One stage of an import (labels, pull requests, ...); optional ones run when `optional_stages` asks. */
export interface Stage {
  name: string;
  /** The `optional_stages` key that turns it on. */
  optional?: string;
  run(): Promise<void>;
}

/**
 * A rate limit that resets within this long is waited out mid-import; a longer one ends the import
 * with an error that says so (the start of an import answers 429 at once instead).
 */
export const RATE_LIMIT_WAIT_MS = 60_000;

/** How importers reach a provider from a job: the job's fetch (the service's, aborted with the job, taking turns with requests). */
export function providerOptions(svc: ServiceContext, job: JobContext<unknown>): Omit<ProviderHttpOptions, 'provider' | 'headers'> {
  return { fetch: (input, init) => job.fetch(input instanceof Request ? input.url : input, init), now: svc.now, signal: job.signal, maxRateLimitWaitMs: RATE_LIMIT_WAIT_MS };
}

/**
 * Runs the stages in order. With `timeout_strategy: optimistic` a stage the provider fails
 * (an error answer, or no answer) is recorded and the next stage runs; `pessimistic` (the
 * default) ends the import there. A spent rate limit and a cancel always end it.
 */
export async function runStages(run: ImportRun, stages: Stage[]): Promise<void> {
  const enabled = stages.filter((s) => !s.optional || run.optionalStage(s.optional));
  for (const [i, stage] of enabled.entries()) {
    run.job.progress({ done: i, total: enabled.length, message: stage.name });
    try {
      await stage.run();
    } catch (err) {
      const providerFailed = err instanceof ProviderError || err instanceof ProviderUnreachable;
      if (!providerFailed || run.settings.timeout_strategy !== 'optimistic' || run.job.signal.aborted) throw err;
      run.recordFailure(stage.name, stage.name, err);
    }
  }
  run.job.progress({ done: enabled.length, total: enabled.length, message: 'finished' });
}
