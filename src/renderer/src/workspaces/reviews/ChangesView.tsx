import { Fragment, useMemo, useState } from 'react';
import { diffLines, type DiffLine } from '../../../../shared/diff-lines';
import { Form } from '../../components/Form';
import { Icon } from '../../components/Icon';
import { MOD_LABEL } from '../../lib/keys';
import { runAction, runStep } from '../../stores/notices';
import { lineCode, lineOfPosition, useReviews, type Discussion, type DraftNote, type FileDiff, type LineRef } from '../../stores/reviews';
import { DraftItem, Thread } from './ReviewNotes';

/** The merge request's changes: every file's hunks with line numbers; a click on a line starts a comment there. */
export function ChangesView({ files, threads }: { files: FileDiff[]; threads: Discussion[] }): React.JSX.Element {
  const totals = useMemo(() => files.map((f) => count(diffLines(f.diff))), [files]);
  const added = totals.reduce((n, t) => n + t.added, 0);
  const removed = totals.reduce((n, t) => n + t.removed, 0);
  return (
    <div className="changes">
      <p className="muted changes-summary">
        {files.length} file{files.length === 1 ? '' : 's'} changed, <span className="added">+{added}</span> <span className="removed">−{removed}</span>. Click a line number to comment on that line.
      </p>
      {files.map((f) => (
        <FileChanges key={`${f.old_path}\0${f.new_path}`} file={f} threads={threads} />
      ))}
    </div>
  );
}

function count(lines: DiffLine[]): { added: number; removed: number } {
  return { added: lines.filter((l) => l.type === 'new').length, removed: lines.filter((l) => l.type === 'old').length };
}

/** Where on a line a comment is being written. */
interface OpenLine {
  index: number;
  ref: LineRef;
}

function FileChanges({ file, threads }: { file: FileDiff; threads: Discussion[] }): React.JSX.Element {
  const { mr, drafts } = useReviews();
  const [open, setOpen] = useState(true);
  const [writing, setWriting] = useState<OpenLine | null>(null);
  const lines = useMemo(() => diffLines(file.diff), [file.diff]);
  const { added, removed } = count(lines);
  const headSha = mr?.diff_refs?.head_sha;

  // Threads and drafts on this file's lines, by line index.
  const placed = useMemo(() => {
    const at = new Map<number, { threads: Discussion[]; drafts: DraftNote[] }>();
    const slot = (l: DiffLine | undefined) => {
      if (!l) return undefined;
      const i = lines.indexOf(l);
      if (!at.has(i)) at.set(i, { threads: [], drafts: [] });
      return at.get(i)!;
    };
    for (const t of threads) slot(lineOfPosition(t.notes[0]?.position, file, lines, headSha))?.threads.push(t);
    for (const d of drafts) if (!d.discussion_id) slot(lineOfPosition(d.position, file, lines, headSha))?.drafts.push(d);
    return at;
  }, [threads, drafts, file, lines, headSha]);

  async function start(index: number, l: DiffLine): Promise<void> {
    const oldLine = l.type === 'new' ? null : l.oldPos;
    const newLine = l.type === 'old' ? null : l.newPos;
    const code = await lineCode(file.new_path, l.oldPos, l.newPos);
    setWriting({ index, ref: { path: file.new_path, oldPath: file.old_path, oldLine, newLine, lineCode: code, lineType: l.type === 'context' ? null : (l.type as 'new' | 'old') } });
  }

  const title = file.renamed_file ? `${file.old_path} → ${file.new_path}` : file.new_path;
  const binary = /^Binary files /.test(file.diff);
  return (
    <section className="file-changes" aria-label={`Changes to ${file.new_path}`}>
      <header className="file-changes-head">
        <button type="button" className="icon-button" aria-expanded={open} aria-label={open ? `Collapse ${file.new_path}` : `Expand ${file.new_path}`} onClick={() => setOpen(!open)}>
          <span className={open ? 'chevron open' : 'chevron'} aria-hidden="true">
            ›
          </span>
        </button>
        <Icon name="file" />
        <code className="file-changes-path">{title}</code>
        {file.new_file && <span className="badge opened">new file</span>}
        {file.deleted_file && <span className="badge closed">deleted</span>}
        {file.renamed_file && <span className="badge">renamed</span>}
        {file.a_mode !== file.b_mode && !file.new_file && !file.deleted_file && (
          <span className="badge">
            mode {file.a_mode} → {file.b_mode}
          </span>
        )}
        <span className="spacer" />
        <span className="added">+{added}</span>
        <span className="removed">−{removed}</span>
      </header>
      {open &&
        (binary ? (
          <p className="muted file-changes-note">Binary file: no lines to show.</p>
        ) : file.too_large || file.collapsed ? (
          <p className="muted file-changes-note">This file&apos;s diff is too large to show.</p>
        ) : lines.length === 0 ? (
          <p className="muted file-changes-note">{file.renamed_file ? 'Renamed without changes.' : 'No line changes (mode only).'}</p>
        ) : (
          <table className="diff-table" aria-label={`Diff of ${file.new_path}`}>
            <tbody>
              {lines.map((l, i) => {
                const notes = placed.get(i);
                return (
                  <Fragment key={i}>
                    <DiffRow line={l} path={file.new_path} onComment={() => void start(i, l)} />
                    {notes && (
                      <tr className="line-notes">
                        <td colSpan={4}>
                          {notes.threads.map((t) => (
                            <Thread key={t.id} discussion={t} placed />
                          ))}
                          {notes.drafts.map((d) => (
                            <DraftItem key={d.id} draft={d} placed />
                          ))}
                        </td>
                      </tr>
                    )}
                    {writing?.index === i && (
                      <tr className="line-notes">
                        <td colSpan={4}>
                          <LineCommentForm line={writing.ref} onDone={() => setWriting(null)} />
                        </td>
                      </tr>
                    )}
                  </Fragment>
                );
              })}
            </tbody>
          </table>
        ))}
    </section>
  );
}

function DiffRow({ line, path, onComment }: { line: DiffLine; path: string; onComment: () => void }): React.JSX.Element {
  if (line.type === 'match' || line.type === 'nonewline') {
    return (
      <tr className={`diff-line ${line.type}`}>
        <td className="ln" />
        <td className="ln" />
        <td className="gutter" />
        <td className="code">{line.text}</td>
      </tr>
    );
  }
  const label = line.type === 'old' ? `Comment on ${path} old line ${line.oldPos}` : `Comment on ${path} line ${line.newPos}`;
  return (
    <tr className={`diff-line ${line.type}`}>
      <td className="ln" onClick={onComment}>
        {line.type === 'new' ? '' : line.oldPos}
      </td>
      <td className="ln" onClick={onComment}>
        {line.type === 'old' ? '' : line.newPos}
      </td>
      <td className="gutter">
        <button type="button" className="line-comment" aria-label={label} title={label} onClick={onComment}>
          <Icon name="plus" size={12} />
        </button>
      </td>
      <td className="code">
        <span className="sign" aria-hidden="true">
          {line.text[0] ?? ' '}
        </span>
        {line.text.slice(1)}
      </td>
    </tr>
  );
}

/** A comment on one diff line: into the pending review (the default), or published at once. */
function LineCommentForm({ line, onDone }: { line: LineRef; onDone: () => void }): React.JSX.Element {
  const { addDraft, commentNow } = useReviews();
  const [note, setNote] = useState('');
  const where = line.newLine === null ? `old line ${line.oldLine}` : `line ${line.newLine}`;
  return (
    <Form
      className="line-comment-form"
      aria-label={`Comment on ${line.path} ${where}`}
      onSubmit={() => void runAction(() => addDraft({ note, position: line }), 'Added to the review').then((r) => r && onDone())}
    >
      <textarea
        aria-label="Line comment"
        rows={3}
        autoFocus
        placeholder={`Comment on ${where} (Markdown)`}
        value={note}
        onChange={(e) => setNote(e.target.value)}
        onKeyDown={(e) => e.key === 'Escape' && onDone()}
      />
      <div className="toolbar">
        <button type="submit" className="primary" disabled={!note.trim()} title={`${MOD_LABEL}Enter`}>
          Add to review
        </button>
        <button type="button" disabled={!note.trim()} onClick={() => void runStep(() => commentNow(note, line), 'Comment published').then((ok) => ok && onDone())}>
          Comment now
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </Form>
  );
}
