import { useEffect, useMemo, useState } from 'react';
import { useStore } from 'zustand';
import { createColumnHelper } from '@tanstack/react-table';
import { diffLines } from '../../../../shared/diff-lines';
import { DataTable } from '../../components/DataTable';
import { ErrorNote } from '../../components/ErrorNote';
import { Form } from '../../components/Form';
import { Icon } from '../../components/Icon';
import { Markdown } from '../../components/Markdown';
import { formatDate } from '../../lib/format';
import { MOD_LABEL } from '../../lib/keys';
import { runAction } from '../../stores/notices';
import { useProject } from '../../stores/project';
import { lineOfPosition, mergeRequestList, useReviews, type MergeRequest } from '../../stores/reviews';
import { NoProject } from '../snippets/SnippetsWorkspace';
import { ChangesView } from './ChangesView';
import { DraftItem, Thread } from './ReviewNotes';

const col = createColumnHelper<MergeRequest>();

/** Reviews: pick a merge request, read its discussions, draft a review and submit it at once. */
export function ReviewsWorkspace(): React.JSX.Element {
  const list = useStore(mergeRequestList);
  const project = useProject((s) => s.project);
  const { state, setState, mr, open } = useReviews();

  useEffect(() => {
    void mergeRequestList.getState().setPage(1);
  }, [project?.id]);

  // With a merge request open the list narrows (its diff needs the room): the author shows in the review.
  const narrow = mr !== null;
  const columns = useMemo(
    () => [
      col.accessor('iid', { header: '!', cell: (c) => <span className="muted">!{c.getValue()}</span> }),
      col.accessor('title', { header: 'Title', enableSorting: true, cell: (c) => <strong>{c.getValue()}</strong> }),
      ...(narrow ? [] : [col.accessor('author', { header: 'Author', cell: (c) => c.getValue().name })]),
      col.accessor('updated_at', { header: 'Updated', enableSorting: true, cell: (c) => <span className={narrow ? undefined : 'nowrap'}>{formatDate(c.getValue())}</span> }),
    ],
    [narrow],
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
        <div className={narrow ? 'split focus' : 'split'}>
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

type ReviewTab = 'overview' | 'changes';

function Review(): React.JSX.Element {
  const { mr, discussions, drafts, changes, loading, close, submitReview } = useReviews();
  const project = useProject((s) => s.project);
  const [tab, setTab] = useState<ReviewTab>('overview');
  if (!mr) return <></>;
  const threads = discussions.filter((d) => d.notes.some((n) => !n.system));
  const files = changes.state === 'ready' ? changes.files : [];
  // Threads and drafts on a line of the current diff show there; the rest stay in the overview.
  const onDiff = (p: Parameters<typeof lineOfPosition>[0]) => files.some((f) => lineOfPosition(p, f, diffLines(f.diff), mr.diff_refs?.head_sha));
  const overviewThreads = threads.filter((t) => !onDiff(t.notes[0]?.position));
  const overviewDrafts = drafts.filter((d) => d.discussion_id || !onDiff(d.position));
  const tabs: { id: ReviewTab; label: string; count: number | null }[] = [
    { id: 'overview', label: 'Overview', count: null },
    { id: 'changes', label: 'Changes', count: changes.state === 'ready' ? files.length : null },
  ];
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

      <div className="pending-review review-bar" role="region" aria-labelledby="pending-title">
        <div className="editor-head">
          <h3 id="pending-title">
            Pending review <span className="count" data-testid="draft-count" aria-label={`${drafts.length} pending`}>{drafts.length}</span>
          </h3>
          <span className="muted">Only you see drafts until you submit.</span>
          <span className="spacer" />
          <button type="button" className="primary" disabled={drafts.length === 0} onClick={() => void runAction(submitReview, (n) => `Review submitted: ${n} comment${n === 1 ? '' : 's'} published`)}>
            Submit review
          </button>
        </div>
      </div>

      <div className="review-tabs" role="tablist" aria-label="Merge request">
        {tabs.map((t) => (
          <button key={t.id} type="button" role="tab" id={`review-tab-${t.id}`} aria-selected={tab === t.id} aria-controls={`review-panel-${t.id}`} onClick={() => setTab(t.id)}>
            {t.label}
            {t.count !== null && <span className="count">{t.count}</span>}
          </button>
        ))}
      </div>

      {tab === 'overview' ? (
        <div role="tabpanel" id="review-panel-overview" aria-labelledby="review-tab-overview">
          <section aria-label="Description" className="description">
            {mr.description ? <Markdown text={mr.description} project={project?.path_with_namespace} /> : <p className="muted">No description.</p>}
          </section>
          <section aria-labelledby="drafts-title">
            <h3 id="drafts-title">Your comments</h3>
            {overviewDrafts.map((d) => (
              <DraftItem key={d.id} draft={d} />
            ))}
            {drafts.length > overviewDrafts.length && (
              <p className="muted">
                {drafts.length - overviewDrafts.length} more on lines of the{' '}
                <button type="button" className="link" onClick={() => setTab('changes')}>
                  changes
                </button>
                .
              </p>
            )}
            <NewDraftForm typedPosition={changes.state !== 'ready'} />
          </section>
          <section aria-labelledby="discussions-title">
            <h3 id="discussions-title">Discussions</h3>
            {loading && <p className="muted">Loading…</p>}
            {!loading && threads.length === 0 && <p className="muted">No comments yet.</p>}
            {overviewThreads.map((d) => (
              <Thread key={d.id} discussion={d} />
            ))}
            {threads.length > overviewThreads.length && (
              <p className="muted">
                {threads.length - overviewThreads.length} thread{threads.length - overviewThreads.length === 1 ? '' : 's'} on lines of the{' '}
                <button type="button" className="link" onClick={() => setTab('changes')}>
                  changes
                </button>
                .
              </p>
            )}
          </section>
        </div>
      ) : (
        <div role="tabpanel" id="review-panel-changes" aria-labelledby="review-tab-changes">
          {changes.state === 'loading' && <p className="muted">Loading the changes…</p>}
          {changes.state === 'none' && <p className="empty-state">{changes.why}</p>}
          {changes.state === 'error' && <ErrorNote message={changes.message} />}
          {changes.state === 'ready' && <ChangesView files={changes.files} threads={threads} />}
        </div>
      )}
    </div>
  );
}

/** A comment for the review: general, or (when there is no diff to click on) on a file line typed in. */
function NewDraftForm({ typedPosition }: { typedPosition: boolean }): React.JSX.Element {
  const addDraft = useReviews((s) => s.addDraft);
  const project = useProject((s) => s.project);
  const [note, setNote] = useState('');
  const [preview, setPreview] = useState(false);
  const [path, setPath] = useState('');
  const [oldLine, setOldLine] = useState('');
  const [newLine, setNewLine] = useState('');
  const toLine = (s: string): number | null => (s.trim() === '' ? null : Number(s));

  async function submit(): Promise<void> {
    const position = typedPosition && path.trim() ? { path: path.trim(), oldLine: toLine(oldLine), newLine: toLine(newLine) } : undefined;
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
      {typedPosition && (
        <fieldset className="position-fields">
          <legend>On a file line (optional)</legend>
          <label htmlFor="draft-path">File path</label>
          <input id="draft-path" className="mono" placeholder="src/app.ts" value={path} onChange={(e) => setPath(e.target.value)} />
          <label htmlFor="draft-old-line">Old line</label>
          <input id="draft-old-line" inputMode="numeric" value={oldLine} onChange={(e) => setOldLine(e.target.value)} />
          <label htmlFor="draft-new-line">New line</label>
          <input id="draft-new-line" inputMode="numeric" value={newLine} onChange={(e) => setNewLine(e.target.value)} />
        </fieldset>
      )}
      <button type="submit" className="primary" disabled={!note.trim()} title={`${MOD_LABEL}Enter`}>
        Add to review
      </button>
    </Form>
  );
}

