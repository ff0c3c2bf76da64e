import { create } from 'zustand';
import type { JobProgressEvent } from '../../../shared/ipc';
import { bridge, type BridgeStatus } from '../bridge';

export type WorkspaceId = 'projects' | 'preferences' | 'credentials' | 'status';

interface ShellState {
  workspace: WorkspaceId;
  status: BridgeStatus | null;
  /** Latest event per job, newest batch last. */
  jobs: Record<string, JobProgressEvent>;
  ready: boolean;
  select(w: WorkspaceId): void;
  refreshStatus(): Promise<void>;
  applyJobProgress(events: JobProgressEvent[]): void;
  signIn(token: string): Promise<void>;
  signOut(): void;
}

export const useShell = create<ShellState>((set, get) => ({
  workspace: 'projects',
  status: null,
  jobs: {},
  ready: bridge.isReady(),
  select: (workspace) => set({ workspace }),
  async refreshStatus() {
    set({ status: await bridge.status() });
  },
  applyJobProgress(events) {
    const jobs = { ...get().jobs };
    for (const e of events) jobs[e.jobId] = e;
    set({ jobs });
  },
  async signIn(token) {
    bridge.setToken?.(token.trim());
    const status = await bridge.status();
    if (status.error) {
      bridge.setToken?.(null);
      set({ ready: false });
      throw new Error(status.error);
    }
    set({ status, ready: true });
  },
  signOut() {
    bridge.setToken?.(null);
    set({ ready: false });
  },
}));
