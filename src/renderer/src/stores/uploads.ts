import { create } from 'zustand';
import type { ApiFile } from '../../../shared/ipc';
import { apiOk, bridge } from '../bridge';
import { errorText } from '../lib/format';
import { createListStore } from './list';
import { useProject } from './project';

/** A listed upload (GitLab's MarkdownUploadAdmin entity). */
export interface UploadRow {
  id: number;
  size: number;
  filename: string;
  created_at: string;
  uploaded_by: { id: number; name: string; username: string } | null;
}

/** What an upload answers (GitLab's ProjectUpload entity). */
export interface UploadLink {
  id: number;
  alt: string;
  url: string;
  full_path: string;
  markdown: string;
}

/** A file on its way up: its progress, then its link or the API's error. */
export interface QueuedUpload {
  key: string;
  name: string;
  size: number;
  done: number;
  state: 'uploading' | 'done' | 'failed';
  error?: string;
  link?: UploadLink;
}

/** Where a file comes from: bytes (a drop, a browser's file input) or a path the open dialog returned (Electron). */
export type UploadSource = { name: string; size: number; bytes: () => Promise<Uint8Array> } | { name: string; size: number; path: string };

const IMAGE = /\.(png|jpe?g|gif|webp|bmp|ico|avif)$/i;
export const isImage = (filename: string): boolean => IMAGE.test(filename);

export const uploadList = createListStore<UploadRow>(() => {
  const project = useProject.getState().project;
  return project ? { method: 'GET', path: `/projects/${project.id}/uploads` } : null;
});

let seq = 0;

interface UploadsState {
  queue: QueuedUpload[];
  /** Links known by upload id: from this session's uploads or asked once (Sandlab's extension). */
  links: Record<number, UploadLink>;
  /** Image previews by upload id, as data: URLs (allowed by the CSP's img-src). */
  previews: Record<number, string>;
  add(files: UploadSource[]): Promise<void>;
  clearFinished(): void;
  linkFor(id: number): Promise<UploadLink>;
  preview(row: UploadRow): Promise<void>;
  download(row: UploadRow): Promise<string>;
  remove(row: UploadRow): Promise<void>;
}

function projectId(): number {
  const p = useProject.getState().project;
  if (!p) throw new Error('choose a project first');
  return p.id;
}

async function readFile(row: UploadRow): Promise<Uint8Array> {
  const r = await apiOk<Uint8Array | string>(bridge, { method: 'GET', path: `/projects/${projectId()}/uploads/${row.id}` });
  return typeof r.body === 'string' ? new TextEncoder().encode(r.body) : (r.body ?? new Uint8Array());
}

function dataUrl(bytes: Uint8Array, type: string): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return `data:${type};base64,${btoa(bin)}`;
}

export const useUploads = create<UploadsState>((set, get) => {
  const patch = (key: string, p: Partial<QueuedUpload>): void => set({ queue: get().queue.map((q) => (q.key === key ? { ...q, ...p } : q)) });

  async function send(id: number, src: UploadSource, key: string): Promise<void> {
    const file: ApiFile = 'path' in src ? { field: 'file', path: src.path, filename: src.name } : { field: 'file', filename: src.name, bytes: await src.bytes() };
    try {
      const res = await bridge.upload<UploadLink | { message?: string }>({ method: 'POST', path: `/projects/${id}/uploads`, multipart: { files: [file] } }, (done) => patch(key, { done }));
      if (res.status !== 201) {
        const b = res.body as { message?: unknown; error?: unknown } | null;
        const m = b?.message ?? b?.error;
        throw new Error(`${typeof m === 'string' ? m : JSON.stringify(m ?? null)} (HTTP ${res.status})`);
      }
      const link = res.body as UploadLink;
      patch(key, { state: 'done', done: src.size, link });
      set({ links: { ...get().links, [link.id]: link } });
    } catch (err) {
      patch(key, { state: 'failed', error: errorText(err) });
    }
  }

  return {
    queue: [],
    links: {},
    previews: {},
    async add(files) {
      const id = projectId();
      const items = files.map((f) => ({ src: f, key: `u${++seq}` }));
      set({ queue: [...get().queue, ...items.map(({ src, key }): QueuedUpload => ({ key, name: src.name, size: src.size, done: 0, state: 'uploading' }))] });
      // One at a time, in order: a large file's progress stays readable and the disk is not thrashed.
      for (const { src, key } of items) await send(id, src, key);
      await uploadList.getState().load();
    },
    clearFinished: () => set({ queue: get().queue.filter((q) => q.state === 'uploading') }),
    async linkFor(uploadId) {
      const known = get().links[uploadId];
      if (known) return known;
      const link = (await apiOk<UploadLink>(bridge, { method: 'GET', path: `/projects/${projectId()}/sandlab/uploads/${uploadId}` })).body;
      set({ links: { ...get().links, [uploadId]: link } });
      return link;
    },
    async preview(row) {
      if (get().previews[row.id] || !isImage(row.filename)) return;
      const ext = row.filename.split('.').pop()!.toLowerCase();
      const type = ext === 'jpg' ? 'image/jpeg' : ext === 'ico' ? 'image/x-icon' : `image/${ext}`;
      const bytes = await readFile(row);
      set({ previews: { ...get().previews, [row.id]: dataUrl(bytes, type) } });
    },
    async download(row) {
      const bytes = await readFile(row);
      if (bridge.desktop) {
        const r = await bridge.desktop.saveDialog({ title: 'Save upload', defaultName: row.filename, data: bytes });
        return r.canceled ? 'Download canceled' : `Saved ${row.filename} to ${r.path}`;
      }
      const url = URL.createObjectURL(new Blob([bytes as Uint8Array<ArrayBuffer>]));
      const a = document.createElement('a');
      a.href = url;
      a.download = row.filename;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      return `Downloaded ${row.filename}`;
    },
    async remove(row) {
      await apiOk(bridge, { method: 'DELETE', path: `/projects/${projectId()}/uploads/${row.id}` });
      await uploadList.getState().load();
    },
  };
});
