import { useEffect, useMemo, useState } from 'react';
import { useStore } from 'zustand';
import { createColumnHelper } from '@tanstack/react-table';
import { ConfirmButton } from '../../components/ConfirmButton';
import { DataTable } from '../../components/DataTable';
import { Form } from '../../components/Form';
import { Icon } from '../../components/Icon';
import { Markdown } from '../../components/Markdown';
import { formatDate } from '../../lib/format';
import { MOD_LABEL } from '../../lib/keys';
import { runAction, runStep } from '../../stores/notices';
import { useProject } from '../../stores/project';
import { mergeRequestList, positionLabel, useReviews, type Discussion, type DraftNote, type MergeRequest } from '../../stores/reviews';
import { NoProject } from '../snippets/SnippetsWorkspace';

const col = createColumnHelper<MergeRequest>();

/** Reviews: pick a merge request, read its discussions, draft a review and submit it at once. */
export function ReviewsWorkspace(): React.JSX.Element {
  const list = useStore(mergeRequestList);
  const project = useProject((s) => s.project);
  const { state, setState, mr, open } = useReviews();

  useEffect(() => {
    void mergeRequestList.getState().setPage(1);
  }, [project?.id]);

  const columns = useMemo(
    () => [
      col.accessor('iid', { header: '!', cell: (c) => <span className="muted">!{c.getValue()}</span> }),
      col.accessor('title', { header: 'Title', enableSorting: true, cell: (c) => <strong>{c.getValue()}</strong> }),
      col.accessor('author', { header: 'Author', cell: (c) => c.getValue().name }),
      col.accessor('updated_at', { header: 'Updated', enableSorting: true, cell: (c) => <span className="nowrap">{formatDate(c.getValue())}</span> }),
    ],
    [],
  );

  return (
    <section className="workspace-body wide" aria-labelledby="reviews-title">
      <header className="workspace-header">
        <h1 id="reviews-title">Reviews</h1>
        {project && <span className="muted">{project.path_with_namespace}</span>}
      </header>
      {!project ? (
        <NoProject what="its merge requests" />
      ) : (
        <div className="split">
          <div className="split-list">
            <DataTable
              list={list}
              columns={columns}
              label="Merge requests"
              filterLabel="Search merge requests"
              empty="No merge requests here."
              rowKey={(m) => String(m.id)}
              onRowClick={(m) => void open(m)}
              selectedKey={mr ? String(mr.id) : null}
              testId="merge-requests-table"
              toolbar={
                <select aria-label="State" value={state} onChange={(e) => void setState(e.target.value as typeof state)}>
                  <option value="opened">Open</option>
                  <option value="merged">Merged</option>
                  <option value="closed">Closed</option>
                  <option value="all">All</option>
                </select>
              }
            />
          </div>
          <div className="split-detail">{mr ? <Review key={mr.id} /> : <p className="empty-state">Pick a merge request to review it.</p>}</div>
        </div>
      )}
    </section>
  );
}

function Review(): React.JSX.Element {
  const { mr, discussions, drafts, loading, close, submitReview } = useReviews();
  const project = useProject((s) => s.project);
  if (!mr) return <></>;
  const threads = discussions.filter((d) => d.notes.some((n) => !n.system));
  return (
    <div className="card review">
      <div className="editor-head">
        <h2>
          {mr.title} <span className="muted">!{mr.iid}</span>
        </h2>
        <span className="spacer" />
        <button type="button" className="icon-button" aria-label="Close the merge request" onClick={close}>
          <Icon name="close" />
        </button>
      </div>
      <p className="muted">
        <span className={`badge ${mr.state}`}>{mr.state}</span> {mr.author.name} wants to merge <code>{mr.source_branch}</code> into <code>{mr.target_branch}</code>
      </p>
      <section aria-label="Description" className="description">
        {mr.description ? <Markdown text={mr.description} project={project?.path_with_namespace} /> : <p className="muted">No description.</p>}
      </section>

      <section className="pending-review" aria-labelledby="pending-title">
        <div className="editor-head">
          <h3 id="pending-title">
            Pending review <span className="count" data-testid="draft-count" aria-label={`${drafts.length} pending`}>{drafts.length}</span>
          </h3>
          <span className="spacer" />
          <button type="button" className="primary" disabled={drafts.length === 0} onClick={() => void runAction(submitReview, (n) => `Review submitted: ${n} comment${n === 1 ? '' : 's'} published`)}>
            Submit review
          </button>
        </div>
        {drafts.length === 0 ? <p className="muted">No drafts. Comments you add to the review wait here until you submit it.</p> : drafts.map((d) => <DraftItem key={d.id} draft={d} />)}
        <NewDraftForm />
      </section>

      <section aria-labelledby="discussions-title">
        <h3 id="discussions-title">Discussions</h3>
        {loading && <p className="muted">Loading…</p>}
        {!loading && threads.length === 0 && <p className="muted">No comments yet.</p>}
        {threads.map((d) => (
          <Thread key={d.id} discussion={d} />
        ))}
      </section>
    </div>
  );
}

function DraftItem({ draft }: { draft: DraftNote }): React.JSX.Element {
  const { updateDraft, deleteDraft, publishDraft } = useReviews();
  const project = useProject((s) => s.project);
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(draft.note);
  const where = positionLabel(draft.position);
  return (
    <article className="draft" aria-label={`Draft: ${draft.note.slice(0, 40)}`} data-testid="draft">
      <div className="note-head">
        <span className="badge pending">draft</span>
        {where && <code className="position">{where}</code>}
        {draft.discussion_id && <span className="muted">reply to a thread</span>}
        <span className="spacer" />
        {!editing && (
          <>
            <button type="button" onClick={() => setEditing(true)}>
              Edit
            </button>
            <button type="button" onClick={() => void runAction(() => publishDraft(draft.id), 'Published the comment')}>
              Publish now
            </button>
            <ConfirmButton label="Delete" question="Delete this draft?" confirmLabel="Delete draft" onConfirm={() => void runAction(() => deleteDraft(draft.id), 'Deleted the draft')} />
          </>
        )}
      </div>
      {editing ? (
        <Form
          aria-label="Edit draft"
          onSubmit={() =>
            void runStep(() => updateDraft(draft.id, text), 'Saved the draft').then((ok) => ok && setEditing(false))
          }
        >
          <textarea aria-label="Draft text" rows={3} value={text} onChange={(e) => setText(e.target.value)} />
          <div className="toolbar">
            <button type="submit" className="primary">
              Save draft
            </button>
            <button type="button" onClick={() => (setText(draft.note), setEditing(false))}>
              Cancel
            </button>
          </div>
        </Form>
      ) : (
        <Markdown text={draft.note} project={project?.path_with_namespace} />
      )}
    </article>
  );
}

/** A comment for the review: general, or on a file line typed in (no diff to click on yet). */
function NewDraftForm(): React.JSX.Element {
  const addDraft = useReviews((s) => s.addDraft);
  const project = useProject((s) => s.project);
  const [note, setNote] = useState('');
  const [preview, setPreview] = useState(false);
  const [path, setPath] = useState('');
  const [oldLine, setOldLine] = useState('');
  const [newLine, setNewLine] = useState('');
  const toLine = (s: string): number | null => (s.trim() === '' ? null : Number(s));

  async function submit(): Promise<void> {
    const position = path.trim() ? { path: path.trim(), oldLine: toLine(oldLine), newLine: toLine(newLine) } : undefined;
    const made = await runAction(() => addDraft({ note, position }), 'Added to the review');
    if (made) {
      setNote('');
      setPreview(false);
    }
  }

  return (
    <Form className="new-draft" aria-label="New review comment" onSubmit={() => void submit()}>
      <div className="toolbar tabs-inline" role="group" aria-label="Write or preview">
        <button type="button" aria-pressed={!preview} onClick={() => setPreview(false)}>
          Write
        </button>
        <button type="button" aria-pressed={preview} disabled={!note.trim()} onClick={() => setPreview(true)}>
          Preview
        </button>
      </div>
      {preview ? (
        <div className="preview" aria-label="Preview">
          <Markdown text={note} project={project?.path_with_namespace} />
        </div>
      ) : (
        <textarea aria-label="Comment" rows={3} placeholder="Markdown: **bold**, `code`, - [ ] task, @user, #1" value={note} onChange={(e) => setNote(e.target.value)} />
      )}
      <fieldset className="position-fields">
        <legend>On a file line (optional)</legend>
        <label htmlFor="draft-path">File path</label>
        <input id="draft-path" className="mono" placeholder="src/app.ts" value={path} onChange={(e) => setPath(e.target.value)} />
        <label htmlFor="draft-old-line">Old line</label>
        <input id="draft-old-line" inputMode="numeric" value={oldLine} onChange={(e) => setOldLine(e.target.value)} />
        <label htmlFor="draft-new-line">New line</label>
        <input id="draft-new-line" inputMode="numeric" value={newLine} onChange={(e) => setNewLine(e.target.value)} />
      </fieldset>
      <button type="submit" className="primary" disabled={!note.trim()} title={`${MOD_LABEL}Enter`}>
        Add to review
      </button>
    </Form>
  );
}

function Thread({ discussion }: { discussion: Discussion }): React.JSX.Element {
  const { reply, resolve, addDraft } = useReviews();
  const project = useProject((s) => s.project);
  const [text, setText] = useState('');
  const notes = discussion.notes.filter((n) => !n.system);
  const resolvable = notes.some((n) => n.resolvable);
  const resolved = resolvable && notes.every((n) => !n.resolvable || n.resolved);
  const where = positionLabel(notes[0]?.position);
  return (
    <article className={resolved ? 'thread resolved' : 'thread'} aria-label={`Thread by ${notes[0]?.author.name ?? 'someone'}`} data-testid="thread">
      {where && (
        <div className="note-head">
          <code className="position">{where}</code>
        </div>
      )}
      {notes.map((n) => (
        <div className="note" key={n.id}>
          <div className="note-head">
            <strong>{n.author.name}</strong>
            <span className="muted">@{n.author.username}</span>
            <span className="muted">{formatDate(n.created_at)}</span>
          </div>
          <Markdown text={n.body} project={project?.path_with_namespace} />
        </div>
      ))}
      <Form className="reply" aria-label="Reply" onSubmit={() => void runStep(() => reply(discussion.id, text), 'Replied').then((ok) => ok && setText(''))}>
        <textarea aria-label="Reply" rows={1} placeholder="Reply…" value={text} onChange={(e) => setText(e.target.value)} />
        <div className="toolbar">
          <button type="submit" disabled={!text.trim()}>
            Reply now
          </button>
          <button type="button" disabled={!text.trim()} onClick={() => void runAction(() => addDraft({ note: text, inReplyTo: discussion.id }), 'Reply added to the review').then((r) => r && setText(''))}>
            Add reply to review
          </button>
          <span className="spacer" />
          {resolvable && (
            <button type="button" onClick={() => void runAction(() => resolve(discussion.id, !resolved), resolved ? 'Thread reopened' : 'Thread resolved')}>
              {resolved ? 'Unresolve thread' : 'Resolve thread'}
            </button>
          )}
        </div>
      </Form>
    </article>
  );
}
