import { useEffect, useMemo, useRef, useState } from 'react';
import { useStore } from 'zustand';
import { createColumnHelper } from '@tanstack/react-table';
import { bridge } from '../../bridge';
import { ConfirmButton } from '../../components/ConfirmButton';
import { DataTable } from '../../components/DataTable';
import { Icon } from '../../components/Icon';
import { copyText } from '../../lib/clipboard';
import { formatBytes, formatDate } from '../../lib/format';
import { runAction } from '../../stores/notices';
import { useProject } from '../../stores/project';
import { isImage, uploadList, useUploads, type UploadRow, type UploadSource } from '../../stores/uploads';
import { NoProject } from '../snippets/SnippetsWorkspace';

const col = createColumnHelper<UploadRow>();

/** Uploads: drop or pick files into the current project, watch them go up, copy their Markdown. */
export function UploadsWorkspace(): React.JSX.Element {
  const list = useStore(uploadList);
  const project = useProject((s) => s.project);
  const { linkFor, download, remove } = useUploads();

  useEffect(() => {
    void uploadList.getState().setPage(1);
  }, [project?.id]);

  const columns = useMemo(
    () => [
      col.display({ id: 'preview', header: () => <span className="visually-hidden">Preview</span>, cell: (c) => <Preview row={c.row.original} /> }),
      col.accessor('filename', { header: 'File', cell: (c) => <span className="mono">{c.getValue()}</span> }),
      col.accessor('size', { header: 'Size', cell: (c) => <span className="nowrap">{formatBytes(c.getValue())}</span> }),
      col.accessor('uploaded_by', { header: 'Uploaded by', cell: (c) => c.getValue()?.name ?? '—' }),
      col.accessor('created_at', { header: 'Uploaded', cell: (c) => <span className="nowrap">{formatDate(c.getValue())}</span> }),
      col.display({
        id: 'actions',
        header: () => <span className="visually-hidden">Actions</span>,
        cell: (c) => {
          const u = c.row.original;
          return (
            <span className="row-actions">
              <button type="button" aria-label={`Copy Markdown for ${u.filename}`} onClick={() => void runAction(async () => copyText((await linkFor(u.id)).markdown), `Copied the Markdown for ${u.filename}`)}>
                <Icon name="copy" size={14} /> Markdown
              </button>
              <button type="button" aria-label={`Download ${u.filename}`} onClick={() => void runAction(() => download(u), (m) => m)}>
                Download
              </button>
              <ConfirmButton label="Delete" question={`Delete ${u.filename}?`} confirmLabel={`Delete ${u.filename}`} onConfirm={() => void runAction(() => remove(u), `Deleted ${u.filename}`)} />
            </span>
          );
        },
      }),
    ],
    [linkFor, download, remove],
  );

  return (
    <section className="workspace-body" aria-labelledby="uploads-title">
      <header className="workspace-header">
        <h1 id="uploads-title">Uploads</h1>
        {project && <span className="muted">{project.path_with_namespace}</span>}
      </header>
      {!project ? (
        <NoProject what="its uploads" />
      ) : (
        <>
          <DropZone />
          <UploadQueue />
          <DataTable list={list} columns={columns} label="Uploads" empty="No uploads in this project yet." rowKey={(u) => String(u.id)} testId="uploads-table" />
        </>
      )}
    </section>
  );
}

/** Drop files here, or pick them (the native dialog in Electron, the browser's file picker otherwise). */
function DropZone(): React.JSX.Element {
  const add = useUploads((s) => s.add);
  const input = useRef<HTMLInputElement>(null);
  const [over, setOver] = useState(false);
  const fromFiles = (files: FileList | File[]): UploadSource[] => [...files].map((f) => ({ name: f.name, size: f.size, bytes: async () => new Uint8Array(await f.arrayBuffer()) }));

  async function pick(): Promise<void> {
    if (!bridge.desktop) return input.current?.click();
    const r = await bridge.desktop.openDialog({ title: 'Upload files', multiple: true });
    if (!r.canceled) await add(r.files.map((f) => ({ name: f.name, size: f.size, path: f.path })));
  }

  return (
    <div
      className={over ? 'drop-zone over' : 'drop-zone'}
      data-testid="drop-zone"
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        if (e.dataTransfer.files.length) void add(fromFiles(e.dataTransfer.files));
      }}
    >
      <Icon name="uploads" size={28} />
      <p>Drop files here to upload them to the project</p>
      <button type="button" className="primary" onClick={() => void pick()}>
        Choose files…
      </button>
      <input
        ref={input}
        type="file"
        multiple
        hidden
        aria-label="Files to upload"
        onChange={(e) => {
          if (e.target.files?.length) void add(fromFiles(e.target.files));
          e.target.value = '';
        }}
      />
    </div>
  );
}

/** This session's uploads: a progress bar each, then the result (Markdown to copy) or the API's error. */
function UploadQueue(): React.JSX.Element | null {
  const { queue, clearFinished } = useUploads();
  if (queue.length === 0) return null;
  return (
    <section className="upload-queue" aria-label="Upload progress">
      <ul className="plain-list">
        {queue.map((q) => (
          <li key={q.key} data-testid="queued-upload">
            <span className="mono queue-name">{q.name}</span>
            <progress max={Math.max(q.size, 1)} value={q.state === 'done' ? q.size : q.done} aria-label={`Upload of ${q.name}`} />
            <span className="muted nowrap">
              {formatBytes(q.state === 'done' ? q.size : q.done)} / {formatBytes(q.size)}
            </span>
            {q.state === 'uploading' && <span className="muted">uploading…</span>}
            {q.state === 'failed' && (
              <span className="error-note" role="alert">
                {q.error}
              </span>
            )}
            {q.link && (
              <>
                <code className="queue-markdown">{q.link.markdown}</code>
                <button type="button" aria-label={`Copy Markdown for ${q.name}`} onClick={() => void runAction(() => copyText(q.link!.markdown), `Copied the Markdown for ${q.name}`)}>
                  <Icon name="copy" size={14} /> Markdown
                </button>
              </>
            )}
          </li>
        ))}
      </ul>
      <button type="button" onClick={clearFinished}>
        Clear finished
      </button>
    </section>
  );
}

/** A thumbnail for images (fetched through the API: the window loads nothing by URL). */
function Preview({ row }: { row: UploadRow }): React.JSX.Element | null {
  const src = useUploads((s) => s.previews[row.id]);
  const preview = useUploads((s) => s.preview);
  useEffect(() => {
    if (isImage(row.filename) && row.size <= 5 * 1024 * 1024) void preview(row).catch(() => {});
  }, [row, preview]);
  if (!isImage(row.filename)) return <Icon name="file" size={20} />;
  return src ? <img className="thumb" src={src} alt={`Preview of ${row.filename}`} /> : <span className="thumb placeholder" aria-hidden="true" />;
}
