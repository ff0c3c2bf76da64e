import { useState } from 'react';
import { CodeEditor } from '../../components/CodeEditor';
import { ConfirmButton } from '../../components/ConfirmButton';
import { CopyButton } from '../../components/CopyButton';
import { Form } from '../../components/Form';
import { Icon } from '../../components/Icon';
import { errorText } from '../../lib/format';
import { MOD_LABEL } from '../../lib/keys';
import { runAction } from '../../stores/notices';
import { readSnippetFile, useSnippets } from '../../stores/snippets';
import { SnippetRevisions } from './SnippetRevisions';

/** The open snippet: title, description, visibility, its files in tabs, save, raw view, delete, revisions. */
export function SnippetEditor(): React.JSX.Element {
  const { draft, selected, opening, edit, editFile, addFile, removeFile, save, remove, close } = useSnippets();
  const [raw, setRaw] = useState<{ path: string; text: string } | null>(null);
  if (!draft) return <></>;
  const active = draft.files.find((f) => f.key === draft.active) ?? draft.files[0];
  const isNew = draft.id === null;

  async function showRaw(): Promise<void> {
    if (!selected || !active?.originalPath) return;
    try {
      setRaw({ path: active.originalPath, text: await readSnippetFile(selected, 'main', active.originalPath) });
    } catch (err) {
      setRaw({ path: active.originalPath, text: errorText(err) });
    }
  }

  return (
    <div className="card snippet-editor">
      <Form aria-label="Snippet editor" onSubmit={() => void runAction(save, (s) => `Saved snippet “${s.title}”`)}>
        <div className="editor-head">
          <h2>{isNew ? 'New snippet' : `Snippet $${draft.id}`}</h2>
          {opening && <span className="muted">Loading…</span>}
          <span className="spacer" />
          <button type="button" className="icon-button" aria-label="Close the editor" onClick={close}>
            <Icon name="close" />
          </button>
        </div>
        <div className="form-grid">
          <label htmlFor="snippet-title">Title</label>
          <input id="snippet-title" value={draft.title} onChange={(e) => edit({ title: e.target.value })} />
          <label htmlFor="snippet-description">Description</label>
          <textarea id="snippet-description" rows={2} value={draft.description} onChange={(e) => edit({ description: e.target.value })} />
          <label htmlFor="snippet-visibility">Visibility</label>
          <select id="snippet-visibility" value={draft.visibility} onChange={(e) => edit({ visibility: e.target.value as typeof draft.visibility })}>
            <option value="private">private</option>
            <option value="internal">internal</option>
            <option value="public">public</option>
          </select>
        </div>
        <div className="file-tabs" role="tablist" aria-label="Files">
          {draft.files.map((f, i) => (
            <button
              key={f.key}
              type="button"
              role="tab"
              id={`tab-${f.key}`}
              aria-selected={f.key === active?.key}
              aria-controls="snippet-file-panel"
              className={f.key === active?.key ? 'file-tab active' : 'file-tab'}
              onClick={() => edit({ active: f.key })}
            >
              <Icon name="file" size={14} />
              {f.path || `untitled ${i + 1}`}
              {f.originalPath !== null && (f.content !== f.originalContent || f.path !== f.originalPath) && <span aria-label="changed"> •</span>}
            </button>
          ))}
          <button type="button" className="file-tab add" onClick={addFile}>
            <Icon name="plus" size={14} /> Add file
          </button>
        </div>
        {active && (
          <div className="file-panel" role="tabpanel" id="snippet-file-panel" aria-labelledby={`tab-${active.key}`}>
            <div className="toolbar file-bar">
              <label htmlFor="snippet-file-name">File name</label>
              <input id="snippet-file-name" className="mono" placeholder="example.ts" value={active.path} onChange={(e) => editFile(active.key, { path: e.target.value })} />
              {draft.files.length > 1 && (
                <button type="button" onClick={() => removeFile(active.key)}>
                  Remove file
                </button>
              )}
            </div>
            <CodeEditor key={active.key} value={active.content} filename={active.path} label={`Content of ${active.path || 'the new file'}`} onChange={(content) => editFile(active.key, { content })} />
          </div>
        )}
        <div className="toolbar">
          <button type="submit" className="primary" title={`${MOD_LABEL}Enter`}>
            {isNew ? 'Create snippet' : 'Save changes'}
          </button>
          {!isNew && (
            <button type="button" disabled={!active?.originalPath} onClick={() => void showRaw()}>
              View raw
            </button>
          )}
          <span className="spacer" />
          {!isNew && (
            <ConfirmButton label="Delete snippet" question={`Delete “${draft.title}” and all its revisions?`} confirmLabel="Yes, delete it" onConfirm={() => void runAction(remove, `Deleted snippet “${draft.title}”`)} />
          )}
        </div>
      </Form>
      {raw && (
        <section className="raw-view" aria-label={`Raw ${raw.path}`}>
          <div className="toolbar">
            <strong className="mono">{raw.path}</strong>
            <span className="muted">raw, as saved</span>
            <span className="spacer" />
            <CopyButton text={raw.text} label={`Copy raw ${raw.path}`}>
              Copy
            </CopyButton>
            <button type="button" className="icon-button" aria-label="Close the raw view" onClick={() => setRaw(null)}>
              <Icon name="close" />
            </button>
          </div>
          <pre data-testid="raw-text">{raw.text}</pre>
        </section>
      )}
      {!isNew && <SnippetRevisions />}
    </div>
  );
}
