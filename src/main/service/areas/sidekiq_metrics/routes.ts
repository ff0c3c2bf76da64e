import { hostname } from 'node:os';
import type { ServiceContext } from '../../context';
import type { RequestContext, Router } from '../../http/route';
import { isoTime } from '../core/time';

/**
 * GET /sidekiq/queue_metrics, process_metrics, job_stats and compound_metrics (lib/api/sidekiq_metrics.rb,
 * administrators only). Sandlab's background work is its durable job runner (jobs/runner.ts): one
 * queue, oldest job first, which is what GitLab names `default`; one process, this one, running up
 * to the runner's concurrency at a time. Clients poll process_metrics' `busy` to wait for
 * background work to settle (python-gitlab's functional tests do after creating and deleting).
 */
export function registerSidekiqMetricsRoutes(r: Router): void {
  const admin = (metrics: (svc: ServiceContext) => Record<string, unknown>) => (rc: RequestContext) => {
    rc.requireAdmin();
    return metrics(rc.svc);
  };
  r.get('/sidekiq/queue_metrics', admin((svc) => ({ queues: queueMetrics(svc) })));
  r.get('/sidekiq/process_metrics', admin((svc) => ({ processes: processMetrics(svc) })));
  r.get('/sidekiq/job_stats', admin((svc) => ({ jobs: jobStats(svc) })));
  r.get('/sidekiq/compound_metrics', admin((svc) => ({ queues: queueMetrics(svc), processes: processMetrics(svc), jobs: jobStats(svc) })));
}

/** The one queue Sandlab's jobs wait in. */
const QUEUE = 'default';

/** The queue's backlog (jobs waiting to run) and latency (whole seconds the oldest of them has waited). */
function queueMetrics(svc: ServiceContext): Record<string, { backlog: number; latency: number }> {
  // A job waits from when it last entered `created` (queued, or queued again to resume or retry).
  const { backlog, since } = svc.db.prepare("SELECT count(*) AS backlog, min(updated_at) AS since FROM jobs WHERE state = 'created'").get() as { backlog: number; since: string | null };
  const latency = since ? Math.max(0, Math.floor((svc.now().getTime() - Date.parse(since)) / 1000)) : 0;
  return { [QUEUE]: { backlog, latency } };
}

/** This process, the one that runs the jobs. */
function processMetrics(svc: ServiceContext): Record<string, unknown>[] {
  const { startedAt, concurrency, busy } = svc.jobs.workers();
  return [
    {
      hostname: hostname(),
      pid: process.pid,
      tag: 'sandlab',
      started_at: startedAt ? isoTime(startedAt) : null,
      queues: [QUEUE],
      labels: [],
      concurrency,
      busy,
    },
  ];
}

/**
 * Jobs that ran to an end (processed: finished, failed, canceled or timed out), those that failed
 * (failed or timed out: the runner retries none by itself, so each is also dead) and those waiting.
 */
function jobStats(svc: ServiceContext): { processed: number; failed: number; enqueued: number; dead: number } {
  const counts = svc.db
    .prepare(
      `SELECT count(*) FILTER (WHERE state IN ('finished', 'failed', 'canceled', 'timeout')) AS processed,
              count(*) FILTER (WHERE state IN ('failed', 'timeout')) AS failed,
              count(*) FILTER (WHERE state = 'created') AS enqueued
       FROM jobs`,
    )
    .get() as { processed: number; failed: number; enqueued: number };
  return { ...counts, dead: counts.failed };
}
