import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { InjectOptions, Response as LightMyRequestResponse } from 'light-my-request';
import { lazyRequire } from './lazy-require';
import { type RouteInfo, buildApp } from './app';
import type { HttpApp } from './http/server';
import type { Router } from './http/route';
import { areas } from './areas';
import type { Limits, ServiceContext } from './context';
import { openDatabase } from './db/connection';
import { bootstrapRoot } from './bootstrap';
import { openGit } from './git';
import { warmMarkdown } from './markdown/markdown';
import { defaultGitCommand } from './git/runtime';
import { JobRunner } from './jobs/runner';
import { RateLimiter } from './http/throttle';
import { jobMigrations } from './jobs/schema';

export interface ServiceOptions {
  dataDir: string;
  host?: string;
  /** 0 picks any free port. */
  port?: number;
  /** Root's first token on a new data dir; generated when absent. */
  rootToken?: string;
  /** Clock for tests. */
  clock?: () => Date;
  /** Outbound HTTP (migration sources, import providers), injectable for tests. */
  fetch?: typeof fetch;
  limits?: Partial<Limits>;
  /** Path of a better-sqlite3 binding built for this runtime (Electron); Node's default otherwise. */
  nativeBinding?: string;
  /** The git program to run (default: SANDLAB_GIT, else `git` on PATH). */
  gitCommand?: string;
  /**
   * Extra routes after the API's (`serve --ui` adds the built renderer at `/`): raw routes on
   * `app`, or API routes (auth, parameters, JSON answers) on `api` under /api/v4.
   */
  extendApp?: (app: HttpApp, api: Router) => Promise<void> | void;
}

export interface Service {
  /** `http://host:port` once listening; '' before. */
  readonly url: string;
  readonly context: ServiceContext;
  /** The root token created for a new data dir (print it once), or null. */
  readonly createdRootToken: string | null;
  listen(): Promise<string>;
  close(): Promise<void>;
  inject(opts: InjectOptions): Promise<LightMyRequestResponse>;
  /** Every API route the areas registered (method, pattern, auth), in registration order. */
  readonly routes: readonly RouteInfo[];
}

/**
 * How long after listening git is looked for (`git --version`) and the Markdown renderer loaded,
 * unless a request needed either sooner.
 */
const WARM_UP_DELAY_MS = 500;

/** Only the desktop window and tests inject (tens of ms to load); `serve` never does. */
const lightMyRequest = lazyRequire<typeof import('light-my-request')>('light-my-request');

export const DEFAULT_LIMITS: Limits = {
  maxUploadBytes: 100 * 1024 * 1024,
  maxBodyBytes: 20 * 1024 * 1024,
  maxAlertPayloadBytes: 1024 * 1024,
  jobConcurrency: 5,
  maxQueuedJobs: 1000,
  databaseBusyTimeoutMs: 5000,
};

/** Opens the data dir, applies migrations, builds the HTTP app. Electron-free. */
export async function createService(opts: ServiceOptions): Promise<Service> {
  mkdirSync(opts.dataDir, { recursive: true });
  const limits = { ...DEFAULT_LIMITS, ...opts.limits };
  const db = openDatabase(join(opts.dataDir, 'sandlab.db'), [...jobMigrations, ...areas.flatMap((a) => a.migrations)], {
    nativeBinding: opts.nativeBinding,
    busyTimeoutMs: limits.databaseBusyTimeoutMs,
  });
  const git = openGit(opts.dataDir, opts.gitCommand ?? defaultGitCommand());
  const now = opts.clock ?? (() => new Date());
  const clock = opts.clock;
  const nowMs = clock ? () => clock().getTime() : Date.now;
  const outbound = opts.fetch ?? globalThis.fetch;
  const svc: ServiceContext = {
    db,
    dataDir: opts.dataDir,
    now,
    nowMs,
    fetch: outbound,
    limits,
    git,
    jobs: new JobRunner({ db, now, fetch: outbound, concurrency: limits.jobConcurrency, maxQueued: limits.maxQueuedJobs }),
    resolveJobToken: null,
    jobTokenCanAccess: null,
    rateLimiter: new RateLimiter(now),
    rateLimits: null,
  };
  for (const area of areas) await area.start?.(svc);
  const { createdToken } = bootstrapRoot(svc, opts.rootToken);
  // Every kind is defined now: resume (or fail cleanly) what a previous run left unfinished.
  svc.jobs.start();
  let app: HttpApp;
  const routes: RouteInfo[] = [];
  try {
    const built = buildApp(svc, routes);
    app = built.app;
    await opts.extendApp?.(app, built.router);
  } catch (err) {
    await svc.jobs.stop();
    db.close();
    throw err;
  }
  let url = '';
  let closed = false;
  let warmUp: ReturnType<typeof setTimeout> | undefined;
  return {
    get url() {
      return url;
    },
    context: svc,
    createdRootToken: createdToken,
    async listen() {
      const host = opts.host ?? '127.0.0.1';
      await app.listen(host, opts.port ?? 0);
      const addr = app.server.address();
      const port = typeof addr === 'object' && addr ? addr.port : opts.port;
      url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
      // Once the service answers, off the way to the first answer: git is looked for (said once:
      // everything else works without git, repository endpoints answer 503) and the Markdown
      // renderer loaded, so the first read with a description does not pay for it.
      warmUp = setTimeout(() => {
        void git.probe().then((found) => {
          if (!found.ok && !closed) process.stderr.write(`[sandlab] repositories are unavailable: ${found.reason}\n`);
        });
        warmMarkdown();
      }, WARM_UP_DELAY_MS);
      warmUp.unref();
      return url;
    },
    async close() {
      if (closed) return;
      closed = true;
      clearTimeout(warmUp);
      // A streamed reply can still be finishing when close() starts; its keep-alive socket turns
      // idle only afterwards and would hold close() until the keep-alive timeout. Keep sweeping.
      const sweep = setInterval(() => app.server.closeIdleConnections(), 50);
      try {
        await app.close();
      } finally {
        clearInterval(sweep);
      }
      await svc.jobs.stop();
      for (const area of [...areas].reverse()) await area.stop?.(svc);
      git.close();
      db.close();
    },
    inject: (o) => lightMyRequest().inject(app.dispatch, o),
    routes,
  };
}
