import type { ChildProcess } from 'node:child_process';
import { spawnGit, type GitProgram } from './runtime';

export interface GitObject {
  oid: string;
  type: 'commit' | 'tree' | 'blob' | 'tag';
  size: number;
  content: Buffer;
}

interface Pending {
  resolve: (o: GitObject | null) => void;
  reject: (e: Error) => void;
}

/** A reader nobody asked anything for this long exits; the next read starts another. */
const IDLE_MS = 15_000;

/**
 * A long-lived `git cat-file --batch` for one repository: reads are hot (every commit, tree and
 * blob an endpoint shows), and one process answering line by line saves a spawn per object.
 * Requests are answered in order; the process exits after a quiet spell and on close().
 */
export class ObjectReader {
  private child: ChildProcess | null = null;
  private queue: Pending[] = [];
  private chunks: Buffer[] = [];
  private buffered = 0;
  private idle: NodeJS.Timeout | null = null;

  constructor(
    private readonly program: GitProgram,
    private readonly gitDir: string,
  ) {}

  /** The object a spec names (`<oid>`, `<rev>:<path>`), or null when there is none. */
  read(spec: string): Promise<GitObject | null> {
    if (/[\n\r\x00]/.test(spec)) return Promise.resolve(null);
    const child = this.ensure();
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    return new Promise((resolve, reject) => {
      this.queue.push({ resolve, reject });
      child.stdin!.write(`${spec}\n`);
    });
  }

  close(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    const child = this.child;
    this.child = null;
    if (child) {
      child.stdin!.end();
      child.kill();
    }
    this.fail(new Error('object reader closed'));
  }

  private ensure(): ChildProcess {
    if (this.child) return this.child;
    const child = spawnGit(this.program, ['cat-file', '--batch'], { gitDir: this.gitDir });
    this.child = child;
    this.chunks = [];
    this.buffered = 0;
    child.stdout!.on('data', (d: Buffer) => {
      this.chunks.push(d);
      this.buffered += d.length;
      this.drain();
    });
    child.stdin!.on('error', () => undefined);
    child.stderr!.resume();
    const gone = (): void => {
      if (this.child !== child) return;
      this.child = null;
      this.fail(new Error('git cat-file exited'));
    };
    child.on('error', gone);
    child.on('close', gone);
    return child;
  }

  private fail(err: Error): void {
    const pending = this.queue;
    this.queue = [];
    for (const p of pending) p.reject(err);
  }

  /** Answers queued reads while whole responses are buffered (joining chunks only when one is complete). */
  private drain(): void {
    while (this.queue.length && this.chunks.length) {
      let nl = this.chunks[0].indexOf(10);
      if (nl < 0) {
        if (this.chunks.length === 1) return;
        nl = this.flatten().indexOf(10);
        if (nl < 0) return;
      }
      const header = this.chunks[0].subarray(0, nl).toString();
      const parts = header.split(' ');
      if (parts.length !== 3 || !/^\d+$/.test(parts[2])) {
        // `<spec> missing` / `<spec> ambiguous`
        this.consume(nl + 1);
        this.queue.shift()!.resolve(null);
        continue;
      }
      const size = Number(parts[2]);
      if (this.buffered < nl + 1 + size + 1) return;
      const buf = this.flatten();
      const content = Buffer.from(buf.subarray(nl + 1, nl + 1 + size));
      this.consume(nl + 1 + size + 1);
      this.queue.shift()!.resolve({ oid: parts[0], type: parts[1] as GitObject['type'], size, content });
    }
    if (!this.queue.length && this.child && !this.idle) {
      this.idle = setTimeout(() => this.close(), IDLE_MS);
      this.idle.unref();
    }
  }

  private flatten(): Buffer {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0];
  }

  private consume(n: number): void {
    const buf = this.chunks[0];
    const rest = buf.subarray(n);
    this.chunks = rest.length ? [rest] : [];
    this.buffered -= n;
  }
}
