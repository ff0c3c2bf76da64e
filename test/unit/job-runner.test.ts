import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../src/main/service/db/connection';
import { jobMigrations } from '../../src/main/service/jobs/schema';
import { BUSY_SLICE_MS, JobRunner, QueueFullError, SLICE_MS, type JobEvent, type JobKind, type JobState } from '../../src/main/service/jobs/runner';

const dirs: string[] = [];
const dbs: Db[] = [];
const runners: JobRunner[] = [];

afterEach(async () => {
  for (const r of runners.splice(0)) await r.stop();
  for (const db of dbs.splice(0)) if (db.open) db.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function openDb(dir = mkdtempSync(join(tmpdir(), 'sandlab-jobs-'))): { db: Db; dir: string } {
  if (!dirs.includes(dir)) dirs.push(dir);
  const db = openDatabase(join(dir, 'sandlab.db'), jobMigrations);
  dbs.push(db);
  return { db, dir };
}

function runner(db: Db, opts: { concurrency?: number; maxQueued?: number; fetch?: typeof fetch } = {}): JobRunner {
  const r = new JobRunner({ db, now: () => new Date(), fetch: opts.fetch ?? (() => Promise.reject(new Error('no network'))), ...opts });
  runners.push(r);
  return r;
}

/** A promise settled from outside: a step that waits for the test to let it go. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

async function until(condition: () => boolean, what: string, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const stateOf = (r: JobRunner, id: number): JobState | undefined => r.find(id)?.state;

describe('JobRunner', () => {
  it('runs at most `concurrency` jobs at once and finishes them all', async () => {
    const { db } = openDb();
    const r = runner(db, { concurrency: 5 });
    let active = 0;
    let peak = 0;
    r.define<{ n: number }>({
      kind: 'sleep',
      async run(job) {
        await job.step('sleep', async () => {
          active++;
          peak = Math.max(peak, active);
          await new Promise((res) => setTimeout(res, 20));
          active--;
        });
      },
    });
    r.start();
    const ids = Array.from({ length: 12 }, (_, n) => r.enqueue('sleep', { n }).id);
    await until(() => ids.every((id) => stateOf(r, id) === 'finished'), 'all jobs to finish');
    expect(peak).toBe(5);
  });

  it('records each step and, after a restart, resumes from the first unrecorded one', async () => {
    const { db, dir } = openDb();
    const ran: string[] = [];
    const blocked = gate();
    const kind = (blockSecond: boolean): JobKind<object> => ({
      kind: 'two-steps',
      async run(job) {
        await job.step('first', () => {
          ran.push('first');
          return { copied: 3 };
        });
        await job.step('second', async (signal) => {
          ran.push('second');
          if (blockSecond) await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
        });
      },
    });
    const a = runner(db);
    a.define(kind(true));
    a.start();
    const id = a.enqueue('two-steps', {}).id;
    await until(() => ran.length === 2, 'the second step to start');
    await a.stop(); // the process goes away with the job mid-step
    blocked.open();
    expect(stateOf(a, id)).toBe('started');

    db.close();
    const { db: reopened } = openDb(dir);
    const b = runner(reopened);
    b.define(kind(false));
    b.start();
    expect(b.find(id)!.state).not.toBe('started');
    await until(() => stateOf(b, id) === 'finished', 'the resumed job to finish');
    expect(ran).toEqual(['first', 'second', 'second']);
    expect(b.find(id)!.attempts).toBe(2);
  });

  it('fails a job interrupted by restarts more than maxAttempts times instead of leaving it started', async () => {
    const { db } = openDb();
    db.prepare(
      "INSERT INTO jobs (kind, state, attempts, created_at, updated_at) VALUES ('stuck', 'started', 3, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')",
    ).run();
    const r = runner(db);
    r.define({ kind: 'stuck', maxAttempts: 3, run: async () => undefined });
    r.start();
    expect(r.find(1)).toMatchObject({ state: 'failed', error: 'Interrupted 3 times by restarts; giving up.' });
  });

  it('cancels promptly: the state is canceled at once, the fetch is aborted and no later step runs', async () => {
    const { db } = openDb();
    let fetchAborted = false;
    let fetching = false;
    const fakeFetch = ((_url: string, init: RequestInit) =>
      new Promise((_, reject) => {
        fetching = true;
        init.signal!.addEventListener('abort', () => {
          fetchAborted = true;
          reject(init.signal!.reason);
        });
      })) as unknown as typeof fetch;
    const r = runner(db, { fetch: fakeFetch });
    const ran: string[] = [];
    r.define({
      kind: 'remote',
      async run(job) {
        await job.step('download', async () => {
          await job.fetch('http://127.0.0.1:9/slow');
        });
        await job.step('after', () => ran.push('after'));
      },
    });
    r.start();
    const id = r.enqueue('remote', {}).id;
    await until(() => fetching, 'the fetch to start');
    expect(r.cancel(id)!.state).toBe('canceled');
    await until(() => fetchAborted && !r.isRunning(id), 'the run to stop');
    expect(stateOf(r, id)).toBe('canceled');
    expect(ran).toEqual([]);
  });

  it('cancels a queued job before it starts', async () => {
    const { db } = openDb();
    const r = runner(db, { concurrency: 1 });
    const hold = gate();
    const ran: number[] = [];
    r.define<{ n: number }>({
      kind: 'queued',
      async run(job) {
        ran.push(job.payload.n);
        if (job.payload.n === 1) await hold.promise;
      },
    });
    r.start();
    const first = r.enqueue('queued', { n: 1 }).id;
    const second = r.enqueue('queued', { n: 2 }).id;
    await until(() => ran.length === 1, 'the first job to start');
    r.cancel(second);
    hold.open();
    await until(() => stateOf(r, first) === 'finished', 'the first job');
    await new Promise((res) => setTimeout(res, 20));
    expect(ran).toEqual([1]);
    expect(stateOf(r, second)).toBe('canceled');
  });

  it('keeps a secret in memory only, fails cleanly when a restart lost it, and resumes when it is given again', async () => {
    const { db, dir } = openDb();
    const seen: string[] = [];
    const stepsRun: string[] = [];
    const hold = gate();
    const kind = (wait: boolean): JobKind<{ source: string }> => ({
      kind: 'with-token',
      secretMissingMessage: 'The source token is gone: supply it again to retry.',
      async run(job) {
        await job.step('one', () => {
          stepsRun.push('one');
          seen.push(job.secret());
        });
        await job.step('two', async (signal) => {
          stepsRun.push('two');
          if (wait) await Promise.race([hold.promise, new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)))]);
          seen.push(job.secret());
        });
      },
    });
    const a = runner(db);
    a.define(kind(true));
    a.start();
    expect(() => a.enqueue('with-token', { source: 'glpat-secret-value' }, { secret: { key: 'import:1', value: 'glpat-secret-value' } })).toThrow(
      /must not carry its secret/,
    );
    const id = a.enqueue('with-token', { source: 'http://src' }, { subject: 'import:1', secret: { key: 'import:1', value: 'glpat-secret-value' } }).id;
    await until(() => stepsRun.length === 2, 'the second step');
    await a.stop();
    db.close();
    for (const file of readdirSync(dir)) expect(readFileSync(join(dir, file)).includes('glpat-secret-value')).toBe(false);

    const { db: reopened } = openDb(dir);
    const b = runner(reopened);
    b.define(kind(false));
    b.start();
    expect(b.find(id)).toMatchObject({ state: 'failed', error: 'The source token is gone: supply it again to retry.' });

    b.retry(id, { secret: 'glpat-secret-value' });
    await until(() => stateOf(b, id) === 'finished', 'the retried job');
    expect(stepsRun).toEqual(['one', 'two', 'two']);
    expect(seen).toEqual(['glpat-secret-value', 'glpat-secret-value']);
    expect(b.hasSecret('import:1')).toBe(false); // dropped once no unfinished job needs it
  });

  it('fails a job whose run throws, with the message, and tells its owner through transition', async () => {
    const { db } = openDb();
    const r = runner(db);
    const states: [JobState, string | null][] = [];
    r.define({
      kind: 'broken',
      run: async () => {
        throw new Error('source answered 500');
      },
      transition: (_row, state, error) => states.push([state, error]),
    });
    r.start();
    const id = r.enqueue('broken', {}).id;
    await until(() => stateOf(r, id) === 'failed', 'the failure');
    expect(r.find(id)!.error).toBe('source answered 500');
    expect(states).toEqual([
      ['started', null],
      ['failed', 'source answered 500'],
    ]);
  });

  it('ends a job that runs past timeoutMs as timeout', async () => {
    const { db } = openDb();
    const r = runner(db);
    r.define({
      kind: 'slow',
      timeoutMs: 30,
      async run(job) {
        for (;;) {
          await new Promise((res) => setTimeout(res, 5));
          await job.checkpoint();
        }
      },
    });
    r.start();
    const id = r.enqueue('slow', {}).id;
    await until(() => stateOf(r, id) === 'timeout', 'the timeout');
  });

  it('publishes progress and state changes to subscribers', async () => {
    const { db } = openDb();
    const r = runner(db);
    const events: JobEvent[] = [];
    r.subscribe((e) => events.push(e));
    r.define({
      kind: 'counting',
      async run(job) {
        for (let i = 1; i <= 3; i++) await job.step(`page:${i}`, () => job.progress({ done: i, total: 3, detail: { relation: 'labels' } }));
      },
    });
    r.start();
    const id = r.enqueue('counting', {}, { subject: 'bulk_import:7' }).id;
    await until(() => stateOf(r, id) === 'finished', 'the job');
    expect(events.map((e) => [e.state, e.progress.done])).toEqual([
      ['created', 0],
      ['started', 0],
      ['started', 1],
      ['started', 2],
      ['started', 3],
      ['finished', 3],
    ]);
    expect(events[2]).toMatchObject({ jobId: id, kind: 'counting', subject: 'bulk_import:7', progress: { total: 3, detail: { relation: 'labels' } } });
  });

  it('answers 503 with Retry-After when the queue is full', async () => {
    const { db } = openDb();
    const r = runner(db, { maxQueued: 2 });
    r.define({ kind: 'noop', run: async () => undefined });
    // Not started: jobs stay queued.
    r.ensureCapacity(2);
    r.enqueue('noop', {});
    r.enqueue('noop', {});
    let err: unknown;
    try {
      r.ensureCapacity(1);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(QueueFullError);
    expect((err as QueueFullError).status).toBe(503);
    expect((err as QueueFullError).headers['retry-after']).toMatch(/^\d+$/);
  });

  it('keeps the event loop free while a job works through many chunks', async () => {
    const { db } = openDb();
    const r = runner(db);
    let chunks = 0;
    r.define({
      kind: 'chunked',
      async run(job) {
        for (let i = 0; i < 200; i++) {
          // Each chunk works 0.1 ms: 200 empty chunks could all pass before a 1 ms timer is due.
          const until = performance.now() + 0.1;
          while (performance.now() < until);
          chunks++;
          await job.checkpoint();
        }
      },
    });
    r.start();
    const id = r.enqueue('chunked', {}).id;
    // A timer (as a request would) gets its turn before the job is done.
    const chunksWhenTimerRan = await new Promise<number>((res) => setTimeout(() => res(chunks), 0));
    expect(chunksWhenTimerRan).toBeLessThan(200);
    await until(() => stateOf(r, id) === 'finished', 'the job');
  });

  it('writes records in short transactions, one savepoint each: a bad record is a failure, the rest land', async () => {
    const { db } = openDb();
    db.exec('CREATE TABLE rows (n INTEGER PRIMARY KEY)');
    const r = runner(db);
    const failed: number[] = [];
    const slices: number[] = [];
    let timerSawRows = -1;
    r.define({
      kind: 'bulk',
      async run(job) {
        const items = Array.from({ length: 3000 }, (_, i) => i);
        await job.writeEach(
          items,
          (n) => {
            db.prepare('INSERT INTO rows (n) VALUES (?)').run(n);
            if (n % 1000 === 7) throw new Error(`record ${n} is bad`);
            // Some work per record, so that 3,000 of them take longer than one slice.
            for (let t = performance.now(); performance.now() - t < 0.02; );
          },
          {
            failed: (n) => failed.push(n),
            afterSlice: (slice) => {
              // A timer set in the first slice runs before the next one, and sees what the first committed.
              if (slices.push(slice.length) === 1) setTimeout(() => (timerSawRows = (db.prepare('SELECT count(*) AS n FROM rows').get() as { n: number }).n), 0);
            },
          },
        );
      },
    });
    r.start();
    const id = r.enqueue('bulk', {}).id;
    await until(() => stateOf(r, id) === 'finished', 'the job');
    expect(failed).toEqual([7, 1007, 2007]);
    expect((db.prepare('SELECT count(*) AS n FROM rows').get() as { n: number }).n).toBe(2997);
    expect(db.prepare('SELECT n FROM rows WHERE n IN (7, 1007, 2007)').all()).toEqual([]);
    expect(slices.length).toBeGreaterThan(1);
    expect(slices.reduce((a, b) => a + b, 0)).toBe(3000);
    expect(timerSawRows).toBeGreaterThan(0);
    expect(timerSawRows).toBeLessThan(2997);
  });

  it('lets requests being answered go first: a job waits for them before its next chunk', async () => {
    const { db } = openDb();
    const r = runner(db);
    let chunks = 0;
    r.define({
      kind: 'chunked',
      async run(job) {
        for (let i = 0; i < 50; i++) {
          chunks++;
          await job.checkpoint();
        }
      },
    });
    r.start();
    r.requestStarted();
    const id = r.enqueue('chunked', {}).id;
    await until(() => chunks >= 1, 'the first chunk');
    // While the request is in flight each chunk waits for it (up to YIELD_MS); once it is answered,
    // and traffic has been quiet a moment, the job runs through.
    const whileAnswering = chunks;
    r.requestEnded();
    await until(() => stateOf(r, id) === 'finished', 'the job');
    expect(whileAnswering).toBeLessThan(50);
    expect(chunks).toBe(50);
  });

  it('writes in short slices while requests are being answered, long ones once they are quiet', async () => {
    const { db } = openDb();
    const r = runner(db);
    expect(BUSY_SLICE_MS).toBeLessThan(SLICE_MS);
    expect(r.sliceMs()).toBe(SLICE_MS);
    r.requestStarted();
    expect(r.sliceMs()).toBe(BUSY_SLICE_MS);
    // A client's next request is on its way a moment after the last answer: still traffic.
    r.requestEnded();
    expect(r.sliceMs()).toBe(BUSY_SLICE_MS);
    // Quiet for longer than TRAFFIC_QUIET_MS (100 ms) on the runner's clock: long slices again.
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(r.sliceMs()).toBe(SLICE_MS);
  });

  it('never starves a job under a constant stream of requests: its records all land', async () => {
    const { db } = openDb();
    db.exec('CREATE TABLE rows (n INTEGER PRIMARY KEY)');
    const r = runner(db);
    r.define({
      kind: 'bulk',
      async run(job) {
        const items = Array.from({ length: 500 }, (_, i) => i);
        await job.writeEach(items, (n) => void db.prepare('INSERT INTO rows (n) VALUES (?)').run(n), { failed: () => undefined });
      },
    });
    r.start();
    // One request always in flight: a new one starts before the last is answered.
    r.requestStarted();
    const traffic = setInterval(() => {
      r.requestStarted();
      r.requestEnded();
    }, 1);
    try {
      const id = r.enqueue('bulk', {}).id;
      await until(() => stateOf(r, id) === 'finished', 'the job', 20_000);
    } finally {
      clearInterval(traffic);
      r.requestEnded();
    }
    expect((db.prepare('SELECT count(*) AS n FROM rows').get() as { n: number }).n).toBe(500);
  });
});
