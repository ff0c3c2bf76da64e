import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

/**
 * The Sidekiq Metrics API over Sandlab's durable job runner: one queue (`default`) with its
 * backlog and latency, this process with the jobs running now, and the jobs' counts by end state;
 * administrators only. Jobs of a kind of the test's own, held by a gate while they run.
 */
let s: TestService;
let release!: () => void;
const held = new Promise<void>((resolve) => (release = resolve));

beforeAll(async () => {
  s = await TestService.start();
  s.service.context.jobs.define<{ outcome: 'hold' | 'finish' | 'fail' }>({
    kind: 'metrics_probe',
    async run(job) {
      if (job.payload.outcome === 'hold') await held;
      if (job.payload.outcome === 'fail') throw new Error('probe failed');
    },
  });
});
afterAll(async () => {
  release();
  await s.stop();
});

async function until(check: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + 5000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('GET /sidekiq/*', () => {
  it('answers nothing queued, nothing busy on an idle service', async () => {
    const res = await s.get('/sidekiq/compound_metrics');
    expect(res.status).toBe(200);
    expect(res.body.queues).toEqual({ default: { backlog: 0, latency: 0 } });
    expect(res.body.jobs).toEqual({ processed: 0, failed: 0, enqueued: 0, dead: 0 });
    expect(res.body.processes).toHaveLength(1);
    const [p] = res.body.processes;
    expect(p).toMatchObject({ pid: process.pid, queues: ['default'], labels: [], concurrency: 5, busy: 0 });
    expect(typeof p.hostname).toBe('string');
    expect(Date.parse(p.started_at)).not.toBeNaN();
  });

  it('counts the jobs running, waiting, and ended', async () => {
    const jobs = s.service.context.jobs;
    jobs.enqueue('metrics_probe', { outcome: 'finish' });
    jobs.enqueue('metrics_probe', { outcome: 'fail' });
    await until(async () => (await s.get('/sidekiq/job_stats')).body.jobs.processed === 2);
    // Five held jobs fill the runner; two more wait in the queue.
    for (let i = 0; i < 7; i++) jobs.enqueue('metrics_probe', { outcome: 'hold' });
    await until(async () => (await s.get('/sidekiq/process_metrics')).body.processes[0].busy === 5);
    expect((await s.get('/sidekiq/job_stats')).body).toEqual({ jobs: { processed: 2, failed: 1, enqueued: 2, dead: 1 } });
    expect((await s.get('/sidekiq/queue_metrics')).body).toEqual({ queues: { default: { backlog: 2, latency: 0 } } });
    release();
    await until(async () => (await s.get('/sidekiq/process_metrics')).body.processes[0].busy === 0);
    expect((await s.get('/sidekiq/job_stats')).body.jobs).toEqual({ processed: 9, failed: 1, enqueued: 0, dead: 1 });
  });

  it('is for administrators: 401 without a token, 403 for a user', async () => {
    const user = await s.createUser();
    for (const path of ['/sidekiq/queue_metrics', '/sidekiq/process_metrics', '/sidekiq/job_stats', '/sidekiq/compound_metrics']) {
      expect((await s.get(path, { token: '' })).status).toBe(401);
      const res = await s.get(path, { token: user.token });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ message: '403 Forbidden' });
    }
  });
});
