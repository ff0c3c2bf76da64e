import { create } from 'zustand';
import { apiOk, bridge } from '../bridge';

/** The fields of GitLab's project entity this workspace shows. */
export interface ProjectRow {
  id: number;
  name: string;
  path_with_namespace: string;
  visibility: string;
  description: string | null;
  web_url: string;
  created_at: string;
}

interface ProjectsState {
  projects: ProjectRow[];
  total: number | null;
  loading: boolean;
  error: string | null;
  search: string;
  setSearch(s: string): void;
  load(): Promise<void>;
  create(name: string, visibility: string): Promise<void>;
}

export const useProjects = create<ProjectsState>((set, get) => ({
  projects: [],
  total: null,
  loading: false,
  error: null,
  search: '',
  setSearch: (search) => set({ search }),
  async load() {
    set({ loading: true, error: null });
    try {
      const search = get().search.trim();
      const res = await apiOk<ProjectRow[]>(bridge, {
        method: 'GET',
        path: '/projects',
        query: { per_page: 100, order_by: 'id', sort: 'asc', ...(search ? { search } : {}) },
      });
      const total = res.headers['x-total'];
      set({ projects: res.body, total: total ? Number(total) : res.body.length, loading: false });
    } catch (err) {
      set({ loading: false, error: err instanceof Error ? err.message : String(err) });
    }
  },
  async create(name, visibility) {
    set({ error: null });
    try {
      await apiOk(bridge, { method: 'POST', path: '/projects', body: { name, visibility } });
    } catch (err) {
      set({ error: err instanceof Error ? err.message : String(err) });
      return;
    }
    await get().load();
  },
}));
