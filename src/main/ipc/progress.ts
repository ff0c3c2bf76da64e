import type { JobProgressEvent } from '../../shared/ipc';
import type { JobEvent } from '../service/jobs/runner';

/** A runner event as the window receives it (ids as strings, no error text beyond the message). */
export function toProgressEvent(e: JobEvent): JobProgressEvent {
  const out: JobProgressEvent = { jobId: String(e.jobId), kind: e.kind, state: e.state, done: e.progress.done, total: e.progress.total };
  const message = e.error ?? e.progress.message;
  if (message) out.message = message;
  if (e.subject) out.subject = e.subject;
  if (e.progress.detail) out.detail = e.progress.detail;
  return out;
}

/** Where job runners publish progress; the shell forwards it to the window. */
export class JobProgressHub {
  private readonly listeners = new Set<(e: JobProgressEvent) => void>();
  publish(event: JobProgressEvent): void {
    for (const l of this.listeners) l(event);
  }
  subscribe(listener: (e: JobProgressEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/**
 * Coalesces progress events and flushes at most once per interval: only the latest event of each
 * job is sent, in the order jobs first appeared. A flood of progress never floods the IPC pipe.
 */
export class ProgressBatcher {
  private pending = new Map<string, JobProgressEvent>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private lastFlush = 0;

  constructor(
    private readonly send: (events: JobProgressEvent[]) => void,
    private readonly intervalMs = 250,
    private readonly now: () => number = Date.now,
  ) {}

  push(event: JobProgressEvent): void {
    this.pending.delete(event.jobId);
    this.pending.set(event.jobId, event);
    if (this.timer) return;
    const wait = Math.max(0, this.lastFlush + this.intervalMs - this.now());
    this.timer = setTimeout(() => this.flush(), wait);
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.size === 0) return;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    this.lastFlush = this.now();
    this.send(batch);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.pending.clear();
  }
}
