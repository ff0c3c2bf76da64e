import { create } from 'zustand';

/** The project the workspaces work in (GitLab's project entity, the fields the shell shows). */
export interface ProjectRef {
  id: number;
  name: string;
  path_with_namespace: string;
  web_url?: string;
}

const KEY = 'sandlab.project';

function saved(): ProjectRef | null {
  try {
    const raw = typeof localStorage === 'undefined' ? null : localStorage.getItem(KEY);
    const p = raw ? (JSON.parse(raw) as ProjectRef) : null;
    return p && typeof p.id === 'number' && typeof p.path_with_namespace === 'string' ? p : null;
  } catch {
    return null;
  }
}

interface ProjectState {
  project: ProjectRef | null;
  /** Whether the header's picker is open (Ctrl/Cmd+K). */
  pickerOpen: boolean;
  choose(p: ProjectRef | null): void;
  openPicker(open: boolean): void;
}

/** The current project, remembered across restarts (an id and a path: nothing secret). */
export const useProject = create<ProjectState>((set) => ({
  project: saved(),
  pickerOpen: false,
  choose(project) {
    if (typeof localStorage !== 'undefined') {
      if (project) localStorage.setItem(KEY, JSON.stringify({ id: project.id, name: project.name, path_with_namespace: project.path_with_namespace, web_url: project.web_url }));
      else localStorage.removeItem(KEY);
    }
    set({ project, pickerOpen: false });
  },
  openPicker: (pickerOpen) => set({ pickerOpen }),
}));
