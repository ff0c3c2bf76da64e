/**
 * Durable background jobs: long, remote, fallible work (bulk imports, repository imports) that
 * runs beside request handling, survives a restart and reports its progress.
 *
 * A job is a row of `jobs` (kind, state, payload, progress, attempts, heartbeat, error) run by the
 * one `JobRunner` of the service (`svc.jobs`), at most `concurrency` (5) at a time, oldest first.
 * States: created -> started -> finished | failed | canceled | timeout.
 *
 * ## Defining a kind (in an area's `start(svc)`, so it exists before the runner resumes jobs)
 *
 *   svc.jobs.define<{ projectId: number }>({
 *     kind: 'project_import',
 *     secretMissingMessage: 'Sandlab restarted and no longer holds the token: supply it again to retry.',
 *     async run(job) {
 *       await job.step('repository', (signal) => cloneInto(job.payload.projectId, job.secret(), signal));
 *       for (let page = 1; page !== null; ) {
 *         page = await job.step(`issues:${page}`, async () => importIssuesPage(job, page)); // next page or null
 *         job.progress({ done: page ?? 1, total: 3, message: 'issues' });
 *       }
 *     },
 *     // Optional: keeps the owning resource in step (e.g. a project's import_status). Runs
 *     // synchronously inside the transaction that records the job's new state, for every state.
 *     transition(row, state, error) { ... },
 *   });
 *
 * ## Steps: idempotent, each committing its own progress
 * `job.step(key, work)` runs `work(signal)` once and records `key` (with the JSON of its result) in
 * `job_steps`; when the job resumes after a restart or is retried, a recorded step is skipped and
 * returns its recorded result. A crash can still land between the work and the record, so a step
 * must be idempotent: write its records in its own transaction (`inTransaction`) and check before
 * creating what an earlier attempt may already have created. Keys are free-form and may be built
 * at run time (`issues:3`).
 *
 * ## Never stalling requests
 * A job runs on the event loop that serves the API: synchronous work holds every request up while
 * it runs. Write records through `job.writeEach(items, write, { failed })`: one savepoint per
 * record, in transactions of at most a few milliseconds (`SLICE_MS`; `BUSY_SLICE_MS` while
 * requests are being answered), yielding to the event loop between them. Other long synchronous
 * loops `await job.checkpoint()` between short chunks. Git and network work is asynchronous
 * (child processes, streams), never `*Sync`. While requests come in, jobs take turns at most every
 * `BUSY_TURN_EVERY_MS`, so they hold the loop for a fraction of the time and requests have the rest.
 *
 * ## Enqueueing
 *   svc.jobs.ensureCapacity(n)    // before accepting n jobs from a request: 503 + Retry-After when full
 *   svc.jobs.enqueue('project_import', payload, { subject: 'project:12', secret: { key: 'project:12', value: token } })
 * `enqueue` may run inside the request's transaction: the job starts after the handler returns.
 * `subject` names the resource that owns the job (find its jobs with `bySubject`). Jobs a running
 * job enqueues (children) are never refused.
 *
 * ## Progress
 * `job.progress({ done, total, message, detail })` stores the progress on the row and emits a
 * `JobEvent` to every `subscribe`r (Electron main forwards them to the window, batched); state
 * changes emit too. The HTTP API shows the same state through the resource that owns the job.
 *
 * ## Canceling
 * `svc.jobs.cancel(id)` (or `cancelSubject`) marks the job `canceled` at once and aborts its
 * `signal`: the next `job.step`/`job.checkpoint` throws, and `job.fetch` (the service's injectable
 * fetch with the signal attached) aborts its request. Pass `signal` to anything else that waits.
 *
 * ## Secrets (a source or provider token)
 * Given to `enqueue` (or `retry`/`provideSecret`) under a key; held in memory only, read with
 * `job.secret()`, dropped when no unfinished job uses the key. Never put one in a payload (enqueue
 * refuses it), a progress message, an error or a log. After a restart the memory is empty: a job
 * that needs a secret ends `failed` with the kind's `secretMissingMessage`; `retry(id, { secret })`
 * resumes it from its recorded steps.
 *
 * ## Restarts and failures
 * At start, jobs left `started` by a previous process resume (`created` again, `attempts` counts
 * them; after `maxAttempts` they fail), and jobs whose secret is gone fail; none stays `started`.
 * `run` throwing fails the job with the error's message; `timeoutMs` ends it `timeout`.
 * `retry(id)` puts a finished job back in the queue (optionally forgetting some recorded steps).
 */
import { performance } from 'node:perf_hooks';
import type { Db } from '../db/connection';
import { inTransaction } from '../db/connection';
import { ApiError } from '../http/errors';

export type JobState = 'created' | 'started' | 'finished' | 'failed' | 'canceled' | 'timeout';
export const JOB_STATES: readonly JobState[] = ['created', 'started', 'finished', 'failed', 'canceled', 'timeout'];
const isActive = (state: JobState): boolean => state === 'created' || state === 'started';

export interface JobProgress {
  done: number;
  total: number;
  message?: string;
  /** Kind-specific detail (an entity id, a relation name). */
  detail?: Record<string, string | number | null>;
}

export interface JobRow {
  id: number;
  kind: string;
  subject: string | null;
  state: JobState;
  /** JSON */
  payload: string;
  /** The key of the in-memory secret this job needs; never the secret. */
  secret_key: string | null;
  /** JSON JobProgress */
  progress: string;
  attempts: number;
  heartbeat_at: string | null;
  error: string | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  finished_at: string | null;
}

export interface JobEvent {
  jobId: number;
  kind: string;
  subject: string | null;
  state: JobState;
  progress: JobProgress;
  error: string | null;
}

/** What `run` gets: its payload, steps, progress, the secret, cancellation. */
export interface JobContext<P> {
  readonly id: number;
  readonly kind: string;
  readonly subject: string | null;
  readonly payload: P;
  /** 1 on the first run; more after a restart or a retry. */
  readonly attempt: number;
  /** Aborted on cancel, timeout and shutdown. */
  readonly signal: AbortSignal;
  /** Runs `work` once; a recorded step is skipped and returns its recorded result. */
  step<T>(key: string, work: (signal: AbortSignal) => T | Promise<T>): Promise<T>;
  /**
   * Throws when the job was canceled; yields to the event loop between chunks of work, until the
   * job's next turn (requests being answered go first).
   */
  checkpoint(): Promise<void>;
  /**
   * Writes `items` one at a time, each in its own savepoint: a record whose `write` throws goes to
   * `failed` (inside the transaction, so a failure record can be written) and the rest go on.
   * The records are committed in slices of at most SLICE_MS of work (BUSY_SLICE_MS while requests
   * are being answered), with a `checkpoint` between slices, so thousands of rows never hold
   * requests up. `afterSlice` runs at the end of each slice's transaction with the items that
   * slice handled (counters).
   */
  writeEach<T>(items: readonly T[], write: (item: T) => void, opts: { failed: (item: T, err: unknown) => void; afterSlice?: (slice: T[]) => void }): Promise<void>;
  /** Merges into the stored progress and notifies subscribers. */
  progress(update: Partial<JobProgress>): void;
  /** The job's secret; throws SecretMissingError when memory no longer holds it. */
  secret(): string;
  /** The service's fetch with this job's signal attached, sent at the job's next turn. */
  fetch(input: string | URL, init?: RequestInit): Promise<Response>;
}

export interface JobKind<P> {
  kind: string;
  run(job: JobContext<P>): Promise<void>;
  /** Called in the transaction of every state change (created on resume/retry, started, and the end states). */
  transition?(row: JobRow, state: JobState, error: string | null): void;
  /** The failure message when the job needs a secret that memory no longer holds. */
  secretMissingMessage?: string;
  /** A run longer than this ends `timeout`. */
  timeoutMs?: number;
  /** How many interrupted runs a job resumes from before it fails (default 3). */
  maxAttempts?: number;
}

export interface RunnerOptions {
  db: Db;
  now: () => Date;
  fetch: typeof fetch;
  /** Jobs running at once (GitLab migrates five entities at a time). */
  concurrency?: number;
  /** Jobs waiting to start beyond which new work from requests is refused (503). */
  maxQueued?: number;
}

/** Thrown by `job.secret()` when the secret is gone (a restart). */
export class SecretMissingError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretMissingError';
  }
}

/** Why a running job's signal was aborted. */
export class JobAborted extends Error {
  constructor(readonly reason: 'cancel' | 'timeout' | 'shutdown') {
    super(`job ${reason === 'cancel' ? 'canceled' : reason === 'timeout' ? 'timed out' : 'interrupted by shutdown'}`);
    this.name = 'JobAborted';
  }
}

/** 503 with Retry-After: the queue is full; the request can be sent again later. */
export class QueueFullError extends ApiError {
  constructor(retryAfterSeconds: number) {
    super(503, { message: '503 Service Unavailable' }, { 'retry-after': String(retryAfterSeconds) });
  }
}

export const payloadOf = <P>(row: JobRow): P => JSON.parse(row.payload) as P;
export const progressOf = (row: JobRow): JobProgress => JSON.parse(row.progress) as JobProgress;

/**
 * The longest a job writes before it lets the event loop serve requests again (ms). Small enough
 * that five jobs writing at once add little to a request's wait; large enough that a slice
 * commits dozens of records, so the commit's cost stays small beside the records'.
 */
export const SLICE_MS = 8;

/**
 * The longest a job writes while requests are being answered (ms): a request that arrives while a
 * slice runs waits for the rest of it, so under traffic a slice is a few records, not dozens.
 */
export const BUSY_SLICE_MS = 2;

/**
 * How long a job's next turn waits for the requests being answered before it goes anyway (ms):
 * under a constant stream of requests a job still gets a turn every YIELD_MS or so.
 */
export const YIELD_MS = 16;

/**
 * While requests are being answered, job turns start at most this often (ms): with slices of
 * BUSY_SLICE_MS the jobs hold the loop for a small part of the time, and the requests have the
 * rest (and a process that is not busy all the time is one the OS wakes at once when a request
 * comes in). At 16 rather than 8 a request's p99 during a migration stayed at 1.2–1.4x of idle
 * instead of 1.9–2.4x on a quiet machine; a migration under a saturating read load takes about
 * twice as long (bench/migration-latency.ts), without reads it runs at full speed.
 */
export const BUSY_TURN_EVERY_MS = 16;

/** Requests answered this recently still count as traffic: a client's next request is on its way. */
const TRAFFIC_QUIET_MS = 100;

/**
 * Milliseconds on a monotonic clock, read at every request's end (requestEnded). node:perf_hooks'
 * `performance`, imported (node:perf_hooks is loaded at start: memory.ts): ~40 ns a read, where
 * process.hrtime.bigint() took ~70 (the global `process` is a getter, and a BigInt per read).
 */
const monotonicMs = (): number => performance.now();

const DEFAULT_SECRET_MISSING = 'Sandlab restarted and no longer holds the secret this job needs: supply it again to retry.';
const SHUTDOWN_GRACE_MS = 5000;
const RETRY_AFTER_SECONDS = 30;

interface Running {
  controller: AbortController;
  done: Promise<void>;
}

export class JobRunner {
  private readonly kinds = new Map<string, JobKind<unknown>>();
  private readonly running = new Map<number, Running>();
  private readonly secrets = new Map<string, string>();
  private readonly listeners = new Set<(e: JobEvent) => void>();
  private readonly concurrency: number;
  private readonly maxQueued: number;
  private started = false;
  private startedAt: Date | null = null;
  private stopping = false;
  private pumpScheduled = false;

  constructor(private readonly opts: RunnerOptions) {
    this.concurrency = opts.concurrency ?? 5;
    this.maxQueued = opts.maxQueued ?? 1000;
  }

  private get db(): Db {
    return this.opts.db;
  }

  private nowIso(): string {
    return this.opts.now().toISOString();
  }

  define<P>(kind: JobKind<P>): void {
    if (this.kinds.has(kind.kind)) throw new Error(`job kind ${kind.kind} is already defined`);
    this.kinds.set(kind.kind, kind as JobKind<unknown>);
  }

  /** Resumes or fails what a previous process left unfinished, then starts running jobs. */
  start(): void {
    const unfinished = this.db.prepare("SELECT * FROM jobs WHERE state IN ('created', 'started') ORDER BY id").all() as JobRow[];
    for (const row of unfinished) {
      const kind = this.kinds.get(row.kind);
      if (!kind) this.transition(row, 'failed', `This version of Sandlab cannot run jobs of kind "${row.kind}".`);
      else if (row.secret_key && !this.secrets.has(row.secret_key)) this.transition(row, 'failed', kind.secretMissingMessage ?? DEFAULT_SECRET_MISSING);
      else if (row.state === 'started' && row.attempts >= (kind.maxAttempts ?? 3)) {
        this.transition(row, 'failed', `Interrupted ${row.attempts} times by restarts; giving up.`);
      } else if (row.state === 'started') this.transition(row, 'created', null);
    }
    this.started = true;
    this.startedAt = this.opts.now();
    this.schedulePump();
  }

  /** Aborts running jobs and waits (briefly) for them; they resume at the next start. */
  async stop(): Promise<void> {
    this.stopping = true;
    const running = [...this.running.values()];
    for (const r of running) r.controller.abort(new JobAborted('shutdown'));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, SHUTDOWN_GRACE_MS)));
    await Promise.race([Promise.all(running.map((r) => r.done)), grace]);
    clearTimeout(timer);
    this.secrets.clear();
  }

  subscribe(listener: (e: JobEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  find(id: number): JobRow | undefined {
    return this.db.prepare('SELECT * FROM jobs WHERE id = ?').get(id) as JobRow | undefined;
  }

  bySubject(subject: string): JobRow[] {
    return this.db.prepare('SELECT * FROM jobs WHERE subject = ? ORDER BY id').all(subject) as JobRow[];
  }

  /** Refuses new work from a request when `count` more jobs would overfill the queue. */
  ensureCapacity(count = 1): void {
    const { n } = this.db.prepare("SELECT count(*) AS n FROM jobs WHERE state = 'created'").get() as { n: number };
    if (n + count > this.maxQueued) throw new QueueFullError(RETRY_AFTER_SECONDS);
  }

  /**
   * Queues a job. `secret.value` is held in memory under `secret.key`; without a value the job uses
   * what is already held under the key (a child job of a running one).
   */
  enqueue<P>(kind: string, payload: P, opts: { subject?: string; secret?: { key: string; value?: string } } = {}): JobRow {
    if (!this.kinds.has(kind)) throw new Error(`unknown job kind ${kind}`);
    const json = JSON.stringify(payload ?? {});
    const value = opts.secret?.value;
    if (value && json.includes(value)) throw new Error('a job payload must not carry its secret');
    if (opts.secret && value !== undefined) this.secrets.set(opts.secret.key, value);
    const now = this.nowIso();
    const info = this.db
      .prepare('INSERT INTO jobs (kind, subject, payload, secret_key, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(kind, opts.subject ?? null, json, opts.secret?.key ?? null, now, now);
    const row = this.find(Number(info.lastInsertRowid))!;
    this.emit(row);
    this.schedulePump();
    return row;
  }

  /** Holds a secret in memory for the jobs that use `key` (a retry after a restart). */
  provideSecret(key: string, value: string): void {
    this.secrets.set(key, value);
  }

  hasSecret(key: string): boolean {
    return this.secrets.has(key);
  }

  /** Ends a queued or running job as `canceled` now; a running one stops at its next step. */
  cancel(id: number): JobRow | undefined {
    const row = this.find(id);
    if (!row || !isActive(row.state)) return row;
    const updated = this.transition(row, 'canceled', null);
    this.running.get(id)?.controller.abort(new JobAborted('cancel'));
    return updated;
  }

  cancelSubject(subject: string): void {
    for (const row of this.bySubject(subject)) if (isActive(row.state)) this.cancel(row.id);
  }

  /**
   * Queues an ended job again. Its recorded steps are skipped unless `forgetStep` says otherwise,
   * so a retry redoes only what did not finish. An active job is left as it is.
   */
  retry(id: number, opts: { secret?: string; forgetStep?: (key: string) => boolean } = {}): JobRow | undefined {
    const row = this.find(id);
    if (!row || isActive(row.state)) return row;
    if (row.secret_key && opts.secret !== undefined) this.secrets.set(row.secret_key, opts.secret);
    const updated = inTransaction(this.db, () => {
      if (opts.forgetStep) {
        const keys = (this.db.prepare('SELECT key FROM job_steps WHERE job_id = ?').all(id) as { key: string }[]).map((r) => r.key);
        const del = this.db.prepare('DELETE FROM job_steps WHERE job_id = ? AND key = ?');
        for (const key of keys) if (opts.forgetStep(key)) del.run(id, key);
      }
      return this.transition(row, 'created', null);
    });
    this.schedulePump();
    return updated;
  }

  /** Whether a job is running in this process now. */
  isRunning(id: number): boolean {
    return this.running.has(id);
  }

  /** When this runner started taking jobs (null before `start`), how many it runs at once, and how many run now. */
  workers(): { startedAt: Date | null; concurrency: number; busy: number } {
    return { startedAt: this.startedAt, concurrency: this.concurrency, busy: this.running.size };
  }

  // --- Requests go first ---------------------------------------------------------------------
  // Jobs and requests share one event loop. Job work resumes through `turn()`: while requests
  // are being answered, one job's work per turn of the loop, each turn waits for the requests
  // (at most YIELD_MS) and comes no sooner than BUSY_TURN_EVERY_MS after the last, and slices are
  // short (BUSY_SLICE_MS), so a running migration adds a short slice, not its whole backlog, to
  // a request's wait; with no requests lately, every waiting job goes on at once with long slices.

  private requestsInFlight = 0;
  private lastRequestEnded = -Infinity;
  private onRequestsAnswered: (() => void) | null = null;
  private readonly turns: (() => void)[] = [];
  private dispatching = false;
  private lastTurn = -Infinity;

  /** The HTTP server's: a request arrived. */
  requestStarted(): void {
    this.requestsInFlight++;
  }

  /** The HTTP server's: a request was answered, or its client went away. */
  requestEnded(): void {
    this.requestsInFlight = Math.max(0, this.requestsInFlight - 1);
    this.lastRequestEnded = monotonicMs();
    if (this.requestsInFlight === 0) this.onRequestsAnswered?.();
  }

  /** Requests are being answered, or were a moment ago: their clients' next ones are on the way. */
  private get traffic(): boolean {
    return this.requestsInFlight > 0 || monotonicMs() - this.lastRequestEnded <= TRAFFIC_QUIET_MS;
  }

  /** For RunningJob: how long its next slice of writes may run (ms). */
  sliceMs(): number {
    return this.traffic ? BUSY_SLICE_MS : SLICE_MS;
  }

  /** For RunningJob: resolves at the job's next turn. */
  turn(): Promise<void> {
    return new Promise((resolve) => {
      this.turns.push(resolve);
      if (!this.dispatching) void this.dispatchTurns();
    });
  }

  private async dispatchTurns(): Promise<void> {
    this.dispatching = true;
    try {
      while (this.turns.length) {
        // Whatever I/O is waiting (requests arriving) is read before the next job works.
        await new Promise<void>((resolve) => setImmediate(resolve));
        // No traffic: every job waiting goes on. Else one job, once the requests in flight were
        // answered (or YIELD_MS passed), and not sooner than BUSY_TURN_EVERY_MS after the last
        // turn. The jobs' work runs right after this, up to their next await.
        if (!this.traffic) for (const go of this.turns.splice(0)) go();
        else {
          if (this.requestsInFlight > 0) await this.requestsAnswered(YIELD_MS);
          const early = this.lastTurn + BUSY_TURN_EVERY_MS - monotonicMs();
          if (early > 0) await new Promise<void>((resolve) => setTimeout(resolve, early));
          this.turns.shift()!();
        }
        this.lastTurn = monotonicMs();
      }
    } finally {
      this.dispatching = false;
    }
  }

  private requestsAnswered(maxMs: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.onRequestsAnswered = null;
        resolve();
      };
      const timer = setTimeout(done, maxMs);
      this.onRequestsAnswered = done;
    });
  }

  // ------------------------------------------------------------------------------------------

  private schedulePump(): void {
    if (this.pumpScheduled || !this.started || this.stopping) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    if (this.stopping) return;
    const next = this.db.prepare("SELECT * FROM jobs WHERE state = 'created' ORDER BY id LIMIT 1");
    while (this.running.size < this.concurrency) {
      const row = next.get() as JobRow | undefined;
      if (!row) return;
      try {
        this.launch(row);
      } catch (err) {
        console.error(`[sandlab] job ${row.id} could not start:`, err);
        return;
      }
    }
  }

  private launch(row: JobRow): void {
    const kind = this.kinds.get(row.kind);
    if (!kind) {
      this.transition(row, 'failed', `This version of Sandlab cannot run jobs of kind "${row.kind}".`);
      return;
    }
    if (row.secret_key && !this.secrets.has(row.secret_key)) {
      this.transition(row, 'failed', kind.secretMissingMessage ?? DEFAULT_SECRET_MISSING);
      return;
    }
    const started = this.transition(row, 'started', null);
    if (started.state !== 'started') return;
    const controller = new AbortController();
    const ctx = new RunningJob(this, kind, started, controller.signal);
    const timer = kind.timeoutMs ? setTimeout(() => controller.abort(new JobAborted('timeout')), kind.timeoutMs) : null;
    const done = (async () => {
      try {
        await kind.run(ctx);
        this.end(row.id, 'finished', null);
      } catch (err) {
        this.endAfterError(row.id, kind, err, controller.signal);
      } finally {
        if (timer) clearTimeout(timer);
        this.running.delete(row.id);
        this.schedulePump();
      }
    })();
    this.running.set(row.id, { controller, done });
  }

  private endAfterError(id: number, kind: JobKind<unknown>, err: unknown, signal: AbortSignal): void {
    const reason = signal.aborted && signal.reason instanceof JobAborted ? signal.reason.reason : null;
    if (reason === 'shutdown' || reason === 'cancel') return; // resumes at next start / already canceled
    if (reason === 'timeout') return this.end(id, 'timeout', `The job ran longer than ${Math.round((kind.timeoutMs ?? 0) / 1000)} s.`);
    this.end(id, 'failed', err instanceof Error ? err.message : String(err));
  }

  /** Records the end of a run, unless the job was canceled (or retried) meanwhile. */
  private end(id: number, state: JobState, error: string | null): void {
    if (this.stopping && state !== 'finished') return;
    try {
      const row = this.find(id);
      if (row?.state === 'started') this.transition(row, state, error);
    } catch (err) {
      // The database closed under a job that ignored its signal past the shutdown grace.
      if (!this.stopping) throw err;
    }
  }

  /**
   * One state change: the row and the kind's resource in one transaction, then subscribers and
   * secrets. When the kind's hook throws, the job still changes state (to `failed`, with the
   * hook's error) so that it never stays stuck.
   */
  private transition(row: JobRow, state: JobState, error: string | null): JobRow {
    const hook = this.kinds.get(row.kind)?.transition;
    let updated: JobRow;
    try {
      updated = inTransaction(this.db, () => {
        const next = this.writeState(row.id, state, error);
        hook?.(next, state, error);
        return next;
      });
    } catch (err) {
      if (!hook) throw err;
      console.error(`[sandlab] job ${row.id} (${row.kind}): state hook failed:`, err);
      updated = this.writeState(row.id, 'failed', err instanceof Error ? err.message : String(err));
    }
    this.emit(updated);
    if (!isActive(updated.state)) this.releaseSecret(updated.secret_key);
    return updated;
  }

  private writeState(id: number, state: JobState, error: string | null): JobRow {
    const now = this.nowIso();
    this.db
      .prepare(
        `UPDATE jobs SET state = ?, error = ?, updated_at = ?, heartbeat_at = CASE WHEN ? = 'started' THEN ? ELSE heartbeat_at END,
           attempts = attempts + (CASE WHEN ? = 'started' THEN 1 ELSE 0 END),
           started_at = CASE WHEN ? = 'started' THEN coalesce(started_at, ?) ELSE started_at END,
           finished_at = ? WHERE id = ?`,
      )
      .run(state, error, now, state, now, state, state, now, isActive(state) ? null : now, id);
    return this.find(id)!;
  }

  private releaseSecret(key: string | null): void {
    if (!key || !this.secrets.has(key)) return;
    const inUse = this.db.prepare("SELECT 1 FROM jobs WHERE secret_key = ? AND state IN ('created', 'started') LIMIT 1").get(key);
    if (!inUse) this.secrets.delete(key);
  }

  emit(row: JobRow): void {
    const event: JobEvent = { jobId: row.id, kind: row.kind, subject: row.subject, state: row.state, progress: progressOf(row), error: row.error };
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        console.error('[sandlab] job progress listener failed:', err);
      }
    }
  }

  /** For RunningJob. */
  recordStep(id: number, key: string, result: unknown): void {
    this.db
      .prepare('INSERT OR REPLACE INTO job_steps (job_id, key, result, finished_at) VALUES (?, ?, ?, ?)')
      .run(id, key, result === undefined ? null : JSON.stringify(result), this.nowIso());
  }

  recordedStep(id: number, key: string): { result: string | null } | undefined {
    return this.db.prepare('SELECT result FROM job_steps WHERE job_id = ? AND key = ?').get(id, key) as { result: string | null } | undefined;
  }

  /** For RunningJob: stores progress while the job is still running. */
  recordProgress(id: number, progress: JobProgress): void {
    const now = this.nowIso();
    this.db.prepare("UPDATE jobs SET progress = ?, heartbeat_at = ?, updated_at = ? WHERE id = ? AND state = 'started'").run(JSON.stringify(progress), now, now, id);
    const row = this.find(id);
    if (row?.state === 'started') this.emit(row);
  }

  heartbeat(id: number): void {
    this.db.prepare("UPDATE jobs SET heartbeat_at = ? WHERE id = ? AND state = 'started'").run(this.nowIso(), id);
  }

  /** For RunningJob. */
  secretFor(key: string | null): string | undefined {
    return key ? this.secrets.get(key) : undefined;
  }

  /** For RunningJob. */
  get database(): Db {
    return this.db;
  }

  get fetchImpl(): typeof fetch {
    return this.opts.fetch;
  }
}

class RunningJob<P> implements JobContext<P> {
  readonly payload: P;
  private current: JobProgress;

  constructor(
    private readonly runner: JobRunner,
    private readonly definition: JobKind<P>,
    private readonly row: JobRow,
    readonly signal: AbortSignal,
  ) {
    this.payload = payloadOf<P>(row);
    this.current = progressOf(row);
  }

  get id(): number {
    return this.row.id;
  }
  get kind(): string {
    return this.row.kind;
  }
  get subject(): string | null {
    return this.row.subject;
  }
  get attempt(): number {
    return this.row.attempts;
  }

  async step<T>(key: string, work: (signal: AbortSignal) => T | Promise<T>): Promise<T> {
    this.signal.throwIfAborted();
    const recorded = this.runner.recordedStep(this.row.id, key);
    if (recorded) return (recorded.result === null ? undefined : JSON.parse(recorded.result)) as T;
    this.runner.heartbeat(this.row.id);
    const result = await work(this.signal);
    // Work that finished is recorded even when a cancel arrived meanwhile; the next step stops.
    this.runner.recordStep(this.row.id, key, result);
    return result;
  }

  async checkpoint(): Promise<void> {
    this.signal.throwIfAborted();
    await this.runner.turn();
    this.signal.throwIfAborted();
  }

  async writeEach<T>(
    items: readonly T[],
    write: (item: T) => void,
    opts: { failed: (item: T, err: unknown) => void; afterSlice?: (slice: T[]) => void },
  ): Promise<void> {
    for (let next = 0; next < items.length; ) {
      await this.checkpoint();
      const start = next;
      inTransaction(this.runner.database, () => {
        const until = monotonicMs() + this.runner.sliceMs();
        do {
          const item = items[next++];
          try {
            inTransaction(this.runner.database, () => write(item));
          } catch (err) {
            opts.failed(item, err);
          }
        } while (next < items.length && monotonicMs() < until);
        opts.afterSlice?.(items.slice(start, next));
      });
    }
  }

  progress(update: Partial<JobProgress>): void {
    this.current = { ...this.current, ...update };
    this.runner.recordProgress(this.row.id, this.current);
  }

  secret(): string {
    const value = this.runner.secretFor(this.row.secret_key);
    if (value === undefined) throw new SecretMissingError(this.definition.secretMissingMessage ?? DEFAULT_SECRET_MISSING);
    return value;
  }

  async fetch(input: string | URL, init: RequestInit = {}): Promise<Response> {
    const signal = init.signal ? AbortSignal.any([this.signal, init.signal]) : this.signal;
    // Sending a request and reading its answer cost the loop too: requests being answered go first.
    await this.runner.turn();
    signal.throwIfAborted();
    return this.runner.fetchImpl(input, { ...init, signal });
  }
}
