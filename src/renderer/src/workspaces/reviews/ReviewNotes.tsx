import { useState } from 'react';
import { ConfirmButton } from '../../components/ConfirmButton';
import { Form } from '../../components/Form';
import { Markdown } from '../../components/Markdown';
import { formatDate } from '../../lib/format';
import { runAction, runStep } from '../../stores/notices';
import { useProject } from '../../stores/project';
import { positionLabel, useReviews, type Discussion, type DraftNote } from '../../stores/reviews';

/** A draft of the pending review: edit, publish now, delete. */
export function DraftItem({ draft, placed = false }: { draft: DraftNote; placed?: boolean }): React.JSX.Element {
  const { updateDraft, deleteDraft, publishDraft } = useReviews();
  const project = useProject((s) => s.project);
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(draft.note);
  const where = placed ? null : positionLabel(draft.position);
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

/** A thread: its notes, a reply (now or in the review), resolve. `placed`: shown on its diff line, so no position label. */
export function Thread({ discussion, placed = false }: { discussion: Discussion; placed?: boolean }): React.JSX.Element {
  const { reply, resolve, addDraft } = useReviews();
  const project = useProject((s) => s.project);
  const [text, setText] = useState('');
  const notes = discussion.notes.filter((n) => !n.system);
  const resolvable = notes.some((n) => n.resolvable);
  const resolved = resolvable && notes.every((n) => !n.resolvable || n.resolved);
  const where = placed ? null : positionLabel(notes[0]?.position);
  // A diff thread left in the overview was made on an older version of the changes.
  const headSha = useReviews((s) => s.mr?.diff_refs?.head_sha);
  const outdated = where !== null && !!headSha && notes[0]?.position?.head_sha !== headSha;
  return (
    <article className={resolved ? 'thread resolved' : 'thread'} aria-label={`Thread by ${notes[0]?.author.name ?? 'someone'}`} data-testid="thread">
      {where && (
        <div className="note-head">
          <code className="position">{where}</code>
          {outdated && <span className="badge">outdated</span>}
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
