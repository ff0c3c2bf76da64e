import { create } from 'zustand';
import { errorText } from '../lib/format';

export interface Notice {
  id: number;
  kind: 'success' | 'error';
  text: string;
}

interface NoticesState {
  notices: Notice[];
  notify(kind: Notice['kind'], text: string): void;
  dismiss(id: number): void;
}

let nextId = 1;

/** What the last actions did: every action's result or the API's error, shown in the shell. */
export const useNotices = create<NoticesState>((set, get) => ({
  notices: [],
  notify(kind, text) {
    const id = nextId++;
    set({ notices: [...get().notices.slice(-2), { id, kind, text }] });
    // Successes fade; errors stay until dismissed, so none is missed.
    if (kind === 'success') setTimeout(() => get().dismiss(id), 3500);
  },
  dismiss: (id) => set({ notices: get().notices.filter((n) => n.id !== id) }),
}));

/**
 * Runs a user action and reports it: `success` (a text, or a function of the result) on success,
 * the thrown error's message (for the API, its own message, verbatim) on failure. Returns the
 * result, or undefined when it failed.
 */
export async function runAction<R>(action: () => Promise<R>, success: string | ((r: R) => string)): Promise<R | undefined> {
  try {
    const r = await action();
    useNotices.getState().notify('success', typeof success === 'function' ? success(r) : success);
    return r;
  } catch (err) {
    useNotices.getState().notify('error', errorText(err));
    return undefined;
  }
}

/** runAction for actions without a result: true when it worked. */
export async function runStep(action: () => Promise<unknown>, success: string): Promise<boolean> {
  return (await runAction(async () => (await action(), true), success)) === true;
}
