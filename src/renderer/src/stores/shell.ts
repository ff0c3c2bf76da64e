import { create } from 'zustand';
import type { ApiRequest, JobProgressEvent, Theme } from '../../../shared/ipc';
import { bridge, type BridgeStatus } from '../bridge';
import { errorText } from '../lib/format';

/** The signed-in user, as GET /user answers (the fields the shell uses). */
export interface CurrentUser {
  id: number;
  username: string;
  name: string;
  is_admin?: boolean;
  avatar_url?: string | null;
}

export type Connection = 'connecting' | 'connected' | 'disconnected';

interface ShellState {
  status: BridgeStatus | null;
  connection: Connection;
  user: CurrentUser | null;
  /** Latest event per job. */
  jobs: Record<string, JobProgressEvent>;
  /** Browser: a token was given for this tab. Desktop: always. */
  ready: boolean;
  /** Workspaces whose API answered the probe (see workspaces/registry.tsx). */
  available: Record<string, boolean>;
  theme: Theme;
  refreshStatus(): Promise<void>;
  probe(workspaces: { id: string; requires?: ApiRequest }[]): Promise<void>;
  applyJobProgress(events: JobProgressEvent[]): void;
  signIn(token: string): Promise<void>;
  signOut(): void;
  loadTheme(): Promise<void>;
  setTheme(theme: Theme): Promise<void>;
}

const THEME_KEY = 'sandlab.theme';
const storage = (): Storage | null => (typeof localStorage === 'undefined' ? null : localStorage);

/** The shell's state: connection, who is signed in, which workspaces exist, running jobs, theme. */
export const useShell = create<ShellState>((set, get) => ({
  status: null,
  connection: 'connecting',
  user: null,
  jobs: {},
  ready: bridge.isReady(),
  available: {},
  theme: 'system',
  async refreshStatus() {
    try {
      const status = await bridge.status();
      const connection: Connection = status.listening && !status.error ? 'connected' : 'disconnected';
      set({ status, connection });
      if (connection === 'connected' && get().ready && !get().user) {
        const me = await bridge.api<CurrentUser>({ method: 'GET', path: '/user' });
        if (me.status === 200) set({ user: me.body });
      }
    } catch (err) {
      set({ connection: 'disconnected', status: { url: get().status?.url ?? '', listening: false, error: errorText(err), version: '' } });
    }
  },
  async probe(workspaces) {
    const available: Record<string, boolean> = {};
    await Promise.all(
      workspaces.map(async (w) => {
        if (!w.requires) return void (available[w.id] = true);
        try {
          // Any answer but 404 means the route exists here (405 included: another method of it).
          available[w.id] = (await bridge.api(w.requires)).status !== 404;
        } catch {
          available[w.id] = false;
        }
      }),
    );
    set({ available });
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
    set({ status, ready: true, connection: 'connected', user: null });
    await get().refreshStatus();
  },
  signOut() {
    bridge.setToken?.(null);
    set({ ready: false, user: null, available: {} });
  },
  async loadTheme() {
    if (bridge.desktop) {
      const prefs = await bridge.desktop.getPreferences();
      set({ theme: prefs.theme });
    } else {
      const saved = storage()?.getItem(THEME_KEY);
      if (saved === 'light' || saved === 'dark' || saved === 'system') set({ theme: saved });
    }
  },
  async setTheme(theme) {
    // Desktop: a preference (main also sets the window's native theme); browser: this browser's storage.
    if (bridge.desktop) await bridge.desktop.setPreferences({ theme });
    else storage()?.setItem(THEME_KEY, theme);
    set({ theme });
  },
}));

/** Jobs still running, for the status bar. */
export function runningJobs(jobs: Record<string, JobProgressEvent>): JobProgressEvent[] {
  return Object.values(jobs).filter((j) => j.state === 'created' || j.state === 'started');
}
