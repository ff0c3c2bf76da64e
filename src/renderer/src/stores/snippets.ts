import { create } from 'zustand';
import { apiOk, bridge } from '../bridge';
import { createListStore } from './list';
import { useProject } from './project';

/** GitLab's snippet entity (the fields this workspace uses). */
export interface Snippet {
  id: number;
  title: string;
  description: string | null;
  visibility: 'private' | 'internal' | 'public';
  author: { id: number; username: string; name: string };
  project_id: number | null;
  created_at: string;
  updated_at: string;
  web_url: string;
  files: { path: string; raw_url: string }[];
}

/** Sandlab's snippet revision (`GET .../revisions`): `id` is the ref file reads accept. */
export interface SnippetRevision {
  id: string;
  short_id: string;
  message: string;
  author: { name: string; username: string } | null;
  created_at: string;
  files: { path: string }[];
}

/** A file tab in the editor: where it came from (null for a new file) and what it holds now. */
export interface DraftFile {
  key: string;
  path: string;
  content: string;
  originalPath: string | null;
  originalContent: string | null;
}

export interface Draft {
  /** null: a new snippet. */
  id: number | null;
  projectId: number | null;
  title: string;
  description: string;
  visibility: Snippet['visibility'];
  files: DraftFile[];
  /** Files of the snippet removed in the editor (deleted on save). */
  removed: string[];
  active: string;
}

export type SnippetScope = 'project' | 'personal';

/** The API path of a snippet, project or personal. */
export function snippetPath(s: { id: number; project_id: number | null }): string {
  return s.project_id === null ? `/snippets/${s.id}` : `/projects/${s.project_id}/snippets/${s.id}`;
}

/** A file's text at a ref (a revision sha or the default branch). */
export async function readSnippetFile(s: { id: number; project_id: number | null }, ref: string, path: string): Promise<string> {
  const r = await apiOk<string | Uint8Array>(bridge, { method: 'GET', path: `${snippetPath(s)}/files/${encodeURIComponent(ref)}/${encodeURIComponent(path)}/raw` });
  return typeof r.body === 'string' ? r.body : r.body ? new TextDecoder().decode(r.body) : '';
}

let fileSeq = 0;
const newKey = (): string => `f${++fileSeq}`;

/**
 * The update request for a draft: GitLab's `files[]` actions (create, update, move, delete), only for
 * what changed, plus title, description and visibility.
 */
export function updateBody(d: Draft): Record<string, unknown> {
  const actions: Record<string, string>[] = [];
  for (const f of d.files) {
    if (f.originalPath === null) actions.push({ action: 'create', file_path: f.path, content: f.content });
    else if (f.path !== f.originalPath) actions.push({ action: 'move', previous_path: f.originalPath, file_path: f.path, content: f.content });
    else if (f.content !== f.originalContent) actions.push({ action: 'update', file_path: f.path, content: f.content });
  }
  for (const path of d.removed) actions.push({ action: 'delete', file_path: path });
  const body: Record<string, unknown> = { title: d.title, description: d.description, visibility: d.visibility };
  if (actions.length) body.files = actions;
  return body;
}

export const snippetList = createListStore<Snippet>((q) => {
  void q;
  const { scope } = useSnippets.getState();
  if (scope === 'personal') return { method: 'GET', path: '/snippets' };
  const project = useProject.getState().project;
  return project ? { method: 'GET', path: `/projects/${project.id}/snippets` } : null;
});

interface SnippetsState {
  scope: SnippetScope;
  selected: Snippet | null;
  draft: Draft | null;
  /** The editor is loading a snippet's files. */
  opening: boolean;
  setScope(scope: SnippetScope): Promise<void>;
  startNew(): void;
  open(s: Snippet): Promise<void>;
  close(): void;
  edit(patch: Partial<Pick<Draft, 'title' | 'description' | 'visibility' | 'active'>>): void;
  editFile(key: string, patch: Partial<Pick<DraftFile, 'path' | 'content'>>): void;
  addFile(): void;
  removeFile(key: string): void;
  save(): Promise<Snippet>;
  remove(): Promise<void>;
}

export const useSnippets = create<SnippetsState>((set, get) => ({
  scope: 'project',
  selected: null,
  draft: null,
  opening: false,
  async setScope(scope) {
    set({ scope, selected: null, draft: null });
    await snippetList.getState().setPage(1);
  },
  startNew() {
    const key = newKey();
    const project = get().scope === 'project' ? useProject.getState().project : null;
    set({
      selected: null,
      draft: { id: null, projectId: project?.id ?? null, title: '', description: '', visibility: 'private', files: [{ key, path: '', content: '', originalPath: null, originalContent: null }], removed: [], active: key },
    });
  },
  async open(s) {
    set({ selected: s, opening: true });
    try {
      const full = (await apiOk<Snippet>(bridge, { method: 'GET', path: snippetPath(s) })).body;
      const files = await Promise.all(
        full.files.map(async (f): Promise<DraftFile> => {
          const content = await readSnippetFile(full, 'main', f.path);
          return { key: newKey(), path: f.path, content, originalPath: f.path, originalContent: content };
        }),
      );
      if (get().selected?.id !== s.id) return;
      set({
        selected: full,
        draft: { id: full.id, projectId: full.project_id, title: full.title, description: full.description ?? '', visibility: full.visibility, files, removed: [], active: files[0]?.key ?? '' },
      });
      await revisionList.getState().setPage(1);
    } finally {
      set({ opening: false });
    }
  },
  close: () => set({ selected: null, draft: null }),
  edit(patch) {
    const d = get().draft;
    if (d) set({ draft: { ...d, ...patch } });
  },
  editFile(key, patch) {
    const d = get().draft;
    if (d) set({ draft: { ...d, files: d.files.map((f) => (f.key === key ? { ...f, ...patch } : f)) } });
  },
  addFile() {
    const d = get().draft;
    if (!d) return;
    const key = newKey();
    set({ draft: { ...d, files: [...d.files, { key, path: '', content: '', originalPath: null, originalContent: null }], active: key } });
  },
  removeFile(key) {
    const d = get().draft;
    if (!d) return;
    const gone = d.files.find((f) => f.key === key);
    const files = d.files.filter((f) => f.key !== key);
    set({
      draft: {
        ...d,
        files,
        removed: gone?.originalPath ? [...d.removed, gone.originalPath] : d.removed,
        active: d.active === key ? (files[0]?.key ?? '') : d.active,
      },
    });
  },
  async save() {
    const d = get().draft;
    if (!d) throw new Error('nothing to save');
    let saved: Snippet;
    if (d.id === null) {
      const path = d.projectId === null ? '/snippets' : `/projects/${d.projectId}/snippets`;
      const body = { title: d.title, description: d.description, visibility: d.visibility, files: d.files.map((f) => ({ file_path: f.path, content: f.content })) };
      saved = (await apiOk<Snippet>(bridge, { method: 'POST', path, body })).body;
    } else {
      saved = (await apiOk<Snippet>(bridge, { method: 'PUT', path: snippetPath({ id: d.id, project_id: d.projectId }), body: updateBody(d) })).body;
    }
    await Promise.all([snippetList.getState().load(), get().open(saved)]);
    return saved;
  },
  async remove() {
    const s = get().selected;
    if (!s) return;
    await apiOk(bridge, { method: 'DELETE', path: snippetPath(s) });
    set({ selected: null, draft: null });
    await snippetList.getState().load();
  },
}));

/** The open snippet's revisions, newest first. */
export const revisionList = createListStore<SnippetRevision>(() => {
  const s = useSnippets.getState().selected;
  return s ? { method: 'GET', path: `${snippetPath(s)}/revisions` } : null;
}, { perPage: 10 });

/** One file between two revisions: its text on each side (null where it does not exist). */
export interface FileChange {
  path: string;
  before: string | null;
  after: string | null;
}

/** What changed from one revision to another, file by file (added, removed, changed, unchanged). */
export async function compareRevisions(s: Snippet, from: SnippetRevision, to: SnippetRevision): Promise<FileChange[]> {
  const paths = [...new Set([...from.files.map((f) => f.path), ...to.files.map((f) => f.path)])].sort();
  const read = (rev: SnippetRevision, path: string): Promise<string | null> => (rev.files.some((f) => f.path === path) ? readSnippetFile(s, rev.id, path) : Promise.resolve(null));
  return Promise.all(paths.map(async (path) => ({ path, before: await read(from, path), after: await read(to, path) })));
}
