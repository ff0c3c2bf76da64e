import { statSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { IpcChannel, IpcResponse, JobProgressEvent, OpenDialogRequest, Preferences, PreferencesUpdate, SaveDialogRequest, ServiceStatus } from '../../shared/ipc';
import { IPC_CHANNELS } from '../../shared/ipc';
import { CREDENTIAL_PREFIX, type TokenVault } from '../secrets/vault';
import type { PreferencesService } from '../settings/preferences';
import { forwardApiRequest, type ApiForwardDeps } from './api';
import {
  parseApiRequest,
  parseCredentialName,
  parseClipboardWrite,
  parseCredentialSet,
  parseEmpty,
  parseOpenDialog,
  parsePreferencesUpdate,
  parseSaveDialog,
} from './schemas';

/** What a handler learns about who called: enough to check it is the app's own window. */
export interface IpcSender {
  sender: { id: number };
  senderFrame?: { url: string } | null;
}

export type IpcHandler<C extends IpcChannel> = (event: IpcSender, payload: unknown) => Promise<IpcResponse<C>>;
export type IpcHandlers = { [C in IpcChannel]: IpcHandler<C> };

/** Everything the handlers reach, Electron-free so tests pass fakes. */
export interface IpcDeps {
  host: {
    status(): ServiceStatus;
    inject: ApiForwardDeps['inject'];
    desktopToken(): Promise<string>;
    readonly dataDir: string;
  };
  vault: TokenVault;
  preferences: PreferencesService;
  /** Restarts the service when port or data dir changed; returns the new status. */
  applyPreferences(previous: Preferences, next: Preferences): Promise<ServiceStatus>;
  showOpenDialog(req: OpenDialogRequest): Promise<{ canceled: boolean; filePaths: string[] }>;
  showSaveDialog(req: Omit<SaveDialogRequest, 'data'>): Promise<{ canceled: boolean; filePath?: string }>;
  revealPath(path: string): Promise<void>;
  writeClipboard(text: string): void;
  /** Where upload progress goes (the job-progress channel in the app). */
  publishProgress?(event: JobProgressEvent): void;
}

export class UntrustedSenderError extends Error {
  constructor(channel: string) {
    super(`${channel}: rejected a message from a sender that is not the app's window`);
    this.name = 'UntrustedSenderError';
  }
}

/** One handler per channel: validate the payload, then act. Sender checks wrap them (below). */
export function createIpcHandlers(deps: IpcDeps): IpcHandlers {
  // Upload sources: only what the user picked in the open dialog during this session.
  const chosenPaths = new Set<string>();
  return {
    'sandlab:api': async (_e, payload) => {
      const req = parseApiRequest(payload);
      const jobId = req.progressId;
      const publish = jobId && deps.publishProgress ? deps.publishProgress : null;
      let last = { done: 0, total: 0 };
      const progress = publish
        ? (done: number, total: number) => {
            last = { done, total };
            publish({ jobId: jobId!, kind: 'upload', state: 'started', done, total });
          }
        : undefined;
      try {
        const res = await forwardApiRequest(req, {
          inject: (o) => deps.host.inject(o),
          token: () => deps.host.desktopToken(),
          isAllowedUploadPath: (p) => chosenPaths.has(p),
          hostHeader: () => {
            const url = deps.host.status().url;
            return url ? new URL(url).host : null;
          },
          progress,
          credential: (name) => deps.vault.get(CREDENTIAL_PREFIX + name),
        });
        publish?.({ jobId: jobId!, kind: 'upload', state: res.status < 300 ? 'finished' : 'failed', ...last });
        return res;
      } catch (err) {
        publish?.({ jobId: jobId!, kind: 'upload', state: 'failed', ...last, message: err instanceof Error ? err.message : String(err) });
        throw err;
      }
    },
    'sandlab:service-status': async (_e, payload) => {
      parseEmpty(payload);
      return deps.host.status();
    },
    'sandlab:preferences-get': async (_e, payload) => {
      parseEmpty(payload);
      return deps.preferences.all();
    },
    'sandlab:preferences-set': async (_e, payload) => {
      const update: PreferencesUpdate = parsePreferencesUpdate(payload);
      const previous = deps.preferences.all();
      const preferences = deps.preferences.update(update);
      const status = await deps.applyPreferences(previous, preferences);
      return { preferences, status };
    },
    'sandlab:credentials-set': async (_e, payload) => {
      const { name, value } = parseCredentialSet(payload);
      await deps.vault.set(CREDENTIAL_PREFIX + name, value);
    },
    'sandlab:credentials-delete': async (_e, payload) => {
      const { name } = parseCredentialName(payload);
      return { deleted: await deps.vault.delete(CREDENTIAL_PREFIX + name) };
    },
    'sandlab:credentials-list': async (_e, payload) => {
      parseEmpty(payload);
      const accounts = await deps.vault.accounts();
      return accounts.filter((a) => a.startsWith(CREDENTIAL_PREFIX)).map((a) => a.slice(CREDENTIAL_PREFIX.length)).sort();
    },
    'sandlab:dialog-open': async (_e, payload) => {
      const req = parseOpenDialog(payload);
      const r = await deps.showOpenDialog(req);
      if (r.canceled) return { canceled: true, files: [] };
      const files = r.filePaths.map((p) => {
        chosenPaths.add(p);
        return { path: p, name: basename(p), size: statSync(p).size };
      });
      return { canceled: false, files };
    },
    'sandlab:dialog-save': async (_e, payload) => {
      const { data, ...req } = parseSaveDialog(payload);
      const r = await deps.showSaveDialog(req);
      if (r.canceled || !r.filePath) return { canceled: true, path: null };
      writeFileSync(r.filePath, data);
      return { canceled: false, path: r.filePath };
    },
    'sandlab:reveal-data-dir': async (_e, payload) => {
      parseEmpty(payload);
      await deps.revealPath(deps.host.dataDir);
    },
    'sandlab:clipboard-write': async (_e, payload) => {
      deps.writeClipboard(parseClipboardWrite(payload).text);
    },
  };
}

/** The part of ipcMain used here. */
export interface IpcMainLike {
  handle(channel: string, listener: (event: IpcSender, payload: unknown) => unknown): void;
  removeHandler(channel: string): void;
}

/** Registers every channel; a message from any other sender is rejected before validation. */
export function registerIpcHandlers(ipcMain: IpcMainLike, handlers: IpcHandlers, isTrustedSender: (e: IpcSender) => boolean): () => void {
  for (const channel of IPC_CHANNELS) {
    const handler = handlers[channel] as (e: IpcSender, p: unknown) => Promise<unknown>;
    ipcMain.handle(channel, (event, payload) => guarded(channel, handler, isTrustedSender)(event, payload));
  }
  return () => IPC_CHANNELS.forEach((c) => ipcMain.removeHandler(c));
}

/** A handler that first checks the sender: the same wrapper registerIpcHandlers uses. */
export function guarded<T>(channel: string, handler: (e: IpcSender, p: unknown) => Promise<T>, isTrustedSender: (e: IpcSender) => boolean) {
  return async (event: IpcSender, payload: unknown): Promise<T> => {
    if (!isTrustedSender(event)) throw new UntrustedSenderError(channel);
    return handler(event, payload);
  };
}
