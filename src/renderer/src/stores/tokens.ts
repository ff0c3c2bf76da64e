import { create } from 'zustand';
import { apiOk, bridge } from '../bridge';
import { createListStore } from './list';
import { useShell } from './shell';

/** GitLab's personal access token entity. */
export interface PersonalAccessToken {
  id: number;
  name: string;
  description: string | null;
  scopes: string[];
  active: boolean;
  revoked: boolean;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  user_id: number;
  /** Only in the answer to create and rotate: shown once. */
  token?: string;
}

/** Columns the API sorts by (`sort=<id>_asc|desc`). */
const SORTS: Record<string, string> = { name: 'name', created_at: 'created', expires_at: 'expires', last_used_at: 'last_used' };

/** The signed-in user's tokens, newest first; active ones unless "show inactive" is on. */
export const tokenList = createListStore<PersonalAccessToken>(
  (q) => {
    const user = useShell.getState().user;
    if (!user) return null;
    const sort = q.sort && SORTS[q.sort.id] ? `${SORTS[q.sort.id]}_${q.sort.desc ? 'desc' : 'asc'}` : undefined;
    const state = useTokens.getState().showInactive ? undefined : 'active';
    return { method: 'GET', path: '/personal_access_tokens', query: { user_id: user.id, state, sort, search: q.filter || undefined } };
  },
  { sort: { id: 'created_at', desc: true } },
);

export interface NewToken {
  name: string;
  scopes: string[];
  /** yyyy-mm-dd, or '' for GitLab's default (a year). */
  expiresAt: string;
  description: string;
}

interface TokensState {
  /** The token the app itself authenticates with (never revoke it from here). */
  selfId: number | null;
  /** List revoked and expired tokens too. */
  showInactive: boolean;
  setShowInactive(v: boolean): Promise<void>;
  /** The value of the token just created or rotated: shown once, then dropped. */
  revealed: PersonalAccessToken | null;
  loadSelf(): Promise<void>;
  create(t: NewToken): Promise<PersonalAccessToken>;
  rotate(id: number): Promise<PersonalAccessToken>;
  revoke(id: number): Promise<void>;
  forgetRevealed(): void;
}

export const useTokens = create<TokensState>((set) => ({
  selfId: null,
  showInactive: false,
  async setShowInactive(showInactive) {
    set({ showInactive });
    await tokenList.getState().setPage(1);
  },
  revealed: null,
  async loadSelf() {
    const r = await bridge.api<PersonalAccessToken>({ method: 'GET', path: '/personal_access_tokens/self' });
    set({ selfId: r.status === 200 ? r.body.id : null });
  },
  async create(t) {
    const user = useShell.getState().user;
    if (!user) throw new Error('not signed in');
    const body: Record<string, unknown> = { name: t.name, scopes: t.scopes };
    if (t.expiresAt) body.expires_at = t.expiresAt;
    if (t.description) body.description = t.description;
    const made = (await apiOk<PersonalAccessToken>(bridge, { method: 'POST', path: `/users/${user.id}/personal_access_tokens`, body })).body;
    set({ revealed: made });
    await tokenList.getState().load();
    return made;
  },
  async rotate(id) {
    const made = (await apiOk<PersonalAccessToken>(bridge, { method: 'POST', path: `/personal_access_tokens/${id}/rotate` })).body;
    set({ revealed: made });
    await tokenList.getState().load();
    return made;
  },
  async revoke(id) {
    await apiOk(bridge, { method: 'DELETE', path: `/personal_access_tokens/${id}` });
    await tokenList.getState().load();
  },
  forgetRevealed: () => set({ revealed: null }),
}));
