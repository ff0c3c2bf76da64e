import { useEffect, useMemo, useState } from 'react';
import { useStore } from 'zustand';
import { createColumnHelper } from '@tanstack/react-table';
import { DataTable } from '../../components/DataTable';
import { DiffView } from '../../components/DiffView';
import { ErrorNote } from '../../components/ErrorNote';
import { errorText, formatDate } from '../../lib/format';
import { compareRevisions, readSnippetFile, revisionList, useSnippets, type FileChange, type SnippetRevision } from '../../stores/snippets';

const col = createColumnHelper<SnippetRevision>();

/** The snippet's revisions: read any of them, and see what changed between two. */
export function SnippetRevisions(): React.JSX.Element {
  const list = useStore(revisionList);
  const selected = useSnippets((s) => s.selected);
  const [viewing, setViewing] = useState<SnippetRevision | null>(null);
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [changes, setChanges] = useState<FileChange[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  // Default comparison: the previous revision against the newest.
  useEffect(() => {
    if (list.rows.length >= 2 && list.page === 1) {
      setTo(list.rows[0].id);
      setFrom(list.rows[1].id);
    }
  }, [list.rows, list.page]);

  const columns = useMemo(
    () => [
      col.accessor('short_id', { header: 'Revision', cell: (c) => <code>{c.getValue()}</code> }),
      col.accessor('message', { header: 'Message' }),
      col.accessor('files', { header: 'Files', cell: (c) => c.getValue().length }),
      col.accessor('created_at', { header: 'Saved', cell: (c) => <span className="nowrap">{formatDate(c.getValue())}</span> }),
      col.display({
        id: 'view',
        header: () => <span className="visually-hidden">Actions</span>,
        cell: (c) => (
          <button type="button" aria-label={`Read revision ${c.row.original.short_id}`} onClick={() => setViewing(c.row.original)}>
            Read
          </button>
        ),
      }),
    ],
    [],
  );

  async function compare(): Promise<void> {
    const a = list.rows.find((r) => r.id === from);
    const b = list.rows.find((r) => r.id === to);
    if (!selected || !a || !b) return;
    setError(null);
    try {
      setChanges(await compareRevisions(selected, a, b));
    } catch (err) {
      setError(errorText(err));
    }
  }

  const label = (r: SnippetRevision): string => `${r.short_id} · ${r.message}`;
  return (
    <section className="revisions" aria-labelledby="revisions-title">
      <h3 id="revisions-title">Revisions</h3>
      <DataTable list={list} columns={columns} label="Revisions" empty="No revisions." rowKey={(r) => r.id} testId="revisions-table" />
      {viewing && selected && <RevisionFiles revision={viewing} onClose={() => setViewing(null)} />}
      {list.rows.length >= 2 && (
        <div className="toolbar compare-bar">
          <label htmlFor="compare-from">Compare</label>
          <select id="compare-from" value={from} onChange={(e) => setFrom(e.target.value)}>
            {list.rows.map((r) => (
              <option key={r.id} value={r.id}>
                {label(r)}
              </option>
            ))}
          </select>
          <label htmlFor="compare-to">with</label>
          <select id="compare-to" value={to} onChange={(e) => setTo(e.target.value)}>
            {list.rows.map((r) => (
              <option key={r.id} value={r.id}>
                {label(r)}
              </option>
            ))}
          </select>
          <button type="button" onClick={() => void compare()} disabled={from === to}>
            Show changes
          </button>
        </div>
      )}
      <ErrorNote message={error} />
      {changes && (
        <div className="changes" aria-label="Changes between the revisions" role="region">
          {changes.map((c) => (
            <div key={c.path} className="change">
              <div className="change-head">
                <code>{c.path}</code> <span className={`badge ${changeKind(c)}`}>{changeKind(c)}</span>
              </div>
              {changeKind(c) !== 'unchanged' && <DiffView before={c.before ?? ''} after={c.after ?? ''} filename={c.path} label={`Changes in ${c.path}`} />}
            </div>
          ))}
        </div>
      )}
    </section>
  );
}

function changeKind(c: FileChange): 'added' | 'removed' | 'changed' | 'unchanged' {
  if (c.before === null) return 'added';
  if (c.after === null) return 'removed';
  return c.before === c.after ? 'unchanged' : 'changed';
}

/** Every file of one revision, as it was saved then. */
function RevisionFiles({ revision, onClose }: { revision: SnippetRevision; onClose: () => void }): React.JSX.Element {
  const selected = useSnippets((s) => s.selected)!;
  const [files, setFiles] = useState<{ path: string; text: string }[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let stale = false;
    setFiles(null);
    Promise.all(revision.files.map(async (f) => ({ path: f.path, text: await readSnippetFile(selected, revision.id, f.path) }))).then(
      (r) => !stale && setFiles(r),
      (e) => !stale && setError(errorText(e)),
    );
    return () => {
      stale = true;
    };
  }, [revision, selected]);
  return (
    <section className="revision-files" aria-label={`Revision ${revision.short_id}`}>
      <div className="toolbar">
        <strong>
          Revision <code>{revision.short_id}</code>
        </strong>
        <span className="muted">
          {revision.message} · {formatDate(revision.created_at)}
        </span>
        <span className="spacer" />
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      <ErrorNote message={error} />
      {files?.map((f) => (
        <div key={f.path} className="revision-file">
          <div className="change-head">
            <code>{f.path}</code>
          </div>
          <pre aria-label={`${f.path} at ${revision.short_id}`}>{f.text}</pre>
        </div>
      ))}
    </section>
  );
}
