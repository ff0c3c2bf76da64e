import { afterEach, describe, expect, it, vi } from 'vitest';
import type { JobProgressEvent } from '../../src/shared/ipc';
import { JobProgressHub, ProgressBatcher } from '../../src/main/ipc/progress';

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
