import { connect } from 'node:net';
import type { InjectOptions, Response as LightMyRequestResponse } from 'light-my-request';
import { createService, type Service, type ServiceOptions } from './service';
import { inTransaction } from './service/db/connection';
import { findTokenByValue, insertToken, tokenExpired } from './service/areas/core/users';
import { SANDLAB_GITLAB_VERSION } from './service/areas/core/routes/users';
import { desktopTokenAccount, type TokenVault } from './secrets/vault';
import type { ServiceStatus } from '../shared/ipc';
import type { JobEvent } from './service/jobs/runner';

export const LOOPBACK = '127.0.0.1';
const ROOT_USER_ID = 1;

export interface ServiceHostOptions {
  dataDir: string;
  /** 0: any free port. */
  port: number;
  vault: TokenVault;
  appVersion: string;
  nativeBinding?: string;
  /** For tests. */
  serviceOptions?: Partial<ServiceOptions>;
}

/**
 * Whether something already answers on 127.0.0.1:port. Connecting tells more than binding: on
 * some systems a bind can succeed beside a listener on another address of the same port.
 */
export function portAnswers(port: number, host = LOOPBACK, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (answer: boolean): void => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * The service as the desktop app hosts it: on 127.0.0.1, authenticated as the desktop user
 * (root on a new data dir) with a token kept in the vault. A taken port is reported in status,
 * not thrown: the window keeps working through inject().
 */
export class ServiceHost {
  private readonly startedAt = Date.now();
  private constructor(
    private readonly service: Service,
    private readonly opts: ServiceHostOptions,
    private readonly token: string,
    private readonly listenError: string | null,
  ) {}

  static async start(opts: ServiceHostOptions): Promise<ServiceHost> {
    const service = await createService({
      ...opts.serviceOptions,
      dataDir: opts.dataDir,
      host: LOOPBACK,
      port: opts.port,
      nativeBinding: opts.nativeBinding,
    });
    try {
      const token = await ensureDesktopToken(service, opts.vault, opts.dataDir);
      const listenError = await listenOrExplain(service, opts.port);
      return new ServiceHost(service, opts, token, listenError);
    } catch (err) {
      await service.close();
      throw err;
    }
  }

  get dataDir(): string {
    return this.opts.dataDir;
  }

  status(): ServiceStatus {
    const url = this.listenError ? '' : this.service.url;
    return {
      url,
      port: url ? Number(new URL(url).port) : null,
      listening: !!url,
      error: this.listenError,
      dataDir: this.opts.dataDir,
      version: SANDLAB_GITLAB_VERSION,
      appVersion: this.opts.appVersion,
      uptimeSeconds: Math.floor((Date.now() - this.startedAt) / 1000),
      vault: this.opts.vault.status,
    };
  }

  inject(o: InjectOptions): Promise<LightMyRequestResponse> {
    return this.service.inject(o);
  }

  /** Progress and state changes of the service's background jobs; returns an unsubscribe function. */
  subscribeJobs(listener: (e: JobEvent) => void): () => void {
    return this.service.context.jobs.subscribe(listener);
  }

  /** Main-process only: never sent to the renderer. */
  async desktopToken(): Promise<string> {
    return this.token;
  }

  close(): Promise<void> {
    return this.service.close();
  }
}

async function listenOrExplain(service: Service, port: number): Promise<string | null> {
  if (port !== 0 && (await portAnswers(port))) {
    return `Port ${port} on ${LOOPBACK} is already in use by another program. Choose another port in Preferences (0 picks a free one); the app keeps working meanwhile.`;
  }
  try {
    await service.listen();
    return null;
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'EADDRINUSE') return `Port ${port} on ${LOOPBACK} is already in use. Choose another port in Preferences (0 picks a free one).`;
    if (code === 'EACCES') return `Not allowed to listen on port ${port}. Choose a port above 1024 in Preferences.`;
    return `Could not listen on ${LOOPBACK}:${port}: ${err instanceof Error ? err.message : String(err)}`;
  }
}

/**
 * The desktop user's token: the root token created with a new data dir, else the one the vault
 * holds for this data dir while it still works, else a fresh token minted for root (a data dir
 * first made by `serve`, a wiped keychain, a revoked token).
 */
export async function ensureDesktopToken(service: Service, vault: TokenVault, dataDir: string): Promise<string> {
  const account = desktopTokenAccount(dataDir);
  if (service.createdRootToken) {
    await vault.set(account, service.createdRootToken);
    return service.createdRootToken;
  }
  const svc = service.context;
  const stored = await vault.get(account);
  if (stored) {
    const row = findTokenByValue(svc, stored);
    if (row && !row.revoked && !tokenExpired(svc, row) && row.user_id === ROOT_USER_ID) return stored;
  }
  const { value } = inTransaction(svc.db, () =>
    insertToken(svc, { userId: ROOT_USER_ID, name: 'sandlab-desktop', scopes: ['api', 'read_user', 'sudo'], expiresAt: null }),
  );
  await vault.set(account, value);
  return value;
}
