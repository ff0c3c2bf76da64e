import type { Db } from './db/connection';
import type { User } from './areas/core/users';
import type { Project } from './areas/core/projects';
import type { Git } from './git';
import type { JobRunner } from './jobs/runner';
import type { RateLimiter, RateLimits } from './http/throttle';

/** Limits a deployment can tune (createService options). */
export interface Limits {
  /** Largest multipart file part accepted (uploads); larger -> 413. */
  maxUploadBytes: number;
  /** Largest JSON/form body accepted (alert payloads and the like). */
  maxBodyBytes: number;
  /** Largest alert payload an alert receiver accepts (GitLab's application payload limit); larger -> 400. */
  maxAlertPayloadBytes: number;
  /** Background jobs running at once (bulk import entities, repository imports). */
  jobConcurrency: number;
  /** Jobs waiting to start beyond which requests that add work answer 503 with Retry-After. */
  maxQueuedJobs: number;
  /**
   * How long a request waits for a database lock another connection holds (SQLite's busy
   * timeout) before it answers 503 with Retry-After.
   */
  databaseBusyTimeoutMs: number;
}

/**
 * Who a CI job token authenticates as. Filled in by the job token area; the auth layer asks it
 * when a request carries `JOB-TOKEN` / `job_token`.
 */
export interface JobTokenIdentity {
  user: User;
  projectId: number;
}

/** Everything a request handler may reach besides the request itself. */
export interface ServiceContext {
  db: Db;
  dataDir: string;
  now: () => Date;
  /** The same clock in milliseconds, without a Date per call (every authenticated request reads it). */
  nowMs: () => number;
  fetch: typeof fetch;
  limits: Limits;
  /** The git adapter (repositories); `git.available` is false, with `git.reason`, when git is missing. */
  git: Git;
  /** The durable job runner (jobs/runner.ts): areas define their kinds in `start`. */
  jobs: JobRunner;
  /** Set by the job token scope area; null until then. */
  resolveJobToken: ((token: string) => JobTokenIdentity | null) | null;
  /**
   * Set by the job token scope area: may a job token minted for `sourceProjectId` reach `target`
   * (its inbound allowlist)? Consulted by loadProject; null = always.
   */
  jobTokenCanAccess: ((sourceProjectId: number, target: Project) => boolean) | null;
  /** Counts API requests per user or IP against `rateLimits` (http/throttle.ts). */
  rateLimiter: RateLimiter;
  /** Set by the application settings area: the `throttle_*` settings now in force; null = none. */
  rateLimits: (() => RateLimits) | null;
}
