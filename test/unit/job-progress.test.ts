import { afterEach, describe, expect, it, vi } from 'vitest';
import type { JobProgressEvent } from '../../src/shared/ipc';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobProgressHub, ProgressBatcher, toProgressEvent } from '../../src/main/ipc/progress';
import { openDatabase } from '../../src/main/service/db/connection';
import { JobRunner } from '../../src/main/service/jobs/runner';
import { jobMigrations } from '../../src/main/service/jobs/schema';

const ev = (jobId: string, done: number): JobProgressEvent => ({ jobId, kind: 'bulk_import', state: 'started', done, total: 10 });

afterEach(() => vi.useRealTimers());

describe('ProgressBatcher', () => {
  it('sends at most one batch per 250 ms, with the latest event of each job', () => {
    vi.useFakeTimers();
    const sent: JobProgressEvent[][] = [];
    const b = new ProgressBatcher((e) => sent.push(e), 250, () => Date.now());
    for (let i = 1; i <= 100; i++) b.push(ev('a', i % 11));
    b.push(ev('b', 1));
    b.push(ev('a', 7));
    expect(sent).toHaveLength(0);
    vi.advanceTimersByTime(0);
    expect(sent).toEqual([[ev('b', 1), ev('a', 7)]]);
    b.push(ev('a', 8));
    vi.advanceTimersByTime(200);
    expect(sent).toHaveLength(1);
    vi.advanceTimersByTime(50);
    expect(sent).toHaveLength(2);
    expect(sent[1]).toEqual([ev('a', 8)]);
  });

  it('sends nothing after dispose', () => {
    vi.useFakeTimers();
    const send = vi.fn();
    const b = new ProgressBatcher(send);
    b.push(ev('a', 1));
    b.dispose();
    vi.advanceTimersByTime(1000);
    expect(send).not.toHaveBeenCalled();
  });
});

describe('JobProgressHub', () => {
  it('delivers to subscribers until they unsubscribe', () => {
    const hub = new JobProgressHub();
    const got: string[] = [];
    const off = hub.subscribe((e) => got.push(e.jobId));
    hub.publish(ev('x', 1));
    off();
    hub.publish(ev('y', 1));
    expect(got).toEqual(['x']);
  });
});

describe('runner events to the window', () => {
  it('become JobProgressEvents with the subject, detail and the error as message, batched per job', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandlab-progress-'));
    const db = openDatabase(join(dir, 'sandlab.db'), jobMigrations);
    const runner = new JobRunner({ db, now: () => new Date(), fetch });
    const sent: JobProgressEvent[][] = [];
    const hub = new JobProgressHub();
    const batcher = new ProgressBatcher((e) => sent.push(e), 250);
    hub.subscribe((e) => batcher.push(e));
    runner.subscribe((e) => hub.publish(toProgressEvent(e)));
    runner.define({
      kind: 'bulk_import_entity',
      async run(job) {
        for (let i = 1; i <= 50; i++) job.progress({ done: i, total: 50, message: 'labels', detail: { entity_id: 4, relation: 'labels' } });
        throw new Error('source answered 500');
      },
    });
    runner.start();
    runner.enqueue('bulk_import_entity', {}, { subject: 'bulk_import:2' });
    await new Promise((r) => setTimeout(r, 400));
    batcher.flush();
    await runner.stop();
    db.close();
    rmSync(dir, { recursive: true, force: true });
    // 52 events went by; the window got at most one per job per 250 ms, the last one being the failure.
    expect(sent.length).toBeLessThanOrEqual(3);
    expect(sent.at(-1)).toEqual([
      { jobId: '1', kind: 'bulk_import_entity', state: 'failed', done: 50, total: 50, message: 'source answered 500', subject: 'bulk_import:2', detail: { entity_id: 4, relation: 'labels' } },
    ]);
  });
});
