import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';

/** Resident set size of a process, in MB (Linux /proc). */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

/** Spawns a server process and resolves with its URL once it prints `listening on <url>`. */
export function spawnServer(cmd: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ child: ChildProcess; url: string; startedMs: number }> {
  const t0 = performance.now();
  const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += String(d);
      const m = /listening on (http:\/\/\S+)/i.exec(out);
      if (m) resolve({ child, url: m[1], startedMs: performance.now() - t0 });
    });
    child.on('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
}

export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.on('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

export interface LoadResult {
  requests: number;
  errors: number;
  rps: number;
  p50: number;
  p99: number;
  /** Every request's latency in ms, sorted (to merge runs into one percentile). */
  latencies: number[];
}

/**
 * Closed-loop load on 127.0.0.1: `concurrency` keep-alive clients issue GETs back to back for
 * `seconds`. Bounded in time and count.
 */
export async function load(url: string, headers: Record<string, string>, seconds: number, concurrency: number, maxRequests = 2_000_000): Promise<LoadResult> {
  const target = new URL(url);
  if (target.hostname !== '127.0.0.1' && target.hostname !== 'localhost') throw new Error('load only aims at loopback');
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  const one = (): Promise<void> =>
    new Promise((resolve) => {
      const t0 = performance.now();
      const req = http.get({ host: target.hostname, port: target.port, path: target.pathname + target.search, headers, agent }, (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode !== 200) errors++;
          latencies.push(performance.now() - t0);
          resolve();
        });
      });
      req.on('error', () => {
        errors++;
        resolve();
      });
    });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline && latencies.length + errors < maxRequests) await one();
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { requests: latencies.length, errors, rps: latencies.length / elapsed, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), latencies };
}

/** The `p` percentile (0..1) of sorted values. */
export const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;

export const fmt = (n: number, digits = 1): string => n.toFixed(digits);
